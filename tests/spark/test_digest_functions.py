"""Digests, field-based ids and their base64 form against Python's hashlib and base64.

The bytes each field feeds are written here from the definition (Spark's hash-function feeding:
ints 4 bytes and longs 8 bytes big-endian, strings UTF-8, nulls nothing), the digest computed
by hashlib and read as big-endian signed longs, and the id's base64 built with struct and
base64, so none of the expected values comes from our SQL.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import random
import struct
from typing import Any

import pytest

from quality_py import Id, LibraryFunctionError, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py import functions as Q

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

needs_arrow_udf = pytest.mark.skipif(
    not hasattr(__import__("pyspark.sql.functions").sql.functions, "arrow_udf"),
    reason="murmur3 ids need Arrow UDFs (pyspark 4.1+)",
)
SCHEMA = "i int, n bigint, s string, b boolean, d date, t timestamp, bin binary"
EPOCH = dt.date(1970, 1, 1)


def fed(row: tuple[Any, ...], order: str = ">") -> bytes:
    """The bytes the fields feed: ints 4 bytes and longs 8, in ``order`` (">" big-endian as
    Spark's hash functions feed MessageDigest, "<" little-endian as Guava's hashers take them)."""
    i, n, s, b, d, t, bn = row
    out = b""
    out += b"" if i is None else struct.pack(f"{order}i", i)
    out += b"" if n is None else struct.pack(f"{order}q", n)
    out += b"" if s is None else s.encode("utf-8")
    out += b"" if b is None else struct.pack(f"{order}i", 1 if b else 0)
    out += b"" if d is None else struct.pack(f"{order}i", (d - EPOCH).days)
    if t is not None:
        micros = (t - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(
            microseconds=1
        )
        out += struct.pack(f"{order}q", micros)
    out += b"" if bn is None else bytes(bn)
    return out


def longs(digest: bytes) -> list[int]:
    padded = digest + b"\0" * (-len(digest) % 8)
    return [struct.unpack(">q", padded[k : k + 8])[0] for k in range(0, len(padded), 8)]


def rows(seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    out: list[tuple[Any, ...]] = []
    for _ in range(60):
        out.append(
            (
                rng.choice([None, 0, -1, 2**31 - 1, -(2**31), rng.randint(-(2**31), 2**31 - 1)]),
                rng.choice([None, 0, -1, 2**63 - 1, -(2**63), rng.getrandbits(63)]),
                rng.choice([None, "", "a", "héllo ✓", "x" * rng.randint(1, 40)]),
                rng.choice([None, True, False]),
                rng.choice([None, EPOCH, dt.date(1900, 3, 1), dt.date(2024, 2, 29)]),
                rng.choice(
                    [None, dt.datetime(2021, 5, 6, 7, 8, 9, 123456, tzinfo=dt.timezone.utc)]
                ),
                rng.choice([None, b"", b"\x00\xff\x10"]),
            )
        )
    return out


@pytest.fixture(scope="module")
def data(spark: Any) -> Any:
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    return spark.createDataFrame(rows(7), SCHEMA), rows(7)


@pytest.mark.parametrize(
    ("name", "algorithm"),
    [("MD5", "md5"), ("SHA-1", "sha1"), ("SHA-256", "sha256"), ("SHA-512", "sha512")],
)
def test_digest_to_longs_matches_hashlib(data: Any, name: str, algorithm: str) -> None:
    df, source = data
    column = Q.expr(f"digest_to_longs('{name}', i, n, s, b, d, t, bin)", over=df)
    got = [r.h for r in df.select(column.alias("h")).collect()]
    for row, value in zip(source, got, strict=True):
        assert value == longs(hashlib.new(algorithm, fed(row)).digest()), row


def test_struct_and_field_based_id_and_base64_round_trip(data: Any) -> None:
    df, source = data
    out = df.select(
        Q.expr("digestToLongsStruct('MD5', s, n)", over=df).alias("st"),
        Q.expr("field_based_id('row', 'MD5', s, n)", over=df).alias("id"),
    )
    out = out.select(
        "st",
        "id",
        Q.expr("id_base64(id)", over=out).alias("b64"),
        Q.expr("id_base64(id.row_base, id.row_i0, id.row_i1)", over=out).alias("b64f"),
        Q.expr("id_raw_type(id)", over=out).alias("raw"),
    )
    out = out.select(
        "*",
        Q.expr("id_from_base64(b64)").alias("back"),
        Q.expr("id_size(b64)").alias("size"),
    )
    for row, r in zip(source, out.collect(), strict=True):
        want = longs(
            hashlib.md5(
                (row[2] or "").encode() + (b"" if row[1] is None else struct.pack(">q", row[1]))
            ).digest()
        )
        assert [r.st.i0, r.st.i1] == want
        assert (r.id.row_base, r.id.row_i0, r.id.row_i1) == (2, *want)
        expected_b64 = base64.b64encode(struct.pack(">iqq", 2, *want)).decode()
        assert r.b64 == r.b64f == expected_b64
        assert (r.raw.base, r.raw.i0, r.raw.i1) == (2, *want)
        assert (r.back.base, r.back.i0, r.back.i1) == (2, *want) and r.size == 2


def test_id_from_base64_refuses_what_is_not_an_id_of_that_size(spark: Any) -> None:
    three = base64.b64encode(struct.pack(">iqqq", 3, 1, 2, 3)).decode()
    two = base64.b64encode(struct.pack(">iqq", 2, -5, 7)).decode()
    unique = base64.b64encode(struct.pack(">iqq", (1 << 24) | 2, 1, 2)).decode()  # odd header
    df = spark.createDataFrame(
        [(two,), (three,), (unique,), ("not base64!",), ("",), (None,)], "s string"
    )
    got = df.select(
        Q.expr("id_from_base64(s)").alias("a"),
        Q.expr("id_from_base64(s, 3)").alias("b"),
        Q.expr("id_size(s)").alias("n"),
    ).collect()
    assert [(r.a.i0, r.a.i1) if r.a else None for r in got] == [
        (-5, 7),
        None,
        None,
        None,
        None,
        None,
    ]
    assert [(r.b.i0, r.b.i1, r.b.i2) if r.b else None for r in got] == [
        None, (1, 2, 3), None, None, None, None
    ]  # fmt: skip
    assert [r.n for r in got][:3] == [2, 3, 2]


def test_field_based_ids_in_a_rule_suite(spark: Any) -> None:
    df = spark.createDataFrame([("a", 1), ("b", 2)], "s string, n bigint")
    first = longs(hashlib.md5(b"a" + struct.pack(">q", 1)).digest())[0]
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), f"field_based_id('k', 'MD5', s, n).k_i0 = {first}")])],
    )
    out = add_data_quality(df, suite, layout="compact").collect()
    assert [r.DataQuality.overallResult for r in out] == [100000, 0]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("digest_to_longs('MD4', s)", "no digest"),
        ("digest_to_longs('MD5', array(x))", "digests take int"),
        ("digest_to_longs('MD5')", "at least one field"),
        ("field_based_id(k, 'MD5', s)", "string literal"),
    ],
)
def test_misuse_names_the_rule(spark: Any, sql: str, message: str) -> None:
    df = spark.createDataFrame([("a", 1.5)], "s string, x double")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(9, 4), f"{sql} IS NOT NULL")])])
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, suite)
    assert message in str(err.value) and err.value.item_id == Id(9, 4)


def test_digests_need_the_datas_types() -> None:
    with pytest.raises(LibraryFunctionError, match="needs the data's types"):
        Q.expr("digest_to_longs('MD5', s)")


@pytest.mark.parametrize(("name", "algorithm"), [("MD5", "md5"), ("SHA-256", "sha256")])
def test_hash_with_feeds_little_endian_as_guava(data: Any, name: str, algorithm: str) -> None:
    df, source = data
    out = df.select(
        Q.expr(f"hash_with('{name}', i, n, s, b, d, t, bin)", over=df).alias("h"),
        Q.expr(f"hashWithStruct('{name}', i, n, s, b, d, t, bin)", over=df).alias("st"),
        Q.expr(f"hash_field_based_id('k', '{name}', i, n, s, b, d, t, bin)", over=df).alias("id"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        want = longs(hashlib.new(algorithm, fed(row, "<")).digest())
        assert r.h == want and list(r.st) == want, row
        assert (r.id.k_base, r.id.k_i0) == (len(want), want[0])


@needs_arrow_udf
def test_murmur3_ids_match_mmh3_over_guavas_bytes(data: Any) -> None:
    """murmur3_id and hash_with('MURMUR3_128'): MurmurHash3 x64 128 (seed 0) of the
    little-endian fed fields, its 16 bytes read as two big-endian longs (as the original)."""
    import mmh3

    df, source = data
    out = df.select(
        Q.expr("murmur3_id('m', i, n, s, b, d, t, bin)", over=df).alias("id"),
        Q.expr("hash_with('MURMUR3_128', i, n, s, b, d, t, bin)", over=df).alias("h"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        want = list(struct.unpack(">qq", mmh3.hash_bytes(fed(row, "<"), 0, True)))
        assert (r.id.m_base, [r.id.m_i0, r.id.m_i1]) == (2, want), row
        assert r.h == want


@needs_arrow_udf
def test_murmur3_ids_in_a_rule_suite(spark: Any) -> None:
    import mmh3

    df = spark.createDataFrame([("a", 1), ("b", 2)], "s string, n bigint")
    first = struct.unpack(">qq", mmh3.hash_bytes(b"a" + struct.pack("<q", 1), 0, True))[0]
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), f"murmur3_id('k', s, n).k_i0 = {first}")])]
    )
    out = add_data_quality(df, suite, layout="compact").collect()
    assert [r.DataQuality.overallResult for r in out] == [100000, 0]


def test_hash_with_crc32_is_guavas_four_bytes_as_one_long(data: Any) -> None:
    import zlib

    df, source = data
    out = df.select(
        Q.expr("hash_with('CRC32', i, n, s, b, d, t, bin)", over=df).alias("h"),
        Q.expr("hash_field_based_id('k', 'crc32', i, n, s, b, d, t, bin)", over=df).alias("id"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        code = zlib.crc32(fed(row, "<")).to_bytes(4, "little") + b"\0" * 4
        want = struct.unpack(">q", code)[0]
        assert r.h == [want] and (r.id.k_base, r.id.k_i0) == (1, want), row


def sip24(data: bytes) -> int:
    """SipHash-2-4 with the reference key 00..0f (Guava's sipHash24()), from the paper."""
    m64 = (1 << 64) - 1

    def rot(x: int, b: int) -> int:
        return ((x << b) | (x >> (64 - b))) & m64

    def sipround(v: list[int]) -> None:
        v[0] = (v[0] + v[1]) & m64
        v[1] = rot(v[1], 13) ^ v[0]
        v[0] = rot(v[0], 32)
        v[2] = (v[2] + v[3]) & m64
        v[3] = rot(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & m64
        v[3] = rot(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & m64
        v[1] = rot(v[1], 17) ^ v[2]
        v[2] = rot(v[2], 32)

    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D]
    v += [k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    blocks = [data[k : k + 8] for k in range(0, len(data) + 1, 8)]
    for block in blocks:
        m = int.from_bytes(block, "little")
        if len(block) < 8:  # the last block carries the length in its top byte
            m |= (len(data) % 256) << 56
        v[3] ^= m
        sipround(v)
        sipround(v)
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(4):
        sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def test_the_siphash_reference_matches_published_vectors() -> None:
    assert sip24(b"") == 0x726FDB47DD0E0E31
    assert sip24(bytes(range(8))) == 0x93F5F5799A932462
    assert sip24(bytes(range(15))) == 0xA129CA6149BE45E5  # the paper's example


@needs_arrow_udf
def test_hash_with_hashers_spark_lacks_match_their_references(data: Any) -> None:
    """Guava's MURMUR3_32, ADLER32 and SIPHASH24 of the little-endian fed fields: 32-bit codes
    written little-endian and padded, SipHash's long little-endian, read as big-endian longs."""
    import zlib

    import mmh3

    df, source = data
    fields = "i, n, s, b, d, t, bin"
    out = df.select(
        Q.expr(f"hash_with('MURMUR3_32', {fields})", over=df).alias("m32"),
        Q.expr(f"hash_with('adler32', {fields})", over=df).alias("adler"),
        Q.expr(f"hash_with_struct('SIPHASH24', {fields})", over=df).alias("sip"),
        Q.expr(f"hash_field_based_id('k', 'SIPHASH24', {fields})", over=df).alias("id"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        fed_bytes = fed(row, "<")
        m32 = mmh3.hash(fed_bytes, 0, signed=False).to_bytes(4, "little") + bytes(4)
        adler = zlib.adler32(fed_bytes).to_bytes(4, "little") + bytes(4)
        sip = sip24(fed_bytes).to_bytes(8, "little")
        assert r.m32 == [struct.unpack(">q", m32)[0]], row
        assert r.adler == [struct.unpack(">q", adler)[0]], row
        assert r.sip.i0 == struct.unpack(">q", sip)[0], row
        assert (r.id.k_base, r.id.k_i0) == (1, r.sip.i0)


def test_unknown_hashers_are_refused(spark: Any) -> None:
    df = spark.createDataFrame([("a",)], "s string")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(9, 1), "hash_with('SIPHASH48', s)[0] > 0")])],
    )
    with pytest.raises(LibraryFunctionError, match="not one of the original's hashers") as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(9, 1)


def java_bits(value: float, single: bool) -> int:
    """Java's doubleToLongBits / floatToIntBits (as unsigned 32 bits), as the original feeds
    floating point: both zeros as 0, every NaN as the canonical one."""
    if value != value:
        return 0x7FC00000 if single else 0x7FF8000000000000
    if value == 0:
        return 0
    if single:
        return struct.unpack(">I", struct.pack(">f", value))[0]
    return struct.unpack(">q", struct.pack(">d", value))[0]


def test_floating_point_fields_feed_their_java_bits(spark: Any) -> None:
    rng = random.Random(5)
    special = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.0, -1.0, 0.5, 3.0]
    special += [5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308]  # subnormals
    special += [1.7976931348623157e308, -1.7976931348623157e308, 2.0**-1022, 2.0**1023]
    special += [2.0**k * (1 + 2.0**-52) for k in range(-60, 60, 7)]  # just above powers of two
    special += [2.0**k * (1 - 2.0**-53) for k in range(-60, 60, 7)]  # just below them
    randoms = [struct.unpack(">d", struct.pack(">Q", rng.getrandbits(64)))[0] for _ in range(300)]
    doubles = special + randoms
    # floats: values that are exactly float32, including subnormal and extreme ones
    floats = [struct.unpack(">f", struct.pack(">I", rng.getrandbits(32)))[0] for _ in range(300)]
    floats += [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.4e-45, 3.4028234663852886e38]
    count = max(len(doubles), len(floats))
    values = [(doubles[i % len(doubles)], floats[i % len(floats)]) for i in range(count)]
    df = spark.createDataFrame(values, "d double, f float")
    out = df.select(
        Q.expr("digest_to_longs('MD5', d, f)", over=df).alias("md5"),
        Q.expr("hash_with('MD5', d, f)", over=df).alias("guava"),
    ).collect()
    for (d, f), r in zip(values, out, strict=True):
        big = struct.pack(">q", java_bits(d, False)) + struct.pack(">I", java_bits(f, True))
        little = struct.pack("<q", java_bits(d, False)) + struct.pack("<I", java_bits(f, True))
        assert r.md5 == longs(hashlib.md5(big).digest()), (d, f)
        assert r.guava == longs(hashlib.md5(little).digest()), (d, f)
