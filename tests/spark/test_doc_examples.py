"""Every ```python block of README.md and docs/*.md runs (the blocks of one file in order, in
one namespace) and its results are checked against values worked out by hand.

A block may use the names a reader has in a notebook: ``spark``, ``df`` (orders: ``id``, ``a``,
``b``, ``amount``, ``note``), ``flights`` (the sample), ``new_rows`` and ``stream``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.wiring  # the documentation's examples

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text(encoding="utf-8"))


@pytest.fixture
def notebook(spark: Any, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A fresh working directory (outputs land in ``out/``) with the repository's rulesets."""
    from quality_py.spark.samples import load_sample

    (tmp_path / "rulesets").symlink_to(ROOT / "rulesets")
    # 1200 orders: amount = i - 100 (<= 0 for i <= 100: 101 dropped), note null when i % 10 == 0
    df = spark.range(1200).selectExpr(
        "CAST(id AS INT) AS id",
        "CAST(id % 7 AS INT) AS a",
        "CAST(id % 5 - 1 AS INT) AS b",
        "CAST(id - 100 AS DOUBLE) AS amount",
        "CASE WHEN id % 10 = 0 THEN NULL ELSE 'n' END AS note",
    )
    df.createOrReplaceTempView("orders")
    flights = load_sample(spark, "flights")
    stream = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 50)
        .load()
        .selectExpr(
            "CAST(value AS INT) AS id",
            "CAST(value AS DOUBLE) AS amount",
            "'n' AS note",
        )
    )
    names = {
        "spark": spark,
        "df": df,
        "flights": flights,
        "new_rows": flights.where("month = 2"),
        "stream": stream,
    }
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield names
    finally:
        for query in spark.streams.active:
            query.stop()
        spark.sql("DROP DATABASE IF EXISTS dq CASCADE")
        os.chdir(before)


def run_file(path: Path, names: dict[str, Any]) -> dict[str, Any]:
    found = blocks(path)
    assert found, f"{path.name} has no python block"
    for number, code in enumerate(found, 1):
        try:
            exec(compile(code, f"{path.name} block {number}", "exec"), names)
        except Exception as err:  # name the block: the traceback alone says "<string>"
            raise AssertionError(f"{path.name} block {number} fails: {err!r}") from err
    return names


def test_every_doc_with_python_has_a_test_below() -> None:
    tested = {
        "README.md",
        "actions.md",
        "alerts.md",
        "dataset-checks.md",
        "deployment.md",
        "functions.md",
        "growing-tables.md",
        "jobs.md",
        "lineage.md",  # its block sends events to an endpoint: tests/spark/test_lineage.py
        "migrating.md",
        "over-time.md",
        "pipelines.md",  # its block is the recipe's file: tests/spark/test_pipeline_recipe.py
        "rule-tables.md",
        "rules-over-rows.md",
        "security.md",
        "writing-rules.md",
    }
    assert {p.name for p in DOCS if blocks(p)} == tested


def test_readme(notebook: dict[str, Any]) -> None:
    ns = run_file(ROOT / "README.md", notebook)
    # by hand: a % 2 == 0 and b > 0. b = id % 5 - 1 > 0 for id % 5 in (2, 3, 4); a = id % 7 even
    expected = sum(1 for i in range(1200) if (i % 7) % 2 == 0 and i % 5 - 1 > 0)
    assert ns["good"].count() == expected
    # amount > 0 drops ids 0..100; note IS NOT NULL is ignore (valid + quarantine)
    summary = ns["summary"]
    assert (summary.input_rows, summary.valid_rows, summary.dropped_rows) == (1200, 1099, 101)
    quarantined = sum(1 for i in range(1200) if i <= 100 or i % 10 == 0)
    assert summary.quarantined_rows == quarantined
    assert ns["categories"].count() == 336776 and ns["fixed"].count() == 336776
    _check_readme_functions(ns)


def _flights_csv() -> list[dict[str, str]]:
    """The flights sample read with Python's csv module (not Spark)."""
    import csv
    import io
    import zipfile

    from quality_py.spark.samples import _package_data

    with zipfile.ZipFile(_package_data() / "flights.csv.zip") as zf:
        name = next(n for n in zf.namelist() if n.endswith(".csv"))
        return list(csv.DictReader(io.TextIOWrapper(zf.open(name), encoding="utf-8")))


def _check_readme_functions(ns: dict[str, Any]) -> None:
    import csv

    from quality_py.spark.samples import _package_data

    flights = _flights_csv()
    with open(_package_data() / "airports.csv", encoding="utf-8") as handle:
        airports = {row["faa"] for row in csv.DictReader(handle)}
    # every carrier is an airline; destinations missing from airports fail the bloom rule
    assert ns["unknown_destinations"].count() == sum(
        1 for f in flights if f["dest"] not in airports
    )
    # one id per distinct natural key
    keys = {(f["carrier"], f["flight"], f["time_hour"]) for f in flights}
    assert ns["keyed"].select("key").distinct().count() == len(keys)
    delays = [float(f["dep_delay"]) for f in flights if f["dep_delay"] not in ("", "NA")]
    values = ns["batch"].ruleSetResults[(30 << 32) | 1]
    assert int(values[(300 << 32) | 1].result) == len(flights) - len(delays)
    assert float(values[(301 << 32) | 1].result) == round(sum(delays) / len(delays), 2)
    late: dict[str, int] = {}
    for f in flights:
        if f["dep_delay"] not in ("", "NA") and float(f["dep_delay"]) > 60:
            late[f["carrier"]] = late.get(f["carrier"], 0) + 1
    assert json.loads(values[(302 << 32) | 1].result) == late
    explained = ns["explained"]  # the last rule's: the bloom, planned over the flights
    assert explained.rule_id.id == 201 and "bloom_contains" in explained.source
    assert explained.plan is not None and "airport_codes" in explained.compiled_sql


def test_actions_doc(notebook: dict[str, Any]) -> None:
    from quality_py import read_outputs

    ns = run_file(ROOT / "docs" / "actions.md", notebook)
    assert ns["run"].summary.valid_rows == 1099
    # the frames block 2 read list files the decorated run has since replaced: read again
    valid, quarantine, _ = read_outputs(ns["spark"], "out/valid", "out/quarantine")
    assert valid is not None and quarantine is not None
    assert valid.count() == 1099
    runs = {r.qp_run_id for r in quarantine.select("qp_run_id").distinct().collect()}
    assert runs == {"orders-2026-11-23"}
    reasons = sorted((r.id, list(r.qp_failed_rule_names)) for r in ns["reasons"])
    by_hand = sorted(  # the doc's rules 100 (amount > 0) and 102 (note IS NOT NULL), by hand
        (r.id, [n for n, ok in (("100.1", r.amount is not None and r.amount > 0),
                                ("102.1", r.note is not None)) if not ok])
        for r in quarantine.collect()
    )  # fmt: skip
    assert reasons == by_hand and len(reasons) == quarantine.count() > 0
    assert [f.name for f in quarantine.schema.fields][-4:] == [  # the default form
        "qp_run_time", "qp_kept_in_valid", "qp_failed_rule_names", "qp_run_id"
    ]  # fmt: skip
    # tolerance, by hand: amount <= 0 for ids 0..100 (101 of 1200 rows, 8.42 %), note null for
    # ids divisible by 10 (120 rows)
    tolerated = ns["tolerated"]
    assert (str(tolerated.status), tolerated.dropped_rows) == ("success", 101)
    assert tolerated.failed_checks == (
        "[tolerance warning] rule 'positive_amount' (100.1) fails 101 of 1200 rows (8.42 %), "
        "past its warn_if '> 5 %'",
    )
    assert [(t.entity, t.field, t.failing, t.past) for t in tolerated.tolerances] == [
        ("100.1", "fail_if", 101, False), ("100.1", "warn_if", 101, True),
        ("102.1", "warn_if", 120, False),
    ]  # fmt: skip
    assert ns["stopped"] == (
        "[tolerance error] rule 'positive_amount' (100.2) fails 101 of 1200 rows (8.42 %), "
        "past its fail_if '> 8 %'",
    )
    assert not Path("out/strict/valid").exists()
    # release, by hand: amount = id - 100 > 10 drops ids 0..110 (111 rows); > 0 passes 101..110
    for result in (ns["would"], ns["released"]):
        assert (result.candidates, result.released, result.still_quarantined) == (111, 10, 101)
    doc = (ROOT / "docs" / "actions.md").read_text("utf-8")
    shown = doc.split("prints what moved, then rule by rule:")[1].split("```text\n")[1]
    assert ns["released"].describe() == shown.split("```")[0].strip()  # the doc's own output
    released_valid, _, _ = read_outputs(ns["spark"], "out/rel/valid")
    assert released_valid is not None and released_valid.count() == 1089 + 10
    lean = ns["failed_amount"]  # quarantine_detail="ids": rows failing rule 100 (amount > 0)
    assert "DataQuality" not in lean.columns and "qp_failed_rules" not in lean.columns
    expected = ns["df"].where("NOT coalesce(amount > 0, false)").count()  # null fails too
    assert lean.count() == expected > 0


def test_alerts_doc(notebook: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.servers import http_server

    with http_server() as (url, seen), http_server() as (pd_url, paged):
        monkeypatch.setenv("QP_SLACK_WEBHOOK_URL", url)
        monkeypatch.setenv("QP_PAGERDUTY_ROUTING_KEY", "R0UT1NG0123456789abcdef01234567")
        monkeypatch.setenv("QP_PAGERDUTY_EVENTS_URL", pd_url)
        ns = run_file(ROOT / "docs" / "alerts.md", notebook)
    assert ns["summary"].dropped_rows == 101  # amount = id - 100 > 0 fails ids 0..100
    # the first run's post, then one post and one PagerDuty trigger for two hourly runs with
    # the same failing rule (the first hourly run's previous state is ok: no history before)
    request, hourly = seen.requests
    assert json.loads(hourly["body"])["blocks"][0]["text"]["text"].startswith(
        "Quality run hourly-10 of suite"
    )
    (trigger,) = [json.loads(r["body"]) for r in paged.requests]
    assert (trigger["event_action"], trigger["dedup_key"]) == ("trigger", "quality_py suite 1")
    blocks = json.loads(request["body"])["blocks"]
    rule = next(b["text"]["text"] for b in blocks if "positive_amount" in str(b))
    # by hand: 101 of 1200 rows is 8.42 %
    assert rule.startswith("*positive_amount* `100.1`: 101 rows (8.42 %)")
    assert blocks[-1]["elements"][0]["url"].startswith("https://dq.example.com/orders/runs/")


def test_dataset_checks_doc(notebook: dict[str, Any]) -> None:
    from quality_py.dataset import Completeness, Size, TableState

    notebook["df"] = notebook["flights"]  # this doc's examples are on the flights
    ns = run_file(ROOT / "docs" / "dataset-checks.md", notebook)
    tailnum = ns["flights"].where("tailnum IS NOT NULL").count() / 336776
    assert ns["result"].metrics[Completeness("tailnum")] == pytest.approx(tailnum)
    assert ns["handle"].result().metrics[Size()] == 336776
    assert ns["finish"]().status == "success"
    # the growing table, by hand: Monday (orders 1, 2) is unique and kept; with Tuesday's
    # (2, 3) the table holds order 2 twice, so only 2 of its 4 rows have a unique key
    assert (ns["first"].status, ns["second"].status) == ("success", "error")
    assert [r.metric for r in ns["second"].results] == [0.5, 4.0]
    assert TableState("out/table_states/orders", "day=1").partitions() == ["day=2026-11-23"]
    # by hand: the newest load, 11-27 00:00, is 30 hours before 11-28 06:00; 11-26 is empty
    assert [(r.passed, r.metric) for r in ns["on_time"].results] == [(True, 108000.0), (False, 1.0)]
    written = ns["written"].results[0]  # files written by the block itself, just before
    assert written.passed and 0 <= written.metric < 3600


def test_growing_tables_doc(notebook: dict[str, Any]) -> None:
    from quality_py.dataset import TableState

    ns = run_file(ROOT / "docs" / "growing-tables.md", notebook)
    # by hand: Monday (1, 2; one note) and Tuesday (3, 4; one note): 4 rows, keys unique, 2 of 4
    # notes; Tuesday's drop rule (amount -1) leaves 1 valid row of its 2
    assert [r.metric for r in ns["summary"].checks.results] == [1.0, 4.0, 0.5]
    assert (ns["summary"].input_rows, ns["summary"].valid_rows) == (2, 1)
    # Wednesday repeats Monday's order 2: 3 of the 5 rows have a key seen once
    assert any("order_id" in m and "0.6" in m for m in ns["refusal"])
    # the corrected Tuesday (3, 5; both notes) replaces the old one: 3 notes of 4 rows
    assert [r.metric for r in ns["rerun"].checks.results] == [1.0, 4.0, 0.75]
    assert "no stored state for 2 partition(s)" in ns["refused"]
    # by hand: Tuesday's order 2 is Monday's, so the table holds it twice: one row dropped
    assert ns["tue_summary"].dropped_rows == 1
    assert ns["linked_tuesday"].dropped_rows == 1  # by hand: order 4's parent 9 is nowhere
    # by hand: Tuesday's order 1 (9.0) tops Monday's 5.0; its order 2 (0.5) is below 1.0
    assert (ns["latest_tuesday"].valid_rows, ns["latest_tuesday"].dropped_rows) == (1, 1)
    kept = TableState("out/growing/orders_states", "day=x").partitions()
    assert kept == ["day=2026-11-23", "day=2026-11-24"]


def test_rule_tables_doc(notebook: dict[str, Any]) -> None:
    ns = run_file(ROOT / "docs" / "rule-tables.md", notebook)
    assert ns["report"].ok
    assert ns["loaded"].latest(1).rule_count == ns["suite"].rule_count


def test_rules_over_rows_doc(notebook: dict[str, Any]) -> None:
    import numpy as np

    from tests.flights_truth import failures, tables

    ns = run_file(ROOT / "docs" / "rules-over-rows.md", notebook)
    # counted with pandas (tests/flights_truth.py): 600 and 601 drop; the doc's 602 fails (not
    # soft) the 50,094 unknown aircraft, its 603 groups the flights without a tail number too
    fails, f = failures(), tables()["flights"]
    orphans = (f.tailnum.notna() & ~f.tailnum.isin(set(tables()["planes"].tailnum))).to_numpy()
    day = ["tailnum", "year", "month", "day"]
    busy = (f.groupby(day, dropna=False)["year"].transform("size") > 4).to_numpy()
    dropped = (fails[600] | fails[601]).to_numpy()
    failing = dropped | orphans | busy
    summary = ns["summary"]
    assert summary.valid_rows == len(f) - int(dropped.sum()) == 336745
    assert summary.quarantined_rows == int(np.count_nonzero(failing))
    assert ns["rules"][1].expression.startswith("(`tailnum` IS NULL OR `year` IS NULL")


def test_migrating_doc(notebook: dict[str, Any]) -> None:
    """The walk-through's numbers, counted with pandas (tests/flights_truth.py) by each tool's
    meaning: DQX drops a null tail number and warns on duplicates and unknown aircraft;
    Spark-Expectations fails a null `dep_delay < 600`; Soda's metrics and failed rows."""
    from tests.flights_truth import tables

    t = tables()
    f, planes = t["flights"], set(t["planes"].tailnum)
    ns = run_file(ROOT / "docs" / "migrating.md", notebook)
    key = ["carrier", "flight", "year", "month", "day"]
    dup = (f.groupby(key, dropna=False)["year"].transform("size") > 1).to_numpy()
    no_tail = f.tailnum.isna().to_numpy()
    orphan = (f.tailnum.notna() & ~f.tailnum.isin(planes)).to_numpy()
    dqx = ns["dqx_summary"]
    assert (dqx.valid_rows, dqx.dropped_rows) == (len(f) - no_tail.sum(), no_tail.sum())
    assert dqx.valid_rows == 334264
    assert dqx.quarantined_rows == (no_tail | dup | orphan).sum()
    late = (~(f.dep_delay < 600)).to_numpy()  # NaN < 600 is False: a null fails
    se = ns["se_summary"]
    assert (se.dropped_rows, se.quarantined_rows) == (late.sum(), (late | dup).sum())
    assert se.dropped_rows == 8295 and not se.failed_checks
    missing_dep, missing_tail = f.dep_time.isna().sum(), f.tailnum.isna().mean() * 100
    groups = f.dropna(subset=key).groupby(key).size()
    assert ns["outcomes"] == {
        "row_count_300000": "passed",
        "missing_count_dep_time_0": "passed" if missing_dep == 0 else "failed",
        "missing_percent_tailnum_1": "passed" if round(missing_tail, 2) < 1 else "failed",
        "duplicate_count_carrier_flight_year_month_day_0": (
            "passed" if (groups > 1).sum() == 0 else "failed"
        ),
    }
    assert (groups > 1).sum() == 24 and missing_dep == 8255
    assert ns["soda_summary"].quarantined_rows == (f.arr_delay < -60).sum() == 199
    assert ns["preview"].dropped == (no_tail.sum(), 0)
    assert all(r.newly_failing == r.newly_passing == 0 for r in ns["preview"].rules)
    assert ns["converted"].summary() == (
        "mapped 4 rules and 0 dataset or SQL checks; 0 item(s) not mapped (DQX 0.16 meaning "
        "applied)"
    )


def test_functions_doc(notebook: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    ns = run_file(ROOT / "docs" / "functions.md", notebook)
    # the blocks assert their own values (worked out by hand from java.util.UUID's layout)
    assert ns["back"].lower == 1 and ns["back"].higher == 2
    assert len(ns["read_back"]) == 2
    assert "rule 100.1 (rule set 10.1)" in capsys.readouterr().out


def test_security_doc(notebook: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    ns = run_file(ROOT / "docs" / "security.md", notebook)
    assert ns["suite"].policy.trusted
    assert "hardened" in capsys.readouterr().out


def test_over_time_doc(notebook: dict[str, Any]) -> None:
    """The orders: 1200 rows, amount = id - 100 (ids 0..100 dropped by rule 101)."""
    from quality_py.io.yaml_rulesets import load_ruleset_and_checks

    ns = run_file(ROOT / "docs" / "over-time.md", notebook)
    inputs = [r.value for r in ns["inputs"].collect()]
    assert inputs == [600.0, 600.0]  # ids < 600, then ids >= 600
    # day 3: 100 rows after 600, 100 / 600 = 0.17 < 0.7: flagged, nothing published
    assert ns["flagged"] is not None and any("volume" in m for m in ns["flagged"])
    statuses = [r.status for r in ns["history"].records()]
    assert statuses == ["success", "success", "failed"]
    # 101 of 1200 rows dropped: 8.4% quarantined > 5%: one alert; no row lost
    (alert,) = ns["alerts"]
    assert alert["alerts"] == [f"error rate {101 / 1200:.4f} of the run exceeds 0.05"]
    assert ns["summary"].valid_rows == 1099 and not [
        m for m in ns["summary"].failed_checks if "no row is lost" in m
    ]
    suite, checks = load_ruleset_and_checks("out/suggested.yaml")
    assert suite.rule_count > 10 and len(checks[0].constraints) == len(ns["suggestions"])
    assert ns["held_out"].train_rows + ns["held_out"].test_rows == ns["learned"].rows
    assert ns["site"] == Path("out/site/index.html") and ns["site"].exists()
    rule = next(Path("out/site/rules").glob("*.101.html")).read_text(encoding="utf-8")
    assert "amount &gt; 0" in rule and "<svg" in rule  # the rule's text, from the suite
    assert ns["over_time"].hide_columns == ("note",)


def test_jobs_doc(notebook: dict[str, Any]) -> None:
    """The orders: amount = id - 100 <= 0 for ids 0..100 (101 rows dropped), a null note for every
    id divisible by 10 (120 rows), 11 rows failing both: 101 + 120 - 11 = 210 quarantined."""
    ns = run_file(ROOT / "docs" / "jobs.md", notebook)
    for summary in (ns["summary"], ns["nightly"].summary):
        assert (summary.input_rows, summary.valid_rows, summary.dropped_rows) == (1200, 1099, 101)
        assert summary.quarantined_rows == 210
    spark = notebook["spark"]
    here = Path.cwd()  # Spark's own working directory is not the notebook's
    assert spark.read.parquet(str(here / "out/orders_valid")).count() == 1099
    assert spark.read.parquet(str(here / "out/job/orders_quarantine")).count() == 210
    document = ns["document"]
    assert (document["status"], document["exit_code"], document["input"]) == (
        "success", 0, "table:orders",
    )  # fmt: skip
    assert {r["rule"]: r["failed"] for r in document["rules"]} == {"101.1": 101, "102.1": 120}
    assert Path("out/job/history").is_dir()


def test_writing_rules_doc(notebook: dict[str, Any]) -> None:
    names = run_file(ROOT / "docs" / "writing-rules.md", notebook)
    assert names["summary"].rules.rules[0].disabled == 120  # orders without a note


def test_deployment_doc(notebook: dict[str, Any]) -> None:
    """The orders: amount = id - 100 <= 0 for ids 0..100 (101 rows), a null note for every id
    divisible by 10 (120 rows)."""
    ns = run_file(ROOT / "docs" / "deployment.md", notebook)
    report = ns["report"]
    assert report.startswith("data quality: 2 of 2 rules fail on 1200 rows (suite 1.1)")
    assert "rule 101.1 (set 10.1) fails 101 rows: amount > 0" in report
    assert "rule 102.1 (set 10.1) fails 120 rows: note IS NOT NULL" in report
    # 101 + 120 - 11 rows failing both (ids 0, 10, ..., 100)
    assert "failing rows (5 of 210 shown):" in report
    assert ns["summary"].input_rows == 1200
