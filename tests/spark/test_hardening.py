"""One bad value fails its row, never the job; expected results by hand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from quality_py import (
    Id,
    ModelError,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
    run_quality,
)
from quality_py.model.policy import RulePolicy

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

PASSED, FAILED = 100000, 0


def _results(df: Any, suite: RuleSuite, key: str) -> dict[Any, list[int]]:
    out = add_data_quality(df, suite).collect()
    return {
        r[key]: [
            v for _, v in sorted(r.DataQuality.ruleSetResults[Id(2, 1).packed].ruleResults.items())
        ]
        for r in out
    }


@pytest.fixture
def ansi(spark: Any) -> Iterator[Any]:
    """ANSI mode on (Spark 4's default; 3.5's is off): the hard case."""
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", old)


def test_a_lookup_rule_does_not_switch_containment_off(ansi: Any) -> None:
    spark = ansi
    spark.createDataFrame([(1,), (2,)], "k int").createOrReplaceTempView("qp_hard_lookup")
    df = spark.createDataFrame([(1, "10"), (2, "abc"), (3, "3")], "k int, s string")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(10, 1), "s > 5"),
                    Rule(Id(11, 1), "exists(SELECT 1 FROM qp_hard_lookup l WHERE l.k = main.k)"),
                ],
            )
        ],
    ).with_policy(RulePolicy(allow_implicit_casts=True).with_views("qp_hard_lookup"))
    # by hand: '10' > 5; 'abc' is no number (null: Failed); 3 is not > 5; k 3 has no lookup row
    assert _results(df, suite, "k") == {
        1: [PASSED, PASSED],
        2: [FAILED, PASSED],
        3: [FAILED, FAILED],
    }


def test_date_parses_with_a_format_are_strict_and_contained(ansi: Any) -> None:
    spark = ansi
    values = ["2024-01-05", "2023-02-30", "2024-01-05 garbage", "garbage", None]
    if spark.conf.get("spark.sql.legacy.timeParserPolicy", "EXCEPTION").upper() == "EXCEPTION":
        # Spark 3.x's default: a value the pre-3.0 parser would read differently raises even in
        # try_to_timestamp (docs/security.md); Spark 4 defaults to CORRECTED
        values[2] = "2024-01-0x"
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i int, s string")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(10, 1), "to_date(s, 'yyyy-MM-dd') IS NOT NULL"),
                    Rule(Id(11, 1), "to_timestamp(s, 'yyyy-MM-dd') IS NOT NULL"),
                    Rule(Id(12, 1), "unix_timestamp(s, 'yyyy-MM-dd') > 0"),
                ],
            )
        ],
    )
    got = _results(df, suite, "i")
    # by hand: only the first value is a date of that format (Feb 30 does not exist, trailing
    # text does not match); null is no date
    assert got == {
        0: [PASSED] * 3,
        1: [FAILED] * 3,
        2: [FAILED] * 3,
        3: [FAILED] * 3,
        4: [FAILED] * 3,
    }


def test_adding_a_result_column_twice_is_an_error(spark: Any) -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "a > 0")])])
    checked = add_data_quality(spark.createDataFrame([(1,)], "a int"), suite)
    with pytest.raises(ModelError) as err:
        add_data_quality(checked, suite)
    assert err.value.code == "DUPLICATE_COLUMNS" and "DataQuality" in err.value.message
    with pytest.raises(ModelError):
        run_quality(checked, suite)


def test_contained_errors_are_counted_per_rule_in_the_stats(ansi: Any, tmp_path: Any) -> None:
    df = ansi.createDataFrame([("5",), ("abc",), ("x",), (None,)], "s string")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "int(s) > 0")])])
    run = run_quality(df, suite, run_id="r1")
    summary = run.write(stats=str(tmp_path / "stats"))
    # by hand: 'abc' and 'x' are no integers (contained: null) and one input is null
    assert summary.rules is not None
    assert (summary.rules.rules[0].null_values, summary.rules.rules[0].failing) == (3, 3)
    row = ansi.read.parquet(str(tmp_path / "stats")).where("kind = 'rule'").collect()[0]
    assert (row.null_values, row.failing_rows, row.passed) == (3, 3, 1)
