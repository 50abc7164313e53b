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
        ("digest_to_longs('MD5', x)", "digests take int"),
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


def test_hashers_spark_lacks_are_refused(spark: Any) -> None:
    df = spark.createDataFrame([("a",)], "s string")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(9, 1), "hash_with('SIPHASH24', s)[0] > 0")])],
    )
    with pytest.raises(LibraryFunctionError, match="no built-in") as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(9, 1)


# --- za_*: XXH64 (written here from its specification) and mmh3's 64-bit halves --------------

_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5, _MASK = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5, (1 << 64) - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _MASK, 31) * _P1) & _MASK


def xxh64(data: bytes, seed: int) -> int:
    """XXH64 of ``data`` as a signed long (the reference algorithm, no library)."""
    n, pos = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _MASK, (seed + _P2) & _MASK, seed, (seed - _P1) & _MASK]
        while pos + 32 <= n:
            for k in range(4):
                v[k] = _round(v[k], struct.unpack_from("<Q", data, pos + 8 * k)[0])
            pos += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _MASK
        for lane in v:
            h = ((h ^ _round(0, lane)) * _P1 + _P4) & _MASK
    else:
        h = (seed + _P5) & _MASK
    h = (h + n) & _MASK
    while pos + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, pos)[0])
        h = (_rotl(h, 27) * _P1 + _P4) & _MASK
        pos += 8
    if pos + 4 <= n:
        h ^= (struct.unpack_from("<I", data, pos)[0] * _P1) & _MASK
        h = (_rotl(h, 23) * _P2 + _P3) & _MASK
        pos += 4
    for byte in data[pos:]:
        h ^= (byte * _P5) & _MASK
        h = (_rotl(h, 11) * _P1) & _MASK
    h ^= h >> 33
    h = (h * _P2) & _MASK
    h ^= h >> 29
    h = (h * _P3) & _MASK
    h ^= h >> 32
    return h - (1 << 64) if h >= 1 << 63 else h


def test_the_reference_xxh64_matches_published_vectors() -> None:
    assert xxh64(b"", 0) == 0xEF46DB3751D8E999 - (1 << 64)
    assert xxh64(b"a", 0) == 0xD24EC4F1A98C6E5B - (1 << 64)
    assert xxh64(b"abc", 0) == 0x44BC2CF5AD770999
    # 39 bytes: the 32-byte stripe path (python-xxhash's README example)
    assert xxh64(b"Nobody inspects the spammish repetition", 0) == 0xFBCEA83C8A378BF1 - (1 << 64)


def test_za_xx_hashes_are_xxh64_seed_42_of_the_fed_bytes(data: Any) -> None:
    df, source = data
    out = df.select(
        Q.expr("za_hash_with('XX', i, n, s, b, d, t, bin)", over=df).alias("h"),
        Q.expr("zaHashWithStruct('xx', i, n, s, b, d, t, bin)", over=df).alias("st"),
        Q.expr("za_field_based_id('z', 'XX', i, n, s, b, d, t, bin)", over=df).alias("id"),
    ).collect()
    for row, r in zip(source, out, strict=True):
        want = xxh64(fed(row, "<"), 42)
        assert r.h == [want] and r.st.i0 == want, row
        assert (r.id.z_base, r.id.z_i0) == (1, want)


@needs_arrow_udf
def test_za_murmur_hashes_are_mmh3_halves(data: Any) -> None:
    import mmh3

    df, source = data
    out = df.select(
        Q.expr("za_hash_with('MURMUR3_64', i, n, s, b, d, t, bin)", over=df).alias("h64"),
        Q.expr("za_hash_longs_with('MURMUR3_128', i, n, s, b, d, t, bin)", over=df).alias("h"),
        Q.expr("za_hash_longs_with_struct('MURMUR3_128', s, n)", over=df).alias("st"),
        Q.expr("za_longs_field_based_id('z', 'MURMUR3_128', i, n, s, b, d, t, bin)", over=df).alias(
            "id"
        ),
    ).collect()
    for row, r in zip(source, out, strict=True):
        h1, h2 = mmh3.hash64(fed(row, "<"), 0, True)
        assert r.h64 == [h1] and r.h == [h1, h2], row
        assert (r.id.z_base, r.id.z_i0, r.id.z_i1) == (2, h1, h2)
        s, n = row[2], row[1]
        short = (b"" if s is None else s.encode()) + (b"" if n is None else struct.pack("<q", n))
        assert (r.st.i0, r.st.i1) == mmh3.hash64(short, 0, True)


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("za_hash_with('CITY_1_1', s)[0]", "no implementation"),
        ("za_hash_longs_with('XXH3', s)[0]", "no implementation"),
        ("za_hash_with('MURMUR3_128', s)[0]", "not one of its hashes"),
        ("za_field_based_id('p', 'XX').p_i0", "at least one field"),
    ],
)
def test_za_hashes_refuse_what_they_cannot_compute(spark: Any, sql: str, message: str) -> None:
    df = spark.createDataFrame([("a",)], "s string")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(9, 2), f"{sql} > 0")])])
    with pytest.raises(LibraryFunctionError, match=message) as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(9, 2)
