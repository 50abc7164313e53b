"""A run that declares the time of its data stands at that time on the site's charts (its run
time on hover), whatever order the runs ran in; the tag is checked where it is given."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from quality_py.errors import ModelError
from quality_py.history import Metric, OverTime, RunRecord
from quality_py.report import write_site

RAN = datetime(2026, 11, 28, 9, 0, tzinfo=timezone.utc)
# four monthly partitions checked minutes apart, the backfill of March last
MONTHS = ["2026-01-01", "2026-02-01", "2026-04-01", "2026-03-01"]


def _record(i: int, month: str) -> RunRecord:
    metrics = (
        Metric("rows", "run", "input_rows", 100.0),
        Metric("rows", "run", "valid_rows", 100.0 - i),
        Metric("rows", "run", "quarantined_rows", float(i)),
        Metric("rows", "run", "dropped_rows", float(i)),
    )
    return RunRecord(f"r{i}", RAN + timedelta(minutes=3 * i), "quality_run", "1.1", "success",
                     {"table": "orders", "data_time": month}, metrics)  # fmt: skip


def test_charts_place_runs_at_their_data_time(tmp_path: Path) -> None:
    write_site([_record(i, m) for i, m in enumerate(MONTHS)], tmp_path / "site")
    page = next((tmp_path / "site" / "datasets").glob("*.html")).read_text("utf-8")
    chart = page.split('class="chart"')[1].split("</svg>")[0]
    ticks = re.findall(r'class="tick"[^>]*>(\d{4}-\d\d-\d\d) \d\d:\d\d<', chart)
    assert ticks == ["2026-01-01", "2026-04-01"]  # the axis spans the data's months
    titles = re.findall(r"<title>(r\d) \(([^)]*)\)", chart)
    # in the data's order, each with when it ran (by hand: RAN + 3 minutes per run)
    assert titles == [
        ("r0", "data 2026-01-01 00:00, ran 2026-11-28 09:00"),
        ("r1", "data 2026-02-01 00:00, ran 2026-11-28 09:03"),
        ("r3", "data 2026-03-01 00:00, ran 2026-11-28 09:09"),
        ("r2", "data 2026-04-01 00:00, ran 2026-11-28 09:06"),
    ]
    xs = [float(x) for x in re.findall(r'<circle data-run="r\d"[^>]*cx="([\d.]+)"', chart)]
    assert xs == sorted(xs) and xs[1] - xs[0] > 10  # a month apart, not three minutes


def test_the_tag_is_an_iso_time() -> None:
    assert OverTime(tags={"data_time": "2026-11-23T10:00:00+01:00"}).tags["data_time"] == (
        "2026-11-23T09:00:00+00:00"
    )
    with pytest.raises(ModelError, match="data_time 'last tuesday' is not a time"):
        OverTime(tags={"data_time": "last tuesday"})
