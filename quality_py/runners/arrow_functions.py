"""The one function we run per row in Python: 128-bit murmur3, which Spark does not have.

``murmur3_id``, ``hash_with('MURMUR3_128', ...)`` and the ``za_*`` murmur hashes feed their
fields to the hash in SQL (the bytes the original's Guava hasher takes, built with built-ins) and
call
``qp_murmur3_x64_128(bytes)``, an Arrow UDF over ``mmh3`` (MurmurHash3 x64 128, seed 0, the
algorithm of Guava's ``Hashing.murmur3_128``), or ``qp_murmur3_longs(bytes)`` for its two
64-bit halves as zero-allocation hashers return them: a whole Arrow batch per call, no pandas. It is
registered in the session (``spark.udf.register``) only when compiled SQL names it, just before
Spark analyses that SQL; rule text cannot name it (the rule policy refuses unknown functions).
Arrow UDFs exist from pyspark 4.1; on older versions the function is refused with a message.
``benchmarks/bench_ids.py`` measures its cost against MD5 ids computed by Spark.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from quality_py.errors import LibraryFunctionError
from quality_py.sql.library_digests import MURMUR3_X64_128
from quality_py.sql.library_za import MURMUR3_LONGS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["MURMUR3_LONGS", "MURMUR3_X64_128", "register_arrow_functions"]


def _murmur3_batch(data: Any) -> Any:
    """Each binary value's MurmurHash3 x64 128 as two big-endian signed longs (null for null)."""
    import struct

    import mmh3
    import pyarrow as pa

    out: list[list[int] | None] = []
    for value in data.to_pylist():
        if value is None:
            out.append(None)
            continue
        digest = mmh3.hash_bytes(bytes(value), 0, True)
        out.append(list(struct.unpack(">qq", digest)))
    return pa.array(out, type=pa.list_(pa.int64()))


def _murmur3_longs_batch(data: Any) -> Any:
    """Each binary value's MurmurHash3 x64 128 as its two 64-bit halves ``h1, h2`` (the values
    zero-allocation hashers return, ``mmh3.hash64``), null for null."""
    import mmh3
    import pyarrow as pa

    out = [
        None if value is None else list(mmh3.hash64(bytes(value), 0, True))
        for value in data.to_pylist()
    ]
    return pa.array(out, type=pa.list_(pa.int64()))


def _udf(batch: Any = _murmur3_batch) -> Any:
    from pyspark.sql import functions as F

    if not hasattr(F, "arrow_udf"):
        raise LibraryFunctionError(
            "murmur3 hashes need an Arrow function, which needs pyspark 4.1 or later",
            code="LIBRARY_ARGUMENTS",
        )
    import pyarrow as pa

    # arrow_udf reads the function's kind from its type hints (this module's are strings)
    batch.__annotations__ = {"data": pa.Array, "return": pa.Array}
    return F.arrow_udf(batch, "array<bigint>")


def register_arrow_functions(spark: SparkSession | None, sqls: Iterable[str]) -> None:
    """Register the Arrow functions that ``sqls`` call (none usually: a cheap text check)."""
    texts = [sql.lower() for sql in sqls]
    wanted = [
        (name, batch)
        for name, batch in (
            (MURMUR3_X64_128, _murmur3_batch),
            (MURMUR3_LONGS, _murmur3_longs_batch),
        )
        if any(name + "(" in text for text in texts)
    ]
    if not wanted:
        return
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
        if spark is None:
            raise LibraryFunctionError(
                "murmur3 hashes need an active SparkSession to register their Arrow function",
                code="LIBRARY_ARGUMENTS",
            )
    for name, batch in wanted:
        spark.udf.register(name, _udf(batch))
