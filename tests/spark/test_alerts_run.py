"""Alerts from a real run of the command line, to real servers on loopback: the counts are
worked out by hand, the link opens the run's page of the site the report command builds, and an
alert that cannot be delivered changes nothing of the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py import read_outputs
from quality_py.cli import main
from tests.servers import http_server, smtp_server

pytestmark = pytest.mark.wiring  # alerts from a CLI run

RULES = """
suite: {id: 7, version: 2, name: orders}
rule_sets:
  - id: 10
    rules:
      - {id: 100, name: positive_amount, expression: "amount > 0", action_if_failed: drop}
      - {id: 101, name: known_currency, expression: "currency IN ('EUR', 'USD')"}
"""
#: 10 rows: amounts -1 (x3), 0, 5 (x6); currencies GBP (x2), EUR, USD
CSV = "amount,currency\n" + "".join(
    f"{a},{c}\n" for a, c in [(-1, "EUR"), (-1, "GBP"), (-1, "USD"), (0, "GBP"), *[(5, "EUR")] * 6]
)
AIRFLOW = "scheduled__2026-11-23T10:00:00+00:00"


def _args(tmp: Path) -> list[str]:
    (tmp / "rules.yaml").write_text(RULES)
    (tmp / "in.csv").write_text(CSV)
    return [
        "run", str(tmp / "rules.yaml"), "--input", str(tmp / "in.csv"),
        "--valid", str(tmp / "v"), "--quarantine", str(tmp / "q"), "--stats", str(tmp / "s"),
        "--history", str(tmp / "h"), "--run-id", AIRFLOW,
    ]  # fmt: skip


def test_a_run_alerts_slack_and_email_and_links_its_report_page(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    with http_server() as (url, hook), smtp_server() as (port, mail):
        monkeypatch.setenv("QP_SLACK_URL", url)
        for key, value in {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_PORT": str(port),
                           "QP_SMTP_FROM": "dq@example.com",
                           "QP_SMTP_SECURITY": "none"}.items():  # fmt: skip
            monkeypatch.setenv(key, value)
        alerts = ["--alert", "slack=QP_SLACK_URL", "--alert", "email=ops@example.com"]
        root = "http://127.0.0.1:8000/dq/"  # a report URL: https, or http on loopback
        report = ["--report-url", root]
        assert main([*_args(tmp_path), *alerts, *report]) == 0
    (request,) = hook.requests
    blocks = json.loads(request["body"])["blocks"]
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section" and "text" in b]
    # by hand: amount > 0 fails the three -1 and the 0 (4 of 10); the currency rule fails GBP
    # twice (2 of 10)
    assert texts[0].startswith("*positive_amount* `100.1`: 4 rows (40.00 %)")
    assert texts[1].startswith("*known_currency* `101.1`: 2 rows (20.00 %)")
    (email,) = mail.mails
    assert (
        "- positive_amount [100.1]: 4 rows (40.00 % of rows)"
        in email.get_body(("plain",)).get_content()
    )
    link = blocks[-1]["elements"][0]["url"]
    assert main(["report", "--history", str(tmp_path / "h"), "--site", str(site)]) == 0
    assert link.startswith(root)
    page = site / link.removeprefix(root)
    assert page.is_file() and AIRFLOW in page.read_text(encoding="utf-8")


def test_an_alert_that_cannot_be_sent_changes_nothing(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    with http_server([503] * 3) as (url, hook):
        monkeypatch.setenv("QP_SLACK_URL", url)
        json_file = tmp_path / "result.json"
        code = main([*_args(tmp_path), "--alert", "slack=QP_SLACK_URL", "--json", str(json_file)])
    assert code == 0 and len(hook.requests) == 3
    _, quarantine, _ = read_outputs(spark, None, str(tmp_path / "q"), str(tmp_path / "s"))
    assert quarantine.count() == 4  # -1 (x3) and 0; both GBP rows are among them
    err = capsys.readouterr().err
    assert "T0KEN" not in err
    # the person running it is told, once, on stderr; --json and the record keep it
    line = "slack alert not delivered after 3 tries: HTTP 503"
    assert err.count(f"warning: {line}") == 1
    assert json.loads(json_file.read_text())["undelivered_alerts"] == [line]
    (stored,) = [json.loads(p.read_text()) for p in (tmp_path / "h").rglob("v*.json")]
    record = stored["record"]
    kept = [m for m in record["metrics"] if m["kind"] == "alert"]
    assert [(m["entity"], m["name"], m["message"]) for m in kept] == [
        ("slack", "undelivered", line)
    ]


def test_an_unset_secret_stops_the_run_before_spark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.delenv("QP_NOT_SET_URL", raising=False)
    assert main([*_args(tmp_path), "--alert", "teams=QP_NOT_SET_URL"]) == 2
    err = capsys.readouterr().err
    assert "environment variable QP_NOT_SET_URL is not set" in err
    assert "Traceback" not in err and not (tmp_path / "q").exists()
