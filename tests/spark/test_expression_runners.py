"""The expression runners, to_yaml/from_yaml, strip_result_ddl and rule_result on their results.

Expected values are computed in Python from the rows written here.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, expression_runner, typed_expression_runner
from quality_py import functions as Q
from quality_py.errors import RuleAnalysisError

ROWS = [(1, 2.5, "a", Decimal("1.10")), (2, None, "b", Decimal("2.20")), (3, 4.0, None, None)]
SCHEMA = "n int, x double, s string, d decimal(10,2)"


def _suite(*rules: tuple[int, int, str]) -> RuleSuite:
    sets: dict[int, list[Rule]] = {}
    for set_id, rule_id, text in rules:
        sets.setdefault(set_id, []).append(Rule(Id(rule_id, 1), text))
    return RuleSuite(Id(7, 2), [RuleSet(Id(s, 1), rs) for s, rs in sets.items()])


def packed(i: int, v: int = 1) -> int:
    return (i << 32) | v


def test_aggregates_give_one_row_of_text_and_types(spark: Any) -> None:
    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite(
        (50, 100, "sum(n)"),
        (50, 101, "avg(x)"),
        (51, 102, "count_if(s IS NULL)"),
        (51, 103, "sum(d)"),
        (51, 104, "max(s)"),
    )
    out = df.select(expression_runner(df, suite)).collect()
    assert len(out) == 1
    res = out[0].expressionResults
    assert res.id == packed(7, 2)
    first, second = res.ruleSetResults[packed(50)], res.ruleSetResults[packed(51)]
    assert (first[packed(100)].result, first[packed(100)].resultDDL) == ("6", "BIGINT")
    assert json.loads(first[packed(101)].result) == pytest.approx((2.5 + 4.0) / 2)
    assert first[packed(101)].resultDDL == "DOUBLE"
    assert second[packed(102)].result == "1"
    assert (second[packed(103)].result, second[packed(103)].resultDDL) == ("3.30", "DECIMAL(20,2)")
    assert (json.loads(second[packed(104)].result), second[packed(104)].resultDDL) == (
        "b",
        "STRING",
    )


def test_results_read_back_with_from_yaml_rule_result_and_strip(spark: Any) -> None:
    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite((50, 100, "sum(d)"), (50, 101, "collect_list(n)"))
    res = df.select(expression_runner(df, suite))
    read = res.select(
        Q.expr(
            f"from_yaml(rule_result(expressionResults, {packed(7, 2)}, {packed(50)}, "
            f"{packed(100)}).result, 'DECIMAL(20,2)')",
            over=res,
        ).alias("d"),
        Q.expr(
            f"from_yaml(rule_result(expressionResults, {packed(7, 2)}, {packed(50)}, "
            f"{packed(101)}).result, 'ARRAY<INT>')",
            over=res,
        ).alias("ns"),
        Q.expr(f"rule_result(expressionResults, {packed(7, 2)}, {packed(50)}, 99)", over=res).alias(
            "absent"
        ),
        Q.expr("strip_result_ddl(expressionResults)").alias("stripped"),
    ).first()
    assert read.d == Decimal("3.30") and sorted(read.ns) == [1, 2, 3] and read.absent is None
    assert read.stripped.ruleSetResults[packed(50)][packed(100)] == "3.30"


def test_per_row_expressions_and_the_typed_runner(spark: Any) -> None:
    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite((50, 100, "n * 2"), (50, 101, "length(s)"))
    rows = df.select("n", typed_expression_runner(df, suite, "int")).collect()
    for (n, _, s, _), r in zip(ROWS, rows, strict=True):
        values = r.expressionResults.ruleSetResults[packed(50)]
        assert values[packed(100)] == n * 2
        assert values[packed(101)] == (None if s is None else len(s))
    with pytest.raises(RuleAnalysisError) as err:
        typed_expression_runner(df, _suite((50, 100, "n * 2"), (50, 105, "s")), "int")
    assert "yields STRING, not INT" in str(err.value) and err.value.item_id == Id(105, 1)


def test_a_suite_mixing_aggregates_and_row_values_is_refused(spark: Any) -> None:
    df = spark.createDataFrame(ROWS, SCHEMA)
    with pytest.raises(RuleAnalysisError, match=r"all aggregates .* or none"):
        expression_runner(df, _suite((50, 100, "sum(n)"), (50, 101, "n + 1")))


def test_aggregates_stay_refused_in_data_quality_rules(spark: Any) -> None:
    from quality_py import add_data_quality
    from quality_py.errors import PolicyError

    df = spark.createDataFrame(ROWS, SCHEMA)
    with pytest.raises(PolicyError):
        add_data_quality(df, _suite((50, 100, "sum(n) > 0")))


def test_agg_expr_as_the_original_documents_it(spark: Any) -> None:
    df = spark.range(1, 20)  # odd ids 1..19: sum 100, count 10
    suite = _suite(
        (50, 100, "agg_expr('BIGINT', id % 2 > 0, sum_with(sum -> sum + id), "
                  "results_with((sum, count) -> sum / count))"),
        (50, 101, "agg_expr(id % 2 > 0, inc(id), meanF())"),
        (50, 102, "aggExpr(id > 100, inc(), return_sum())"),  # no row matches: the zero
        (50, 103, "agg_expr('DOUBLE', id <= 3, sum_with(e -> id * 0.5 + e), return_sum())"),
        (50, 104, "agg_expr(id > 100, inc(), meanF())"),  # 0 / 0: null, not an error
    )  # fmt: skip
    values = df.select(typed_expression_runner(df, _suite(*[
        (50, 100 + i, text) for i, text in enumerate(
            ["agg_expr(id % 2 > 0, inc(id), return_sum())", "agg_expr(id > 5, inc(), return_sum())"]
        )
    ]), "bigint")).first().expressionResults.ruleSetResults[packed(50)]  # fmt: skip
    assert [values[packed(100)], values[packed(101)]] == [100, 14]
    got = df.select(expression_runner(df, suite)).first().expressionResults
    results = got.ruleSetResults[packed(50)]
    assert json.loads(results[packed(100)].result) == 10.0
    assert json.loads(results[packed(101)].result) == 10.0
    assert results[packed(102)].result == "0"
    assert json.loads(results[packed(103)].result) == pytest.approx((1 + 2 + 3) * 0.5)
    assert results[packed(104)].result == "null"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agg_expr(id > 0, sum_with(e -> e * 2), return_sum())", "must add to the entry"),
        ("sum_with(e -> e + 1)", "only meaningful as an argument of agg_expr"),
        ("agg_expr(id > 0, inc(), count(id))", "agg_expr's result"),
    ],
)
def test_agg_expr_misuse_names_the_rule(spark: Any, text: str, message: str) -> None:
    from quality_py.errors import LibraryFunctionError

    df = spark.range(3)
    with pytest.raises(LibraryFunctionError) as err:
        expression_runner(df, _suite((50, 107, text)))
    assert message in str(err.value) and err.value.item_id == Id(107, 1)
