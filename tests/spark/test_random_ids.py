"""Random and unique ids: refused by the default policy, and where allowed, random in every bit
and unique. Expectations are statistical bounds worked out here (binomial, 6 sigma)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from quality_py import Id, LibraryFunctionError, Rule, RuleSet, RuleSuite
from quality_py import functions as Q
from quality_py.model.policy import RulePolicy

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ALLOW = RulePolicy(allow_random=True)
N = 100_000


def test_the_default_policy_refuses_random_ids(spark: Any) -> None:
    from quality_py import add_data_quality

    df = spark.range(3)
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(5, 1), "rng().lower > 0")])])
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, suite)
    assert err.value.code == "POLICY" and err.value.item_id == Id(5, 1)
    assert "allow_random" in str(err.value)
    with pytest.raises(LibraryFunctionError, match="allow_random"):
        Q.expr("unique_id('u')")


def test_random_longs_set_every_bit_half_the_time(spark: Any) -> None:
    df = spark.range(N).select(Q.expr("rng()", policy=ALLOW).alias("r"))
    bits = [f"sum(CAST(shiftright(r.lower, {b}) & 1 AS INT)) AS l{b}" for b in range(64)]
    bits += [f"sum(CAST(shiftright(r.higher, {b}) & 1 AS INT)) AS h{b}" for b in range(64)]
    row = df.selectExpr(*bits, "count(DISTINCT r) AS distinct").first()
    sigma = math.sqrt(N * 0.25)
    for name in [f"l{b}" for b in range(64)] + [f"h{b}" for b in range(64)]:
        assert abs(row[name] - N / 2) < 6 * sigma, (name, row[name])
    assert row["distinct"] == N  # 128 random bits: a collision among 1e5 is ~1e-29


def test_rng_bytes_rng_id_and_unique_id(spark: Any) -> None:
    df = spark.range(1000).select(
        Q.expr("rng_bytes(5)", policy=ALLOW).alias("b5"),
        Q.expr("rngBytes()", policy=ALLOW).alias("b16"),
        Q.expr("rng_id('r')", policy=ALLOW).alias("rid"),
        Q.expr("unique_id('u')", policy=ALLOW).alias("uid"),
    )
    rows = df.collect()
    assert {len(r.b5) for r in rows} == {5} and {len(r.b16) for r in rows} == {16}
    assert {r.rid.r_base for r in rows} == {2}
    assert len({(r.rid.r_i0, r.rid.r_i1) for r in rows}) == 1000
    assert len({(r.uid.u_i0, r.uid.u_i1) for r in rows}) == 1000
    assert {r.uid.u_base for r in rows} == {(1 << 24) | 2}
    assert len({r.uid.u_i0 for r in rows}) == 1  # the query's start time, fixed per query


def test_a_seed_makes_random_ids_reproducible(spark: Any) -> None:
    df = spark.range(50).repartition(1)
    first = [r.r for r in df.select(Q.expr("rng(7)", policy=ALLOW).alias("r")).collect()]
    again = [
        r.r
        for r in df.select(
            Q.expr("rng('XO_RO_SHI_RO_128_PP', 7)", policy=ALLOW).alias("r")
        ).collect()
    ]
    assert first == again and len(set(first)) == 50
