"""What every alert sender shares: which events it sends, its delivery settings, and the base
of the senders that POST JSON to a webhook URL taken from the environment.

A sender is a notifier (``notify(event)``): it renders the event's alert through its
channel's escapers (:mod:`quality_py.alerts.escaping`) and delivers it within one deadline
(:mod:`quality_py.alerts.delivery`). A delivery that fails raises
:class:`~quality_py.alerts.delivery.AlertNotDelivered` to
:func:`~quality_py.actions.notify.notify_all`, which reports it (a warning, the run's result
and record) and lets the run go on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, ClassVar

from quality_py.alerts.delivery import (
    Connections,
    Delivery,
    checked_url,
    post_json,
    secret,
)
from quality_py.alerts.escaping import Escaped, Escaper, views
from quality_py.alerts.message import alert_of


def wanted(event: Mapping[str, Any], when: str, every: timedelta | None = None) -> bool:
    """Whether an alert sender sends ``event`` (``start`` and the separate ``alert`` event are
    never sent: the finished run's event holds its alerts). ``when="change"`` decides on the
    event's ``incident`` (:mod:`quality_py.actions.incidents`; see :func:`due`), and without
    one (no history) sends what ``problems`` sends.

    >>> wanted({"event": "success", "failing_rules": []}, "problems")
    False
    >>> wanted({"event": "success", "failing_rules": [{"rule": "1.1", "rows": 2}]}, "problems")
    True
    """
    kind = event.get("event")
    if when == "change" and kind in ("success", "failure") and event.get("incident") is not None:
        when_run = datetime.fromisoformat(str(event.get("run_time")))
        return due(event["incident"], every, when_run)
    if kind == "failure":
        return True
    if kind != "success" or when == "failure":
        return False
    return when == "always" or problems_of(event)


def problems_of(event: Mapping[str, Any]) -> bool:
    """Whether a finished run's event has failing rules, failed checks or alerts.

    >>> problems_of({"failed_checks": []}), problems_of({"alerts": ["x"]})
    (False, True)
    """
    return bool(event.get("failing_rules") or event.get("failed_checks") or event.get("alerts"))


def due(incident: dict[str, Any] | None, every: timedelta | None, now: datetime) -> bool:
    """Whether ``when="change"`` sends for the event's ``incident``: with no incident (no
    history), on every problem; on a change of state; while a problem lasts, once ``every`` has
    passed since the last alert.

    >>> from datetime import datetime
    >>> now = datetime(2026, 1, 2)
    >>> due({"state": "problems", "previous_state": "problems", "last_alerted": None}, None, now)
    False
    >>> due({"state": "ok", "previous_state": "failed", "last_alerted": None}, None, now)
    True
    >>> later = {"state": "failed", "previous_state": "failed",
    ...          "last_alerted": "2026-01-01T00:00:00"}
    >>> due(later, timedelta(hours=12), now), due(later, timedelta(days=2), now)
    (True, False)
    """
    if incident is None:
        return True
    if incident["state"] != incident["previous_state"]:
        return True
    if incident["state"] == "ok" or every is None:
        return False
    last = incident.get("last_alerted")
    if last is None:
        return True
    return naive_utc(now) - naive_utc(datetime.fromisoformat(str(last))) >= every


def naive_utc(when: datetime) -> datetime:
    """Comparable times: an aware time in UTC without its zone, a naive one as it is.

    >>> from datetime import timezone
    >>> naive_utc(datetime(2026, 1, 1, 1, tzinfo=timezone(timedelta(hours=1))))
    datetime.datetime(2026, 1, 1, 0, 0)
    """
    from datetime import timezone

    return when.astimezone(timezone.utc).replace(tzinfo=None) if when.tzinfo else when


class Sender:
    """What every alert sender is given: the report's URL (checked) and its delivery."""

    service: ClassVar[str] = "webhook"
    #: the contexts this channel's texts land in (each an escaper)
    escapers: ClassVar[tuple[Escaper, ...]] = ()
    report_url: str | None
    delivery: Delivery

    def _settings(
        self, report_url: str | None, when: str, timeout: object, attempts: object,
        backoff: object, every: object = None,
    ) -> None:  # fmt: skip
        self.delivery = Delivery.checked(self.service, when, timeout, attempts, backoff, every)
        self.report_url = None if report_url is None else checked_url(report_url, what="report_url")

    @property
    def when(self) -> str:
        """When this sender sends (``problems``, ``failure``, ``always`` or ``change``)."""
        return self.delivery.when

    @property
    def every(self) -> timedelta | None:
        """With ``when="change"``: how often a problem that lasts is alerted again (None:
        only when it changes)."""
        return self.delivery.every

    def wants(self, event: Mapping[str, Any]) -> bool:
        """Whether this sender alerts on ``event``."""
        return wanted(event, self.when, self.every)

    def sends(self, event: Mapping[str, Any]) -> bool:
        """Whether ``notify(event)`` sends anything (an alert; for PagerDuty a resolve too)."""
        return self.wants(event)

    @property
    def timeout(self) -> float:
        """The deadline of one whole delivery, in seconds."""
        return self.delivery.timeout

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's alert when it is wanted (each channel delivers its own way)."""
        raise NotImplementedError

    def views(self, event: dict[str, Any]) -> Mapping[str, Escaped]:
        """The event's alert escaped for each of this channel's contexts."""
        return views(alert_of(event, self.report_url), self.escapers)


class HttpAlert(Sender):
    """Posts an alert as JSON to a webhook URL taken from the environment; the base of
    :class:`~quality_py.alerts.SlackAlert`, :class:`~quality_py.alerts.TeamsAlert` and
    :class:`~quality_py.alerts.WebhookAlert`."""

    def __init__(
        self,
        url_env: str,
        *,
        report_url: str | None = None,
        when: str = "problems",
        timeout: float = 30.0,
        attempts: int = 3,
        backoff: float = 1.0,
        environ: Mapping[str, str] | None = None,
        every: str | timedelta | None = None,
    ) -> None:
        self._settings(report_url, when, timeout, attempts, backoff, every)
        who = f"{self.service} alert: {url_env}"
        self._url = checked_url(
            secret(url_env, environ, who=f"{self.service} alert"), what=who, secret_value=True
        )
        self.url_env = url_env

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url_env={self.url_env!r})"

    def body(self, event: dict[str, Any]) -> dict[str, Any]:
        """The JSON this service takes."""
        raise NotImplementedError

    def notify(self, event: dict[str, Any]) -> None:
        """Send the event's alert when :func:`wanted`; a failure raises once the retries or the
        deadline are spent.

        >>> from quality_py.alerts import SlackAlert
        >>> env = {"QP_DOC_HOOK": "http://127.0.0.1:9/never"}
        >>> SlackAlert("QP_DOC_HOOK", environ=env).notify({"event": "start"})  # not sent
        """
        if not self.wants(event):
            return
        data = json.dumps(self.body(event), default=str).encode("utf-8")

        def attempt(conns: Connections, left: float) -> None:
            post_json(self._url, data, conns, left)

        self.delivery.deliver(attempt, f"{self.service} alert")


__all__ = ["HttpAlert", "Sender", "due", "naive_utc", "problems_of", "wanted"]
