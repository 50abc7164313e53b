"""The edges where an alert meets the world (issue 53, points 1 and 2): a delivery is one
bounded operation, a redirect is not a delivery, every setting is checked where it is read,
and no text from the data or an id acts in a channel.

Facts about the channels, from their documentation: Slack's ``text`` and ``mrkdwn`` read
``<!channel>``, ``<!here>`` and ``<url|label>`` as a mention or a link unless ``&``, ``<`` and
``>`` are written ``&amp;``, ``&lt;``, ``&gt;``; an Adaptive Card's ``TextBlock`` and
``FactSet`` read a CommonMark subset (``**bold**``, ``_italic_``, ``[title](url)``, lists) in
which a backslash makes a punctuation mark literal; an e-mail header holds no line break (RFC
5322: a CR LF ends the header line).
"""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from typing import Any

import pytest

from quality_py.alerts import (
    CHANNELS,
    AlertNotDelivered,
    EmailAlert,
    SlackAlert,
    TeamsAlert,
    WebhookAlert,
    alert_kind,
    alert_sender,
)
from quality_py.errors import ModelError
from tests.servers import dripping_server, http_server

EVENT: dict[str, Any] = {
    "event": "failure",
    "run_id": "r1",
    "run_time": "2026-11-23T10:04:05+00:00",
    "suite": "7.2",
    "suite_name": "orders",
    "status": "failed",
    "input_rows": 10,
    "valid_rows": 9,
    "quarantined_rows": 1,
    "dropped_rows": 1,
    "failing_rules": [
        {"rule": "101.1", "name": "n", "rows": 1,
         "top_values": [{"column": "c", "value": "v", "rows": 1}]},
    ],
    "failed_checks": ["check"],
    "alerts": ["alert"],
    "error": "E: boom",
}  # fmt: skip
SITE = "https://dq.example.com/site/"
SMTP = {"QP_SMTP_HOST": "127.0.0.1", "QP_SMTP_FROM": "dq@example.com", "QP_SMTP_SECURITY": "none"}


# -- one deadline over the whole delivery ---------------------------------------------------


def test_a_webhook_that_drips_its_answer_is_cut_at_the_deadline() -> None:
    # one byte every 0.3 s of an answer 400 bytes long: a per-read timeout never fires, and
    # without a deadline over the delivery the run waited two minutes
    with dripping_server("http") as (port, seen):
        env = {"V": f"http://127.0.0.1:{port}/hook"}
        alert = WebhookAlert("V", environ=env, timeout=1, attempts=1)
        started = time.monotonic()
        with pytest.raises(AlertNotDelivered, match="no answer before the deadline"):
            alert.notify(EVENT)
        took = time.monotonic() - started
    assert len(seen.requests) == 1
    # the deadline is 1 s; the dripping answer alone lasts 120 s
    assert took < 15  # time is the subject


def test_an_smtp_server_that_never_finishes_its_greeting_is_cut_at_the_deadline() -> None:
    with dripping_server("smtp") as (port, seen):
        env = {**SMTP, "QP_SMTP_PORT": str(port)}
        alert = EmailAlert(["ops@example.com"], environ=env, timeout=1, attempts=3, backoff=0)
        started = time.monotonic()
        with pytest.raises(AlertNotDelivered, match="no answer before the deadline"):
            alert.notify(EVENT)
        took = time.monotonic() - started
    assert len(seen.requests) == 1  # the deadline covers every attempt: no second one
    assert took < 15  # time is the subject


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_a_delivery(status: int) -> None:
    with http_server([status]) as (url, seen):
        alert = SlackAlert("V", environ={"V": url}, backoff=0)
        with pytest.raises(AlertNotDelivered, match=f"HTTP {status} \\(a redirect is not"):
            alert.notify(EVENT)
    assert len(seen.requests) == 1  # not followed, not tried again


# -- settings checked where they are read ----------------------------------------------------


@pytest.mark.parametrize(
    "recipients",
    ["ops@example.com\nBcc: all@example.com", "ops@exam\r\nple.com", "Ops <ops@example.com>",
     "ops", "ops@example.com; dq@example.com"],
)  # fmt: skip
def test_a_recipient_that_is_not_one_address_is_refused_at_set_up(recipients: str) -> None:
    with pytest.raises(ModelError, match="is not one e-mail address") as err:
        EmailAlert([recipients], environ=SMTP)
    assert err.value.code == "ALERT"
    with pytest.raises(ModelError, match="is not one e-mail address"):
        alert_kind(f"email={recipients}")  # a job file is checked before its secrets are set


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("javascript:alert(1)", "scheme is 'javascript'"),
        ("data:text/html,x", "scheme is 'data'"),
        ("http://dq.example.com/", "plain http is taken on a loopback host only"),
        ("https://dq.example.com/a b", "holds ' '"),
        ('https://dq.example.com/"onclick', "holds '\"'"),
        ("https://dq.example.com/<x>", "holds '<'"),
        ("https://user:pw@dq.example.com/", "user name or password"),
        ("https:///nohost", "names no host"),
    ],
)
def test_a_report_url_that_is_not_https_is_refused_in_every_channel(url: str, why: str) -> None:
    for channel in CHANNELS:
        target = "ops@example.com" if channel.kind == "email" else "V"
        env = {**SMTP, "V": "https://hooks.example.com/x"}
        with pytest.raises(ModelError, match=re.escape(why)):
            alert_sender(f"{channel.kind}={target}", url, environ=env)


def test_http_is_taken_on_loopback_only() -> None:
    assert SlackAlert("V", environ={"V": "http://127.0.0.1:9/x"}, report_url="http://localhost/")
    with pytest.raises(ModelError, match="plain http") as err:
        SlackAlert("V", environ={"V": "http://hooks.example.com/x"})
    assert "hooks.example.com" not in str(err.value)  # a webhook URL is a secret


# -- no text acts in a channel ---------------------------------------------------------------

HOSTILE = [
    "<!channel> nightly",
    "<!here|here>",
    "<https://evil.example/reset|Reset your password>",
    "[Reset](https://evil.example/reset)",
    "![x](https://evil.example/x.png)",
    "**bold** _italic_ ~strike~ `code`",
    "{{DATE(2017-02-14T06:00:00Z, SHORT)}}",
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">open</a>',
    '" onmouseover="alert(1)',
    "x\r\nBcc: all@example.com",
    "x\nSubject: hi",
    "- a list\n1. item",
    "&lt;!channel&gt;",
    "\\[x\\](https://evil.example)",
    "</td></tr><tr><td>",
    "\x00\x1b[31mred\u2028next",
    "invoice\u202efdp.exe",  # a bidirectional override: reads "invoiceexe.pdf"
    "zero\u200bwidth\ufeffjoin",
]


def _invisible(text: str) -> bool:
    import unicodedata

    return any(unicodedata.category(c) in ("Cc", "Cf") for c in text.replace("\n", ""))


def _event_with(field: str, text: str) -> dict[str, Any]:
    event = json.loads(json.dumps(EVENT))
    if field in ("name", "rule"):
        event["failing_rules"][0][field] = text
    elif field in ("column", "value"):
        event["failing_rules"][0]["top_values"][0][field] = text
    elif field in ("failed_checks", "alerts"):
        event[field] = [text]
    else:
        event[field] = text
    return event


FIELDS = ["run_id", "suite", "suite_name", "status", "error", "name", "rule", "column",
          "value", "failed_checks", "alerts"]  # fmt: skip


def _texts(value: Any, key: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v, key)]
    return [(key, value)] if isinstance(value, str) else []


def _unescaped(text: str) -> str:
    return re.sub(r"\\.", "", text)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


OWN_TAGS = {"html", "body", "h2", "h3", "table", "tr", "th", "td", "ul", "li", "b", "code", "p",
            "a"}  # fmt: skip


@pytest.mark.parametrize("field", FIELDS)
def test_no_field_of_the_event_acts_in_any_channel(field: str) -> None:
    env = {**SMTP, "V": "https://hooks.example.com/x"}
    slack = SlackAlert("V", environ=env, report_url=SITE)
    teams = TeamsAlert("V", environ=env, report_url=SITE)
    webhook = WebhookAlert("V", environ=env, report_url=SITE)
    email = EmailAlert(["ops@example.com"], environ=env, report_url=SITE)
    for text in HOSTILE:
        event = _event_with(field, text)
        link = webhook.body(event)["link"]
        assert link is None or link.startswith(SITE)
        for key, value in _texts(slack.body(event)):
            if key != "url":  # the button's URL: our link only
                assert not re.search(r"[<>]|&(?!amp;|lt;|gt;)", value), (field, text, value)
                assert not _invisible(value), (field, text, value)
            else:
                assert value == link
        card = teams.body(event)["attachments"][0]["content"]
        for key, value in _texts(card["body"]):
            if key in ("text", "title", "value"):
                bare = _unescaped(value)
                assert not re.search(r"[\[\]<>`{}]|\r|\n", bare), (field, text, value)
                assert not _invisible(value), (field, text, value)
        assert [a["url"] for a in card.get("actions", [])] in ([link], [])
        message = email.message(event)  # builds: no header holds a line break
        assert not re.search(r"[\r\n]", str(message["Subject"]))
        page = message.get_body(("html",)).get_content()
        assert not _invisible(page) and not _invisible(str(message["Subject"]))
        parser = _Tags()
        parser.feed(page)
        assert {t for t, _ in parser.tags} <= OWN_TAGS, (field, text)
        anchors = [dict(a) for t, a in parser.tags if t == "a"]
        assert anchors == ([{"href": link}] if link else []), (field, text)


def test_the_older_webhook_notifier_is_delivered_the_same_way() -> None:
    from datetime import datetime

    from quality_py.actions.notify import WebhookNotifier, notify_all
    from quality_py.actions.outcome import RunSummary
    from quality_py.model.enums import RunStatus

    with pytest.raises(ModelError, match="plain http is taken on a loopback host only"):
        WebhookNotifier("http://hooks.example.com/x")
    summary = RunSummary("r1", datetime(2026, 11, 23), "7.2", RunStatus.SUCCESS)
    with http_server([302]) as (url, seen):
        lost = notify_all([WebhookNotifier(url)], "success", summary)
    assert len(seen.requests) == 1
    assert lost == ("webhook notification not delivered after 1 try: HTTP 302 (a redirect is "
                    "not followed)",)  # fmt: skip
    with http_server() as (url, seen):
        assert notify_all([WebhookNotifier(url, headers={"X-Team": "dq"})], "start", summary) == ()
    assert seen.requests[0]["headers"]["X-Team"] == "dq"
    assert json.loads(seen.requests[0]["body"])["run_id"] == "r1"


@pytest.mark.parametrize(
    ("key", "value"),
    [("report_url", "javascript:alert(1)"), ("webhooks", ["http://hooks.example.com/x"]),
     ("alerts", ["email=ops@example.com\nBcc: all@example.com"])],
)  # fmt: skip
def test_a_job_file_is_checked_before_anything_starts(key: str, value: object) -> None:
    from quality_py.errors import QualityError
    from quality_py.jobs import QualityJob

    with pytest.raises(QualityError) as err:
        QualityJob.from_dict({"ruleset": "r.yaml", key: value}, "job.yaml")  # type: ignore[arg-type]
    assert key in str(err.value)
