"""One alert per incident and PagerDuty (issue 56, part 2), without Spark: when ``change``
sends, what a history tells the next run, and PagerDuty's documented Events API v2 body
against a loopback server. Expected values by hand."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from quality_py.actions.notify import notify_run
from quality_py.actions.outcome import RunSummary
from quality_py.alerts import AlertNotDelivered, PagerDutyAlert, WebhookAlert, alert_sender, wanted
from quality_py.errors import ModelError
from quality_py.history import FileMetricsRepository
from quality_py.history.recording import summary_record
from quality_py.model.enums import RunStatus
from tests.servers import http_server

T0 = datetime(2026, 3, 1, 6, tzinfo=timezone.utc)
KEY = "R0UT1NGkey0123456789abcdef012345"


def _summary(day: int, *, failing: int = 0, hours: int = 0) -> RunSummary:
    from quality_py.actions.flags import RuleRef
    from quality_py.model.ids import Id

    ref = RuleRef(Id(10, 1), Id(101, 1), "drop", None, None, (), "positive")
    return RunSummary(
        f"run{day}" + (f"h{hours}" if hours else ""), T0 + timedelta(days=day, hours=hours), "7.1",
        RunStatus.SUCCESS,
        100, 100 - failing, failing, failing,
        failing_rules=((ref, failing),) if failing else (),
    )  # fmt: skip


def _incident(state: str, previous: str, last: str | None = None) -> dict[str, Any]:
    return {"state": state, "previous_state": previous, "last_alerted": last}


@pytest.mark.parametrize(
    ("event", "every", "sent"),
    [
        ({"event": "success", "incident": _incident("problems", "ok")}, None, True),  # first
        ({"event": "success", "incident": _incident("problems", "problems")}, None, False),
        ({"event": "failure", "incident": _incident("failed", "problems")}, None, True),
        ({"event": "failure", "incident": _incident("failed", "failed")}, None, False),
        ({"event": "success", "incident": _incident("ok", "failed")}, None, True),  # recovery
        ({"event": "success", "incident": _incident("ok", "ok")}, "1 hour", False),
        # a lasting problem, last alerted 25 hours before this run: again after a day
        ({"event": "success", "incident": _incident("problems", "problems",
                                                    "2026-02-28T05:00:00+00:00")}, "1 day", True),
        ({"event": "success", "incident": _incident("problems", "problems",
                                                    "2026-02-28T07:00:00+00:00")}, "1 day", False),
        ({"event": "start", "incident": _incident("problems", "ok")}, None, False),
        # no history: what "problems" sends
        ({"event": "success", "failing_rules": [{"rule": "1.1"}]}, None, True),
        ({"event": "success", "failing_rules": []}, None, False),
    ],
)  # fmt: skip
def test_when_change_sends(event: dict[str, Any], every: str | None, sent: bool) -> None:
    from quality_py.model.times import parse_duration

    event = {"run_time": T0.isoformat(), **event}
    assert wanted(event, "change", parse_duration(every) if every else None) is sent


def test_every_is_for_change_only() -> None:
    env = {"V": "https://hooks.example.com/x"}
    with pytest.raises(ModelError, match="every applies to when='change'"):
        WebhookAlert("V", environ=env, every="1 day")
    with pytest.raises(ModelError, match="every: cannot read the duration"):
        WebhookAlert("V", environ=env, when="change", every="daily")


def _run(repo: FileMetricsRepository, summary: RunSummary, senders: list[Any]) -> None:
    """What a written run does: notify, then keep its record with the incident's metrics."""
    lost, kept = notify_run(senders, "success", summary, repo)
    assert lost == ()
    repo.save(summary_record(summary, {}, kept))


def test_a_month_of_daily_runs_alerts_once_per_incident(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    # by hand: ok, ok, problems x3, ok, problems: alerts on day 2 (first problem), day 5
    # (recovery) and day 6 (a new problem); PagerDuty triggers on 2 and 6 and resolves on 5
    days = [0, 0, 4, 4, 4, 0, 9]
    with http_server() as (url, seen), http_server() as (pd_url, pd_seen):
        hook = WebhookAlert("H", environ={"H": url}, when="change")
        pd = PagerDutyAlert("K", environ={"K": KEY}, when="change", url=pd_url)
        for day, failing in enumerate(days):
            _run(repo, _summary(day, failing=failing), [hook, pd])
        posted = [json.loads(r["body"]) for r in seen.requests]
        paged = [json.loads(r["body"]) for r in pd_seen.requests]
    assert [b["run_id"] for b in posted] == ["run2", "run5", "run6"]
    assert [b["incident"]["previous_state"] for b in posted] == ["ok", "problems", "ok"]
    assert posted[1]["incident"]["recovered"] is True
    assert [(b["event_action"], b["dedup_key"]) for b in paged] == [
        ("trigger", "quality_py suite 7"), ("resolve", "quality_py suite 7"),
        ("trigger", "quality_py suite 7"),
    ]  # fmt: skip
    states = [
        next(m.status for m in r.metrics if m.kind == "incident" and m.name == "state")
        for r in repo.records()
    ]
    assert states == ["ok", "ok", "problems", "problems", "problems", "ok", "problems"]
    alerted = [r.run_id for r in repo.records()
               if any(m.name == "alerted" for m in r.metrics if m.kind == "incident")]  # fmt: skip
    assert alerted == ["run2", "run5", "run6"]


def test_a_lasting_problem_is_alerted_again_after_every(tmp_path: Path) -> None:
    repo = FileMetricsRepository(tmp_path / "history")
    with http_server() as (url, seen):
        hook = WebhookAlert("H", environ={"H": url}, when="change", every="1 day")
        # runs every 8 hours, all failing a rule: alerted at 0 h, then at 24 h and 48 h
        for i in range(7):
            _run(repo, _summary(0, failing=3, hours=8 * i), [hook])
        sent = [json.loads(r["body"])["run_time"] for r in seen.requests]
    assert sent == [(T0 + timedelta(hours=h)).isoformat() for h in (0, 24, 48)]


def test_without_history_every_problem_is_sent(tmp_path: Path) -> None:
    with http_server() as (url, seen):
        hook = WebhookAlert("H", environ={"H": url}, when="change")
        for day in range(3):
            _, kept = notify_run([hook], "success", _summary(day, failing=2), None)
            assert kept == []
        assert len(seen.requests) == 3


def test_pagerduty_body_is_the_documented_one() -> None:
    """developer.pagerduty.com "Send an Alert Event": routing_key, event_action, dedup_key,
    payload {summary, source, severity, timestamp, component, group, custom_details}, links."""
    summary = _summary(1, failing=7)
    with http_server() as (url, seen):
        pd = PagerDutyAlert("K", environ={"K": KEY}, url=url,
                            report_url="https://dq.example.com/site/")  # fmt: skip
        pd.notify({"event": "failure", **summary.to_dict()})
        (request,) = seen.requests
    body = json.loads(request["body"])
    assert request["headers"]["Content-Type"].startswith("application/json")
    assert set(body) == {"routing_key", "event_action", "dedup_key", "payload", "links"}
    assert (body["routing_key"], body["event_action"]) == (KEY, "trigger")
    payload = body["payload"]
    assert set(payload) == {"summary", "source", "severity", "timestamp", "component", "group",
                            "custom_details"}  # fmt: skip
    assert payload["severity"] == "critical" and len(payload["summary"]) <= 1024
    assert payload["timestamp"] == summary.run_time.isoformat()
    assert payload["custom_details"]["failing_rules"] == [
        {"rule": "101.1", "name": "positive", "rows": 7}
    ]
    assert body["links"][0]["href"].startswith("https://dq.example.com/site/runs/")


def test_pagerduty_never_shows_its_key() -> None:
    with http_server(statuses=[500, 500, 500]) as (url, _):
        pd = PagerDutyAlert("K", environ={"K": KEY}, url=url, attempts=3, backoff=0)
        with pytest.raises(AlertNotDelivered) as err:
            pd.notify({"event": "failure", **_summary(1).to_dict()})
    assert KEY not in str(err.value)
    with pytest.raises(ModelError, match="is not a routing key") as bad:
        PagerDutyAlert("K", environ={"K": "https://events.pagerduty.com/x"})
    assert "events.pagerduty.com" not in str(bad.value)
    assert repr(alert_sender("pagerduty=K", environ={"K": KEY})) == "PagerDutyAlert(key_env='K')"
