"""Quality runs and verifications keep their records; anomaly checks judge against them.

Expected counts are computed in Python from the rows written here.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, OverTime, QualityRunFailed, Rule, RuleSet, RuleSuite, run_quality
from quality_py.dataset import Check, verify
from quality_py.history import (
    AnomalyCheck,
    FileMetricsRepository,
    RelativeRateOfChange,
    SimpleThresholds,
    TableMetricsRepository,
)

pytestmark = pytest.mark.wiring  # run records and anomaly checks over them

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(10, 1),
            [
                Rule(Id(101, 1), "a >= 0", action_if_failed="drop"),
                Rule(Id(102, 1), "b IS NOT NULL"),
                Rule(Id(103, 1), "a < 1000000", action_if_failed="fail"),
            ],
        )
    ],
)


def batch(spark: Any, n: int, negative_every: int = 10) -> tuple[Any, list[tuple[int, Any]]]:
    rows = [(-i if i % negative_every == 0 else i, None if i % 7 == 0 else "x") for i in range(n)]
    return spark.createDataFrame(rows, "a int, b string"), rows


def test_a_written_run_keeps_its_counts(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    df, rows = batch(spark, 200)
    run = run_quality(
        df, SUITE, run_id="m1", over_time=OverTime(history=repo, tags={"table": "t", "month": "1"})
    )
    summary = run.write(str(tmp_path / "valid"))
    (record,) = repo.records()
    negatives = sum(1 for a, _ in rows if a < 0)
    nulls = sum(1 for _, b in rows if b is None)
    either = sum(1 for a, b in rows if a < 0 or b is None)
    assert (record.run_id, record.status, record.suite) == ("m1", "success", "1.1")
    outputs = [(m.entity, m.message) for m in record.metrics if m.kind == "output"]
    assert outputs == [("valid", str(tmp_path / "valid"))]
    assert record.tags == {"month": "1", "table": "t"}
    assert record.value("rows", "run", "input_rows") == 200
    assert record.value("rows", "run", "dropped_rows") == negatives == summary.dropped_rows
    assert record.value("rows", "run", "quarantined_rows") == either
    assert record.value("rule", "101.1", "failed") == negatives
    assert record.value("rule", "102.1", "failed_share") == pytest.approx(nulls / 200)
    frame = repo.frame(spark, tags={"table": "t"})
    got = frame.where("kind = 'rule' AND name = 'failed'").select("entity", "value").collect()
    assert sorted((r.entity, r.value) for r in got) == [
        ("101.1", negatives), ("102.1", nulls), ("103.1", 0),
    ]  # fmt: skip


def test_a_failed_run_leaves_its_record(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    rows = [(5, "x"), (2_000_000, "y"), (3_000_000, "z")]
    df = spark.createDataFrame(rows, "a int, b string")
    with pytest.raises(QualityRunFailed):
        run_quality(df, SUITE, run_id="bad", over_time=OverTime(history=repo))
    (record,) = repo.records()
    assert (record.run_id, record.status) == ("bad", "failed")
    assert record.value("rule", "103.1", "failing") == 2  # rows with a >= 1000000
    broken = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(104, 1), "nope(a)")])])
    with pytest.raises(Exception, match="nope"):
        run_quality(df, broken, run_id="typo", over_time=OverTime(history=repo))
    typo = next(r for r in repo.records() if r.run_id == "typo")
    assert typo.status == "failed" and "nope" in (typo.message or "")


def test_an_anomalous_batch_is_flagged_and_not_published(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    checks = [
        AnomalyCheck("input_rows", RelativeRateOfChange(max_decrease=0.7), name="row count"),
        AnomalyCheck("rule:102", SimpleThresholds(upper=0.3), level="warning", name="null b share"),
    ]
    target = tmp_path / "valid"
    for month, n in enumerate([300, 320, 310], start=1):
        df, _ = batch(spark, n)
        summary = run_quality(
            df, SUITE, run_id=f"m{month}", over_time=OverTime(history=repo, anomaly_checks=checks)
        ).write(str(target))
        assert not summary.failed_checks  # not judged yet is no failure; then normal months
        if month == 1:  # nothing to compare with yet: said apart, never "normal"
            (waiting,) = summary.not_judged
            assert waiting.startswith("row count: not judged")
            assert "not judged yet: row count" in summary.describe()
        else:
            assert summary.not_judged == ()
    small, _ = batch(spark, 100)  # a third of the last month: a drop of 68%
    with pytest.raises(QualityRunFailed, match="row count"):
        run_quality(
            small, SUITE, run_id="m4", over_time=OverTime(history=repo, anomaly_checks=checks)
        ).write(str(target))
    month3 = sum(1 for i in range(310) if not (i % 10 == 0 and i > 0))  # a >= 0 kept
    assert spark.read.parquet(str(target)).count() == month3  # month 3 stays published
    last = repo.records()[-1]
    assert (last.run_id, last.status) == ("m4", "failed")
    assert last.value("anomaly", "row count", "rows.run.input_rows") == 100
    # a warning-level anomaly is reported, the batch still published
    nulls = spark.createDataFrame(
        [(i, None if i % 2 else "x") for i in range(300)], "a int, b string"
    )
    summary = run_quality(
        nulls, SUITE, run_id="m5", over_time=OverTime(history=repo, anomaly_checks=checks)
    ).write(str(target))
    assert [m for m in summary.failed_checks if "null b share" in m]
    assert spark.read.parquet(str(target)).count() == 300


def test_verify_keeps_metrics_and_judges_anomalies(spark: Any, tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path)
    check = Check("error", "sizes").has_size(">= 1")
    size = AnomalyCheck("metric:Size()", RelativeRateOfChange(0.5, 2.0), name="size")
    for n in (100, 110, 90):
        result = verify(
            spark.range(n),
            [check],
            over_time=OverTime(history=repo, anomaly_checks=[size]),
            suite="ids",
        )
        if n == 100:  # no earlier run to compare with: a warning saying so, never "normal"
            (judged,) = [r for r in result.results if r.check == "anomaly"]
            assert result.status == "warning" and "not judged" in judged.message
        else:
            assert result.status == "success"
    result = verify(
        spark.range(400),
        [check],
        over_time=OverTime(history=repo, anomaly_checks=[size]),
        suite="ids",
    )
    assert result.status == "error"
    (judged,) = [r for r in result.results if r.check == "anomaly"]
    assert not judged.passed and judged.metric == 400
    values = [r.value("metric", "Size()", "value") for r in repo.records(suite="ids")]
    assert values == [100, 110, 90, 400]


def test_a_table_repository(spark: Any) -> None:
    import uuid

    table = f"qp_history_{uuid.uuid4().hex[:8]}"
    repo = TableMetricsRepository(spark, table)
    try:
        for i, n in enumerate((10, 20)):
            df, _ = batch(spark, n)
            run_quality(
                df, SUITE, run_id=f"t{i}", over_time=OverTime(history=repo, tags={"part": str(i)})
            ).write()
        assert [r.run_id for r in repo.records()] == ["t0", "t1"]
        rows = repo.frame(tags={"part": "1"}).where("name = 'input_rows'").collect()
        assert [(r.run_id, r.value, r.tags["part"]) for r in rows] == [("t1", 20.0, "1")]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_a_rule_edit_does_not_reset_the_baseline(spark: Any, tmp_path: Path) -> None:
    """Three runs at suite version 1, the ordinary edit that bumps it to version 2, then a batch
    that collapsed by 96% (12 of 300 rows): blocked against the three, not "normal against 0
    earlier runs"; the record keeps the new version and the report shows the change."""
    from dataclasses import replace

    from quality_py.report import render_report

    repo = FileMetricsRepository(tmp_path / "history")
    checks = [AnomalyCheck("input_rows", RelativeRateOfChange(max_decrease=0.7), name="rows")]
    target = str(tmp_path / "valid")
    for month in (1, 2, 3):
        df, _ = batch(spark, 300)
        run_quality(
            df, SUITE, run_id=f"m{month}", over_time=OverTime(history=repo, anomaly_checks=checks)
        ).write(target)
    edited = replace(SUITE, id=Id(1, 2))
    edited = replace(
        edited,
        rule_sets=[RuleSet(Id(10, 2), [*SUITE.rule_sets[0].rules, Rule(Id(105, 1), "b <> ''")])],
    )
    small, _ = batch(spark, 12)
    with pytest.raises(QualityRunFailed, match="rows") as err:
        run_quality(
            small, edited, run_id="m4", over_time=OverTime(history=repo, anomaly_checks=checks)
        ).write(target)
    assert "0.04x of 300" in str(err.value)  # 12 / 300, by hand
    last = repo.records()[-1]
    assert (last.run_id, last.status, last.suite) == ("m4", "failed", "1.2")
    outcome = next(m for m in last.metrics if m.kind == "anomaly")
    assert "suite versions 1.1 -> 1.2" in (outcome.message or "")
    assert spark.read.parquet(target).count() == 300 - 29  # month 3 stays (a < 0: 10, 20 .. 290)
    html = render_report(repo.records())
    assert 'data-version-change="1.1"' in html and "1.2 (was 1.1)" in html


def test_a_history_that_cannot_be_written_is_an_error(spark: Any, tmp_path: Path) -> None:
    """A history path that is a file (as a full disk or a wrong path would be): the outputs are
    published, then the run raises a HistoryError naming the run; verify raises too."""
    from quality_py.errors import HistoryError

    blocker = tmp_path / "history"
    blocker.write_text("not a folder")
    repo = FileMetricsRepository(blocker)
    df, rows = batch(spark, 50)
    with pytest.raises(HistoryError, match="lost1"):
        run_quality(df, SUITE, run_id="lost1", over_time=OverTime(history=repo)).write(
            str(tmp_path / "valid")
        )
    assert spark.read.parquet(str(tmp_path / "valid")).count() == sum(1 for a, _ in rows if a >= 0)
    with pytest.raises(HistoryError):
        verify(
            spark.range(3),
            [Check("error", "s").has_size(">= 1")],
            over_time=OverTime(history=repo),
            suite="s",
        )


def test_a_history_table_is_queryable_one_row_per_metric(spark: Any) -> None:
    from quality_py.history.records import Metric, RunRecord
    from quality_py.history.repository import encode

    repo = TableMetricsRepository(spark, f"qp_h_{uuid.uuid4().hex[:8]}")
    old = TableMetricsRepository(spark, f"qp_h_{uuid.uuid4().hex[:8]}")
    try:
        for day, failed in ((1, 3.0), (2, 5.0)):
            repo.save(
                RunRecord(
                    f"r{day}", datetime(2026, 1, day, 6), "quality", "1.1", "success",
                    {"table": "orders"},
                    (Metric("rows", "run", "input_rows", 100.0),
                     Metric("rule", "101.1", "failed", failed, group="10.1")),
                )
            )  # fmt: skip
        rows = spark.sql(
            f"SELECT run_id, tags['table'] AS t, entity, value FROM {repo.table} "
            "WHERE kind = 'rule' AND name = 'failed' ORDER BY run_time"
        ).collect()
        assert [tuple(r) for r in rows] == [
            ("r1", "orders", "101.1", 3.0),
            ("r2", "orders", "101.1", 5.0),
        ]
        assert [r.run_id for r in repo.records(tags={"table": "orders"})] == ["r1", "r2"]
        # a table of the earlier layout (a record per row) keeps it, and reads on
        first = RunRecord("o1", datetime(2026, 1, 1), "verify", None, "success")
        spark.createDataFrame(
            [("o1", first.run_time, first.run_time.date(), encode(first).decode())],
            "run_id STRING, run_time TIMESTAMP, day DATE, payload STRING",
        ).write.saveAsTable(old.table)
        old.save(RunRecord("o2", datetime(2026, 1, 2), "verify", None, "success"))
        assert spark.table(old.table).columns == ["run_id", "run_time", "day", "payload"]
        assert [r.run_id for r in old.records()] == ["o1", "o2"]
    finally:
        for table in (repo.table, old.table):
            spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_sample_rows_show_what_the_failed_rules_read_and_hide_what_is_sensitive(
    spark: Any, tmp_path: Path
) -> None:
    """Each kept row: its keys, the values of the columns its failed rules read (through a
    lambda too), the rules it failed; a hidden column never appears, a column no failed rule
    reads neither."""
    from quality_py import LambdaFunction

    suite = RuleSuite(
        Id(2, 1),
        [RuleSet(Id(20, 1), [
            Rule(Id(201, 1), "positive(amount)", action_if_failed="drop"),
            Rule(Id(202, 1), "length(ssn) = 11 AND country IS NOT NULL"),
        ])],
        lambdas=[LambdaFunction("positive", "x -> x > limit", Id(9, 1))],
    )  # fmt: skip
    rows = [(1, 5, 0, "123-45-6789", "DE", "n1"), (2, -3, 0, "bad", "FR", "n2"),
            (3, 7, 0, "bad", None, "n3"), (4, 2, 0, "123-45-6789", "DE", "n4")]  # fmt: skip
    df = spark.createDataFrame(rows, "id int, amount int, limit int, ssn string, "
                               "country string, note string")  # fmt: skip
    repo = FileMetricsRepository(tmp_path / "h")
    over_time = OverTime(history=repo, hide_columns=("SSN",))
    run_quality(df, suite, run_id="s1", keys=["id"], over_time=over_time).write()
    (record,) = repo.records()
    import json

    kept = sorted(
        (json.loads(m.message or "{}") for m in record.metrics if m.kind == "sample"),
        key=lambda s: s["keys"]["id"],
    )
    # by hand: row 2 fails both rules (amount -3 <= 0; ssn 'bad'), row 3 fails 202 (ssn, null
    # country); rows 1 and 4 fail nothing
    assert kept == [
        {"keys": {"id": 2}, "values": {"amount": -3, "limit": 0, "country": "FR"},
         "failed": ["201.1", "202.1"]},
        {"keys": {"id": 3}, "values": {"country": None}, "failed": ["202.1"]},
    ]  # fmt: skip
    texts = " ".join(m.message or "" for m in record.metrics if m.kind == "sample")
    assert "123-45" not in texts and "bad" not in texts and "note" not in texts


def test_a_misspelt_hidden_column_keeps_no_sample_row(spark: Any, tmp_path: Path) -> None:
    """hide_columns=["snn"] (meant: ssn) must not show ssn: no row is kept at all."""
    df = spark.createDataFrame([(1, -3, "123-45-6789")], "id int, amount int, ssn string")
    suite = RuleSuite(
        Id(3, 1), [RuleSet(Id(30, 1), [Rule(Id(301, 1), "amount > 0 AND ssn = 'x'")])]
    )
    repo = FileMetricsRepository(tmp_path / "h")
    over_time = OverTime(history=repo, hide_columns=("snn",))
    run_quality(df, suite, run_id="t1", over_time=over_time).write()
    (record,) = repo.records()
    assert record.value("rows", "run", "quarantined_rows") == 1
    assert [m for m in record.metrics if m.kind == "sample"] == []
