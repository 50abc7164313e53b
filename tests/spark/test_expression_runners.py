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

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

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


@pytest.mark.parametrize("text", ["sum(n) > 0", "try_avg(n) > 0", "every(n > 0)"])
def test_aggregates_stay_refused_in_data_quality_rules(spark: Any, text: str) -> None:
    from quality_py import add_data_quality
    from quality_py.errors import PolicyError

    df = spark.createDataFrame(ROWS, SCHEMA)
    with pytest.raises(PolicyError, match="not allowed"):
        add_data_quality(df, _suite((50, 100, text)))


def test_aggregates_sqlglot_does_not_model_are_aggregates(spark: Any) -> None:
    """try_avg, every, std parse as plain calls: still one result for the input, and a suite
    mixing them with per-row expressions is refused."""
    df = spark.createDataFrame(ROWS, SCHEMA)
    suite = _suite((50, 100, "try_avg(n)"), (50, 101, "every(n > 0)"), (50, 102, "std(n)"))
    rows = df.select(expression_runner(df, suite)).collect()
    values = rows[0].expressionResults.ruleSetResults[packed(50)]
    assert len(rows) == 1 and json.loads(values[packed(100)].result) == 2.0
    assert values[packed(101)].result == "true"
    assert json.loads(values[packed(102)].result) == pytest.approx(1.0)  # sample stddev of 1,2,3
    with pytest.raises(RuleAnalysisError, match="all aggregates") as err:
        expression_runner(df, _suite((50, 100, "try_avg(n)"), (50, 101, "n + 1")))
    assert err.value.item_id == Id(101, 1)


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


SALES = [
    ("2024-01-01", "tea", "CHF", 10.0, 1.0),
    ("2024-01-01", "tea", "EUR", 4.0, 1.1),
    ("2024-01-02", "tea", "CHF", 2.5, 1.0),
    ("2024-01-01", "cake", "USD", 3.0, 0.9),
    ("2024-01-01", None, "CHF", 7.0, 1.0),  # a null key: left out of the map, still counted
]


def test_map_with_counts_and_sums_per_key_as_the_original_documents(spark: Any) -> None:
    df = spark.createDataFrame(SALES, "date string, product string, ccy string, value double, "
                                      "ccyrate double")  # fmt: skip
    suite = _suite(
        (50, 110, "agg_expr('MAP<STRING, BIGINT>', 1 > 0, map_with(date || ', ' || product, "
                  "entry -> entry + 1), results_with((sum, count) -> sum))"),
        (50, 111, "agg_expr('MAP<STRING, DOUBLE>', 1 > 0, mapWith(date || ', ' || product, "
                  "entry -> entry + IF(ccy = 'CHF', value, value * ccyrate)), return_sum())"),
        (50, 112, "agg_expr('MAP<STRING, BIGINT>', ccy = 'CHF', map_with(product, "
                  "entry -> entry + 1), results_with((sum, count) -> count))"),
        (50, 113, "agg_expr('MAP<STRING, BIGINT>', value > 100, map_with(product, "
                  "entry -> entry + 1), return_sum())"),
    )  # fmt: skip
    counts: dict[str, int] = {}
    sums: dict[str, float] = {}
    for date, product, ccy, value, rate in SALES:
        if product is None:
            continue
        key = f"{date}, {product}"
        counts[key] = counts.get(key, 0) + 1
        sums[key] = sums.get(key, 0.0) + (value if ccy == "CHF" else value * rate)
    chf_rows = sum(1 for row in SALES if row[2] == "CHF")
    values = df.select(expression_runner(df, suite)).first().expressionResults
    results = values.ruleSetResults[packed(50)]
    assert json.loads(results[packed(110)].result) == counts
    assert results[packed(110)].resultDDL == "MAP<STRING, BIGINT>"
    assert json.loads(results[packed(111)].result) == pytest.approx(sums)
    assert json.loads(results[packed(112)].result) == chf_rows
    assert json.loads(results[packed(113)].result) == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agg_expr(1 > 0, map_with(s, e -> e + 1), return_sum())", "'MAP<K, V>'"),
        ("agg_expr('MAP<STRING, BIGINT>', 1 > 0, map_with(s, e -> e * 2), return_sum())",
         "must add to the entry"),
        ("agg_expr('MAP<STRING, BIGINT>', 1 > 0, map_with(s, e -> e + 1), meanF())",
         "a map_with sum is a map"),
    ],
)  # fmt: skip
def test_map_with_misuse_names_the_rule(spark: Any, text: str, message: str) -> None:
    from quality_py.errors import LibraryFunctionError

    df = spark.createDataFrame([("a",)], "s string")
    with pytest.raises(LibraryFunctionError) as err:
        expression_runner(df, _suite((50, 108, text)))
    assert message in str(err.value) and err.value.item_id == Id(108, 1)


def test_map_with_needs_the_expression_runners_input(spark: Any) -> None:
    from quality_py.errors import LibraryFunctionError

    with pytest.raises(LibraryFunctionError, match="runs in expression_runner"):
        Q.expr("agg_expr('MAP<STRING, BIGINT>', 1 > 0, map_with(s, e -> e + 1), return_sum())")


def test_null_typed_values_have_a_type_like_any_other(spark: Any) -> None:
    """``select null c`` is of Spark's VOID type; a struct may hold one too (by hand: the
    value is null, written as JSON null, and its type is VOID)."""
    df = spark.sql("SELECT null AS c, named_struct('a', null, 'b', 1) AS s")
    suite = _suite((50, 100, "first(c)"), (50, 101, "first(s)"))
    res = df.select(expression_runner(df, suite)).first().expressionResults
    got = res.ruleSetResults[packed(50)]
    assert (got[packed(100)].result, got[packed(100)].resultDDL) == ("null", "VOID")
    assert got[packed(101)].resultDDL == "STRUCT<a: VOID, b: INT>"
    assert json.loads(got[packed(101)].result) == {"b": 1}  # to_json leaves null fields out
    typed = df.select(typed_expression_runner(df, _suite((50, 100, "first(c)")), "void")).first()
    assert list(typed.expressionResults.ruleSetResults[packed(50)].values()) == [None]
