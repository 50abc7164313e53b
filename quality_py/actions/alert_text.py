"""What an alert says, once, and its four renderings: Slack blocks, a Teams adaptive card, an
email (plain text and HTML) and the generic webhook's JSON body.

:func:`alert_of` reads a run event (:func:`~quality_py.actions.notify.notify_all` builds it) into
an :class:`Alert`: a title, the run's facts, the failing rules by name with their rows, share
and top failing values, failed checks and alerts, the error of a run that could not finish and
the link to the run's page of the report site. Every renderer takes that one value, so the
channels never disagree. Sizes are bounded by each service's documented limits (Slack: a
header of 150 characters, a section of 3000, 50 blocks; Teams: one card; see docs/alerts.md).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quality_py.history.records import run_page
from quality_py.model.glossary import percent

#: The generic webhook body's layout; a change that removes or renames a key gets a new one.
WEBHOOK_FORMAT = "quality_py.alert/1"
#: Rules an alert lists by name (the rest are counted: "and 4 more rules")
MAX_RULES = 10
#: Top failing values an alert shows a rule
MAX_VALUES = 3
#: The longest value an alert shows
MAX_VALUE_CHARS = 60


@dataclass(frozen=True)
class RuleLine:
    """One failing rule: its label (name, else ``id.version``), id, rows and share of the
    input, and its most frequent failing values (``column = value``, rows)."""

    label: str
    rule: str
    rows: int
    share: float | None
    top_values: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Alert:
    """What every channel shows of one run event."""

    title: str
    kind: str
    status: str
    suite: str
    run_id: str
    run_time: str
    facts: tuple[tuple[str, str], ...]
    rules: tuple[RuleLine, ...]
    more_rules: int
    problems: tuple[str, ...]
    error: str | None
    link: str | None

    @property
    def lines(self) -> list[str]:
        """The alert as plain lines (email's text part, and the fallback text of a chat).

        >>> event = {"event": "failure", "run_id": "r1", "suite": "1.1", "status": "failed"}
        >>> alert_of(event).lines[0]
        'Quality run r1 of suite 1.1: failed'
        """
        out = [self.title, ""]
        out += [f"{k}: {v}" for k, v in self.facts]
        if self.rules:
            out += ["", "Failing rules:"]
        for r in self.rules:
            share = "" if r.share is None else f" ({percent(r.share)} of rows)"
            out.append(f"- {r.label} [{r.rule}]: {r.rows} rows{share}")
            out += [f"    {v}: {n} rows" for v, n in r.top_values]
        if self.more_rules:
            out.append(f"- and {self.more_rules} more rules")
        out += [f"! {p}" for p in self.problems]
        if self.error:
            out += ["", f"Error: {self.error}"]
        if self.link:
            out += ["", f"Report: {self.link}"]
        return out


def _cut(text: object, limit: int = MAX_VALUE_CHARS) -> str:
    value = "null" if text is None else str(text)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _rule_lines(event: dict[str, Any]) -> list[RuleLine]:
    rows_in = event.get("input_rows")
    out = []
    for r in event.get("failing_rules") or ():
        share = r["rows"] / rows_in if rows_in else None
        values = tuple(
            (f"{_cut(v.get('column'), 40)} = {_cut(v.get('value'))}", int(v.get("rows", 0)))
            for v in (r.get("top_values") or ())[:MAX_VALUES]
        )
        out.append(
            RuleLine(_cut(r.get("name") or r["rule"], 100), r["rule"], r["rows"], share, values)
        )
    return out


_COUNTS = (
    ("input_rows", "rows in"),
    ("valid_rows", "valid"),
    ("quarantined_rows", "quarantined"),
    ("dropped_rows", "dropped"),
)


def alert_of(event: dict[str, Any], report_url: str | None = None) -> Alert:
    """The alert of a run event; ``report_url`` is the report site's root (the run's page is
    linked when given).

    >>> event = {"event": "success", "run_id": "r1", "suite": "7.2", "suite_name": "orders",
    ...          "status": "success", "input_rows": 200, "valid_rows": 199,
    ...          "quarantined_rows": 1, "run_time": "2026-01-02T00:00:00+00:00",
    ...          "failing_rules": [{"rule": "101.1", "name": "positive", "rows": 1}]}
    >>> a = alert_of(event, "https://dq.example.com/site/")
    >>> a.title, a.rules[0].share
    ("Quality run r1 of suite 'orders' (7.2): 1 rule failing", 0.005)
    >>> a.link
    'https://dq.example.com/site/runs/quality_run_r1_2026-01-02T00_00_00_00_00-838452.html'
    """
    suite = str(event.get("suite") or "?")
    label = f"'{event['suite_name']}' ({suite})" if event.get("suite_name") else suite
    rules = _rule_lines(event)
    status = str(event.get("status") or event.get("event"))
    head = f"Quality run {event.get('run_id')} of suite {label}"
    if event.get("event") == "failure" or not rules:
        title = f"{head}: {status}"
    else:
        title = f"{head}: {len(rules)} rule{'s' if len(rules) != 1 else ''} failing"
    facts = [("status", status)]
    for key, name in _COUNTS:
        if event.get(key) is not None:
            facts.append((name, f"{event[key]:,}"))
    if event.get("run_time"):
        facts.append(("run time", str(event["run_time"])))
    problems = [f"failed check: {c}" for c in event.get("failed_checks") or ()]
    problems += [f"alert: {a}" for a in event.get("alerts") or ()]
    return Alert(
        title=title,
        kind=str(event.get("event")),
        status=status,
        suite=label,
        run_id=str(event.get("run_id")),
        run_time=str(event.get("run_time") or ""),
        facts=tuple(facts),
        rules=tuple(rules[:MAX_RULES]),
        more_rules=max(0, len(rules) - MAX_RULES),
        problems=tuple(_cut(p, 300) for p in problems[:MAX_RULES]),
        error=_cut(event["error"], 1000) if event.get("error") else None,
        link=_link(event, report_url),
    )


def _link(event: dict[str, Any], report_url: str | None) -> str | None:
    if not report_url or not event.get("run_time") or not event.get("run_id"):
        return None
    when = datetime.fromisoformat(str(event["run_time"]))
    return f"{report_url.rstrip('/')}/{run_page('quality_run', str(event['run_id']), when)}"


def _slack_text(text: str) -> str:
    """Text for Slack's mrkdwn: its three control characters escaped, as Slack documents."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack_payload(alert: Alert) -> dict[str, Any]:
    """A Slack incoming-webhook message: ``text`` (the notification's fallback) and Block Kit
    ``blocks`` (a header, the facts, the rules, the problems, a button to the report).

    >>> p = slack_payload(alert_of({"event": "failure", "run_id": "r1", "suite": "1.1"}))
    >>> [b["type"] for b in p["blocks"]], p["blocks"][0]["text"]["type"]
    (['header', 'section'], 'plain_text')
    """
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cut(alert.title, 150)}},
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": f"*{k}*\n{_slack_text(v)}"} for k, v in alert.facts[:10]
            ],
        },
    ]
    for r in alert.rules:
        share = "" if r.share is None else f" ({percent(r.share)})"
        text = f"*{_slack_text(r.label)}* `{r.rule}`: {r.rows:,} rows{share}"
        text += "".join(f"\n• {_slack_text(v)}: {n:,}" for v, n in r.top_values)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, 3000)}})
    notes = [f"and {alert.more_rules} more rules"] if alert.more_rules else []
    notes += list(alert.problems)
    if alert.error:
        notes.append(f"error: {alert.error}")
    if notes:
        text = "\n".join(_slack_text(n) for n in notes)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, 3000)}})
    if alert.link:
        button = {"type": "button", "text": {"type": "plain_text", "text": "Open the report"}}
        blocks.append({"type": "actions", "elements": [{**button, "url": alert.link}]})
    return {"text": _cut(alert.title, 3000), "blocks": blocks[:50]}


def teams_payload(alert: Alert) -> dict[str, Any]:
    """A Microsoft Teams webhook message: one Adaptive Card (version 1.4) as its attachment.

    >>> p = teams_payload(alert_of({"event": "failure", "run_id": "r1", "suite": "1.1"}))
    >>> p["attachments"][0]["contentType"], p["attachments"][0]["content"]["type"]
    ('application/vnd.microsoft.card.adaptive', 'AdaptiveCard')
    """
    body: list[dict[str, Any]] = [
        {"type": "TextBlock", "text": alert.title, "size": "Large", "weight": "Bolder",
         "wrap": True},
        {"type": "FactSet", "facts": [{"title": k, "value": v} for k, v in alert.facts]},
    ]  # fmt: skip
    for r in alert.rules:
        share = "" if r.share is None else f" ({percent(r.share)})"
        body.append(
            {"type": "TextBlock", "text": f"**{r.label}** ({r.rule}): {r.rows:,} rows{share}",
             "wrap": True, "spacing": "Medium"}
        )  # fmt: skip
        if r.top_values:
            body.append(
                {"type": "FactSet", "facts": [{"title": v, "value": f"{n:,} rows"}
                                              for v, n in r.top_values]}
            )  # fmt: skip
    notes = [f"and {alert.more_rules} more rules"] if alert.more_rules else []
    notes += [*alert.problems, *([f"error: {alert.error}"] if alert.error else [])]
    body += [{"type": "TextBlock", "text": n, "wrap": True, "color": "Attention"} for n in notes]
    card: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": body,
    }
    if alert.link:
        card["actions"] = [
            {"type": "Action.OpenUrl", "title": "Open the report", "url": alert.link}
        ]
    return {
        "type": "message",
        "attachments": [
            {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None,
             "content": card}
        ],
    }  # fmt: skip


def email_parts(alert: Alert) -> tuple[str, str, str]:
    """An email's subject, plain text and HTML (every value HTML-escaped).

    >>> subject, text, page = email_parts(alert_of({"event": "failure", "run_id": "<r1>"}))
    >>> subject, "&lt;r1&gt;" in page
    ('Quality run <r1> of suite ?: failure', True)
    """
    text = "\n".join(alert.lines) + "\n"
    esc = html.escape
    rows = "".join(
        f"<tr><th align='left'>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in alert.facts
    )
    rules = ""
    for r in alert.rules:
        share = "" if r.share is None else f" ({esc(percent(r.share))})"
        values = "".join(f"<li>{esc(v)}: {n:,} rows</li>" for v, n in r.top_values)
        rules += f"<li><b>{esc(r.label)}</b> <code>{esc(r.rule)}</code>: {r.rows:,} rows{share}"
        rules += f"<ul>{values}</ul></li>" if values else "</li>"
    if alert.more_rules:
        rules += f"<li>and {alert.more_rules} more rules</li>"
    notes = "".join(f"<p>{esc(p)}</p>" for p in alert.problems)
    if alert.error:
        notes += f"<p><b>Error:</b> {esc(alert.error)}</p>"
    link = f'<p><a href="{esc(alert.link)}">Open the report</a></p>' if alert.link else ""
    page = (
        f"<html><body><h2>{esc(alert.title)}</h2><table>{rows}</table>"
        + (f"<h3>Failing rules</h3><ul>{rules}</ul>" if rules else "")
        + f"{notes}{link}</body></html>"
    )
    return alert.title, text, page


def webhook_body(event: dict[str, Any], alert: Alert) -> dict[str, Any]:
    """The generic webhook's JSON body: the run event as it is, with ``format``, ``title``
    and ``link`` (docs/alerts.md lists every key).

    >>> body = webhook_body({"event": "failure", "run_id": "r1"}, alert_of({"event": "failure"}))
    >>> body["format"], body["event"]
    ('quality_py.alert/1', 'failure')
    """
    return {**event, "format": WEBHOOK_FORMAT, "title": alert.title, "link": alert.link}


__all__ = [
    "WEBHOOK_FORMAT",
    "Alert",
    "RuleLine",
    "alert_of",
    "email_parts",
    "slack_payload",
    "teams_payload",
    "webhook_body",
]
