"""Slack: an incoming webhook's message of Block Kit blocks, every text escaped for Slack.

Sizes follow Slack's documented limits: a header of 150 characters, a section's text of 3000,
at most 10 fields, 50 blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality_py.alerts.escaping import SLACK, Escaped
from quality_py.alerts.senders import HttpAlert
from quality_py.model.glossary import percent


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    amp = cut.rfind("&")  # never cut an escape such as &lt; in two
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut + "…"


def slack_payload(views: Mapping[str, Escaped]) -> dict[str, Any]:
    """A Slack incoming-webhook message: ``text`` (the notification's fallback) and Block Kit
    ``blocks`` (a header, the facts, the rules, the problems, a button to the report).

    >>> from quality_py.alerts.escaping import views
    >>> from quality_py.alerts.message import alert_of
    >>> p = slack_payload(views(alert_of({"event": "failure", "run_id": "r1", "suite": "1.1"}),
    ...                         (SLACK,)))
    >>> [b["type"] for b in p["blocks"]], p["blocks"][0]["text"]["type"]
    (['header', 'section'], 'plain_text')
    """
    alert = views["slack"].alert
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cut(alert.title, 150)}},
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": _cut(f"*{k}*\n{v}", 2000)} for k, v in alert.facts[:10]
            ],
        },
    ]
    for r in alert.rules:
        share = "" if r.share is None else f" ({percent(r.share)})"
        text = f"*{r.label}* `{r.rule}`: {r.rows:,} rows{share}"
        text += "".join(f"\n• {v}: {n:,}" for v, n in r.top_values)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, 3000)}})
    notes = [f"and {alert.more_rules} more rules"] if alert.more_rules else []
    notes += list(alert.problems)
    if alert.error:
        notes.append(f"error: {alert.error}")
    if notes:
        text = "\n".join(notes)
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, 3000)}})
    if alert.link:
        button = {"type": "button", "text": {"type": "plain_text", "text": "Open the report"}}
        blocks.append({"type": "actions", "elements": [{**button, "url": alert.link}]})
    return {"text": _cut(alert.title, 3000), "blocks": blocks[:50]}


class SlackAlert(HttpAlert):
    """A Slack incoming webhook: Block Kit blocks with the failing rules and a report button.

    >>> SlackAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://hooks.slack.com/services/x"})
    SlackAlert(url_env='QP_DOC_HOOK')
    """

    service = "slack"
    escapers = (SLACK,)

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """Slack's message JSON (``text`` and ``blocks``).

        >>> env = {"QP_DOC_HOOK": "https://hooks.slack.com/services/x"}
        >>> sorted(SlackAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"}))
        ['blocks', 'text']
        """
        return slack_payload(self.views(event))


__all__ = ["SlackAlert", "slack_payload"]
