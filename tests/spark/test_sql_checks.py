"""SQL checks on the source and the outputs, and error-rate alerts. Expected values are counted
in Python from the rows written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, OverTime, QualityRunFailed, Rule, RuleSet, RuleSuite, run_quality
from quality_py.actions.judging import ErrorRates
from quality_py.actions.notify import CallbackNotifier
from quality_py.actions.sql_checks import SqlCheck
from quality_py.errors import CheckDefinitionError

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(10, 1),
            [
                Rule(Id(101, 1), "a >= 0", action_if_failed="drop"),
                Rule(Id(102, 1), "b IS NOT NULL"),
            ],
        )
    ],
)
ROWS = [(i - 5 if i % 4 == 0 else i, None if i % 3 == 0 else "x") for i in range(40)]
NEGATIVE = sum(1 for a, _ in ROWS if a < 0)
QUARANTINED = sum(1 for a, b in ROWS if a < 0 or b is None)

CONSERVATION = SqlCheck(
    "no row is lost",
    "SELECT (SELECT count(*) FROM valid) = (SELECT count(*) FROM source) - "
    "(SELECT count(*) FROM quarantine WHERE NOT qp_kept_in_valid)",
)


def test_sql_checks_hold_and_are_kept(spark: Any, tmp_path: Path) -> None:
    from quality_py.history import FileMetricsRepository

    df = spark.createDataFrame(ROWS, "a int, b string")
    repo = FileMetricsRepository(tmp_path / "h")
    checks = [
        CONSERVATION,
        SqlCheck("no negatives published", "count_if(a < 0)", on="valid", assertion="== 0"),
        SqlCheck("negatives quarantined", "count_if(a < 0)", on="quarantine",
                 assertion=f"== {NEGATIVE}"),
        SqlCheck("some rows", "count(*) > 0"),
    ]  # fmt: skip
    summary = run_quality(df, SUITE, checks, "s1", over_time=OverTime(history=repo)).write(
        str(tmp_path / "valid")
    )
    assert not summary.failed_checks
    (record,) = repo.records()
    assert record.value("sql", "negatives quarantined", "value") == NEGATIVE
    assert [m.status for m in record.metrics if m.kind == "sql"] == ["passed"] * 4


def test_a_failing_error_check_publishes_nothing(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame(ROWS, "a int, b string")
    wrong = SqlCheck("all rows valid", "count(*)", on="quarantine", assertion="== 0")
    with pytest.raises(QualityRunFailed, match=f"all rows valid: {QUARANTINED} fails == 0"):
        run_quality(df, SUITE, [wrong]).write(str(tmp_path / "valid"))
    assert not (tmp_path / "valid").exists()
    soft = SqlCheck("all rows valid", "count(*)", on="quarantine", assertion="== 0",
                    level="warning")  # fmt: skip
    summary = run_quality(df, SUITE, [soft]).write(str(tmp_path / "valid"))
    assert [m for m in summary.failed_checks if m.startswith("[sql warning]")]
    assert spark.read.parquet(str(tmp_path / "valid")).count() == len(ROWS) - NEGATIVE


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (SqlCheck("x", "SELECT count(*) FROM secret_table"), "reads secret_table"),
        (SqlCheck("x", "SELECT count(*) FROM db.valid"), "reads db.valid"),
        (SqlCheck("x", "reflect('java.lang.System', 'exit', 1) = 1"), "never allowed"),
        (SqlCheck("x", "DROP TABLE valid"), "an expression"),
        (SqlCheck("x", "INSERT INTO valid SELECT * FROM source"), "an expression"),
        (SqlCheck("x", "SELECT 1; SELECT 2"), "one SELECT"),
        (SqlCheck("x", "count(*) >"), "cannot parse"),
    ],
)
def test_sql_checks_are_refused_before_any_job(spark: Any, check: SqlCheck, message: str) -> None:
    df = spark.createDataFrame(ROWS, "a int, b string")
    with pytest.raises(CheckDefinitionError, match=message) as err:
        run_quality(df, SUITE, [check])
    assert "SQL check 'x'" in str(err.value)


def test_error_rates_alert_through_the_notifiers(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame(ROWS, "a int, b string")
    alerts: list[dict[str, Any]] = []
    nulls = sum(1 for _, b in ROWS if b is None)
    rates = ErrorRates(run=0.1, rules={102: 0.5, "101.1": 0.04})
    notifier = CallbackNotifier(on_alert=alerts.append)
    summary = run_quality(df, SUITE, error_rates=rates, notifiers=[notifier]).write()
    (event,) = alerts
    assert event["run_id"] == summary.run_id
    run_rate = QUARANTINED / len(ROWS)
    neg_rate = NEGATIVE / len(ROWS)
    assert event["alerts"] == [
        f"error rate {run_rate:.4f} of the run exceeds 0.1",
        f"rule 101.1 fails {neg_rate:.4f} of the rows, over 0.04",
    ]  # rule 102 fails {nulls / 40:.4f}, under 0.5: no alert
    assert nulls / len(ROWS) < 0.5


def test_assertions_compare_decimals_dates_and_timestamps_exactly(spark: Any) -> None:
    """Money is DECIMAL: 0.10 + 0.20 summed as decimals is exactly 0.30 (a binary float would
    make it 0.30000000000000004 and fail <= 0.3); dates and timestamps compare as such. The
    expected outcomes are worked out by hand from the three rows."""
    from decimal import Decimal

    from quality_py.actions.sql_checks import run_sql_checks
    from quality_py.model.policy import RulePolicy

    rows = [(Decimal("0.10"), "2024-01-05"), (Decimal("0.20"), "2024-02-01"), (None, None)]
    df = spark.createDataFrame(rows, "amount decimal(10,2), day string").selectExpr(
        "amount", "CAST(day AS DATE) AS day"
    )
    checks = [
        SqlCheck("money", "sum(amount)", assertion="<= 0.3"),
        SqlCheck("money exactly", "sum(amount)", assertion="== 0.30"),
        SqlCheck("not above", "sum(amount)", assertion="< 0.3"),
        SqlCheck("first day", "min(day)", assertion=">= 2024-01-01"),
        SqlCheck("last day", "max(day)", assertion="< '2024-02-01'"),
        SqlCheck("last instant", "max(CAST(day AS TIMESTAMP))", assertion="<= 2024-02-01T00:00:00"),
        SqlCheck("in range", "max(day)", assertion="between 2024-01-01 and 2024-12-31"),
        SqlCheck("a date is no number", "max(day)", assertion="> 5"),
    ]
    out = run_sql_checks(checks, {"source": df}, RulePolicy())
    assert [m.status for m in out] == [
        "passed", "passed", "failed", "passed", "failed", "passed", "passed", "failed",
    ]  # fmt: skip
    assert out[0].value == pytest.approx(0.3) and "0.30 meets <= 0.3" in (out[0].message or "")
    assert "cannot be compared" in (out[-1].message or "")
