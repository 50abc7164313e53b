"""Sample failing rows are spread over the data, give each failing rule its share, are the same
when a run is repeated, and a column a row did not capture is shown as such, never as null."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.history import FileMetricsRepository, OverTime

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(1, 1),
            [
                Rule(Id(10, 1), "delay < 60", name="on_time"),
                Rule(Id(11, 1), "dest <> 'XXX'", name="known_dest"),
            ],
        )
    ],
)


def _frame(spark: Any) -> Any:
    # 30 days x 400 rows; by hand: delay >= 60 on every 10th row (1,200 rows over all 30 days),
    # dest 'XXX' on three rows of day 30 only
    rows = [
        (d, i, 90 if i % 10 == 0 else 5, "XXX" if d == 30 and i < 3 else "JFK")
        for d in range(1, 31)
        for i in range(400)
    ]
    return spark.createDataFrame(rows, "day int, seq int, delay int, dest string")


def _samples(history: FileMetricsRepository, run_id: str) -> list[dict[str, Any]]:
    record = next(r for r in history.records() if r.run_id == run_id)
    return [json.loads(m.message or "{}") for m in record.metrics if m.kind == "sample"]


def test_samples_are_spread_shared_and_repeatable(spark: Any, tmp_path: Path) -> None:
    history = FileMetricsRepository(tmp_path / "h")
    over_time = OverTime(history=history)
    frame = _frame(spark)
    outs = [str(tmp_path / n) for n in ("v", "q", "s")]
    for run_id in ("a", "b"):
        run_quality(frame, SUITE, run_id=run_id, keys=["day", "seq"], over_time=over_time).write(
            *outs
        )
    first = _samples(history, "a")
    assert 10 <= len(first) <= 40
    days = {s["keys"]["day"] for s in first if "10.1" in s["failed"]}
    assert len(days) >= 5  # not the first rows (all of day 1): spread over the month
    assert any("11.1" in s["failed"] for s in first)  # the rare rule gets its share
    # each shows what its failed rules read: delay for 10.1, dest for 11.1 (not both)
    late = next(s for s in first if s["failed"] == ["10.1"])
    assert set(late["values"]) == {"delay"}
    # the same run id over the same data keeps the same rows
    run_quality(frame, SUITE, run_id="a", keys=["day", "seq"], over_time=over_time).write(*outs)
    again = [r for r in history.records() if r.run_id == "a"][-1]
    kept = [json.loads(m.message or "{}") for m in again.metrics if m.kind == "sample"]
    assert kept == first
    # another run id chooses other rows
    assert _samples(history, "b") != first


def test_the_site_marks_what_a_sample_did_not_capture(spark: Any, tmp_path: Path) -> None:
    from quality_py.cli import main

    history = FileMetricsRepository(tmp_path / "h")
    run = run_quality(
        _frame(spark), SUITE, run_id="r", keys=["day", "seq"], over_time=OverTime(history=history)
    )
    run.write(*[str(tmp_path / n) for n in ("v", "q", "s")])
    site = tmp_path / "site"
    assert main(["report", "--history", str(tmp_path / "h"), "--site", str(site)]) == 0
    (page,) = [p.read_text("utf-8") for p in (site / "runs").glob("*.html")]
    assert "data-sampling" in page and "hash of the run id" in page
    table = page.split('class="samples"')[1]
    assert "data-not-captured" in table  # a late row shows no dest, a bad-dest row no delay
    assert "<span class=muted>null</span>" not in table  # nothing here is null
