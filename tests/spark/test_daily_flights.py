"""The main job's third step (``scripts/run-sample.sh``): January's first days appended to a
flights table one day at a time with the table's state, through the command line in this
process, as the script runs them. Every expected number is pandas on the flights CSV
(``tests/flights_truth.py``), over the days the table holds, never a run of ours: the checks
answer for the table, the row counts for the day.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import TableState
from quality_py.cli import main
from tests.flights_truth import tables

pytestmark = pytest.mark.wiring  # the sample job's daily step through the command line

ROOT = Path(__file__).resolve().parents[2]
RULESET = ROOT / "rulesets" / "flights_daily.yaml"
KEY = ["year", "month", "day", "carrier", "flight", "origin", "sched_dep_time"]


def _day(out: Path, part: str, days: str) -> tuple[int, dict[str, Any]]:
    """One day's run as ``run-sample.sh`` writes it; ``days`` are January's days it reads."""
    report = out / f"{part}-{days.replace(', ', '-')}.json"
    code = main(
        ["run", str(RULESET), "--input", "sample:flights", "--where",
         f"month = 1 AND day IN ({days})", "--valid", str(out / "valid" / f"day={part}"),
         "--quarantine", str(out / "quarantine" / f"day={part}"),
         "--table-state", str(out / "state"), "--partition", f"day={part}",
         "--data-time", part, "--json", str(report)]
    )  # fmt: skip
    return code, json.loads(report.read_text(encoding="utf-8"))


def _truth(*days: int) -> dict[str, Any]:
    """The checks' metrics over the rows of ``days`` (repeats kept: a day sent twice is twice
    in the table), and the row counts of the last day alone."""
    import pandas as pd

    f = tables()["flights"]
    january = f[f.month == 1]
    table = pd.concat([january[january.day == d] for d in days])
    per_key = table.groupby(KEY, dropna=False)["year"].transform("size")
    return {
        "unique": float((per_key == 1).sum() / len(table)),
        "carrier": float(table.carrier.notna().mean()),
        "size": float(len(table)),
        "dep_time": float(table.dep_time.notna().mean()),
    }


def _metrics(report: dict[str, Any]) -> dict[str, Any]:
    values = [c["value"] for c in report["checks"]]
    # is_unique, is_complete(carrier), has_size, has_no_gaps(time_hour), dep_time completeness
    return {"unique": values[0], "carrier": values[1], "size": values[2], "gaps": values[3],
            "dep_time": values[4]}  # fmt: skip


def test_days_appended_with_the_table_state_answer_for_the_table(
    spark: Any, tmp_path: Path
) -> None:
    f = tables()["flights"]
    for day in (1, 2, 3):
        code, report = _day(tmp_path, f"2013-01-0{day}", str(day))
        assert code == 0, report.get("failed_checks")
        on_day = f[(f.month == 1) & (f.day == day)]
        # the rows are the day's: rule 101 (no tail number) drops; no departure repeats
        assert (report["input_rows"], report["dropped_rows"]) == (
            len(on_day), int(on_day.tailnum.isna().sum())
        )  # fmt: skip
        truth = _truth(*range(1, day + 1))
        got = _metrics(report)
        assert got["gaps"] == 0.0 and got["unique"] == truth["unique"] == 1.0
        assert got["size"] == truth["size"] and got["carrier"] == truth["carrier"]
        assert got["dep_time"] == pytest.approx(truth["dep_time"], rel=1e-12)
        # the table's size, not the day's: under 2500 flights until the third day
        assert report["checks"][2]["passed"] is (truth["size"] >= 2500)

    # the fourth day's extract arrives with the third day's flights sent again
    code, report = _day(tmp_path, "2013-01-04", "3, 4")
    assert code == 1 and report["status"] == "failed"
    resent = _truth(1, 2, 3, 3, 4)
    assert _metrics(report)["unique"] == pytest.approx(resent["unique"], rel=1e-12)
    assert _metrics(report)["size"] == resent["size"]
    # nothing of it is kept: no output, and the table's state holds the first three days
    assert not (tmp_path / "valid" / "day=2013-01-04").exists()
    state = TableState(str(tmp_path / "state"), "day=2013-01-04")
    assert state.partitions() == ["day=2013-01-01", "day=2013-01-02", "day=2013-01-03"]

    code, report = _day(tmp_path, "2013-01-04", "4")  # the day sent again, alone
    assert code == 0
    truth = _truth(1, 2, 3, 4)
    assert _metrics(report)["size"] == truth["size"] and _metrics(report)["unique"] == 1.0
    assert state.partitions()[-1] == "day=2013-01-04"
    # every day's valid rows are in its own partition: the table is the four of them
    kept = spark.read.parquet(*[str(p) for p in sorted((tmp_path / "valid").iterdir())])
    on_days = f[(f.month == 1) & (f.day <= 4)]
    assert kept.count() == int(on_days.tailnum.notna().sum())
