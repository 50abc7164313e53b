"""What an alert says, once: :func:`alert_of` reads a run event
(:func:`~quality_py.actions.notify.notify_all` builds it) into an :class:`Alert`: a title, the
run's facts, the failing rules by name with their rows, share and top failing values, failed
checks and alerts, the error of a run that could not finish and the link to the run's page of
the report site. Its texts are as the data and ids gave them: a channel renders an alert only
after its escaper has wrapped every text (:mod:`quality_py.alerts.escaping`), so the channels
never disagree and no text acts in one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quality_py.alerts.delivery import checked_url
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
        'Quality run r1 of suite 1.1: failed, nothing published'
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
    'https://dq.example.com/site/runs/run.quality~5frun.r1.2026-01-02_t00~3a00~3a00~2b00~3a00.html'
    """
    suite = _cut(event.get("suite") or "?", 40)
    label = f"'{_cut(event['suite_name'], 100)}' ({suite})" if event.get("suite_name") else suite
    rules = _rule_lines(event)
    status = str(event.get("status") or event.get("event"))
    head = f"Quality run {_cut(event.get('run_id'), 200)} of suite {label}"
    if event.get("event") == "failure":
        title = f"{head}: {status}, nothing published"
    elif not rules:
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
    root = checked_url(report_url, what="report_url")
    return f"{root.rstrip('/')}/{run_page('quality_run', str(event['run_id']), when)}"


__all__ = ["WEBHOOK_FORMAT", "Alert", "RuleLine", "alert_of"]
