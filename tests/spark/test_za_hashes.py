"""The ``za_*`` hashes against references written here, field by field as the original chains.

The original (its ``ZeroAllocation.scala``) hashes each non-null field on its own, seeded by the
previous field's hash: 64-bit hashes carry ``h`` (from 0), 128-bit ones carry the low long of
``(lo, hi)`` (from (0, 0)). Each field's bytes are the original's feeding (ints 4 and longs 8
bytes little-endian, strings UTF-8). The expected values below come from:

* XXH64: written here from its specification, checked against published vectors;
* MurmurHash3 x64 128 with a 64-bit seed: written here byte by byte from the reference C code,
  checked against ``mmh3`` wherever ``mmh3`` can take the seed (32 bits);
* XXH3 128: the ``xxhash`` package (the reference C implementation), checked against the
  published hash of the empty input.

None of them uses quality_py's hashing code.
"""

from __future__ import annotations

import datetime as dt
import random
import struct
from decimal import Decimal
from typing import Any

import pytest

from quality_py import Id, LibraryFunctionError, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py import functions as Q
from tests.hash_references import MASK, murmur3_128, xxh64
from tests.spark.test_digest_functions import EPOCH, SCHEMA, rows

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

needs_arrow_udf = pytest.mark.skipif(
    not hasattr(__import__("pyspark.sql.functions").sql.functions, "arrow_udf"),
    reason="za_* hashes need Arrow UDFs (pyspark 4.1+)",
)


def signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def fields_fed(row: tuple[Any, ...]) -> list[bytes | None]:
    """Each field's bytes as the original feeds a zero-allocation hasher (None: null)."""
    i, n, s, b, d, t, bn = row
    micros = None
    if t is not None:
        micros = (t - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(
            microseconds=1
        )
    return [
        None if i is None else struct.pack("<i", i),
        None if n is None else struct.pack("<q", n),
        None if s is None else s.encode("utf-8"),
        None if b is None else struct.pack("<i", 1 if b else 0),
        None if d is None else struct.pack("<i", (d - EPOCH).days),
        None if micros is None else struct.pack("<q", micros),
        None if bn is None else bytes(bn),
    ]


def xxh3_128(data: bytes, seed: int) -> tuple[int, int]:
    import xxhash

    both = xxhash.xxh3_128_intdigest(data, seed & MASK)
    return both & MASK, both >> 64


def chain64(hash_of: Any, fields: list[bytes | None]) -> int:
    h = 0
    for value in fields:
        if value is not None:
            h = hash_of(value, h)
    return signed(h)


def chain128(hash_of: Any, fields: list[bytes | None]) -> list[int]:
    lo, hi = 0, 0
    for value in fields:
        if value is not None:
            lo, hi = hash_of(value, lo)
    return [signed(lo), signed(hi)]


def test_the_references_match_published_vectors_and_mmh3() -> None:
    import mmh3

    assert xxh64(b"", 0) == 0xEF46DB3751D8E999
    assert xxh64(b"a", 0) == 0xD24EC4F1A98C6E5B
    assert xxh64(b"abc", 0) == 0x44BC2CF5AD770999
    # 39 bytes: the 32-byte stripe path (python-xxhash's README example)
    assert xxh64(b"Nobody inspects the spammish repetition", 0) == 0xFBCEA83C8A378BF1
    assert xxh3_128(b"", 0) == (0x6001C324468D497F, 0x99AA06D3014798D8)
    rng = random.Random(11)
    for _ in range(300):
        data = rng.randbytes(rng.randint(0, 70))
        seed = rng.getrandbits(32)
        assert murmur3_128(data, seed) == mmh3.hash64(
            data, seed=seed, x64arch=True, signed=False
        ), (
            data,
            seed,
        )


@pytest.fixture(scope="module")
def data(spark: Any) -> Any:
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark.createDataFrame(rows(7), SCHEMA), rows(7)


@needs_arrow_udf
def test_64_bit_za_hashes_chain_the_fields(data: Any) -> None:
    df, source = data
    out = df.select(
        Q.expr("za_hash_with('XX', i, n, s, b, d, t, bin)", over=df).alias("xx"),
        Q.expr("zaHashWithStruct('xx', i, n, s, b, d, t, bin)", over=df).alias("st"),
        Q.expr("za_field_based_id('z', 'XX', i, n, s, b, d, t, bin)", over=df).alias("id"),
        Q.expr("za_hash_with('MURMUR3_64', i, n, s, b, d, t, bin)", over=df).alias("m64"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        fields = fields_fed(row)
        want = chain64(xxh64, fields)
        assert r.xx == [want] and r.st.i0 == want, row
        assert (r.id.z_base, r.id.z_i0) == (1, want)
        assert r.m64 == [chain64(lambda b, s: murmur3_128(b, s)[0], fields)], row


@needs_arrow_udf
def test_128_bit_za_hashes_chain_the_fields(data: Any) -> None:
    df, source = data
    out = df.select(
        Q.expr("za_hash_longs_with('XXH3', i, n, s, b, d, t, bin)", over=df).alias("x3"),
        Q.expr("za_hash_longs_with('MURMUR3_128', i, n, s, b, d, t, bin)", over=df).alias("m"),
        Q.expr("za_hash_longs_with_struct('MURMUR3_128', s, n)", over=df).alias("st"),
        Q.expr("za_longs_field_based_id('z', 'xxh3', i, n, s, b, d, t, bin)", over=df).alias("id"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        fields = fields_fed(row)
        xx3 = chain128(xxh3_128, fields)
        assert r.x3 == xx3, row
        assert (r.id.z_base, [r.id.z_i0, r.id.z_i1]) == (2, xx3)
        assert r.m == chain128(murmur3_128, fields), row
        assert [r.st.i0, r.st.i1] == chain128(murmur3_128, [fields[2], fields[1]])


@needs_arrow_udf
def test_a_null_field_hashes_nothing_and_an_empty_string_does(spark: Any) -> None:
    df = spark.createDataFrame([("a", None, ""), ("a", None, None)], "x string, y int, e string")
    out = df.select(
        Q.expr("za_hash_with('XX', x, y, e)", over=df).alias("h"),
        Q.expr("za_hash_with('XX', x)", over=df).alias("alone"),
    ).collect()
    assert out[1].h == out[1].alone == [signed(xxh64(b"a", 0))]
    assert out[0].h == [signed(xxh64(b"", xxh64(b"a", 0)))]


@needs_arrow_udf
def test_floating_point_fields_hash_their_java_bits(spark: Any) -> None:
    df = spark.createDataFrame([(1.5, -0.0)], "d double, z double")
    (h,) = df.select(Q.expr("za_hash_with('XX', d, z)", over=df)).first()
    one_and_a_half = struct.pack("<q", 0x3FF8000000000000)  # doubleToLongBits(1.5)
    zero = struct.pack("<q", 0)  # -0.0 is fed as 0
    assert h == [chain64(xxh64, [one_and_a_half, zero])]


@needs_arrow_udf
def test_za_ids_are_stable_across_partitionings(spark: Any) -> None:
    df = spark.range(2000).selectExpr("id", "CAST(id AS STRING) AS s")
    sql = "za_longs_field_based_id('k', 'XXH3', id, s)"
    one = {
        r.id: (r.k.k_i0, r.k.k_i1)
        for r in df.coalesce(1).select("id", Q.expr(sql, over=df).alias("k")).collect()
    }
    many = {
        r.id: (r.k.k_i0, r.k.k_i1)
        for r in df.repartition(7).select("id", Q.expr(sql, over=df).alias("k")).collect()
    }
    assert one == many and len(set(one.values())) == 2000
    want = chain128(xxh3_128, [struct.pack("<q", 1999), b"1999"])
    assert list(one[1999]) == want


@needs_arrow_udf
def test_za_ids_in_a_rule_suite(spark: Any) -> None:
    df = spark.createDataFrame([("a", 1), ("b", 2)], "s string, n bigint")
    first = chain64(xxh64, [b"a", struct.pack("<q", 1)])
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), f"za_field_based_id('k', 'XX', s, n).k_i0 = {first}")])],
    )
    out = add_data_quality(df, suite, layout="compact").collect()
    assert [r.DataQuality.overallResult for r in out] == [100000, 0]


def test_decimals_feed_their_unscaled_long(spark: Any) -> None:
    import hashlib

    values = [Decimal("12.30"), Decimal("-0.50"), None, Decimal("0.00"), Decimal("99999999.99")]
    df = spark.createDataFrame([(v,) for v in values], "m decimal(10,2)")
    out = df.select(Q.expr("digest_to_longs('MD5', m)", over=df).alias("h")).collect()
    for value, r in zip(values, out, strict=True):
        fed = b"" if value is None else struct.pack(">q", int(value * 100))
        digest = hashlib.md5(fed).digest()
        assert r.h == list(struct.unpack(">qq", digest)), value


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("za_hash_with('CITY_1_1', s)[0]", "no implementation"),
        ("za_hash_with('WY_V3', s)[0]", "no implementation"),
        ("za_hash_longs_with('XX', s)[0]", "not one of its hashes"),
        ("za_hash_with('MURMUR3_128', s)[0]", "not one of its hashes"),
        ("za_hash_with('SHA-1', s)[0]", "not one of its hashes"),
        ("za_field_based_id('p', 'XX').p_i0", "at least one field"),
        ("za_hash_with('XX', array(s))[0]", "is array<string>"),
        ("digest_to_longs('MD5', CAST(1 AS DECIMAL(20, 0)))[0]", "is decimal"),
    ],
)
def test_za_hashes_refuse_what_they_cannot_compute(spark: Any, sql: str, message: str) -> None:
    df = spark.createDataFrame([("a",)], "s string")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(9, 2), f"{sql} > 0")])])
    with pytest.raises(LibraryFunctionError, match=message) as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(9, 2)
