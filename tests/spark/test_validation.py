"""validate(): every finding kind, with the item id, and no Spark job run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.model.policy import RulePolicy
from quality_py.validation import validate
from tests.spark.jobs import jobs_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SCHEMA = StructType(
    [
        StructField("a", IntegerType()),
        StructField("s", StructType([StructField("b", StringType())])),
    ]
)


def _suite(*rules: Rule, lambdas: tuple[LambdaFunction, ...] = ()) -> RuleSuite:
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), list(rules))], lambdas=lambdas)


def _kinds(report: Any) -> list[tuple[str, str, Id | None]]:
    return sorted((f.kind, f.item_kind, f.item_id) for f in report.findings)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("a >", "SyntaxError"),
        ("nope > 1", "NameError"),
        ("s.c = 'x'", "NameError"),  # nested path
        ("no_such_function(a) > 0", "FunctionNameError"),
        ("exists(select 1 from missing_view_xyz)", "ViewError"),
        ("a = array(1)", "AnalysisError"),  # type error
    ],
)
def test_each_error_kind_names_the_rule(spark: Any, text: str, kind: str) -> None:
    suite = _suite(Rule(Id(10, 1), "a > 0"), Rule(Id(11, 3), text))
    if kind in ("FunctionNameError", "ViewError"):  # let Spark's analysis be the one to object
        suite = suite.with_policy(
            RulePolicy(allowed_functions=frozenset({"no_such_function"})).with_views(
                "missing_view_xyz"
            )
        )
    report = validate(suite, SCHEMA, spark=spark)
    assert _kinds(report) == [(kind, "rule", Id(11, 3))]
    assert not report.ok and report.spark_checked


def test_valid_rules_pass_and_nested_paths_and_subqueries_resolve(spark: Any) -> None:
    spark.createDataFrame([(1,)], "i int").createOrReplaceTempView("validation_view")
    suite = _suite(
        Rule(Id(10, 1), "s.b = 'x' AND exists(array(a), x -> x > 0)"),
        Rule(Id(11, 1), "a > (select max(v.i) from validation_view v where v.i < main.a)"),
        Rule(Id(12, 1), "positive(a)"),
        lambdas=(
            LambdaFunction(
                "positive", "/** is it positive @param x the value */ x -> x > 0", Id(5, 1)
            ),
        ),
    ).with_policy(RulePolicy().with_views("validation_view"))
    report = validate(suite, SCHEMA, spark=spark)
    assert report.findings == () and report.ok


def test_lambda_findings(spark: Any) -> None:
    lambdas = (
        LambdaFunction("f", "x -> x > missing_col", Id(5, 1)),  # free variable not in schema
        LambdaFunction("g", "x -> x + 1", Id(6, 1)),
        LambdaFunction("g", "y -> y + 2", Id(6, 2)),  # same name and arity
        LambdaFunction("r1", "x -> r2(x)", Id(7, 1)),
        LambdaFunction("r2", "x -> r1(x)", Id(8, 1)),  # a cycle
        LambdaFunction("d", "/** @param y not a parameter */ x -> x", Id(9, 1)),
    )
    suite = _suite(Rule(Id(10, 1), "g(a) > 0"), Rule(Id(11, 1), "g(a, 1) > 0"), lambdas=lambdas)
    kinds = _kinds(validate(suite, SCHEMA, spark=spark))
    assert ("NameError", "lambda", Id(5, 1)) in kinds
    assert ("LambdaDuplicateError", "lambda", Id(6, 2)) in kinds
    assert any(k == "LambdaRecursionError" and i in (Id(7, 1), Id(8, 1)) for k, _, i in kinds)
    assert ("ExtraDocParameter", "lambda", Id(9, 1)) in kinds
    assert ("LambdaArityError", "rule", Id(11, 1)) in kinds
    assert not any(i == Id(10, 1) for _, _, i in kinds)


def test_outputs_and_doc_warnings(spark: Any) -> None:
    bad_out = OutputExpression(Id(90, 1), "concat(a, nope)")
    folder_out = OutputExpression(Id(91, 1), "set(a = currentResult.a + 1)")
    suite = _suite(
        Rule(Id(10, 1), "/** doc @param z nothing */ a > 0", salience=1, output=bad_out),
        Rule(Id(11, 1), "a > 1", salience=2, output=folder_out),
    )
    report = validate(suite, SCHEMA, spark=spark)
    assert _kinds(report) == [
        ("NameError", "output", Id(90, 1)),
        ("NonLambdaDocParameters", "rule", Id(10, 1)),
    ]
    assert [f.kind for f in report.warnings] == ["NonLambdaDocParameters"]


def test_validation_runs_no_spark_job_and_can_run_a_sample(spark: Any) -> None:
    suite = _suite(*[Rule(Id(100 + k, 1), f"a > {k}") for k in range(50)])
    jobs, report = jobs_of(spark, lambda: validate(suite, SCHEMA, spark=spark))
    assert report.ok and jobs == 0
    sample = spark.createDataFrame([(5, ("x",)), (60, ("y",))], SCHEMA)
    with_rows = validate(suite, sample, sample=sample)
    assert [r.a for r in with_rows.sample or []] == [5, 60]
    assert with_rows.sample[0].DataQuality.overallResult == 0  # type: ignore[index]


def test_static_only_without_a_session_still_checks_names() -> None:
    report = validate(_suite(Rule(Id(10, 1), "nope > 1")), None)
    assert report.findings == () and not report.spark_checked  # no schema: syntax only
    bad = validate(_suite(Rule(Id(10, 1), "a >")))
    assert [f.kind for f in bad.errors] == ["SyntaxError"]


def test_folder_output_bodies_are_checked_by_the_policy() -> None:
    out = OutputExpression(
        Id(92, 1), "x -> named_struct('a', java_method('java.lang.System', 'getenv', 'HOME'))"
    )
    report = validate(_suite(Rule(Id(10, 1), "a > 1", salience=1, output=out)))
    assert [(f.kind, f.item_kind, f.item_id) for f in report.errors] == [
        ("PolicyError", "output", Id(92, 1))
    ]


def test_validation_says_what_a_run_would_say(spark: Any) -> None:
    from quality_py import Check

    suite = _suite(
        Rule(Id(10, 1), "a > > 0"),  # the typo that ran as a shift
        Rule(Id(11, 1), "concat('x', s.b)"),  # text: Failed unless it is a result word
        Rule(Id(12, 1), "a > 0"),
        # only result words in every branch: a run reads them as results, no warning
        Rule(Id(13, 1), "CASE WHEN a IS NULL THEN 'maybe' WHEN a > 0 THEN 'Pass' ELSE 'fail' END"),
        Rule(Id(14, 1), "IF(a > 0, 'yes', IF(a < -5, 'disabled', NULL))"),
        # one branch of free text: warned
        Rule(Id(15, 1), "CASE WHEN a > 0 THEN 'pass' ELSE 'bad value' END"),
    )
    checks = [
        Check("error", "fit")
        .has_size("about 5")  # an assertion no run can read
        .is_complete("nope")  # a missing column
        .satisfies("reflect('java.lang.System', 'exit', 0) IS NULL", "escape")  # the policy
        .has_min("a", ">= 0"),  # fine
    ]
    report = validate(suite, SCHEMA, spark=spark, checks=checks)
    kinds = [(f.kind, f.item_kind, f.item_id) for f in report.findings]
    assert ("PolicyError", "rule", Id(10, 1)) in kinds
    assert ("StringResult", "rule", Id(11, 1)) in kinds
    assert ("StringResult", "rule", Id(15, 1)) in kinds
    assert not any(i in (Id(12, 1), Id(13, 1), Id(14, 1)) for _, _, i in kinds)
    checked = [(f.kind, f.message.split(":")[0]) for f in report.findings if f.item_kind == "check"]
    assert checked == [
        ("CheckError", "check 'fit', size about 5"),
        ("NameError", "check 'fit', nope is complete"),
        ("CheckError", "check 'fit', escape"),
    ]
    assert not report.ok


def test_validate_and_docs_take_views_from_the_command_line(spark: Any, tmp_path: Any) -> None:
    from quality_py.cli import main

    spark.createDataFrame([("EWR",)], "faa string").write.parquet(str(tmp_path / "airports"))
    spark.createDataFrame([("EWR", 1)], "origin string, a int").write.parquet(str(tmp_path / "in"))
    ruleset = tmp_path / "r.yaml"
    ruleset.write_text(
        "suite: {id: 1}\nrule_sets:\n  - id: 2\n    rules:\n"
        "      - {id: 3, expression: 'exists(SELECT 1 FROM airports x WHERE x.faa = main.origin)'}\n"
    )
    args = ["--input", str(tmp_path / "in"), "--view", f"airports={tmp_path / 'airports'}"]
    assert main(["validate", str(ruleset), *args]) == 0
    assert main(["validate", str(ruleset), "--input", str(tmp_path / "in")]) != 0  # no view
    assert main(["docs", str(ruleset), *args, "--out", str(tmp_path / "d.md")]) == 0


def test_implicit_string_coercions_are_reported_with_the_rule(spark: Any) -> None:
    schema = StructType([StructField("amount", StringType()), StructField("n", IntegerType())])
    suite = _suite(
        Rule(Id(10, 1), "amount > 0"),  # '613.86' cast to BIGINT is null: Failed
        Rule(Id(11, 1), "to_date(amount, 'yyyy-MM-dd') IS NOT NULL"),  # explicit: fine
        Rule(Id(12, 1), "n > 0"),  # an int column: fine
        Rule(Id(13, 1), "year(amount) = 2024"),  # a function reads the text as a date
        Rule(Id(14, 1), "abs(amount) < 5"),  # ... and as a double
    )
    refused = validate(suite, schema, spark=spark)  # the default policy refuses them
    assert [(f.kind, f.item_id) for f in refused.findings] == [
        ("ImplicitCast", Id(i, 1)) for i in (10, 13, 14)
    ]
    assert not refused.ok and "TRY_CAST(amount AS DOUBLE)" in refused.findings[0].message
    suite = suite.with_policy(replace(suite.policy, allow_implicit_casts=True))
    report = validate(suite, schema, spark=spark)
    found = [(f.kind, f.item_id) for f in report.findings]
    assert found == [("ImplicitCoercion", Id(i, 1)) for i in (10, 13, 14)]
    messages = {f.item_id.id: f.message for f in report.findings}
    assert "reads it as date" in messages[13] and "reads it as double" in messages[14]
    message = report.findings[0].message
    assert "amount is text (string) and meets 0, a bigint" in message
    assert report.ok  # a warning, not an error
