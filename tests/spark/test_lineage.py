"""A quality run's OpenLineage events (issue 57, point 2), received by a real HTTP endpoint on
loopback that validates each against the specification's JSON Schemas (tests/fixtures/openlineage).

Rows i = 0..11 (written as parquet first: the input is a dataset Spark reads): id = i % 10,
amount = i - 3, note null when i % 4 == 0. By hand:
* positive (drop), ``amount > 0``: fails i = 0..3, 4 rows;
* unique_id (drop), one row per id: fails i = 0, 10, 1, 11, 4 rows;
* has_note (ignore): fails i = 0, 4, 8, 3 rows; it reads one column, note.
Valid: i = 4..9, 6 rows; quarantined: i = 0, 1, 2, 3, 4, 8, 10, 11, 8 rows. Dataset checks
(warning): size >= 20 fails (12 rows); note completeness >= 0.5 passes (9 of 12); the note
column's nulls: 3.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openlineage.client")

from quality_py import Check, Id, OpenLineage, Rule, RuleSet, RuleSuite, run_quality
from quality_py.actions.outcome import QualityRunFailed
from quality_py.cli import main
from tests.openlineage_schemas import event_errors
from tests.servers import http_server
from tests.spark.test_pipelines import SUITE as PIPELINE_SUITE

pytestmark = pytest.mark.wiring  # a run's events as an endpoint receives them

SUITE = replace(PIPELINE_SUITE, name="orders")  # the rules of the module docstring
CHECKS = [Check("warning", "volume").has_size(">= 20").has_completeness("note", ">= 0.5")]


def _input(spark: Any, tmp_path: Path) -> tuple[Any, str]:
    folder = str(tmp_path / "orders")
    spark.range(12).selectExpr(
        "CAST(id % 10 AS INT) AS id",
        "CAST(id - 3 AS DOUBLE) AS amount",
        "CASE WHEN id % 4 = 0 THEN NULL ELSE 'n' END AS note",
    ).write.parquet(folder)
    return spark.read.parquet(folder), os.path.realpath(folder)


def _events(record: Any) -> list[dict[str, Any]]:
    events = [json.loads(r["body"]) for r in record.requests]
    for event in events:
        assert event_errors(event) == [], event["eventType"]
    return events


def test_a_published_run_tells_its_rules_checks_and_datasets(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, folder = _input(spark, tmp_path)
    with http_server() as (url, record):
        monkeypatch.setenv("DQ_LINEAGE_URL", url)
        setting = OpenLineage(namespace="sales", url_env="DQ_LINEAGE_URL")
        run = run_quality(frame, SUITE, CHECKS, run_id="r1", notifiers=[setting])
        assert record.requests == []  # nothing is told before the run writes
        summary = run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
        start, complete = _events(record)
    assert summary.undelivered == ()
    assert [start["eventType"], complete["eventType"]] == ["START", "COMPLETE"]
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert complete["job"]["namespace"] == "sales" and complete["job"]["name"] == "orders"
    (source,) = complete["inputs"]
    assert (source["namespace"], source["name"]) == ("file", folder)
    facets = source["inputFacets"]
    found = {a["name"]: a for a in facets["dataQualityAssertions"]["assertions"]}
    rules = {n: (found[n]["success"], found[n]["actual"], found[n].get("column"))
             for n in ("positive", "unique_id", "has_note")}  # fmt: skip
    assert rules == {"positive": (False, "4", "amount"), "unique_id": (False, "4", "id"),
                     "has_note": (False, "3", "note")}  # fmt: skip
    assert found["positive"]["content"] == "amount > 0" and found["positive"]["severity"] == "warn"
    checks = {n: a["success"] for n, a in found.items() if n.startswith("volume: ")}
    assert checks == {"volume: size >= 20": False, "volume: note completeness": True}
    metrics = facets["dataQualityMetrics"]
    assert metrics["rowCount"] == 12 and metrics["columnMetrics"]["note"]["nullCount"] == 3
    outputs = {d["name"]: d["outputFacets"]["outputStatistics"]["rowCount"]
               for d in complete["outputs"]}  # fmt: skip
    assert outputs == {os.path.realpath(tmp_path / "valid"): 6,
                       os.path.realpath(tmp_path / "quarantine"): 8}  # fmt: skip
    assert [d["name"] for d in start["outputs"]] == list(outputs)


def test_a_failed_run_tells_why_and_what_it_found(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, folder = _input(spark, tmp_path)
    strict = RuleSuite(SUITE.id, [RuleSet(Id(10, 1), [
        Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="fail"),
        Rule(Id(102, 1), "note IS NOT NULL", name="has_note")])], name="orders")  # fmt: skip
    with http_server() as (url, record):
        monkeypatch.setenv("DQ_LINEAGE_URL", url)
        setting = OpenLineage(url_env="DQ_LINEAGE_URL", input=folder)
        with pytest.raises(QualityRunFailed):
            run_quality(frame, strict, run_id="r2", notifiers=[setting])
        start, fail = _events(record)
    assert [start["eventType"], fail["eventType"]] == ["START", "FAIL"]
    assert "positive" in fail["run"]["facets"]["errorMessage"]["message"]
    (source,) = fail["inputs"]
    # the fail rule's 4 rows are what the run counted before it stopped; has_note was not
    (positive,) = source["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert (positive["name"], positive["success"], positive["actual"], positive["severity"]) == (
        "positive",
        False,
        "4",
        "error",
    )
    assert fail["outputs"] == []


def test_an_endpoint_that_is_down_never_stops_the_run(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, _ = _input(spark, tmp_path)
    with http_server() as (url, _record):
        pass  # its port is closed now
    monkeypatch.setenv("DQ_LINEAGE_URL", url)
    setting = OpenLineage(url_env="DQ_LINEAGE_URL", timeout=20)
    summary = run_quality(frame, SUITE, run_id="r3", notifiers=[setting]).write(
        str(tmp_path / "valid")
    )
    assert summary.valid_rows == 6
    assert [line.split(":")[0] for line in summary.undelivered] == [
        "OpenLineage START event not delivered",
        "OpenLineage COMPLETE event not delivered",
    ]
    assert not any("127.0.0.1" in line or "T0KEN" in line for line in summary.undelivered)


def test_the_command_line_emits_where_openlineage_url_says(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, folder = _input(spark, tmp_path)
    ruleset = tmp_path / "orders.yaml"
    ruleset.write_text(
        "suite: {name: orders}\n"
        "rule_sets:\n"
        "  - name: basics\n"
        "    rules:\n"
        "      - {name: positive, expression: 'amount > 0', action_if_failed: drop}\n"
    )
    with http_server() as (url, record):
        # the client's own variable, as a scheduler's environment sets it
        monkeypatch.setenv("OPENLINEAGE_URL", url.rsplit("/hook/", 1)[0])
        code = main(["run", str(ruleset), "--input", folder, "--valid", str(tmp_path / "v"),
                     "--openlineage-namespace", "sales"])  # fmt: skip
        assert code == 0
        _start, complete = _events(record)
        assert all(r["path"] == "/api/v1/lineage" for r in record.requests)
        code = main(["run", str(ruleset), "--input", folder, "--valid", str(tmp_path / "v2"),
                     "--no-openlineage"])  # fmt: skip
        assert code == 0 and len(record.requests) == 2
    assert complete["job"] == {**complete["job"], "namespace": "sales", "name": "orders"}
    assert complete["inputs"][0]["name"] == folder
    (positive,) = complete["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert (positive["name"], positive["success"], positive["actual"]) == ("positive", False, "4")


DOC = Path(__file__).resolve().parents[2] / "docs" / "lineage.md"


def _doc_blocks(kind: str) -> list[str]:
    import re

    return re.findall(rf"^```{kind}\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_doc_runs_as_written(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    import yaml

    from quality_py import QualityJob

    _input(spark, tmp_path)
    (tmp_path / "data").mkdir()
    os.rename(tmp_path / "orders", tmp_path / "data" / "orders")
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "orders.yaml").write_text(
        "suite: {name: orders}\nrule_sets:\n  - name: basics\n    rules:\n"
        "      - {name: positive, expression: 'amount > 0', action_if_failed: drop}\n"
    )
    monkeypatch.chdir(tmp_path)
    (python,) = _doc_blocks("python")
    (command,) = _doc_blocks("bash")
    (job,) = _doc_blocks("yaml")
    with http_server() as (url, record):
        monkeypatch.setenv("DQ_LINEAGE_URL", url)
        # Spark resolves a relative path against its JVM's directory, not this test's
        here = python.replace('"data/orders"', repr(str(tmp_path / "data" / "orders")))
        exec(compile(here, "docs/lineage.md", "exec"), {"spark": spark})
        assert capsys.readouterr().out == "()\n"
        monkeypatch.setenv("OPENLINEAGE_URL", url.rsplit("/hook/", 1)[0])
        argv = shlex.split(command)
        assert argv[0] == "quality-py" and argv[3:5] == ["--input", "data/orders"]
        where = {"data/orders": "data/orders", "out/valid": "out/v2", "out/quarantine": "out/q2"}
        argv = [str(tmp_path / where[a]) if a in where else a for a in argv]
        assert main(argv[1:]) == 0
        events = _events(record)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"] * 2
    for complete in (events[1], events[3]):
        assert complete["job"]["namespace"] == "sales"
        (positive,) = complete["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"]
        assert (positive["name"], positive["actual"]) == ("positive", "4")
    # the job file's openlineage field, as a job reads it
    spec = QualityJob.from_dict(yaml.safe_load(job))
    assert spec.openlineage is not None and not isinstance(spec.openlineage, bool)
    assert (spec.openlineage.job, spec.openlineage.url_env) == ("orders_daily", "DQ_LINEAGE_URL")
