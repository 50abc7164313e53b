"""Results that do not depend on the session's ANSI setting (docs/security.md promises it).

Expected values by hand: 2^31 is no int, so it packs to null instead of wrapping onto -2^31
(which packs to -2^31 * 2^32 + version); the size of a null array is null, so a rule on it is
Failed, whatever ``spark.sql.ansi.enabled`` says.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import FAILED, PASSED, Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py import functions as Q

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


@pytest.fixture(params=["true", "false"])
def ansi(spark: Any, request: pytest.FixtureRequest) -> Any:
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", old)


def test_pack_ints_never_wraps_a_bigint(ansi: Any) -> None:
    df = ansi.createDataFrame([(2**31, 1), (-(2**31), 1), (7, 2**32 + 3)], "big bigint, v bigint")
    got = [r.p for r in df.select(Q.expr("pack_ints(big, v)").alias("p")).collect()]
    assert got == [None, -(2**31) * 2**32 + 1, None]


def test_size_of_null_is_null_under_both_settings(ansi: Any) -> None:
    df = ansi.createDataFrame([(1, None), (2, [1, 2])], "k int, arr array<int>")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(3, 1), "size(arr) < 3"),
                    Rule(Id(4, 1), "cardinality(arr) < 3"),
                    Rule(Id(5, 1), "array_size(arr) < 3"),
                ],
            )
        ],
    )
    out = add_data_quality(df, suite, layout="compact").orderBy("k").collect()
    assert [list(r.DataQuality.ruleResults) for r in out] == [[FAILED] * 3, [PASSED] * 3]
