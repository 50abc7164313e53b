"""Bloom filters: built by a Spark aggregation, stored as a checksummed file, loaded by name.

:func:`build_bloom` sizes the filter for the number of distinct values (counted, or given) and a
false-positive rate, then sets each value's bits with one aggregation that returns one row per
64-bit word holding a set bit (at most ``bits / 64`` rows reach the driver, never the data).
The hashing is described in :mod:`quality_py.sql.library.blooms`; rules test membership with
``probability_in(value, 'name')`` or ``bloom_contains(value, 'name')``.

A stored bloom is one file: a JSON header line (shape, value type, sha256 of the payload) and the
words as big-endian longs. :func:`load_bloom` refuses a file whose checksum or shape does not
match, registers the words as a one-row view named after the bloom, and returns the
:class:`Bloom`, whose ``spec`` the rule policy takes (``policy.with_blooms(bloom.spec)``).
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quality_py.errors import ReferenceDataError
from quality_py.gate.locations import local_path, mounted_path
from quality_py.model.blooms import BloomSpec
from quality_py.sql.library.blooms import BLOOM_TYPES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MAGIC = "quality_py-bloom"


@dataclass(frozen=True)
class Bloom:
    """A bloom filter: its shape and its words (bit ``p`` is bit ``p % 64`` of word ``p // 64``)."""

    spec: BloomSpec
    words: tuple[int, ...]

    def payload(self) -> bytes:
        """The words as big-endian signed longs."""
        return struct.pack(f">{len(self.words)}q", *self.words)


def _hash_sql(m: int, k: int) -> str:
    """The positions of ``v``: the same double hashing as the membership test."""
    h1 = f"pmod(xxhash64(v), {m})"
    h2 = f"pmod(CAST(hash(v) AS BIGINT), {m})"
    return f"transform(sequence(0, {k - 1}), i -> pmod({h1} + i * {h2}, {m}))"


def build_bloom(
    df: DataFrame,
    value: str,
    name: str,
    fpp: float = 0.01,
    items: int | None = None,
) -> Bloom:
    """A bloom of the distinct non-null values of the SQL expression ``value`` over ``df``.

    ``items``: the number of distinct values to size for (counted exactly when not given: one
    more aggregation). The expression is trusted code of the caller, not rule text.

    >>> ids = spark.range(1000).selectExpr("id * 7 AS k")
    >>> bloom = build_bloom(ids, "k", "sevens", fpp=0.01)
    >>> bloom.spec.items, bloom.spec.hashes, len(bloom.words) * 64 == bloom.spec.bits
    (1000, 7, True)
    """
    from pyspark.sql import functions as F

    values = df.select(F.expr(value).alias("v")).where("v IS NOT NULL")
    value_type = values.schema.fields[0].dataType.simpleString()
    if value_type not in BLOOM_TYPES:
        raise ReferenceDataError(
            f"bloom {name!r}: values of type {value_type} cannot be hashed stably; build from "
            f"one of {', '.join(BLOOM_TYPES)} (hash or format other types first)",
            item_kind="bloom",
        )
    if items is None:
        items = int(values.agg(F.count_distinct("v")).first()[0])  # type: ignore[index]
    spec = BloomSpec.sized(name, items, fpp, value_type)
    words = (
        values.select(F.explode(F.expr(_hash_sql(spec.bits, spec.hashes))).alias("p"))
        .groupBy(F.expr("CAST(div(p, 64) AS INT)").alias("w"))
        .agg(F.expr("bit_or(shiftleft(CAST(1 AS BIGINT), CAST(pmod(p, 64) AS INT)))").alias("b"))
        .collect()
    )
    out = [0] * (spec.bits // 64)
    for row in words:
        out[row.w] = row.b
    return Bloom(spec, tuple(out))


def _filesystem(path: str) -> tuple[Any, str]:
    """pyarrow's filesystem of ``path``: this machine's for a local path or a Databricks mount
    (``dbfs:/x`` through ``/dbfs/x``), else the URI's."""
    from pyarrow import fs

    on_disk = local_path(path) or mounted_path(path)
    if on_disk is not None:
        return fs.LocalFileSystem(), str(on_disk.resolve())
    filesystem, where = fs.FileSystem.from_uri(path)
    return filesystem, str(where)


def save_bloom(bloom: Bloom, path: str) -> None:
    """Write ``bloom`` to ``path`` (local or any URI pyarrow opens), replacing it atomically."""
    payload = bloom.payload()
    spec = bloom.spec
    header = {
        "format": MAGIC,
        "version": 1,
        "name": spec.name,
        "bits": spec.bits,
        "hashes": spec.hashes,
        "fpp": spec.fpp,
        "items": spec.items,
        "value_type": spec.value_type,
        "hash": "xxhash64/murmur3-32 double hashing, Spark seeds",
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    data = json.dumps(header, sort_keys=True).encode("utf-8") + b"\n" + payload
    filesystem, where = _filesystem(path)
    temporary = f"{where}.tmp-qp"
    with filesystem.open_output_stream(temporary) as out:
        out.write(data)
    filesystem.move(temporary, where)


def read_bloom(path: str) -> Bloom:
    """The bloom stored at ``path``; refuses a damaged or foreign file."""
    filesystem, where = _filesystem(path)
    try:
        with filesystem.open_input_stream(where) as stream:
            data = stream.read()
    except (OSError, FileNotFoundError) as err:
        raise ReferenceDataError(f"bloom file {path}: {err}", item_kind="bloom") from None
    head, _, payload = data.partition(b"\n")
    header: dict[str, Any] = {}
    try:
        if len(head) < 4096 and head.count(b"[") < 64:  # a header is one flat line
            loaded = json.loads(head)
            header = loaded if isinstance(loaded, dict) else {}
    except (ValueError, RecursionError):
        header = {}
    ok = header.get("format") == MAGIC and header.get("version") == 1
    if not ok or not isinstance(header.get("sha256"), str):
        raise ReferenceDataError(f"{path} is not a quality_py bloom file", item_kind="bloom")
    if hashlib.sha256(payload).hexdigest() != header["sha256"]:
        raise ReferenceDataError(
            f"bloom file {path} is damaged: its checksum does not match", item_kind="bloom"
        )
    try:
        spec = BloomSpec(
            str(header["name"]),
            int(header["bits"]),
            int(header["hashes"]),
            float(header["fpp"]),
            str(header["value_type"]),
            int(header["items"]),
        )
    except (KeyError, TypeError, ValueError):
        raise ReferenceDataError(
            f"bloom file {path} has a malformed header", item_kind="bloom"
        ) from None
    if spec.value_type not in BLOOM_TYPES or spec.bits % 64 or len(payload) != spec.bits // 8:
        raise ReferenceDataError(f"bloom file {path} has a malformed shape", item_kind="bloom")
    words = struct.unpack(f">{spec.bits // 64}q", payload)
    return Bloom(spec, tuple(words))


def load_bloom(spark: SparkSession, path: str, name: str | None = None) -> Bloom:
    """Read a stored bloom and register its words as the one-row view ``name`` (default: the
    name it was built with); pass ``bloom.spec`` to ``RulePolicy.with_blooms``."""
    from dataclasses import replace

    bloom = read_bloom(path)
    if name is not None:
        bloom = Bloom(replace(bloom.spec, name=name), bloom.words)
    register_bloom(spark, bloom)
    return bloom


def register_bloom(spark: SparkSession, bloom: Bloom) -> None:
    """Register ``bloom``'s words as the one-row view ``bits: array<bigint>`` of its name."""
    frame = spark.createDataFrame([(list(bloom.words),)], "bits array<bigint>")
    frame.createOrReplaceTempView(bloom.spec.name)
