"""Run notifications: start, success and failure events to callbacks, files or webhooks.

A notifier is any object with ``notify(event: dict)``; the event has ``event`` (``start``,
``success``, ``failure``, or ``alert`` with ``alerts``: failed warnings and exceeded error
rates), the run summary's fields and, on errors, ``error``. A notifier that raises never breaks
the run: the problem is logged and the run goes on.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from quality_py.actions.incidents import (
    Incident,
    dataset_key,
    incident_metrics,
    incident_of,
    state_of,
)
from quality_py.alerts import AlertNotDelivered
from quality_py.alerts.delivery import Connections, Delivery, checked_url, post_json
from quality_py.alerts.senders import Sender
from quality_py.history.records import Metric

if TYPE_CHECKING:  # run.py imports this module
    from quality_py.actions.outcome import RunSummary
    from quality_py.history.repository import MetricsRepository

log = logging.getLogger("quality_py.actions")


class Notifier(Protocol):
    """Receives run events."""

    def notify(self, event: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class CallbackNotifier:
    """Calls ``on_start`` / ``on_success`` / ``on_failure`` with the event.

    >>> seen = []
    >>> CallbackNotifier(on_success=seen.append).notify({"event": "success", "run_id": "r1"})
    >>> seen
    [{'event': 'success', 'run_id': 'r1'}]
    """

    on_start: Callable[[dict[str, Any]], Any] | None = None
    on_success: Callable[[dict[str, Any]], Any] | None = None
    on_failure: Callable[[dict[str, Any]], Any] | None = None
    on_alert: Callable[[dict[str, Any]], Any] | None = None

    def notify(self, event: dict[str, Any]) -> None:
        """Dispatch to the callback of the event's kind, if any.

        >>> CallbackNotifier().notify({"event": "start"})  # no callback for it: nothing happens
        """
        callback = getattr(self, f"on_{event['event']}", None)
        if callback is not None:
            callback(event)


class JsonLinesNotifier:
    """Appends each event as one JSON line to ``path`` (thread-safe within a process)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def notify(self, event: dict[str, Any]) -> None:
        """Append the event.

        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "events.jsonl")
        >>> JsonLinesNotifier(path).notify({"event": "success", "run_id": "r1"})
        >>> open(path).read()
        '{"event": "success", "run_id": "r1"}\\n'
        """
        line = json.dumps(event, sort_keys=True, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")


class WebhookNotifier:
    """POSTs each event as JSON to ``url`` (``https``; ``http`` on a loopback host), delivered
    as an alert is: within one deadline of ``timeout`` seconds, no redirect followed
    (:mod:`quality_py.alerts.delivery`)."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        headers: dict[str, str] | None = None,
        events: Sequence[str] = ("start", "success", "failure", "alert"),
    ) -> None:
        self.url = checked_url(url, what="webhook URL")
        self.delivery = Delivery.checked("webhook", "always", timeout, 1, 0)
        self.headers = dict(headers or {})
        self.events = tuple(events)

    def notify(self, event: dict[str, Any]) -> None:
        """POST the event; a failure raises (and is reported by the run).

        >>> WebhookNotifier("http://127.0.0.1:9", events=("failure",)).notify({"event": "start"})
        """
        if event["event"] not in self.events:
            return
        body = json.dumps(event, sort_keys=True, default=str).encode("utf-8")

        def attempt(conns: Connections, left: float) -> None:
            post_json(self.url, body, conns, left, self.headers)

        self.delivery.deliver(attempt, "webhook notification")


def notify_all(
    notifiers: Sequence[Notifier],
    kind: str,
    summary: RunSummary,
    error: BaseException | None = None,
    alerts: Sequence[str] = (),
    incident: Incident | None = None,
    sent: list[str] | None = None,
) -> tuple[str, ...]:
    """Send one event to every notifier; a notifier that fails never changes the run: its
    failure is logged as a warning and returned, one line each (an undelivered alert's line
    names its channel and why, never its URL), for the run's result and record. ``incident``
    goes into the event (what ``when="change"`` decides on); the alert senders that sent are
    appended to ``sent``."""
    if not notifiers:
        return ()
    event = {"event": kind, **summary.to_dict()}
    if error is not None:
        event["error"] = f"{type(error).__name__}: {error}"
    if alerts:
        event["alerts"] = list(alerts)
    if incident is not None:
        event["incident"] = incident.to_dict()
    lost: list[str] = []
    for notifier in notifiers:
        try:
            notifier.notify(event)
            if sent is not None and isinstance(notifier, Sender) and notifier.sends(event):
                sent.append(notifier.service)
        except AlertNotDelivered as err:
            lost.append(str(err))
            log.warning("%s", err)
        except Exception as err:  # a broken notifier must not change the run's outcome
            lost.append(f"{type(notifier).__name__} failed on {kind}: {type(err).__name__}")
            log.warning("notifier %r failed on %s", notifier, kind, exc_info=True)
    return tuple(lost)


def notify_run(
    notifiers: Sequence[Notifier],
    kind: str,
    summary: RunSummary,
    history: MetricsRepository | None,
    error: BaseException | None = None,
    alerts: Sequence[str] = (),
) -> tuple[tuple[str, ...], list[Metric]]:
    """A finished run's event (``success`` or ``failure``) to every notifier, with the run's
    incident when a history is kept (the history is read only when a sender alerts on
    ``change``); the undelivered lines and the record's ``incident`` metrics."""
    failed = kind == "failure"
    state = state_of(summary, failed, bool(alerts))
    senders = [n for n in notifiers if isinstance(n, Sender)]
    incident = None
    if history is not None and any(s.when == "change" for s in senders):
        every = max((s.every for s in senders if s.every is not None), default=None)
        incident = incident_of(history, summary, state, every)
    sent: list[str] = []
    lost = notify_all(notifiers, kind, summary, error, alerts, incident, sent)
    kept = [] if history is None else incident_metrics(dataset_key(summary), state, tuple(sent))
    return lost, kept
