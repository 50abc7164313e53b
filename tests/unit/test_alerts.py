"""Alerts to Slack, Teams, email and webhooks, sent to real servers on loopback.

Expected texts and shares are worked out by hand from the event below. The payload checks
state the services' documented formats as facts:

* Slack Block Kit (api.slack.com/reference/block-kit): a message has ``text`` and at most 50
  ``blocks``; a ``header`` holds a ``plain_text`` object of at most 150 characters; a
  ``section`` a ``text`` of at most 3000 characters or at most 10 ``fields`` of at most 2000; an
  ``actions`` block at most 25 elements, a ``button`` a ``plain_text`` label of at most 75
  characters and a ``url`` of at most 3000; in ``mrkdwn`` text ``&``, ``<`` and ``>`` are
  escaped as ``&amp;``, ``&lt;``, ``&gt;``.
* Adaptive Cards 1.4 (adaptivecards.io/schemas/1.4.0/adaptive-card.json), the card a Teams
  webhook takes as an attachment of content type ``application/vnd.microsoft.card.adaptive``:
  the card's properties are a closed set, its ``version`` is required; a ``TextBlock`` requires
  ``text`` (``size``, ``weight``, ``color`` and ``spacing`` from fixed lists), a ``FactSet``
  requires ``facts`` of ``title`` and ``value`` texts, an ``Action.OpenUrl`` requires ``url``.
"""

from __future__ import annotations

import json
import logging
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from quality_py.actions.notify import notify_all
from quality_py.actions.outcome import RunSummary
from quality_py.alerts import (
    AlertNotDelivered,
    EmailAlert,
    SlackAlert,
    TeamsAlert,
    WebhookAlert,
    alert_of,
    alert_sender,
    wanted,
)
from quality_py.alerts.escaping import SLACK, TEAMS, views
from quality_py.alerts.slack import slack_payload
from quality_py.alerts.teams import teams_payload
from quality_py.errors import ModelError
from quality_py.model.enums import RunStatus
from tests.servers import http_server, smtp_server

RUN_ID = "scheduled__2026-11-23T10:00:00+00:00"
EVENT: dict[str, Any] = {
    "event": "success",
    "run_id": RUN_ID,
    "run_time": "2026-11-23T10:04:05.123456+00:00",
    "suite": "7.2",
    "suite_name": "orders",
    "status": "success",
    "input_rows": 400,
    "valid_rows": 380,
    "quarantined_rows": 20,
    "dropped_rows": 20,
    "failing_rules": [
        {
            "rule": "101.1",
            "name": "positive_amount",
            "rows": 15,
            "top_values": [
                {"column": "amount", "value": "-1", "rows": 9},
                {"column": "amount", "value": "<0 & more>", "rows": 4},
            ],
        },
        {"rule": "102.1", "name": None, "rows": 5},
    ],
    "failed_checks": [],
    "alerts": ["rows fell by 40 %"],
}
SITE = "https://dq.example.com/reports/"


def _env(url: str) -> dict[str, str]:
    return {"QP_TEST_HOOK": url}


def _slack_ok(message: dict[str, Any]) -> None:
    assert set(message) == {"text", "blocks"} and isinstance(message["text"], str)
    assert 1 <= len(message["blocks"]) <= 50
    for block in message["blocks"]:
        kind = block["type"]
        assert kind in ("header", "section", "actions")
        if kind == "header":
            assert block["text"]["type"] == "plain_text" and len(block["text"]["text"]) <= 150
        elif kind == "section":
            texts = [block["text"]] if "text" in block else block["fields"]
            assert len(texts) <= 10
            for t in texts:
                assert t["type"] in ("mrkdwn", "plain_text")
                assert len(t["text"]) <= (3000 if "text" in block else 2000)
                if t["type"] == "mrkdwn":  # no raw control character of mrkdwn
                    assert not re.search(r"[<>]|&(?!amp;|lt;|gt;)", t["text"])
        else:
            assert len(block["elements"]) <= 25
            for e in block["elements"]:
                assert e["type"] == "button" and e["text"]["type"] == "plain_text"
                assert len(e["text"]["text"]) <= 75 and len(e["url"]) <= 3000


CARD_KEYS = {"type", "version", "refresh", "body", "actions", "selectAction", "fallbackText",
             "backgroundImage", "minHeight", "speak", "lang", "verticalContentAlignment",
             "$schema"}  # fmt: skip
SIZES = {"default", "small", "medium", "large", "extralarge"}
WEIGHTS = {"default", "lighter", "bolder"}
COLORS = {"default", "dark", "light", "accent", "good", "warning", "attention"}
SPACINGS = {"default", "none", "small", "medium", "large", "extralarge", "padding"}


def _card_ok(message: dict[str, Any]) -> dict[str, Any]:
    assert message["type"] == "message" and len(message["attachments"]) == 1
    attachment = message["attachments"][0]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert set(card) <= CARD_KEYS and card["type"] == "AdaptiveCard"
    assert card["version"] == "1.4"
    for element in card["body"]:
        if element["type"] == "TextBlock":
            assert isinstance(element["text"], str) and element["text"]
            for key, allowed in (("size", SIZES), ("weight", WEIGHTS), ("color", COLORS),
                                 ("spacing", SPACINGS)):  # fmt: skip
                assert element.get(key, "default").lower() in allowed
            assert set(element) <= {"type", "text", "size", "weight", "color", "spacing", "wrap",
                                    "isSubtle", "maxLines", "horizontalAlignment", "fontType",
                                    "id", "isVisible", "separator", "height"}  # fmt: skip
        else:
            assert element["type"] == "FactSet"
            for fact in element["facts"]:
                assert set(fact) == {"title", "value"}
                assert all(isinstance(v, str) for v in fact.values())
    for action in card.get("actions", []):
        assert action["type"] == "Action.OpenUrl" and action["url"]
    return card


def test_slack_message_names_the_rules_with_counts_shares_values_and_the_report() -> None:
    with http_server() as (url, seen):
        SlackAlert("QP_TEST_HOOK", report_url=SITE, environ=_env(url)).notify(EVENT)
    assert len(seen.requests) == 1
    assert seen.requests[0]["headers"]["Content-Type"] == "application/json"
    message = json.loads(seen.requests[0]["body"])
    _slack_ok(message)
    blocks = message["blocks"]
    assert blocks[0]["text"]["text"] == (
        f"Quality run {RUN_ID} of suite 'orders' (7.2): 2 rules failing"
    )
    texts = [b["text"]["text"] for b in blocks if b["type"] == "section" and "text" in b]
    # by hand: 15 of 400 rows is 3.75 %, 5 of 400 is 1.25 %
    assert texts[0] == (
        "*positive_amount* `101.1`: 15 rows (3.75 %)\n• amount = -1: 9\n"
        "• amount = &lt;0 &amp; more&gt;: 4"
    )
    assert texts[1] == "*102.1* `102.1`: 5 rows (1.25 %)"
    assert texts[2] == "alert: rows fell by 40 %"
    fields = {f["text"].split("\n")[0]: f["text"].split("\n")[1] for f in blocks[1]["fields"]}
    assert fields["*rows in*"] == "400" and fields["*quarantined*"] == "20"
    link = blocks[-1]["elements"][0]["url"]
    # the site's page name, encoded by hand: "run", then source, run id and run time, each
    # with a-z 0-9 - as they are, an upper-case letter as _ and the letter, any other
    # character as ~ and its UTF-8 bytes in hex, joined by "."
    run = "scheduled~5f~5f2026-11-23_t10~3a00~3a00~2b00~3a00"
    when = "2026-11-23_t10~3a04~3a05~2e123456~2b00~3a00"
    assert link == f"{SITE}runs/run.quality~5frun.{run}.{when}.html"


def test_teams_card_is_an_adaptive_card_with_the_same_content() -> None:
    with http_server() as (url, seen):
        TeamsAlert("QP_TEST_HOOK", report_url=SITE, environ=_env(url)).notify(EVENT)
    card = _card_ok(json.loads(seen.requests[0]["body"]))
    texts = [e["text"] for e in card["body"] if e["type"] == "TextBlock"]
    assert texts[0] == f"Quality run {RUN_ID} of suite 'orders' (7.2): 2 rules failing"
    # markdown marks in data are backslash-escaped (an _ inside a word is no mark)
    assert "**positive_amount** (101.1): 15 rows (3.75 %)" in texts
    values = [f for e in card["body"] if e["type"] == "FactSet" for f in e["facts"]]
    assert {"title": "amount = -1", "value": "9 rows"} in values
    assert {"title": "amount = \\<0 & more\\>", "value": "4 rows"} in values
    assert card["actions"][0]["url"] == alert_of(EVENT, SITE).link


def test_many_rules_stay_within_the_limits() -> None:
    many = {**EVENT, "failing_rules": [
        {"rule": f"{i}.1", "name": "r" * 100, "rows": i,
         "top_values": [{"column": "c" * 80, "value": "<v>" * 100, "rows": 1}] * 5}
        for i in range(1, 40)
    ], "alerts": ["x" * 5000] * 30}  # fmt: skip
    message = slack_payload(views(alert_of(many, SITE + "x" * 200), (SLACK,)))
    _slack_ok(message)
    assert "and 29 more rules" in json.dumps(message)
    _card_ok(teams_payload(views(alert_of(many), (TEAMS,))))


def test_email_has_a_text_and_an_html_part_through_a_real_smtp_server() -> None:
    with smtp_server() as (port, seen):
        env = {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_PORT": str(port),
               "QP_SMTP_FROM": "dq@example.com", "QP_SMTP_SECURITY": "none"}  # fmt: skip
        EmailAlert(["ops@example.com", "lead@example.com"], report_url=SITE, environ=env).notify(
            EVENT
        )
    assert seen.envelopes == [("dq@example.com", ["ops@example.com", "lead@example.com"])]
    mail = seen.mails[0]
    assert mail["Subject"] == f"Quality run {RUN_ID} of suite 'orders' (7.2): 2 rules failing"
    text = mail.get_body(("plain",)).get_content()
    assert "- positive_amount [101.1]: 15 rows (3.75 % of rows)" in text
    assert "    amount = -1: 9 rows" in text
    page = mail.get_body(("html",)).get_content()
    assert "amount = &lt;0 &amp; more&gt;: 4 rows" in page
    assert f'href="{alert_of(EVENT, SITE).link}"' in page


def test_a_busy_smtp_server_is_tried_again() -> None:
    with smtp_server(["451 try again later"]) as (port, seen):
        env = {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_PORT": str(port),
               "QP_SMTP_FROM": "dq@example.com", "QP_SMTP_SECURITY": "none"}  # fmt: skip
        EmailAlert(["ops@example.com"], environ=env, backoff=0.0).notify(EVENT)
    assert len(seen.mails) == 1


@pytest.mark.parametrize(
    ("statuses", "sent", "delivered"),
    [([503, 429, 200], 3, True), ([400], 1, False), ([500, 500, 500], 3, False)],
)
def test_retries_on_server_trouble_only(statuses: list[int], sent: int, delivered: bool) -> None:
    with http_server(statuses) as (url, seen):
        alert = WebhookAlert("QP_TEST_HOOK", environ=_env(url), backoff=0.0)
        if delivered:
            alert.notify(EVENT)
        else:
            with pytest.raises(AlertNotDelivered, match=r"HTTP (400|500)"):
                alert.notify(EVENT)
    assert len(seen.requests) == sent


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
        # the timeout is the whole delivery's deadline: a second try does not fit in it
        alert = SlackAlert("QP_TEST_HOOK", environ=_env(url), timeout=0.3, attempts=2, backoff=0)
        with pytest.raises(
            AlertNotDelivered,
            match=r"after 1 try: no answer before the "
            r"deadline \(its deadline is 0.3 s\)",
        ):
            alert.notify(EVENT)


def test_a_failed_alert_never_fails_the_run_and_never_shows_its_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    summary = RunSummary(RUN_ID, __import__("datetime").datetime(2026, 11, 23), "7.2",
                         RunStatus.FAILED)  # fmt: skip
    with http_server([500] * 6) as (url, seen):
        alerts = [SlackAlert("QP_TEST_HOOK", environ=_env(url), backoff=0.0),
                  TeamsAlert("QP_TEST_HOOK", environ=_env(url), backoff=0.0)]  # fmt: skip
        with caplog.at_level(logging.WARNING, logger="quality_py"):
            notify_all(alerts, "failure", summary)  # returns: the run goes on
    assert len(seen.requests) == 6  # both tried, three times each
    assert "slack alert not delivered after 3 tries: HTTP 500" in caplog.text
    assert "T0KEN-s3cret" not in caplog.text
    assert "T0KEN" not in repr(alerts) and "QP_TEST_HOOK" in repr(alerts)


def test_settings_come_from_the_environment_and_are_checked_first() -> None:
    with pytest.raises(ModelError, match="environment variable QP_NOT_SET is not set") as err:
        alert_sender("slack=QP_NOT_SET", environ={})
    assert err.value.code == "ALERT"
    with pytest.raises(ModelError, match="slack=<the environment variable"):
        alert_sender("pager=X", environ={})
    with pytest.raises(ModelError, match="QP_SMTP_HOST is not set"):
        alert_sender("email=ops@example.com", environ={})
    with pytest.raises(ModelError, match="scheme is 'ftp'") as err:
        alert_sender("teams=V", environ={"V": "ftp://x"})
    assert "ftp://x" not in str(err.value)  # the URL is a secret: never quoted
    smtp = {"QP_SMTP_HOST": "h", "QP_SMTP_FROM": "dq@example.com", "QP_SMTP_PORT": "25x"}
    with pytest.raises(ModelError, match="QP_SMTP_PORT must be a number, not '25x'"):
        alert_sender("email=ops@example.com", environ=smtp)
    with pytest.raises(ModelError, match="slack alert attempts must be"):
        SlackAlert("V", environ={"V": "https://x"}, attempts=0)


def test_which_events_are_sent() -> None:
    quiet = {**EVENT, "failing_rules": [], "alerts": []}
    assert not wanted({"event": "start"}, "always")
    assert not wanted({**EVENT, "event": "alert"}, "problems")  # its success event follows
    assert wanted(EVENT, "problems") and not wanted(quiet, "problems")
    assert wanted(quiet, "always") and not wanted(EVENT, "failure")
    assert wanted({"event": "failure"}, "failure")


def test_the_webhook_body_is_the_documented_one() -> None:
    """docs/alerts.md lists every key of the generic webhook's body, once."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "alerts.md").read_text("utf-8")
    table = doc.split("<!-- webhook-keys -->")[1]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    from datetime import datetime, timezone

    summary = RunSummary(RUN_ID, datetime(2026, 11, 23, tzinfo=timezone.utc), "7.2",
                         RunStatus.SUCCESS, 400, 380, 20, 20)  # fmt: skip
    with http_server() as (url, seen):
        WebhookAlert("QP_TEST_HOOK", report_url=SITE, environ=_env(url)).notify(
            {"event": "success", **summary.to_dict(), "alerts": ["x"]}
        )
    body = json.loads(seen.requests[0]["body"])
    assert set(body) | {"error", "incident"} == documented  # on failures; with change only
    assert body["format"] == "quality_py.alert/1" and body["link"].startswith(SITE + "runs/")
    assert body["pass_rate"] == 0.95  # by hand: (400 - 20) / 400
