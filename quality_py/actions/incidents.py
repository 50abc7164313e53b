"""One alert per incident: a run's state for its dataset, the state of the dataset's run before
it and when it was last alerted, read from the history.

A run's **state** is ``failed`` (nothing published), ``problems`` (failing rules, failed checks
or alerts: what ``when="problems"`` alerts on) or ``ok``. A dataset is a suite by its id (any
version), as in the report. An alert sender with ``when="change"`` sends when the state differs
from the previous run's (a first failure, a recovery), and while it stays a problem, again once
``every`` has passed since the last alert (:func:`quality_py.alerts.senders.due`). Each record
keeps its state (metric ``incident/run/state``) and whether an alert went out
(``incident/run/alerted``), so the next run can tell.
Without a history every run is an incident (as ``problems`` sends).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from quality_py.alerts.senders import naive_utc
from quality_py.history.records import Metric, RunRecord

if TYPE_CHECKING:
    from quality_py.actions.outcome import RunSummary
    from quality_py.history.repository import MetricsRepository

STATES = ("ok", "problems", "failed")
#: how far back the previous run and the last alert are looked for (a longer ``every`` widens
#: it): a dataset not run for longer starts afresh, and its first problem alerts
LOOKBACK = timedelta(days=35)


@dataclass(frozen=True)
class Incident:
    """A run's state for its dataset (``key``), the previous run's (``ok`` when the history has
    none in reach) and when an alert for the dataset last went out."""

    key: str
    state: str
    previous: str
    last_alerted: datetime | None

    @property
    def changed(self) -> bool:
        """A first problem, a recovery or another kind of problem."""
        return self.state != self.previous

    def to_dict(self) -> dict[str, Any]:
        """The event's ``incident`` (what ``when="change"`` decides on).

        >>> Incident("suite 7", "ok", "failed", None).to_dict()["recovered"]
        True
        """
        return {
            "key": self.key,
            "state": self.state,
            "previous_state": self.previous,
            "last_alerted": None if self.last_alerted is None else self.last_alerted.isoformat(),
            "recovered": self.state == "ok" and self.previous != "ok",
        }


def state_of(summary: RunSummary, failed: bool, alerts: bool = False) -> str:
    """``failed``, ``problems`` or ``ok``.

    >>> from datetime import datetime
    >>> from quality_py.actions.outcome import RunSummary
    >>> from quality_py.model.enums import RunStatus
    >>> s = RunSummary("r", datetime(2026, 1, 1), "7.1", RunStatus.SUCCESS, 10, 10, 0, 0)
    >>> state_of(s, False), state_of(s, True), state_of(s, False, alerts=True)
    ('ok', 'failed', 'problems')
    """
    if failed:
        return "failed"
    failing = summary.to_dict()["failing_rules"]
    return "problems" if failing or summary.failed_checks or alerts else "ok"


def _record_state(record: RunRecord) -> str:
    """A kept run's state: its own, else (a record from before states were kept) its status."""
    for m in record.metrics:
        if m.kind == "incident" and m.name == "state" and m.status in STATES:
            return m.status
    if record.status == "failed":
        return "failed"
    return "problems" if record.message else "ok"


def incident_of(
    history: MetricsRepository | None,
    summary: RunSummary,
    state: str,
    every: timedelta | None = None,
) -> Incident | None:
    """The run's incident, from the dataset's earlier records (None without a history)."""
    if history is None:
        return None
    from quality_py.history.anomaly_checks import suite_id

    suite = suite_id(summary.suite) or "-"
    reach = max(LOOKBACK, every or LOOKBACK)
    since = summary.run_time - reach
    earlier = [
        r
        for r in history.records(since=since, suite=suite, source="quality_run")
        if r.run_id != summary.run_id and naive_utc(r.run_time) <= naive_utc(summary.run_time)
    ]
    previous = _record_state(earlier[-1]) if earlier else "ok"
    alerted = [
        r.run_time
        for r in earlier
        if any(m.kind == "incident" and m.name == "alerted" for m in r.metrics)
    ]
    last = max(alerted, key=naive_utc, default=None)
    return Incident(dataset_key(summary), state, previous, last)


def incident_metrics(key: str, state: str, sent: tuple[str, ...]) -> list[Metric]:
    """The record's ``incident`` metrics: the run's state, and the channels an alert went out
    on (when one did).

    >>> [(m.name, m.status) for m in incident_metrics("suite 7", "ok", ("slack",))]
    [('state', 'ok'), ('alerted', 'sent')]
    """
    out = [Metric("incident", "run", "state", None, state, key)]
    if sent:
        out.append(Metric("incident", "run", "alerted", None, "sent", ", ".join(sent)))
    return out


def dataset_key(summary: RunSummary) -> str:
    """The dataset a run belongs to: its suite by id (``suite 7``), as in the report."""
    from quality_py.history.anomaly_checks import suite_id

    return f"suite {suite_id(summary.suite) or '-'}"


__all__ = [
    "STATES",
    "Incident",
    "dataset_key",
    "incident_metrics",
    "incident_of",
    "state_of"
]  # fmt: skip
