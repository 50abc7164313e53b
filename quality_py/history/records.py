"""What the metrics history keeps of a run: one :class:`RunRecord` of flat :class:`Metric` rows.

A record is written by every quality run (successful or failed) and every ``verify`` given a
repository. Each metric is addressed by ``(kind, entity, name)``:

==========  ==========================  =================================================
kind        entity                      names
==========  ==========================  =================================================
``rows``    ``run``                     ``input_rows``, ``valid_rows``, ``quarantined_rows``,
                                        ``dropped_rows``
``rule``    the rule id (``101.1``)     ``passed``, ``failed``, ``soft_failed``, ``disabled``,
                                        ``failing``, ``failed_share`` (failing / input rows),
                                        ``pass_rate``
``check``   the check's description     the constraint's description (value: the metric)
``metric``  the analyzer (``Size(*)``)  ``value``
``sql``     the SQL check's name        ``value`` (status passed / failed)
``anomaly`` the anomaly check's name    the judged metric's ``kind.entity.name`` (value: the
                                        metric's value; status passed / failed)
``sample``  ``row <i>``                 ``row`` (message: a failing row's keys, the values its
                                        failed rules read and those rules, JSON; earlier
                                        records: ``keys``, the key columns alone)
``top``     the rule id (``101.1``)     the rank (``1`` is the most frequent): the failing rows
                                        holding a value of a column the rule reads (message:
                                        ``{"column": ..., "value": ...}``, JSON; value null
                                        for a null value)
``bound``   the judged metric           ``lower``, ``upper``: the values an anomaly check
            (``kind.entity.name``)      expected
``output``  ``valid`` / ``quarantine``  ``target`` (message: the path or table written)
            / ``stats``
``timing``  ``run``                     seconds of each step
``alert``   the channel (``slack``, ...)  ``undelivered`` (status failed; message: why, never
                                        the URL)
==========  ==========================  =================================================
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from quality_py.model.file_names import file_name
from quality_py.model.times import metric_number, parse_datetime

#: The JSON layout of a stored record; readers refuse other formats by name.
RECORD_FORMAT = "quality_py.history/1"


def run_page(source: str, run_id: str, run_time: datetime) -> str:
    """The report site's page of a run, relative to the site's root (an alert links to it
    before the site is built: the name follows from the run alone, one-to-one:
    :func:`~quality_py.model.file_names.file_name`).

    >>> run_page("quality_run", "r1", datetime(2026, 1, 2, tzinfo=timezone.utc))
    'runs/run.quality~5frun.r1.2026-01-02_t00~3a00~3a00~2b00~3a00.html'
    """
    return f"runs/{file_name('run', source, run_id, run_time.isoformat())}.html"


def undelivered_metrics(lines: Iterable[str]) -> list[Metric]:
    """The record's rows of alerts that could not be delivered (kind ``alert``, one each, the
    line as its message).

    >>> undelivered_metrics(["slack alert not delivered after 1 try: HTTP 500"])[0].entity
    'slack'
    """
    return [
        Metric("alert", line.split(" ", 1)[0], "undelivered", 1.0, "failed", line) for line in lines
    ]


@dataclass(frozen=True)
class Metric:
    """One number of a run, with its address and, for checks, its outcome.

    >>> Metric("rule", "101.1", "failed", 3.0, group="10.1").key
    ('rule', '101.1', 'failed')
    """

    kind: str
    entity: str
    name: str
    value: float | None
    status: str | None = None
    message: str | None = None
    #: the rule set of a rule, the check of a constraint
    group: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """``(kind, entity, name)``: what a series of this metric over runs is keyed by."""
        return (self.kind, self.entity, self.name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (NaN and infinities as null: JSON has none)."""
        value = self.value
        if value is not None and not math.isfinite(value):
            value = None
        return {
            "kind": self.kind,
            "entity": self.entity,
            "name": self.name,
            "value": value,
            "status": self.status,
            "message": self.message,
            "group": self.group,
        }


@dataclass(frozen=True)
class RunRecord:
    """A run as the history keeps it.

    >>> r = RunRecord("r1", datetime(2026, 1, 2, tzinfo=timezone.utc), "quality_run", "1.1",
    ...               "success", {"table": "flights"}, (Metric("rows", "run", "input_rows", 5.0),))
    >>> r.value("rows", "run", "input_rows"), RunRecord.from_dict(r.to_dict()) == r
    (5.0, True)
    """

    run_id: str
    run_time: datetime
    #: ``quality_run`` or ``verify``
    source: str
    suite: str | None
    status: str
    tags: Mapping[str, str] = field(default_factory=dict)
    metrics: tuple[Metric, ...] = ()
    message: str | None = None
    #: when the repository kept it (set on save): a later record of the same run replaces it
    recorded_at: datetime | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        when = self.run_time
        if when.tzinfo is None:  # naive times are UTC: the history compares times across hosts
            when = when.replace(tzinfo=timezone.utc)
        object.__setattr__(self, "run_time", when.astimezone(timezone.utc))
        object.__setattr__(
            self, "tags", dict(sorted((str(k), str(v)) for k, v in self.tags.items()))
        )
        object.__setattr__(self, "metrics", tuple(self.metrics))
        kept = self.recorded_at
        if kept is not None:
            kept = kept if kept.tzinfo else kept.replace(tzinfo=timezone.utc)
            object.__setattr__(self, "recorded_at", kept.astimezone(timezone.utc))

    def value(self, kind: str, entity: str, name: str) -> float | None:
        """The value of one metric of this run (None when the run does not have it)."""
        for metric in self.metrics:
            if metric.key == (kind, entity, name):
                return metric.value
        return None

    def matches(self, tags: Mapping[str, str] | None) -> bool:
        """Whether the record carries every one of ``tags``."""
        return not tags or all(self.tags.get(k) == str(v) for k, v in tags.items())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "run_id": self.run_id,
            "run_time": self.run_time.isoformat(),
            "source": self.source,
            "suite": self.suite,
            "status": self.status,
            "tags": dict(self.tags),
            "metrics": [m.to_dict() for m in self.metrics],
            "message": self.message,
            **({"recorded_at": self.recorded_at.isoformat()} if self.recorded_at else {}),
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> RunRecord:
        """The record :meth:`to_dict` wrote."""
        return RunRecord(
            str(data["run_id"]),
            parse_datetime(str(data["run_time"])),
            str(data["source"]),
            None if data.get("suite") is None else str(data["suite"]),
            str(data["status"]),
            {str(k): str(v) for k, v in (data.get("tags") or {}).items()},
            tuple(
                Metric(
                    str(m["kind"]),
                    str(m["entity"]),
                    str(m["name"]),
                    None if m.get("value") is None else float(m["value"]),
                    m.get("status"),
                    m.get("message"),
                    m.get("group"),
                )
                for m in data.get("metrics") or ()
            ),
            data.get("message"),
            None if data.get("recorded_at") is None else parse_datetime(str(data["recorded_at"])),
        )


def _ratio(part: int | None, whole: int | None) -> float | None:
    if part is None or not whole:
        return None
    return part / whole


def run_metrics(summary: Any) -> list[Metric]:
    """The metrics of a quality run's :class:`~quality_py.actions.run.RunSummary`."""
    out: list[Metric] = []
    for name in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        count = getattr(summary, name)
        if count is not None:
            out.append(Metric("rows", "run", name, float(count)))
    rows = summary.input_rows
    if summary.rules is not None:
        rows = summary.rules.rows if rows is None else rows
        for r in summary.rules.rules:
            entity, group = (
                f"{r.rule_id.id}.{r.rule_id.version}",
                (f"{r.rule_set_id.id}.{r.rule_set_id.version}"),
            )
            counts = {
                "passed": r.passed,
                "failed": r.failed,
                "soft_failed": r.soft_failed,
                "disabled": r.disabled,
                "failing": r.failing,
            }
            for name, value in counts.items():
                if value is not None:
                    out.append(Metric("rule", entity, name, float(value), group=group))
            failing = r.failing if r.failing is not None else r.failed
            out.append(Metric("rule", entity, "failed_share", _ratio(failing, rows), group=group))
            out.append(Metric("rule", entity, "pass_rate", r.pass_rate, group=group))
    for entity, values in (getattr(summary, "top_values", None) or {}).items():
        for rank, v in enumerate(values, 1):
            text = json.dumps({"column": v.column, "value": v.value}, ensure_ascii=False)
            out.append(Metric("top", entity, str(rank), float(v.rows), message=text))
    for ref, count in summary.failing_rules:  # a failed run knows only its failing `fail` rules
        entity = f"{ref.rule.id}.{ref.rule.version}"
        if not any(m.key == ("rule", entity, "failing") for m in out):
            group = f"{ref.rule_set.id}.{ref.rule_set.version}"
            out.append(Metric("rule", entity, "failing", float(count), "failed", group=group))
    if summary.checks is not None:
        out += check_metrics(summary.checks.results)
    for name, seconds in summary.timings.items():
        out.append(Metric("timing", "run", name, float(seconds)))
    return out


def check_metrics(results: Iterable[Any]) -> list[Metric]:
    """One metric per constraint outcome of a verification."""
    out = []
    for r in results:
        number = metric_number(r.metric)
        out.append(
            Metric(
                "check",
                r.check,
                r.constraint,
                number,
                "passed" if r.passed else "failed",
                r.message,
                group=r.level,
            )
        )
    return out
