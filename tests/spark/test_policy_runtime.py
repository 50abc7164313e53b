"""Untrusted rules at run time: no side effect, no job, and one bad value never aborts a job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import FAILED, PASSED, Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.errors import QualityError, RuleAnalysisError
from quality_py.model.policy import RulePolicy
from quality_py.spark.hardening import check_session
from tests.spark.jobs import jobs_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


def _suite(*texts: str) -> RuleSuite:
    return RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10 + i, 1), t) for i, t in enumerate(texts)])]
    )


def _codes(df: Any, *texts: str, policy: RulePolicy | None = None) -> list[list[int]]:
    suite = _suite(*texts)
    out = add_data_quality(df, suite.with_policy(policy or suite.policy), "dq", layout="compact")
    return [list(r.dq.ruleResults) for r in out.orderBy("k").collect()]


@pytest.mark.parametrize(
    "template",
    [
        "reflect('java.lang.System', 'exit', 0) IS NULL",
        "(select max(a) from (select transform(1) using 'touch {marker}' as (a string))) is null",
        "(select count(*) from text.`{marker}`) > 0",
        "java_method('java.lang.System', 'getenv', 'HOME') IS NULL",
        "assert_true(k > 100)",
    ],
)
def test_dangerous_rules_fail_before_any_job_without_side_effects(
    spark: Any, tmp_path: Path, template: str
) -> None:
    marker = tmp_path / "qp_marker"
    df = spark.createDataFrame([(1,)], "k int")
    raised: list[QualityError] = []

    def attempt() -> None:
        with pytest.raises(QualityError) as err:
            add_data_quality(df, _suite("k > 0", template.format(marker=marker)))
        raised.append(err.value)

    jobs, _ = jobs_of(spark, attempt)
    assert raised[0].code == "POLICY" and raised[0].item_id == Id(11, 1)
    assert jobs == 0  # nothing ran
    assert not marker.exists()
    assert spark.range(3).count() == 3  # the JVM is alive


@pytest.fixture(scope="module")
def messy(spark: Any) -> Any:
    return spark.createDataFrame(
        [
            (1, "12", 4, 2, 2147483647, [1, 2]),
            (2, "abc", 1, 0, 1, [1]),
            (3, None, None, None, None, None),
        ],
        "k int, s string, a int, b int, big int, arr array<int>",
    )


CONTAINED = [
    "CAST(s AS INT) > 5",  # 'abc' cannot be cast
    "a / b > 1",  # division by zero
    "a % b = 0",  # modulo by zero
    "a div b = 1",
    "big + 1 > 0",  # int overflow
    "big * 2 > 0",
    "element_at(arr, 2) = 2",  # index out of bounds
    "s > 5",  # Spark's own implicit cast of the string (catalogue 33), where allowed
    "s + 1 = 13 OR s IN (1, 2)",
]
ALLOW_CASTS = RulePolicy(allow_implicit_casts=True)


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_one_bad_value_gives_a_failed_row_not_an_aborted_job(
    spark: Any, messy: Any, ansi: str
) -> None:
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        got = _codes(messy, *CONTAINED, policy=ALLOW_CASTS)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    assert got == [
        [PASSED, PASSED, PASSED, FAILED, FAILED, FAILED, PASSED, PASSED, PASSED],
        [FAILED, FAILED, FAILED, FAILED, PASSED, PASSED, FAILED, FAILED, FAILED],
        [FAILED] * 9,  # nulls are Failed, as every other null rule value
    ]


@pytest.mark.parametrize("ansi", ["true", "false"])
@pytest.mark.parametrize(
    ("rule", "operand"),
    [
        ("s > 5", "s"),
        ("s + 1 = 13", "s"),
        ("a = 1 OR s IN (1, 2)", "s"),
        ("s BETWEEN 1 AND 3", "s"),
        ("upper(s) = 12", "UPPER(s)"),
        ("abs(s) < 5", "s"),
        ("year(s) = 2024", "s"),
        ("s > DATE '2024-01-01'", "s"),
    ],
)
def test_text_meeting_a_number_or_date_is_refused_by_default(
    spark: Any, messy: Any, ansi: str, rule: str, operand: str
) -> None:
    """The default policy refuses Spark's own conversion of text (it would compare '613.86'
    with 0 as a BIGINT, and fail the row), naming the rule, the column, its type and the
    conversion to write; with ANSI on and off alike, before any job."""
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        with pytest.raises(RuleAnalysisError) as err:
            _codes(messy, "k > 0", rule)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    e = err.value
    assert e.code == "IMPLICIT_CAST" and e.item_id == Id(11, 1)
    assert f"{operand} is text (string)" in str(e) and f"TRY_CAST({operand} AS" in str(e)


def test_an_explicit_conversion_answers_the_question_written(spark: Any) -> None:
    df = spark.createDataFrame([(1, "613.86"), (2, "-1"), (3, "n/a")], "k int, amount string")
    got = _codes(df, "TRY_CAST(amount AS DOUBLE) > 0", "TRY_CAST(amount AS DECIMAL(10, 2)) > 0")
    assert got == [[PASSED, PASSED], [FAILED, FAILED], [FAILED, FAILED]]


def test_a_comment_cannot_break_out_of_the_rule(spark: Any) -> None:  # catalogue 5
    df = spark.createDataFrame([(1, 50), (2, 150)], "k int, amount int")
    assert _codes(df, "amount > 100 -- ) THEN 1 ELSE 0 END", "amount > 100") == [
        [FAILED, FAILED],
        [PASSED, PASSED],
    ]


def test_odd_identifiers_resolve_and_confusables_do_not(spark: Any) -> None:  # 30, 31
    df = spark.createDataFrame([(1, 2, 3)], "k int, `weird col` int, `prix_€` int")
    assert _codes(df, "`weird col` > 1", "`prix_€` > 0") == [[PASSED, PASSED]]
    with pytest.raises(RuleAnalysisError) as err:
        _codes(df, "k > 0", "\u0430mount > 0")  # Cyrillic a
    assert err.value.item_id == Id(11, 1)


def test_all_null_column_keeps_every_row(spark: Any) -> None:  # catalogue 35
    df = spark.createDataFrame([(i, None) for i in range(10)], "k int, x int")
    out = add_data_quality(df, _suite("x > 0"), "dq", layout="compact")
    assert out.count() == 10
    assert {r.dq.overallResult for r in out.collect()} == {FAILED}


def test_check_session_reports_the_switches(spark: Any) -> None:
    before = spark.conf.get("spark.sql.runSQLOnFiles")
    try:
        spark.conf.set("spark.sql.runSQLOnFiles", "true")  # Spark's default
        report = check_session(spark)
        assert "spark.sql.runSQLOnFiles" in report.settings
        assert "spark.sql.runSQLOnFiles" in report.missing and not report.hardened
        assert "runSQLOnFiles=false" in report.describe()
        spark.conf.set("spark.sql.runSQLOnFiles", "false")  # as the command line sets it
        assert check_session(spark).hardened
    finally:
        spark.conf.set("spark.sql.runSQLOnFiles", before)


def test_spark_analysis_is_the_second_gate_for_determinism(spark: Any) -> None:
    # a function the policy was told to allow but that Spark knows is nondeterministic
    from quality_py.model.policy import RulePolicy

    df = spark.createDataFrame([(1,)], "k int")
    suite = _suite("k > 0", "rand() < 2").with_policy(
        RulePolicy(allowed_functions=frozenset({"rand"}))
    )
    with pytest.raises(RuleAnalysisError) as err:
        add_data_quality(df, suite)
    assert err.value.item_id == Id(11, 1) and "nondeterministic" in err.value.message
    trusted = suite.with_policy(RulePolicy.trusted_policy())
    assert add_data_quality(df, trusted).count() == 1


def test_not_in_the_future_rule_runs_under_the_default_policy(spark: Any) -> None:
    import datetime

    from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality

    today = datetime.date.today()
    rows = [(today - datetime.timedelta(days=3),), (today + datetime.timedelta(days=400),)]
    df = spark.createDataFrame(rows, "d date")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "d <= current_date()")])])
    got = [r.DataQuality.overallResult for r in add_data_quality(df, suite).orderBy("d").collect()]
    assert got == [100000, 0]  # by hand: three days ago passes, next year fails


def test_an_engine_output_comparing_text_with_a_number_is_refused(spark: Any) -> None:
    from quality_py import OutputExpression, rule_engine_with_struct

    df = spark.createDataFrame([(1, "613.86")], "k int, amount string")
    output = OutputExpression(Id(50, 1), "IF(amount > 0, 'credit', 'debit')")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "k > 0", 1, output)])])
    with pytest.raises(RuleAnalysisError) as err:
        rule_engine_with_struct(df, suite, "string")
    assert err.value.code == "IMPLICIT_CAST" and "output 50.1" in str(err.value)
    fixed = OutputExpression(Id(50, 1), "IF(TRY_CAST(amount AS DOUBLE) > 0, 'credit', 'debit')")
    ok = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "k > 0", 1, fixed)])])
    assert rule_engine_with_struct(df, ok, "string", "e").first().e.result == "credit"
