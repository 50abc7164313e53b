"""Long pairs, uuids, prefixed-id equality and comparable maps against Python's ``uuid``.

``as_uuid(lower, higher)`` is the original's ``new java.util.UUID(higher, lower).toString``:
Python's ``uuid.UUID(int=...)`` with ``higher`` as the high 64 bits gives the same string.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from quality_py import Id, LibraryFunctionError, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py import functions as Q

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

MASK = (1 << 64) - 1


def signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def java_uuid(lower: int, higher: int) -> str:
    return str(uuid.UUID(int=((higher & MASK) << 64) | (lower & MASK)))


def longs(seed: int, n: int) -> list[tuple[int | None, int | None]]:
    rng = random.Random(seed)
    edge = [0, 1, -1, 2**63 - 1, -(2**63), 2**32, -(2**32)]
    pairs: list[tuple[int | None, int | None]] = [(a, b) for a in edge for b in edge]
    pairs += [
        (rng.randint(-(2**63), 2**63 - 1), rng.randint(-(2**63), 2**63 - 1)) for _ in range(n)
    ]
    return [*pairs, (None, 1), (1, None)]


def test_as_uuid_is_javas_uuid_of_higher_then_lower(spark: Any) -> None:
    pairs = longs(1, 200)
    df = spark.createDataFrame(pairs, "lo bigint, hi bigint")
    got = df.select(
        "lo", "hi", Q.expr("as_uuid(lo, hi)").alias("u"), Q.expr("asUUID(lo, hi)").alias("c")
    ).collect()
    for r in got:
        want = None if r.lo is None or r.hi is None else java_uuid(r.lo, r.hi)
        assert r.u == want and r.c == want


def test_long_pair_from_uuid_reverses_as_uuid(spark: Any) -> None:
    rng = random.Random(2)
    texts = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(200)]
    texts += [t.upper() for t in texts[:5]]  # Java accepts either case
    texts += ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]
    bad = ["", "not-a-uuid", "1-2-3-4-5", "0000000000000000000000000000000000", None]
    df = spark.createDataFrame([(t,) for t in [*texts, *bad]], "u string")
    rows = df.select(
        "u",
        Q.expr("long_pair_from_uuid(u)").alias("p"),
        Q.expr("as_uuid(longPairFromUUID(u).lower, long_pair_from_uuid(u).higher)").alias("back"),
    ).collect()
    for r in rows:
        if r.u in bad:
            assert r.p is None and r.back is None
            continue
        value = uuid.UUID(r.u).int
        assert (r.p.lower, r.p.higher) == (signed(value & MASK), signed(value >> 64))
        assert r.back == r.u.lower()


def test_long_pair_and_prefixed_ids(spark: Any) -> None:
    df = spark.createDataFrame(
        [(1, 2, 1, 2, 7, 1, 2), (1, 2, 1, 3, 7, 1, 2), (5, -6, 5, -6, 8, 9, 9)],
        "a_lower bigint, a_higher bigint, b_lower bigint, b_higher bigint, "
        "a_base int, a_i0 bigint, a_i1 bigint",
    ).selectExpr(
        "*",
        "named_struct('p_base', a_base, 'p_i0', a_i0, 'p_i1', a_i1) AS id",
        "a_base AS b_base",
        "a_i0 AS b_i0",
        "a_i1 + 0 AS b_i1",
    )
    rows = df.select(
        Q.expr("long_pair_equal('a', 'b')").alias("eq"),
        Q.expr("longPair(a_lower, a_higher)").alias("lp"),
        Q.expr("prefixed_to_long_pair(id, 'p')").alias("pp"),
        Q.expr("id_equal('a', 'b')").alias("ideq"),
    ).collect()
    assert [r.eq for r in rows] == [True, False, True]
    assert [(r.lp.lower, r.lp.higher) for r in rows] == [(1, 2), (1, 2), (5, -6)]
    assert [(r.pp.lower, r.pp.higher) for r in rows] == [(1, 2), (1, 2), (9, 9)]
    assert [r.ideq for r in rows] == [True, True, True]


def test_comparable_maps_sort_entries_and_reverse(spark: Any) -> None:
    maps = [{"b": 2, "a": 1, "c": 3}, {"z": 0}, {}, None]
    df = spark.createDataFrame([(m,) for m in maps], "m map<string,int>")
    rows = df.select(
        Q.expr("comparable_maps(m)").alias("c"),
        Q.expr("reverseComparableMaps(comparable_maps(m))").alias("r"),
    ).collect()
    for m, r in zip(maps, rows, strict=True):
        if m is None:
            assert r.c is None and r.r is None
            continue
        assert [(e.key, e.value) for e in r.c] == sorted(m.items())
        assert r.r == m
    # comparable maps can be grouped on, which maps cannot
    grouped = df.union(df).groupBy(Q.expr("comparable_maps(m)").alias("k")).count()
    assert sorted(r["count"] for r in grouped.collect()) == [2, 2, 2, 2]


def test_in_rules_under_the_default_policy(spark: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [Rule(Id(3, 1), "long_pair_from_uuid(as_uuid(lo, hi)) = long_pair(lo, hi)")],
            )
        ],
    )
    df = spark.createDataFrame(longs(3, 50), "lo bigint, hi bigint").where("lo IS NOT NULL")
    out = add_data_quality(df.where("hi IS NOT NULL"), suite, layout="compact")
    assert {r.DataQuality.overallResult for r in out.collect()} == {100000}


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("long_pair_equal(a, 'b')", "string literal"),
        ("prefixed_to_long_pair(id, 'a.b')", "not a path"),
        ("id_equal('a..b', 'c')", "not a field name"),
        ("as_uuid(lo)", "wrong number of arguments"),
    ],
)
def test_misuse_is_refused_with_the_rule_named(sql: str, message: str) -> None:
    from quality_py.sql.compiler import compile_suite

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(7, 3), sql)])])
    with pytest.raises(LibraryFunctionError) as err:
        compile_suite(suite)
    assert message in str(err.value) and err.value.item_id == Id(7, 3)


def version4(most: int, least: int) -> str:
    """java.util.UUID(most, least) with Spark's uuid() version and variant bits, in Python."""
    most = (most & 0xFFFFFFFFFFFF0FFF) | 0x4000
    least = (least | 0x8000000000000000) & 0xBFFFFFFFFFFFFFFF
    return str(uuid.UUID(int=((most & MASK) << 64) | (least & MASK)))


def test_rng_uuid_of_long_pairs_and_bytes(spark: Any) -> None:
    pairs = longs(4, 100)[:-2]
    df = spark.createDataFrame(pairs, "lo bigint, hi bigint").selectExpr(
        "lo", "hi", "unhex(concat(lpad(hex(lo), 16, '0'), lpad(hex(hi), 16, '0'))) AS raw"
    )
    rows = df.select(
        "lo",
        "hi",
        "raw",
        Q.expr("rng_uuid(long_pair(lo, hi))", over=df).alias("u"),
        Q.expr("rngUUID(raw)", over=df).alias("b"),
    ).collect()
    for r in rows:
        assert r.u == version4(r.hi, r.lo)
        # bytes: most from bytes 0-7 read little-endian, least from bytes 8-15
        most = int.from_bytes(bytes(r.raw[:8]), "little", signed=True)
        least = int.from_bytes(bytes(r.raw[8:]), "little", signed=True)
        assert r.b == version4(most, least)
        assert uuid.UUID(r.u).version == 4


def test_provided_id_from_a_struct_of_longs(spark: Any) -> None:
    df = spark.createDataFrame([(5, -6)], "lo bigint, hi bigint").selectExpr(
        "named_struct('lower', lo, 'higher', hi) AS p"
    )
    r = df.select(Q.expr("provided_id('x', p)", over=df).alias("id")).first().id
    assert (r.x_base, r.x_i0, r.x_i1) == (2, 5, -6)
    with pytest.raises(LibraryFunctionError, match="struct of BIGINT"):
        Q.expr("provided_id('x', named_struct('a', 'text'))", over=df)
