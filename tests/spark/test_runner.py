"""The data-quality runner: schema, layouts, lambdas, subqueries, errors, evaluation count."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pyspark.sql import functions as F

from quality_py import (
    FAILED,
    PASSED,
    CompactLayout,
    Id,
    LambdaFunction,
    Layout,
    Rule,
    RuleAnalysisError,
    RuleSet,
    RuleSuite,
    add_data_quality,
    add_overall_results_and_details,
    data_quality,
    layout_of_field,
    overall_results_and_details,
    rule_runner,
)
from quality_py.functions import expr, flatten_results, rule_result
from quality_py.model.policy import RulePolicy
from quality_py.model.results import DQ_COMPACT_DDL, DQ_MAP_DDL, FLAT_RESULT_FIELDS

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ISSUE_SUITE = RuleSuite(
    Id(1, 1),
    [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a % 2 == 0"), Rule(Id(100, 2), "isPositive(b)")])],
    lambdas=[LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))],
)


@pytest.fixture(scope="module")
def ab(spark: Any) -> Any:
    return spark.createDataFrame([(2, 1), (3, 1), (4, -1), (6, None)], "a int, b int")


def test_issue_example(spark: Any, ab: Any) -> None:
    checked = ab.transform(lambda d: add_data_quality(d, ISSUE_SUITE))
    good = checked.filter(expr("DataQuality.overallResult = passed()"))
    assert [r.a for r in good.collect()] == [2]
    rows = {r.a: r.DataQuality for r in checked.collect()}
    rs = Id(50, 1).packed
    assert rows[3].ruleSetResults[rs].ruleResults == {
        Id(100, 1).packed: FAILED,
        Id(100, 2).packed: PASSED,
    }
    assert rows[6].ruleSetResults[rs].ruleResults[Id(100, 2).packed] == FAILED  # null -> Failed
    assert rows[2].id == Id(1, 1).packed


@pytest.mark.parametrize(("layout", "ddl"), [("map", DQ_MAP_DDL), ("compact", DQ_COMPACT_DDL)])
def test_schema_is_exactly_the_contract(ab: Any, layout: str, ddl: str) -> None:
    checked = add_data_quality(ab, ISSUE_SUITE, layout=layout)
    assert checked.columns == ["a", "b", "DataQuality"]
    assert checked.schema["DataQuality"].dataType.simpleString() == ddl
    generic = ab.select(rule_runner(ISSUE_SUITE, layout=layout))
    assert generic.schema["DataQuality"].dataType.simpleString() == ddl


def test_map_and_compact_hold_the_same_results(spark: Any, ab: Any) -> None:
    suite = RuleSuite(
        Id(3, 2),
        [
            RuleSet(
                Id(7, 1), [Rule(Id(1, 1), "a > 2"), Rule(Id(2, 1), "b"), Rule(Id(3, 4), "0.85")]
            ),
            RuleSet(Id(8, 3), [Rule(Id(1, 1), "'maybe'"), Rule(Id(9, 1), "a < 5")]),
        ],
    )
    by_map = add_data_quality(ab, suite).select(
        "a", F.explode(flatten_results("DataQuality")).alias("f")
    )
    compact = add_data_quality(ab, suite, layout="compact")
    lay = layout_of_field(compact.schema["DataQuality"])
    assert lay == CompactLayout.of(suite)
    by_compact = compact.select(
        "a", F.explode(flatten_results("DataQuality", layout=lay)).alias("f")
    )
    assert by_map.schema["f"].dataType.fieldNames() == list(FLAT_RESULT_FIELDS)
    assert by_compact.schema.simpleString() == by_map.schema.simpleString()
    m = sorted(tuple(r) for r in by_map.select("a", "f.*").collect())
    c = sorted(tuple(r) for r in by_compact.select("a", "f.*").collect())
    assert m == c
    assert len(m) == 4 * 5
    assert (2, 3, 2, 0, 0, 7, 1, 1, 1, 0) in m  # a=2: rule 1.1 of set 7 failed (2 > 2 is false)


def test_rule_result_in_both_layouts(spark: Any, ab: Any) -> None:
    suite = ISSUE_SUITE
    p = Id(1, 1).packed, Id(50, 1).packed, Id(100, 2).packed
    got_map = add_data_quality(ab, suite).select(
        "a",
        rule_result("DataQuality", *p).alias("r"),
        expr(
            "rule_result(DataQuality, pack_ints(1, 1), pack_ints(50, 1), pack_ints(999, 1))"
        ).alias("missing"),
        expr(
            "rule_result(DataQuality, pack_ints(2, 1), pack_ints(50, 1), pack_ints(100, 2))"
        ).alias("other_suite"),
    )
    compact = add_data_quality(ab, suite, layout="compact")
    got_compact = compact.select(
        "a", rule_result(F.col("DataQuality"), *p, layout=suite).alias("r")
    )
    expected = {2: PASSED, 3: PASSED, 4: FAILED, 6: FAILED}
    assert {r.a: r.r for r in got_map.collect()} == expected
    assert {r.a: r.r for r in got_compact.collect()} == expected
    assert {(r.missing, r.other_suite) for r in got_map.collect()} == {(None, None)}


def test_flatten_results_of_null_is_null(spark: Any) -> None:
    df = spark.createDataFrame([(None,)], f"dq {DQ_MAP_DDL}")
    assert df.select(flatten_results("dq").alias("f")).first().f is None


def test_overall_results_and_details(spark: Any, ab: Any) -> None:
    out = ab.transform(overall_results_and_details(ISSUE_SUITE))
    assert out.columns == ["a", "b", "DQ_overallResult", "DQ_Details"]
    assert out.schema["DQ_Details"].dataType.simpleString() == (
        "struct<id:bigint,ruleSetResults:map<bigint,struct<overallResult:int,ruleResults:map<bigint,int>>>>"
    )
    assert {r.a: r.DQ_overallResult for r in out.collect()} == {
        2: PASSED,
        3: FAILED,
        4: FAILED,
        6: FAILED,
    }
    details = out.select(expr("rule_suite_result_details(DQ_Details)").alias("d"))
    assert (
        details.schema.simpleString()
        == out.select(F.col("DQ_Details").alias("d")).schema.simpleString()
    )
    compact = add_overall_results_and_details(ab, ISSUE_SUITE, "o", "d", layout="compact")
    assert layout_of_field(compact.schema["d"]) == CompactLayout.of(ISSUE_SUITE)
    assert ab.transform(data_quality(ISSUE_SUITE, "dq")).columns[-1] == "dq"


@pytest.mark.parametrize("shared", ["false", "true"])
def test_each_rule_is_evaluated_once_per_row(
    spark: Any, ab: Any, setting: Any, shared: str
) -> None:
    """Staged (where Spark would not share a repeated expression): each rule once in the plan.
    One projection (runners.one_projection; a limit of 8000, where it is whole-stage code here):
    the rule's text repeats in the plan, and Spark's generated code computes it once."""
    import contextlib
    import io

    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "(a % 7919) = 0"), Rule(Id(4, 1), "b > 17")])]
    )
    setting("spark.sql.codegen.hugeMethodLimit", "8000")
    setting("spark.sql.subexpressionElimination.enabled", shared)
    for layout in ("map", "compact"):
        out = add_data_quality(ab, suite, layout=layout)
        if shared == "false":
            plan = out._jdf.queryExecution().executedPlan().toString()
            assert len(re.findall(r"% 7919\)", plan)) == 1, plan
            assert len(re.findall(r"> 17\)", plan)) == 1, plan
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            out.explain("codegen")
        java = "\n".join(
            line for line in printed.getvalue().splitlines() if re.match(r"/\* \d+ \*/", line)
        )
        assert len(re.findall(r"% 7919\)", java)) == 1, java
        assert len(re.findall(r"> 17;", java)) == 1, java


def test_lambdas_calling_lambdas_and_zero_argument_lambdas(spark: Any, ab: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "bothOk()"), Rule(Id(4, 1), "inRange(a, 1, 3)")])],
        lambdas=[
            LambdaFunction("inRange", "(x, lo, hi) -> x >= lo AND x <= hi", Id(10, 1)),
            LambdaFunction("bothOk", "inRange(a, 2, 4) AND isPositive(b)", Id(11, 1)),
            LambdaFunction("isPositive", "x -> x > 0", Id(12, 1)),
        ],
    )
    got = {
        r.a: list(r.dq.ruleResults)
        for r in add_data_quality(ab, suite, "dq", layout="compact").collect()
    }
    assert got == {
        2: [PASSED, PASSED],
        3: [PASSED, PASSED],
        4: [FAILED, FAILED],
        6: [FAILED, FAILED],
    }


def test_scalar_and_exists_subqueries_correlated_through_main(spark: Any, ab: Any) -> None:
    spark.createDataFrame(
        [(2, "x"), (4, "y"), (5, "z")], "k int, name string"
    ).createOrReplaceTempView("qp_lookup")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(3, 1), "exists(SELECT 1 FROM qp_lookup l WHERE l.k = main.a)"),
                    Rule(
                        Id(4, 1),
                        "(SELECT max(l.k) FROM qp_lookup l WHERE l.k > main.a) IS NOT NULL",
                    ),
                    Rule(Id(5, 1), "a IN (SELECT k FROM qp_lookup)"),
                ],
            )
        ],
    ).with_policy(RulePolicy().with_views("qp_lookup"))  # the only table rules may read
    got = {
        r.a: list(r.dq.ruleResults)
        for r in add_data_quality(ab, suite, "dq", layout="compact").collect()
    }
    assert got == {
        2: [PASSED, PASSED, PASSED],
        3: [FAILED, PASSED, FAILED],
        4: [PASSED, PASSED, PASSED],
        6: [FAILED, FAILED, FAILED],
    }


def test_analysis_errors_name_every_failing_rule(ab: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(3, 1), "a > 0"),
                    Rule(Id(4, 7), "nope > 1"),
                    Rule(Id(5, 1), "missing_fn(a)"),
                ],
            )
        ],
    ).with_policy(RulePolicy.trusted_policy())  # Spark's analysis, not the policy, must object
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(ab, suite)
    e = err.value
    assert e.code == "RULE_ANALYSIS"
    assert e.item_id == Id(4, 7)
    assert "rule 4.7" in e.message and "rule 5.1" in e.message and "rule 3.1" not in e.message


def test_unusable_result_types_are_rejected_with_the_rule(ab: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "array(a)"), Rule(Id(6, 1), "current_date()")])],
    ).with_policy(RulePolicy.trusted_policy())
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(ab, suite)
    assert "rule 3.1" in err.value.message and "array<int>" in err.value.message
    assert "rule 6.1" in err.value.message and "date" in err.value.message


def test_type_errors_in_library_functions_surface_at_analysis(ab: Any) -> None:
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "pack_ints(a, concat(b, '')) > 0")])]
    )
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(ab, suite)
    assert err.value.item_id == Id(3, 1)


def test_compact_layout_metadata_survives_parquet(spark: Any, ab: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "dq")
    add_data_quality(ab, ISSUE_SUITE, layout=Layout.COMPACT).write.parquet(path)
    back = spark.read.parquet(path)
    lay = layout_of_field(back.schema["DataQuality"])
    assert lay == CompactLayout.of(ISSUE_SUITE)
    rows = back.select(
        "a",
        rule_result(
            "DataQuality", 4294967297, Id(50, 1).packed, Id(100, 1).packed, layout=lay
        ).alias("r"),
    )
    assert {r.a: r.r for r in rows.collect()} == {2: PASSED, 3: FAILED, 4: PASSED, 6: PASSED}


def test_hidden_column_names_cannot_clash(spark: Any) -> None:
    df = spark.createDataFrame([(1,)], "__qp_v0 int")
    with pytest.raises(Exception, match="clash"):
        add_data_quality(df, RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "true")])]))


def test_rule_runner_analyses_against_a_schema(spark: Any, ab: Any) -> None:
    bad = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 9), "nope > 0")])])
    with pytest.raises(RuleAnalysisError) as err:
        rule_runner(bad, schema=ab.schema)
    assert err.value.item_id == Id(3, 9)
    typed = ab.select("a", rule_runner(ISSUE_SUITE, schema=ab.schema, layout="compact"))
    assert {r.a: r.DataQuality.overallResult for r in typed.collect()} == {
        2: PASSED,
        3: FAILED,
        4: FAILED,
        6: FAILED,
    }


def test_a_suite_compiled_before_reading_data_is_compiled_once(spark: Any) -> None:
    from quality_py.runners.staging import stage_rule_codes
    from quality_py.sql.compiler import compile_suite

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1")])])
    compiled = compile_suite(suite)  # what the CLI does before it reads the input
    df = spark.createDataFrame([(1,), (2,)], "a int")
    staged = stage_rule_codes(df, suite, compiled=compiled)
    assert staged.compiled.rules == compiled.rules  # the same trees: not compiled again
    assert staged.compiled.rules[0].tree is compiled.rules[0].tree


def test_a_suite_of_many_rules_is_analysed_in_one_call_with_the_same_errors(spark: Any) -> None:
    """Over 64 rules the texts reach Spark in one call (runners/frames.py): the results, and
    the error that names a broken rule, are those of the ordinary path."""
    df = spark.createDataFrame([(i, i * 3) for i in range(6)], "a int, b int")
    rules = [Rule(Id(100 + k, 1), f"(a + {k}) % {2 + k % 5} = 0") for k in range(90)]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), rules)])
    checked = add_data_quality(df, suite, layout="compact").collect()
    for row in checked:  # expected: Python's own arithmetic, rule by rule
        expected = [PASSED if (row.a + k) % (2 + k % 5) == 0 else FAILED for k in range(90)]
        assert list(row.DataQuality.ruleResults) == expected
    broken = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [*rules, Rule(Id(999, 1), "nope > 0")])])
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(df, broken, layout="compact")
    assert "rule 999.1" in str(err.value) and "1 rule(s)" in str(err.value)
