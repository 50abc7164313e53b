"""Freshness and gaps (issue 55): ``is_fresh`` and ``has_no_gaps`` on timestamp and date columns,
for a batch and, with a table state, for the table. Every expected value is counted by hand from
the rows below (the test session's time zone is UTC)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from quality_py import OverTime, TableState
from quality_py.dataset.checks import Check, verify

pytestmark = pytest.mark.semantics  # what Spark's casts and dates compute

NOW = "2026-11-29T09:00:00Z"


def _times(spark: Any, *texts: str | None) -> Any:
    utc = dt.timezone.utc  # aware: the instant does not depend on this machine's zone
    rows = [
        (None if t is None else dt.datetime.fromisoformat(t).replace(tzinfo=utc),) for t in texts
    ]
    return spark.createDataFrame(rows, "ts timestamp")


def _dates(spark: Any, *days: int) -> Any:
    return spark.createDataFrame([(dt.date(2026, 11, d),) for d in days], "day date")


def test_freshness_is_the_newest_value_s_age(spark: Any) -> None:
    df = _times(spark, "2026-11-27 08:00:00", "2026-11-28 10:00:00", None)
    checks = [
        Check("warning", "fresh")
        .is_fresh("ts", "1 day", now=NOW)
        .is_fresh("ts", "12 hours", now=NOW)
        .is_fresh("ts", dt.timedelta(hours=23), now=dt.datetime(2026, 11, 29, 9))
    ]
    results = verify(df, checks).results
    # newest 2026-11-28 10:00 UTC, 23 hours before 2026-11-29 09:00 UTC: 82,800 s
    assert [r.metric for r in results] == [82800.0, 82800.0, 82800.0]
    assert [r.passed for r in results] == [True, False, True]
    assert "newest at most 12 hours old" in results[1].message


def test_a_date_column_is_as_fresh_as_its_day_and_the_clock_judges_by_default(
    spark: Any,
) -> None:
    results = verify(_dates(spark, 1, 3), [Check("warning", "d").is_fresh("day", "1 day")]).results
    # 2026-11-03 00:00 UTC is older than a day by the clock (this test runs after it)
    assert results[0].passed is False and results[0].metric > 86400
    older = verify(_dates(spark, 3), [Check("warning", "d").is_fresh("day", "2 days", now=NOW)])
    assert older.results[0].metric == (26 * 86400 + 9 * 3600)  # from 11-03 00:00 to 11-29 09:00


def test_no_values_is_no_freshness(spark: Any) -> None:
    result = verify(_times(spark, None), [Check("warning", "t").is_fresh("ts", "1 day", now=NOW)])
    assert result.results[0].passed is False and "undefined" in result.results[0].message


def test_gaps_are_the_empty_days_or_hours_between_the_first_and_the_last(spark: Any) -> None:
    days = verify(_dates(spark, 1, 2, 2, 4, 7), [Check("warning", "g").has_no_gaps("day")])
    assert days.results[0].metric == 3.0  # 11-03, 11-05, 11-06
    assert days.results[0].passed is False
    full = verify(_dates(spark, 3, 1, 2), [Check("warning", "g").has_no_gaps("day", "1 day")])
    assert (full.results[0].metric, full.results[0].passed) == (0.0, True)
    hours = verify(
        _times(spark, "2026-11-28 10:15:00", "2026-11-28 11:59:59", "2026-11-28 13:00:00"),
        [Check("warning", "g").has_no_gaps("ts", "1 hour")],
    )
    assert hours.results[0].metric == 1.0  # the 12:00 hour
    # two-day steps counted from 1970-01-01: 2026-11-01 is day 20758 (even), so the steps are
    # [11-01, 11-02], [11-03, 11-04], [11-05, 11-06]: 11-01 and 11-06 leave one step empty
    two = verify(_dates(spark, 1, 6), [Check("warning", "g").has_no_gaps("day", "2 days")])
    assert two.results[0].metric == 1.0


def test_freshness_and_gaps_answer_for_the_table(spark: Any, tmp_path: Path) -> None:
    checks = [Check("warning", "t").has_no_gaps("day").is_fresh("day", "3 days", now=NOW)]

    def day(n: int, *days: int) -> Any:
        table = OverTime(table_state=TableState(tmp_path, f"load={n}"))
        return [r.metric for r in verify(_dates(spark, *days), checks, over_time=table).results]

    assert day(1, 25, 26) == [0.0, 3 * 86400 + 9 * 3600]  # newest 11-26
    # load 2 holds 11-28 only: the table misses 11-27, and its newest day is 11-28
    assert day(2, 28) == [1.0, 86400 + 9 * 3600]
    # load 2 re-run (it replaces 11-28) with 11-27 and 11-20: 11-21 .. 11-24 are empty, the
    # newest day is 11-27
    assert day(2, 27, 20) == [4.0, 2 * 86400 + 9 * 3600]


def test_a_quality_run_observes_them_on_its_write(spark: Any, tmp_path: Path) -> None:
    """Observed on the valid write (``ignore`` checks): the same values as ``verify``."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality

    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "day IS NOT NULL")])])
    checks = [Check("warning", "t").has_no_gaps("day").is_fresh("day", "1 day", now=NOW)]
    summary = run_quality(_dates(spark, 1, 3, 4), suite, checks).write(str(tmp_path / "v"))
    assert summary.checks is not None
    # 11-02 empty; newest 11-04 00:00, 25 days 9 hours before 11-29 09:00
    assert [r.metric for r in summary.checks.results] == [1.0, 25 * 86400 + 9 * 3600]


def test_freshness_is_judged_at_the_data_s_time_when_it_has_one(spark: Any) -> None:
    """The ``data_time`` tag (a date: the end of that day) stands for the clock; a check's own
    ``now`` stands for both. By hand: 11-03 00:00 is a day before the end of 11-03."""
    checks = [Check("warning", "t").is_fresh("day", "1 day").is_fresh("day", "1 day", now=NOW)]
    result = verify(_dates(spark, 3), checks, over_time=OverTime(tags={"data_time": "2026-11-03"}))
    assert [(r.passed, r.metric) for r in result.results] == [
        (True, 86400.0),
        (False, 26 * 86400 + 9 * 3600),
    ]


def test_the_smallest_and_largest_time_are_times(spark: Any, tmp_path: Path) -> None:
    """``has_min`` / ``has_max`` on a timestamp or date column compare times (a UTC datetime,
    a date), in ``verify``, in a quality run with its stats and history, and for a table."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
    from quality_py.history.repository import FileMetricsRepository

    utc = dt.timezone.utc
    df = _times(spark, "2026-11-27 08:00:00", "2026-11-28 10:30:00", None)
    checks = [
        Check("warning", "span")
        .has_max("ts", ">= 2026-11-28T10:00:00Z")
        .has_min("ts", lambda v: v < dt.datetime(2026, 11, 27, 9, tzinfo=utc))
        .has_max("ts", "< 2026-11-28")
        .has_max_length("ts", "== 19")  # a length stays a number: '2026-11-27 08:00:00'
    ]
    result = verify(df, checks)
    newest, oldest = (
        dt.datetime(2026, 11, 28, 10, 30, tzinfo=utc),
        dt.datetime(2026, 11, 27, 8, tzinfo=utc),
    )
    assert [(r.passed, r.metric) for r in result.results] == [
        (True, newest), (True, oldest), (False, newest), (True, 19.0)
    ]  # fmt: skip
    assert "metric 2026-11-28T10:30:00Z fails < 2026-11-28" in result.results[2].message
    # as numbers where a number is kept: seconds since the epoch (20,785 days + 10.5 hours)
    frame = result.metrics_frame(spark).collect()
    assert frame[0].metric == 20_785 * 86_400 + 10.5 * 3600

    days = _dates(spark, 3, 1, 9)
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "day IS NOT NULL")])])
    on_days = [Check("warning", "d").has_min("day", "== 2026-11-01").has_max("day", "> 2026-11-09")]
    history = OverTime(history=FileMetricsRepository(str(tmp_path / "h")))
    run = run_quality(days, suite, on_days, over_time=history)
    summary = run.write(str(tmp_path / "v"), stats=str(tmp_path / "s"))
    assert summary.checks is not None
    assert [(r.passed, r.metric) for r in summary.checks.results] == [
        (True, dt.date(2026, 11, 1)), (False, dt.date(2026, 11, 9))
    ]  # fmt: skip
    kept = spark.read.parquet(str(tmp_path / "s")).where("kind = 'check'").orderBy("value")
    assert [r.value for r in kept.collect()] == [20_758 * 86_400.0, 20_766 * 86_400.0]

    def day(n: int, *values: int) -> list[Any]:
        table = OverTime(table_state=TableState(tmp_path / "state", f"load={n}"))
        return [r.metric for r in verify(_dates(spark, *values), on_days, over_time=table).results]

    assert day(1, 5, 7) == [dt.date(2026, 11, 5), dt.date(2026, 11, 7)]
    assert day(2, 2) == [dt.date(2026, 11, 2), dt.date(2026, 11, 7)]  # the table's
