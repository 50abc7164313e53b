"""Quality over time on the flights, end to end through the command line (in this process):
three monthly runs build a history, a broken fourth month is flagged by an anomaly check and not
published, ``profile`` suggests checks that hold on the months they were learned from, and the
report, loaded in headless Chromium, shows it all. Expected numbers come from the flights CSV
read by Python's csv module.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from quality_py.cli import main
from quality_py.history import FileMetricsRepository
from tests.browser import Elements, dump_dom, screenshot

pytestmark = pytest.mark.wiring  # quality over time through the command line

RULESET = Path(__file__).resolve().parents[2] / "rulesets" / "flights.yaml"


def _flights() -> list[dict[str, str]]:
    from quality_py.spark.samples import _package_data

    with zipfile.ZipFile(_package_data() / "flights.csv.zip") as zf:
        name = next(n for n in zf.namelist() if n.endswith(".csv"))
        return list(csv.DictReader(io.TextIOWrapper(zf.open(name), encoding="utf-8")))


def _run(history: Path, out: Path, where: str, run_id: str, month: int, *more: str) -> int:
    return main(
        ["run", str(RULESET), "--input", "sample:flights", "--where", where,
         "--valid", str(out / "valid"), "--history", str(history), "--run-id", run_id,
         "--tag", "table=flights", "--tag", f"month={month}", "--layout", "compact",
         "--key", "year,month,day", "--key", "carrier,flight,origin", *more]
    )  # fmt: skip


KEYS = ["year", "month", "day", "carrier", "flight", "origin"]


@pytest.fixture(scope="module")
def history(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("over-time")
    store, out = root / "history", root / "out"
    # January's run is also the main job's (test_the_main_job_on_january): its quarantine,
    # stats and console are kept
    first = root / "first"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert _run(store, out, "month = 1", "2013-01", 1, "--quarantine",
                    str(first / "quarantine"), "--stats", str(first / "stats")) == 0  # fmt: skip
    (first / "console.txt").write_text(printed.getvalue(), encoding="utf-8")
    for month in (2, 3):
        assert _run(store, out, f"month = {month}", f"2013-0{month}", month) == 0
    # the deliberately broken month: an extract that stopped after 5 days
    assert _run(store, out, "month = 4 AND day <= 5", "2013-04", 4) == 1
    suggested = root / "suggested.yaml"
    assert main(
        ["profile", "--input", "sample:flights", "--where", "month <= 3", "--suggest",
         str(suggested), "--history", str(store), "--suite", "1.1"]
    ) == 0  # fmt: skip
    return store, root


def test_three_months_build_a_history_and_the_broken_one_is_flagged(
    history: tuple[Path, Path],
) -> None:
    store, root = history
    flights = _flights()
    by_month = {m: sum(1 for f in flights if f["month"] == str(m)) for m in (1, 2, 3)}
    broken = sum(1 for f in flights if f["month"] == "4" and int(f["day"]) <= 5)
    runs = FileMetricsRepository(store).records(source="quality_run")
    assert [(r.run_id, r.status) for r in runs] == [
        ("2013-01", "success"), ("2013-02", "success"), ("2013-03", "success"),
        ("2013-04", "failed"),
    ]  # fmt: skip
    assert [r.value("rows", "run", "input_rows") for r in runs] == [*by_month.values(), broken]
    judged = runs[-1].value("anomaly", "flights per month", "rows.run.input_rows")
    assert judged == broken
    flagged = [m for m in runs[-1].metrics if m.kind == "anomaly" and m.status == "failed"]
    assert [m.entity for m in flagged] == ["flights per month"]
    # nothing of the broken month was published: the valid rows are March's
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    assert spark is not None
    valid = spark.read.parquet(str(root / "out" / "valid"))
    assert valid.select("month").distinct().collect()[0].month == 3


def test_the_main_job_on_january(history: tuple[Path, Path]) -> None:
    """The main job's run of January (the rules over rows group within a day, so a month fails
    the same rules alone), against the counts pandas finds (tests/flights_truth.py)."""
    from pyspark.sql import SparkSession

    from tests.flights_truth import expected_run, failures, soft_failing, tables

    _, root = history
    spark = SparkSession.getActiveSession()
    assert spark is not None
    lines = (root / "first" / "console.txt").read_text(encoding="utf-8").splitlines()
    truth = expected_run(1)
    summary = "{rows} in, {valid} valid, {quarantined} quarantined, {dropped} dropped"
    assert any(summary.format(**truth) in ln for ln in lines), truth
    stats = spark.read.parquet(str(root / "first" / "stats"))
    assert stats.where("kind = 'check' AND status = 'failed'").count() == 0
    assert stats.where("kind = 'check'").count() == 18
    assert {r.qp_run_id for r in stats.select("qp_run_id").distinct().collect()} == {"2013-01"}
    quarantine = spark.read.parquet(str(root / "first" / "quarantine"))
    assert quarantine.count() == truth["quarantined"]

    def counts(rule: str) -> list[str]:
        """passed, failed, soft, disabled, prob. of the rule's line (its name, then its id)."""
        return next(line for line in lines if line.split()[1:2] == [f"({rule})"]).split()[-7:-2]

    f = tables()["flights"]
    january = (f.month == 1).to_numpy()
    no_tail = int(f.tailnum.isna().to_numpy()[january].sum())
    assert counts("101.1")[:2] == [str(truth["rows"] - no_tail), str(no_tail)]
    assert counts("203.1")[2] == str(int(f.dep_time.isna().to_numpy()[january].sum()))
    assert counts("500.1")[3] == str(int(f.arr_delay.isna().to_numpy()[january].sum()))
    fails = failures()
    for rule in (600, 601, 603):  # the rules over more than one row, as pandas counts them
        assert counts(f"{rule}.1")[1] == str(int(fails[rule].to_numpy()[january].sum())), rule
    assert counts("602.1")[2] == str(int(soft_failing()[602].to_numpy()[january].sum()))
    assert any(line.startswith(f"rows: {truth['rows']},") for line in lines)


def test_suggested_checks_hold_on_the_months_they_were_learned_from(
    history: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, root = history
    suggested = root / "suggested.yaml"
    text = suggested.read_text()
    assert "is_complete" in text and "origin IS NULL OR origin IN ('EWR', 'JFK', 'LGA')" in text
    out = root / "suggested-run"
    code = main(
        ["run", str(suggested), "--input", "sample:flights", "--where", "month <= 3",
         "--valid", str(out / "valid"), "--quarantine", str(out / "quarantine")]
    )  # fmt: skip
    assert code == 0  # every suggested check holds (an error-level check would exit 1)
    rows = sum(1 for f in _flights() if int(f["month"]) <= 3)
    printed = capsys.readouterr().out
    assert f"rows: {rows} in, {rows} valid, 0 quarantined" in printed  # every row rule holds
    assert " FAIL " not in printed and "every dataset check passed" in printed


def test_the_report_shows_the_history_in_a_browser(history: tuple[Path, Path]) -> None:
    store, root = history
    page = root / "report.html"
    assert main(["report", "--history", str(store), "--out", str(page)]) == 0
    dom = Elements(dump_dom(page))
    runs = FileMetricsRepository(store).records(source="quality_run")
    latest = runs[-1]
    (section,) = dom.find("section", id="latest-run")
    assert section["attrs"]["data-run-id"] == "2013-04"
    for name in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        cell = dom.find("td", data_metric=name)[0]  # the latest run (first table)
        assert float(cell["text"]) == latest.value("rows", "run", name), name
    (failed,) = dom.find("td", data_count="failing")[1:2]  # rule 101.1: no tail number
    assert dom.find("tr", data_rule="101.1")
    assert float(failed["text"]) == latest.value("rule", "101.1", "failed")
    assert "data-not-published" in page.read_text("utf-8")  # the broken month published nothing
    # the input-rows trend has one point per run, the broken month's marked
    points = dom.find("circle")
    trend = [p for p in points if p["attrs"].get("data-run") == "2013-04"]
    assert any("anomaly" in p["attrs"]["class"] for p in trend)
    marked = {p["attrs"]["data-run"] for p in points if "anomaly" in p["attrs"]["class"]}
    assert marked == {"2013-04"}
    # the profile: completeness of dep_time over months 1-3, by Python
    flights = [f for f in _flights() if int(f["month"]) <= 3]
    share = sum(1 for f in flights if f["dep_time"] not in ("", "NA")) / len(flights)
    (row,) = dom.find("tr", data_column="dep_time")
    cells = [e for e in dom.items if e["attrs"].get("data-stat") == "completeness"]
    index = [e["attrs"].get("data-column") for e in dom.find("tr") if "data-column" in e["attrs"]]
    shown = cells[index.index("dep_time")]
    assert float(shown["attrs"]["data-value"]) == pytest.approx(share, abs=5e-5)
    assert shown["text"] == f"{share * 100:.2f} %"
    assert row and dom.find("svg", data_column="origin")
    # sample failing rows of the broken month: the --key columns, flights of April 1-5
    samples = [json.loads(m.message or "{}")["keys"] for m in latest.metrics if m.kind == "sample"]
    april = {
        tuple(f[k] for k in KEYS) for f in _flights() if f["month"] == "4" and int(f["day"]) <= 5
    }
    assert samples and all(list(s) == KEYS for s in samples)
    assert all(tuple(str(s[k]) for k in KEYS) in april for s in samples)
    shown = [e for e in dom.find("tr") if e["attrs"].get("class") == "sample"]
    assert len(shown) == len(samples)
    shot = screenshot(page, "flights-report")
    assert shot.stat().st_size > 50_000


def test_the_site_shows_the_flights_history_with_real_failing_rows(
    history: tuple[Path, Path],
) -> None:
    """The site of the flights history: the broken April run's page has the history's counts,
    and a rule page shows failing flights with the values the rule reads, as the sample data
    has them (read from the CSV, not from our code)."""
    from tests.browser import console_checked_dom

    store, root = history
    site = root / "site"
    assert main(["report", "--history", str(store), "--site", str(site),
                 "--rules", str(RULESET), "--dataset-tag", "table"]) == 0  # fmt: skip
    latest = FileMetricsRepository(store).records(source="quality_run")[-1]
    (april,) = [
        p
        for p in (site / "runs").iterdir()
        if "<code>2013-04</code>" in (text := p.read_text()) and "quality run of suite" in text
    ]
    dom = Elements(console_checked_dom(april))
    for name in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        (cell,) = dom.find("td", data_metric=name)
        assert float(cell["text"]) == latest.value("rows", "run", name), name
    assert dom.find("p", data_adds_up="true")
    # every sample row on rule 401's page (the destination is a known airport) is a flight
    # whose values are the sample data's, and failed 401
    (page,) = [p for p in (site / "rules").iterdir() if p.name.endswith(".401.html")]
    text = console_checked_dom(page)
    (table,) = re.findall(r'<table class="samples">(.*?)</table>', text, re.DOTALL)
    heads = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", table)]
    assert heads[0] == "run" and "dest" in heads and heads[-1] == "failed rules"
    flights = {tuple(f[k] for k in KEYS): f for f in _flights()}
    rows = re.findall(r'<tr class="sample">(.*?)</tr>', text, re.DOTALL)
    assert rows
    for row in rows:
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c))
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]  # fmt: skip
        values = dict(zip(heads, cells, strict=True))
        flight = flights[tuple(values[k] for k in KEYS)]
        assert values["dest"] == flight["dest"] and flight["dest"] in ("BQN", "SJU", "STT", "PSE")
        assert "401.1" in values["failed rules"] and values["run"].startswith("2013-0")
    assert "main.dest" in text  # the rule's text, from the ruleset
