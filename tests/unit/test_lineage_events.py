"""OpenLineage events as a run builds them (issue 57, point 2), without Spark: every event
conforms to the specification's own JSON Schemas (tests/fixtures/openlineage, validated by
tests/openlineage_schemas.py); dataset names follow OpenLineage's naming (by hand from its naming
page: ``s3://bucket`` and the key, ``file`` and the path, ...); the settings refuse what cannot
work before any job; delivery never blocks or breaks a run and never tells the endpoint."""

from __future__ import annotations

import copy
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("openlineage.client")

from quality_py.errors import InputError, ModelError
from quality_py.gate.locations import location
from quality_py.jobs.running import lineage_of
from quality_py.jobs.spec import JobSpec
from quality_py.lineage import OpenLineage
from quality_py.lineage.events import (
    Assertion,
    ColumnNumbers,
    Outcome,
    RunIdentity,
    dataset_name,
    event_json,
    run_event,
)
from tests.openlineage_schemas import event_errors
from tests.servers import http_server

IDENTITY = RunIdentity(
    namespace="sales",
    job="orders_daily",
    run_id="scheduled__2026-11-30T00:00:00+00:00",
    suite="1.1",
    input=location("/data/orders"),
    outputs={
        "valid": location("s3a://Lake/valid/"),
        "quarantine": location("main.dq.orders_quarantine", table=True),
        "stats": location("/Volumes/main/dq/stats"),
    },
)
OUTCOME = Outcome(
    assertions=(
        Assertion("custom_sql", "positive", False, "warn", "amount", "amount > 0", "sql", "0",
                  "4", {"ruleId": "100.1", "action": "drop"}),
        Assertion("completeness", "basic: completeness(note) >= 0.9", True, "error",
                  content="completeness(note) >= 0.9", content_type="expression", actual="0.75"),
    ),
    rows=12,
    columns={"note": ColumnNumbers(nulls=3), "amount": ColumnNumbers(minimum=-3.0,
             maximum=float("nan"), total=30.0, count=12)},
    output_rows={"valid": 6, "quarantine": 8},
    error="QualityRunFailed: a fail rule failed",
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "table", "expected"),
    [
        ("/data/orders/", False, ("file", "/data/orders")),
        ("file:///data/orders", False, ("file", "/data/orders")),
        ("s3a://Lake/raw/orders/", False, ("s3://lake", "raw/orders")),
        ("gs://bucket/a/b", False, ("gs://bucket", "a/b")),
        ("abfss://box@acct.dfs.core.windows.net/x", False,
         ("abfss://box@acct.dfs.core.windows.net", "x")),
        ("hdfs://nn:8020/warehouse/t", False, ("hdfs://nn:8020", "/warehouse/t")),
        ("dbfs:/mnt/raw", False, ("dbfs", "/mnt/raw")),
        ("/Volumes/main/raw/orders", False, ("dbfs", "/Volumes/main/raw/orders")),
        ("Main.Sales.Orders", True, ("spark_catalog", "main.sales.orders")),
    ],
)  # fmt: skip
def test_dataset_names_follow_openlineage_naming(
    text: str, table: bool, expected: tuple[str, str]
) -> None:
    assert dataset_name(location(text, table=table)) == expected


def test_every_event_conforms_to_the_specification() -> None:
    for state, outcome in (("START", None), ("COMPLETE", OUTCOME), ("FAIL", OUTCOME)):
        event = event_json(run_event(state, IDENTITY, outcome))
        assert event_errors(event) == [], state
        assert event["eventType"] == state
        assert event["job"] == {"namespace": "sales", "name": "orders_daily",
                                "facets": event["job"]["facets"]}  # fmt: skip
        names = [(d["namespace"], d["name"]) for d in event["outputs"]]
        assert names == [("s3://lake", "valid"), ("spark_catalog", "main.dq.orders_quarantine"),
                         ("dbfs", "/Volumes/main/dq/stats")]  # fmt: skip


def test_the_complete_event_carries_assertions_metrics_and_output_rows() -> None:
    event = event_json(run_event("COMPLETE", IDENTITY, OUTCOME))
    (source,) = event["inputs"]
    assert (source["namespace"], source["name"]) == ("file", "/data/orders")
    rule, check = source["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert rule == {"assertion": "custom_sql", "success": False, "column": "amount",
                    "severity": "warn", "name": "positive", "expected": "0", "actual": "4",
                    "content": "amount > 0", "contentType": "sql",
                    "params": {"ruleId": "100.1", "action": "drop"}}  # fmt: skip
    assert check["success"] is True and check["severity"] == "error" and "column" not in check
    metrics = source["inputFacets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 12
    # a NaN maximum is no JSON number: left out, not sent as NaN
    assert metrics["columnMetrics"] == {
        "note": {"nullCount": 3, "quantiles": {}},
        "amount": {"min": -3.0, "sum": 30.0, "count": 12.0, "quantiles": {}},
    }
    rows = {d["name"]: d.get("outputFacets", {}).get("outputStatistics") for d in event["outputs"]}
    assert rows["valid"]["rowCount"] == 6 and rows["main.dq.orders_quarantine"]["rowCount"] == 8
    assert rows["/Volumes/main/dq/stats"] is None  # not counted: no facet
    assert "errorMessage" not in event["run"]["facets"]
    failed = event_json(run_event("FAIL", IDENTITY, OUTCOME))
    assert failed["run"]["facets"]["errorMessage"]["message"] == OUTCOME.error


def test_the_validator_finds_what_departs_from_the_specification() -> None:
    event = event_json(run_event("COMPLETE", IDENTITY, OUTCOME))
    broken = copy.deepcopy(event)
    broken["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"][0]["success"] = "no"
    broken["run"]["runId"] = "not a uuid"
    errors = event_errors(broken)
    assert any("success" in e for e in errors) and any("runId" in e for e in errors)
    unknown = copy.deepcopy(event)
    unknown["run"]["facets"]["tags"]["_schemaURL"] = "https://example.com/Other.json#/x"
    assert any("no schema kept" in e for e in event_errors(unknown))


def test_a_run_is_one_openlineage_run_from_start_to_end() -> None:
    uuid_text = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
    start = event_json(run_event("START", IDENTITY))
    end = event_json(run_event("COMPLETE", IDENTITY, OUTCOME))
    assert start["run"]["runId"] == end["run"]["runId"]
    assert uuid_text.match(start["run"]["runId"])
    other = RunIdentity("sales", "orders_daily", "r2", "1.1", None, {})
    assert other.run_uuid != IDENTITY.run_uuid
    tags = {t["key"]: t["value"] for t in start["run"]["facets"]["tags"]["tags"]}
    assert tags == {"quality_py.run_id": IDENTITY.run_id, "quality_py.suite": "1.1"}


def test_settings_refuse_what_cannot_work_before_any_job() -> None:
    with pytest.raises(ModelError, match="DQ_OL_URL is not set") as unset:
        OpenLineage(url_env="DQ_OL_URL").transport({})
    assert unset.value.code == "ALERT"
    with pytest.raises(ModelError, match="plain http is taken on a loopback host only") as plain:
        OpenLineage(url_env="U").transport({"U": "http://lineage.example.com/api"})
    assert "lineage.example.com" not in plain.value.message  # a secret URL is never quoted
    with pytest.raises(ModelError, match="give url_env too"):
        OpenLineage(api_key_env="K")
    with pytest.raises(ModelError, match="timeout must be"):
        OpenLineage(timeout=0)
    with pytest.raises(ModelError, match="non-empty"):
        OpenLineage(namespace=" ")
    config = OpenLineage(url_env="U", api_key_env="K").transport(
        {"U": "https://lineage.example.com", "K": "k3y"}
    )
    assert config == {"type": "http", "url": "https://lineage.example.com",
                      "auth": {"type": "api_key", "apiKey": "k3y"}}  # fmt: skip


def test_a_job_names_its_setting_and_its_input() -> None:
    with pytest.raises(InputError, match="unknown field 'namespcae'"):
        JobSpec(openlineage={"namespcae": "x"})
    with pytest.raises(InputError, match="expected true, false or a mapping"):
        JobSpec(openlineage="yes")
    setting = lineage_of(JobSpec(input="data/orders.csv", openlineage={"namespace": "sales"}))
    assert setting is not None and (setting.namespace, setting.input) == (
        "sales",
        "data/orders.csv",
    )
    # OPENLINEAGE_URL turns it on, as the client reads it; false keeps it off
    on = lineage_of(JobSpec(input="main.s.orders"), {"OPENLINEAGE_URL": "http://127.0.0.1:1"})
    assert on is not None and on.input == "table:main.s.orders"
    assert lineage_of(JobSpec(openlineage=False), {"OPENLINEAGE_URL": "http://127.0.0.1:1"}) is None
    assert lineage_of(JobSpec(input="sample:flights", openlineage=True)).input is None


@contextmanager
def _slow_server(seconds: float) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            time.sleep(seconds)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/s3cret-path"
    finally:
        server.shutdown()
        server.server_close()


def test_delivery_is_bounded_and_never_tells_the_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with http_server() as (url, record):
        monkeypatch.setenv("DQ_OL_URL", url)
        emitter = OpenLineage(url_env="DQ_OL_URL").emitter()
        assert emitter.kind == "http"
        assert emitter.send("START", IDENTITY) is None
        (request,) = record.requests
        assert request["path"].endswith("/api/v1/lineage")
        import json

        assert event_errors(json.loads(request["body"])) == []
    with http_server([500] * 20) as (url, record):
        monkeypatch.setenv("DQ_OL_URL", url)
        line = OpenLineage(url_env="DQ_OL_URL", timeout=30).emitter().send("COMPLETE", IDENTITY)
        assert line is not None and line.startswith("OpenLineage COMPLETE event not delivered: ")
        assert "127.0.0.1" not in line and "s3cret" not in line.lower()
    with _slow_server(5) as url:
        monkeypatch.setenv("DQ_OL_URL", url)
        line = OpenLineage(url_env="DQ_OL_URL", timeout=0.5).emitter().send("START", IDENTITY)
        assert line == "OpenLineage START event not delivered within 0.5 s"
