"""PagerDuty: an Events API v2 event per incident (``trigger`` on a problem, ``resolve`` on a
recovery), deduplicated by the dataset, so a problem that lasts is one incident on PagerDuty.

The body is PagerDuty's documented one (developer.pagerduty.com, "Send an Alert Event"):
``routing_key`` (the integration key, a secret read from the environment and never shown in a
message), ``event_action``, ``dedup_key`` (at most 255 characters), and for a trigger a
``payload`` with ``summary`` (at most 1024 characters), ``source``, ``severity`` (``critical``
for a failed run, ``warning`` for a run with problems), ``timestamp``, ``component``,
``group`` and ``custom_details``, and ``links`` to the report.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from quality_py.alerts.delivery import Connections, checked_url, post_json, secret
from quality_py.alerts.escaping import JSON
from quality_py.alerts.senders import Sender, problems_of
from quality_py.errors import ModelError

#: PagerDuty's Events API v2 endpoint
EVENTS_URL = "https://events.pagerduty.com/v2/enqueue"


def dedup_key(event: Mapping[str, Any]) -> str:
    """The incident's key: the dataset (the suite by its id, as the report groups runs).

    >>> dedup_key({"suite": "7.2"}), dedup_key({"incident": {"key": "suite 7"}})
    ('quality_py suite 7', 'quality_py suite 7')
    """
    incident = event.get("incident") or {}
    key = incident.get("key") or f"suite {str(event.get('suite') or '-').split('.')[0]}"
    return f"quality_py {key}"[:255]


class PagerDutyAlert(Sender):
    """Triggers a PagerDuty incident on a failed run or one with problems, and resolves it when
    the dataset recovers (a run with no problem: always, unless the history says nothing was
    open). ``key_env`` names the variable holding the integration's routing key; ``url`` (else
    ``QP_PAGERDUTY_EVENTS_URL``, else PagerDuty's US endpoint) is where events go: the EU
    service region's is ``https://events.eu.pagerduty.com/v2/enqueue``.

    >>> env = {"QP_DOC_PD": "0123456789abcdef0123456789abcdef"}
    >>> PagerDutyAlert("QP_DOC_PD", environ=env, when="change")
    PagerDutyAlert(key_env='QP_DOC_PD')
    """

    service = "pagerduty"
    escapers = (JSON,)

    def __init__(
        self,
        key_env: str,
        *,
        report_url: str | None = None,
        when: str = "problems",
        timeout: float = 30.0,
        attempts: int = 3,
        backoff: float = 1.0,
        environ: Mapping[str, str] | None = None,
        every: str | timedelta | None = None,
        url: str | None = None,
    ) -> None:
        self._settings(report_url, when, timeout, attempts, backoff, every)
        env = os.environ if environ is None else environ
        url = url or env.get("QP_PAGERDUTY_EVENTS_URL") or EVENTS_URL
        self._key = secret(key_env, environ, who="pagerduty alert")
        if not self._key.isascii() or not self._key.isalnum():
            raise ModelError(f"pagerduty alert: {key_env} is not a routing key", code="ALERT")
        self._url = checked_url(url, what="pagerduty events URL")
        self.key_env = key_env

    def __repr__(self) -> str:
        return f"PagerDutyAlert(key_env={self.key_env!r})"

    def action(self, event: Mapping[str, Any]) -> str | None:
        """``trigger``, ``resolve`` or None (nothing to send) for a run event.

        >>> env = {"QP_DOC_PD": "abc123"}
        >>> pd = PagerDutyAlert("QP_DOC_PD", environ=env)
        >>> pd.action({"event": "failure"}), pd.action({"event": "success"})
        ('trigger', 'resolve')
        >>> ok = {"event": "success", "incident": {"state": "ok", "previous_state": "ok"}}
        >>> pd.action(ok), pd.action({"event": "start"})
        (None, None)
        """
        kind = event.get("event")
        if kind not in ("success", "failure"):
            return None
        if kind == "failure" or problems_of(event):
            return "trigger" if self.wants(event) else None
        incident = event.get("incident")
        if incident is not None and incident.get("previous_state") == "ok":
            return None  # nothing was open
        return "resolve"

    def sends(self, event: Mapping[str, Any]) -> bool:
        """Whether a trigger or a resolve goes out for ``event``.

        >>> PagerDutyAlert("QP_DOC_PD", environ={"QP_DOC_PD": "abc123"}).sends({"event": "start"})
        False
        """
        return self.action(event) is not None

    def body(self, event: dict[str, Any], action: str) -> dict[str, Any]:
        """The Events API v2 body.

        >>> pd = PagerDutyAlert("QP_DOC_PD", environ={"QP_DOC_PD": "abc123"})
        >>> pd.body({"event": "success", "suite": "7.1"}, "resolve")
        {'routing_key': 'abc123', 'event_action': 'resolve', 'dedup_key': 'quality_py suite 7'}
        """
        body: dict[str, Any] = {
            "routing_key": self._key,
            "event_action": action,
            "dedup_key": dedup_key(event),
        }
        if action == "resolve":
            return body
        alert = self.views(event)["json"].alert
        body["payload"] = {
            "summary": alert.title[:1024],
            "source": "quality_py",
            "severity": "critical" if event.get("event") == "failure" else "warning",
            "timestamp": event.get("run_time"),
            "component": alert.suite[:255],
            "group": dedup_key(event),
            "custom_details": {
                "run_id": event.get("run_id"),
                "status": alert.status,
                "facts": dict(alert.facts),
                "failing_rules": [
                    {"rule": r.rule, "name": r.label, "rows": r.rows} for r in alert.rules
                ],
                "problems": list(alert.problems),
                "error": alert.error,
            },
        }
        if alert.link:
            body["links"] = [{"href": alert.link, "text": "the run in the report"}]
        return body

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's trigger or resolve (see :meth:`action`); a failure raises once the
        retries or the deadline are spent (the routing key is never in the message).

        >>> PagerDutyAlert("QP_DOC_PD", environ={"QP_DOC_PD": "abc123"}).notify({"event": "start"})
        """
        action = self.action(event)
        if action is None:
            return
        data = json.dumps(self.body(event, action), default=str).encode("utf-8")

        def attempt(conns: Connections, left: float) -> None:
            post_json(self._url, data, conns, left)

        self.delivery.deliver(attempt, "pagerduty alert")


__all__ = ["EVENTS_URL", "PagerDutyAlert", "dedup_key"]
