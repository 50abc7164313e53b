"""Microsoft Teams: one Adaptive Card (version 1.4) as a webhook message's attachment, every
text escaped for the card's markdown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from quality_py.alerts.escaping import TEAMS, Escaped
from quality_py.alerts.senders import HttpAlert
from quality_py.model.glossary import percent


def teams_payload(views: Mapping[str, Escaped]) -> dict[str, Any]:
    """A Microsoft Teams webhook message: one Adaptive Card (version 1.4) as its attachment.

    >>> from quality_py.alerts.escaping import views
    >>> from quality_py.alerts.message import alert_of
    >>> p = teams_payload(views(alert_of({"event": "failure", "run_id": "r1", "suite": "1.1"}),
    ...                         (TEAMS,)))
    >>> p["attachments"][0]["contentType"], p["attachments"][0]["content"]["type"]
    ('application/vnd.microsoft.card.adaptive', 'AdaptiveCard')
    """
    alert = views["teams"].alert
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


class TeamsAlert(HttpAlert):
    """A Microsoft Teams webhook (a Workflows or incoming webhook URL): one Adaptive Card.

    >>> TeamsAlert("QP_DOC_HOOK", environ={"QP_DOC_HOOK": "https://example.com/teams"})
    TeamsAlert(url_env='QP_DOC_HOOK')
    """

    service = "teams"
    escapers = (TEAMS,)

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """Teams' message JSON (an Adaptive Card attachment).

        >>> env = {"QP_DOC_HOOK": "https://example.com/teams"}
        >>> TeamsAlert("QP_DOC_HOOK", environ=env).body({"event": "failure"})["type"]
        'message'
        """
        return teams_payload(self.views(event))


__all__ = ["TeamsAlert", "teams_payload"]
