"""Rule tables as DataFrames, and schema-driven rules run by the DataFrame runners."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    PASSED,
    Id,
    LambdaFunction,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
    rule_engine_with_struct,
)
from quality_py.errors import RuleTableError
from quality_py.io.tables import (
    RuleColumns,
    lambdas_dataframe,
    meta_rule_sets_dataframe,
    outputs_dataframe,
    read_rule_tables,
    rules_dataframe,
)
from quality_py.model import MetaRuleSet

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

OUT = OutputExpression(Id(900, 1), "concat('big ', cast(amount AS string))")
SUITE = RuleSuite(
    Id(1, 3),
    [
        RuleSet(
            Id(50, 1),
            [
                Rule(Id(100, 1), "isBig(amount)", salience=10, output=OUT, owner="ops"),
                Rule(Id(101, 2), "coalesceIfAttributesMissing(missing_col > 0, amount > 0)"),
                Rule(Id(102, 1), "amount > 0", name="positive", filter="account IS NOT NULL"),
                Rule(Id(103, 1), "amount < 0", name="switched-off", active=False),
            ],
        )
    ],
    lambdas=[LambdaFunction("isBig", "x -> x > 100", Id(7, 1))],
    meta_rule_sets=[MetaRuleSet(Id(60, 1), "datatype = 'STRING'", "c -> c IS NOT NULL")],
)


@pytest.fixture(scope="module")
def data(spark: Any) -> Any:
    return spark.createDataFrame([("a", 500), (None, 5), ("c", -1)], "account string, amount int")


def test_dataframes_round_trip_with_custom_column_names(spark: Any) -> None:
    cols = RuleColumns(rule_expr="sql_text", rule_id="rule_no", description=None, tags=None)
    rules = rules_dataframe(spark, SUITE, cols)
    assert "sql_text" in rules.columns and "ruleDescription" not in rules.columns
    loaded = read_rule_tables(
        rules,
        lambdas_dataframe(spark, SUITE),
        outputs_dataframe(spark, SUITE),
        meta_rule_sets_dataframe(spark, SUITE),
        rule_columns=cols,
    )
    assert loaded.latest(1) == SUITE
    assert loaded.missing_outputs == {}


def test_broken_rows_are_all_reported_before_any_data_is_read(spark: Any) -> None:
    rows = spark.createDataFrame(
        [
            ("1", "1", "50", "1", "100", "1", "a > 0"),
            ("1", "1", "50", "1", "x1", "1", "a > 1"),
            ("1", None, "50", "1", "102", "1", "a > 2"),
            ("1", "1", "50", "1", "103", "1", None),
        ],
        "ruleSuiteId string, ruleSuiteVersion string, ruleSetId string, ruleSetVersion string, "
        "ruleId string, ruleVersion string, ruleExpr string",
    )
    lambdas = spark.createDataFrame(
        [("f", "x -> x", None, 1, 1, 1)],
        "name string, ruleExpr string, functionId int, "
        "functionVersion int, ruleSuiteId int, ruleSuiteVersion int",
    )
    with pytest.raises(RuleTableError) as err:
        read_rule_tables(rows, lambdas)
    problems = sorted(p for b in err.value.broken for p in b.problems)
    assert problems == [
        "function_id is null",
        "rule_expr is null or blank",
        "rule_id is not a 32-bit integer ('x1')",
        "rule_suite_version is null",
    ]


def test_a_missing_required_column_is_reported(spark: Any) -> None:
    rules = rules_dataframe(spark, SUITE).drop("ruleExpr")
    with pytest.raises(RuleTableError) as err:
        read_rule_tables(rules)
    assert "'ruleExpr'" in str(err.value)


def test_runners_expand_meta_rule_sets_and_fallbacks_for_the_data(data: Any) -> None:
    out = add_data_quality(data, SUITE, layout="map")
    sets = {r.amount: r.DataQuality.ruleSetResults for r in out.collect()}
    # one generated rule: account is the only STRING column
    generated = list(sets[500][Id(60, 1).packed].ruleResults.values())
    assert generated == [PASSED]
    assert list(sets[5][Id(60, 1).packed].ruleResults.values()) == [0]  # account is null
    fallback = Id(101, 2).packed  # missing_col does not exist: amount > 0 is used
    assert sets[500][Id(50, 1).packed].ruleResults[fallback] == PASSED
    assert sets[-1][Id(50, 1).packed].ruleResults[fallback] == 0
    engine_suite = RuleSuite(
        SUITE.id, [RuleSet(Id(50, 1), SUITE.rule_sets[0].rules[:1])], lambdas=SUITE.lambdas
    )
    loaded = read_rule_tables(
        rules_dataframe(data.sparkSession, engine_suite),
        lambdas_dataframe(data.sparkSession, engine_suite),
        outputs_dataframe(data.sparkSession, engine_suite),
    ).latest(1)
    engine = rule_engine_with_struct(data, loaded, "string")
    assert {r.amount: r.ruleEngine.result for r in engine.collect()} == {
        500: "big 500",
        5: None,
        -1: None,
    }
