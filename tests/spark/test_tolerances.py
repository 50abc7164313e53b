"""Rules' tolerances (issue 56, part 1): ``warn_if`` and ``fail_if`` decide the run's verdict from
each rule's failing rows, and every surface says so.

The batch: ids 1 to 200, ``amount`` negative where the id is a multiple of 40 (40, 80, 120,
160, 200: 5 rows, 2.5 % of 200, by hand), ``code`` null where the id is a multiple of 50 (50,
100, 150, 200: 4 rows, 2 %). Frames are SQL literals (a local relation: no Python worker).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, OverTime, QualityRunFailed, Rule, RuleSet, RuleSuite, run_quality
from quality_py.history import FileMetricsRepository

pytestmark = pytest.mark.wiring  # the run's verdict and its surfaces, not Spark's semantics

NEGATIVE = [40, 80, 120, 160, 200]  # amount < 0
NO_CODE = [50, 100, 150, 200]  # code IS NULL


def batch(spark: Any) -> Any:
    values = ", ".join(
        f"({i}, {-i if i in NEGATIVE else i}, {'NULL' if i in NO_CODE else repr('c')})"
        for i in range(1, 201)
    )
    return spark.sql(
        f"SELECT CAST(id AS INT) id, CAST(amount AS INT) amount, CAST(code AS STRING) code "
        f"FROM VALUES {values} AS t(id, amount, code)"
    )


def suite(*rules: Rule) -> RuleSuite:
    return RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), list(rules))])


def positive(**kw: Any) -> Rule:
    return Rule(Id(101, 1), "amount >= 0", name="positive", **kw)


def test_past_warn_if_warns_and_every_surface_says_so(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    rules = suite(
        positive(action_if_failed="drop", warn_if="> 2 %", fail_if="> 5 %"),
        Rule(Id(102, 1), "code IS NOT NULL", warn_if="> 4"),  # 4 rows: not past
    )
    run = run_quality(batch(spark), rules, run_id="r1", over_time=OverTime(history=repo))
    out = tmp_path / "out"
    summary = run.write(str(out / "valid"), str(out / "quarantine"), str(out / "stats"))
    # by hand: 5 of 200 fail rule 101 (2.5 %): past "> 2 %", within "> 5 %"; rule 102 fails
    # 4 rows, within "> 4"; the drop rule drops its 5 rows
    assert (str(summary.status), summary.valid_rows, summary.dropped_rows) == ("success", 195, 5)
    judged = [(t.entity, t.field, t.failing, t.rows, t.past) for t in summary.tolerances]
    assert judged == [
        ("101.1", "fail_if", 5, 200, False),
        ("101.1", "warn_if", 5, 200, True),
        ("102.1", "warn_if", 4, 200, False),
    ]
    warning = "[tolerance warning] rule 'positive' (101.1) fails 5 of 200 rows (2.50 %), "
    assert summary.failed_checks == (warning + "past its warn_if '> 2 %'",)
    assert warning in summary.describe()
    shown = json.loads(json.dumps(summary.to_dict(), default=str))["tolerances"]
    assert [(t["rule"], t["field"], t["share"], t["status"]) for t in shown] == [
        ("101.1", "fail_if", 0.025, "passed"),
        ("101.1", "warn_if", 0.025, "warning"),
        ("102.1", "warn_if", 0.02, "passed"),
    ]
    stats = spark.read.parquet(str(out / "stats")).where("kind = 'tolerance'")
    stored = sorted((r.rule, r.name, r.failing_rows, r.value, r.status) for r in stats.collect())
    assert stored == [
        ("101.1", "fail_if", 5, 0.025, "passed"),
        ("101.1", "warn_if", 5, 0.025, "warning"),
        ("102.1", "warn_if", 4, 0.02, "passed"),
    ]
    (record,) = repo.records()
    kept = sorted((m.entity, m.name, m.value, m.status, m.group) for m in record.metrics
                  if m.kind == "tolerance")  # fmt: skip
    assert kept == [
        ("101.1", "fail_if", 0.025, "passed", "error"),
        ("101.1", "warn_if", 0.025, "failed", "warning"),
        ("102.1", "warn_if", 0.02, "passed", "warning"),
    ]
    assert spark.read.parquet(str(out / "valid")).count() == 195


def test_past_fail_if_fails_the_run_and_publishes_nothing(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    rules = suite(positive(action_if_failed="drop", warn_if="> 1 %", fail_if="> 2 %"))
    run = run_quality(batch(spark), rules, run_id="r2", over_time=OverTime(history=repo))
    with pytest.raises(QualityRunFailed) as failed:
        run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
    summary = failed.value.summary
    assert str(summary.status) == "failed"
    # past fail_if: listed once, not again for its warn_if
    assert summary.failed_checks == (
        "[tolerance error] rule 'positive' (101.1) fails 5 of 200 rows (2.50 %), "
        "past its fail_if '> 2 %'",
    )
    assert not (tmp_path / "valid").exists() and not (tmp_path / "quarantine").exists()
    (record,) = repo.records()
    assert record.status == "failed"
    assert [(m.name, m.status) for m in record.metrics if m.kind == "tolerance"] == [
        ("fail_if", "failed"),
        ("warn_if", "failed"),
    ]


@pytest.mark.parametrize(
    ("fail_if", "fails"),
    [
        ("> 2.5 %", False),  # 5 of 200 is exactly 2.5 %: not more
        (">= 2.5 %", True),
        ("> 4", True),  # 5 rows
        ("> 5", False),
        (">= 5", True),
    ],
)
def test_a_fail_rule_under_its_fail_if_drops_its_rows(
    spark: Any, tmp_path: Path, fail_if: str, fails: bool
) -> None:
    rules = suite(positive(action_if_failed="fail", fail_if=fail_if))
    run = run_quality(batch(spark), rules, run_id="r3")  # judged once written, not before
    places = (str(tmp_path / "valid"), str(tmp_path / "quarantine"))
    if fails:
        with pytest.raises(QualityRunFailed, match="past its fail_if"):
            run.write(*places)
        assert not (tmp_path / "valid").exists()
        return
    summary = run.write(*places)
    assert (summary.valid_rows, summary.dropped_rows, summary.quarantined_rows) == (195, 5, 5)
    valid_ids = {r.id for r in spark.read.parquet(places[0]).collect()}
    assert valid_ids == set(range(1, 201)) - set(NEGATIVE)
    assert summary.failed_checks == ()


def test_a_fail_rule_without_fail_if_still_stops_before_writing(spark: Any, tmp_path: Path) -> None:
    rules = suite(positive(action_if_failed="fail"))
    with pytest.raises(QualityRunFailed) as failed:
        run_quality(batch(spark), rules, run_id="r4").write(str(tmp_path / "valid"))
    assert [(r.rule.id, n) for r, n in failed.value.summary.failing_rules] == [(101, 5)]
    assert failed.value.summary.tolerances == ()
    assert not (tmp_path / "valid").exists()


def test_tolerances_travel_through_rule_tables(spark: Any) -> None:
    from quality_py.io.tables import read_rule_tables, rules_dataframe

    rules = suite(
        positive(action_if_failed="fail", warn_if="> 0.5 %", fail_if=">= 1000"),
        Rule(Id(102, 1), "code IS NOT NULL"),
    )
    frame = rules_dataframe(spark, rules)
    row = frame.where("ruleId = 101").first()
    assert (row.ruleWarnIf, row.ruleFailIf) == ("> 0.5 %", ">= 1000")
    assert read_rule_tables(frame).latest(1) == rules
    # a table written before the columns existed still reads: no tolerance
    old = frame.drop("ruleWarnIf", "ruleFailIf")
    assert read_rule_tables(old).latest(1).rule_sets[0].rules[0].fail_if is None


def test_a_real_run_alerts_once_per_incident(spark: Any, tmp_path: Path) -> None:
    from quality_py.alerts import WebhookAlert
    from tests.servers import http_server

    repo = FileMetricsRepository(tmp_path / "history")
    warned = suite(positive(warn_if="> 1 %"))  # an ignore rule: 5 of 200 rows, past 1 %
    strict = suite(positive(fail_if="> 1 %"))
    clean = suite(Rule(Id(101, 2), "amount IS NOT NULL", name="positive"))
    # by hand: problems, problems (no alert), failed, ok (recovery), ok (no alert)
    plan = [("a", warned), ("b", warned), ("c", strict), ("d", clean), ("e", clean)]
    with http_server() as (url, seen):
        hook = WebhookAlert("QP_TEST_HOOK", environ={"QP_TEST_HOOK": url}, when="change")
        for run_id, rules in plan:
            run = run_quality(batch(spark), rules, run_id=run_id, notifiers=[hook],
                              over_time=OverTime(history=repo))  # fmt: skip
            try:
                run.write()
            except QualityRunFailed:
                assert run_id == "c"
        bodies = [json.loads(r["body"]) for r in seen.requests]
    assert [(b["run_id"], b["event"], b["incident"]["state"]) for b in bodies] == [
        ("a", "success", "problems"), ("c", "failure", "failed"), ("d", "success", "ok"),
    ]  # fmt: skip
    assert bodies[2]["incident"]["recovered"] is True
