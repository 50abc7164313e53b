"""Anomaly checks: a metric of the current run judged against its history.

``AnomalyCheck(("rows", "run", "input_rows"), RelativeRateOfChange(max_decrease=0.7))`` reads
"the row count must not drop more than 30% from the previous run". The series is the metric in
the earlier runs of the same suite id, whatever their suite version (a baseline belongs to the
data being watched, so the ordinary edit that bumps a version never resets it; the message
says when the baseline spans versions), that are a baseline (not failed quality runs, not
verifications with failed error-level constraints) (and, when the check names ``tags``, with those
tags; a run re-using the current run id is left out), oldest first, at most ``window`` of them,
then the current value; the check fails when the strategy finds the current (last) point
anomalous. A metric the current run does not have fails the check (it cannot be judged, and a
quiet pass would hide a run that stopped producing it). A history shorter than the strategy
needs (its ``min_history``) is ``not_judged``: kept in the history and shown apart, it never
blocks a run, is never a failed check or an alert, and is never reported as normal. To start
a baseline afresh on purpose, tag the runs (``baseline=2``) and name that tag in the check.

Metric shorthands (:func:`metric_key`): ``input_rows`` (any ``rows`` count), ``rule:101`` /
``rule:101.1:failed_share``, ``check:<check>:<constraint>``, ``metric:<analyzer>``,
``sql:<name>``; or the full ``(kind, entity, name)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quality_py.errors import ModelError
from quality_py.gate.numbers import check_fields, numeric
from quality_py.history.records import Metric, RunRecord
from quality_py.history.repository import MetricsRepository

#: Runs whose metrics are no baseline: a failed quality run (nothing published) and a
#: verification with failed error-level constraints.
_NOT_A_BASELINE = ("failed", "error")
_ROWS = ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows")


def metric_key(spec: str | Sequence[str]) -> tuple[str, str, str]:
    """``(kind, entity, name)`` of a metric shorthand.

    >>> metric_key("input_rows"), metric_key("rule:101")
    (('rows', 'run', 'input_rows'), ('rule', '101', 'failed_share'))
    >>> metric_key("rule:101.1:pass_rate"), metric_key("metric:Size(*)")
    (('rule', '101.1', 'pass_rate'), ('metric', 'Size(*)', 'value'))
    """
    if not isinstance(spec, str):
        parts = tuple(str(p) for p in spec)
        if len(parts) != 3:
            raise ModelError(f"a metric is (kind, entity, name), not {spec!r}")
        return (parts[0], parts[1], parts[2])
    if spec in _ROWS:
        return ("rows", "run", spec)
    kind, _, rest = spec.partition(":")
    if kind == "rule" and rest:
        entity, _, name = rest.partition(":")
        return ("rule", entity, name or "failed_share")
    if kind == "check" and rest.count(":") >= 1:
        check, _, constraint = rest.partition(":")
        return ("check", check, constraint)
    if kind in ("metric", "sql") and rest:
        return (kind, rest, "value")
    raise ModelError(
        f"cannot read the metric {spec!r}: use input_rows (or valid_rows, ...), rule:ID[:name], "
        "check:CHECK:CONSTRAINT, metric:ANALYZER or sql:NAME"
    )


def _value(record: RunRecord, key: tuple[str, str, str]) -> float | None:
    """The metric ``key`` of ``record``; a rule entity without a version matches any version."""
    kind, entity, name = key
    for m in record.metrics:
        if m.kind != kind or m.name != name:
            continue
        if m.entity == entity or (
            kind == "rule" and "." not in entity and m.entity.split(".")[0] == entity
        ):
            return m.value
    return None


@dataclass(frozen=True)
class AnomalyCheck:
    """A metric judged against its history by a strategy (see the module docs).

    >>> from quality_py.history.anomalies import RelativeRateOfChange
    >>> AnomalyCheck("input_rows", RelativeRateOfChange(max_decrease=0.7)).description
    'rows.run.input_rows by RelativeRateOfChange'
    """

    metric: str | tuple[str, str, str]
    strategy: Any
    level: str = "error"
    name: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    window: int | None = field(default=None, metadata=numeric(1, integer=True, optional=True))

    def __post_init__(self) -> None:
        check_fields(self)
        object.__setattr__(self, "metric", metric_key(self.metric))
        if self.level not in ("error", "warning"):
            raise ModelError(f"an anomaly check's level is error or warning, not {self.level!r}")
        if not hasattr(self.strategy, "detect"):
            raise ModelError(f"{self.strategy!r} is not an anomaly strategy (it has no detect)")

    @property
    def key(self) -> tuple[str, str, str]:
        """The metric's ``(kind, entity, name)``."""
        assert isinstance(self.metric, tuple)
        return self.metric

    @property
    def description(self) -> str:
        """The check's name, or what it judges and how."""
        return self.name or f"{'.'.join(self.key)} by {type(self.strategy).__name__}"

    def judge(self, current: RunRecord, history: Sequence[RunRecord]) -> Metric:
        """The check's outcome for ``current`` as a metric of kind ``anomaly``.

        >>> from datetime import datetime
        >>> from quality_py.history.anomalies import SimpleThresholds
        >>> run = RunRecord("r", datetime(2026, 1, 1), "quality_run", "1.1", "success", {},
        ...                 (Metric("rows", "run", "input_rows", 5.0),))
        >>> AnomalyCheck("input_rows", SimpleThresholds(lower=10)).judge(run, []).status
        'failed'
        """
        return self._judged(current, history)[0]

    def judge_with_band(self, current: RunRecord, history: Sequence[RunRecord]) -> list[Metric]:
        """:meth:`judge`'s outcome and, when the strategy can say it (``band``), the values the
        metric could have taken without being anomalous: metrics ``bound/<kind.entity.name>/
        lower`` and ``upper`` (the report draws them as a band).

        >>> from datetime import datetime
        >>> from quality_py.history.anomalies import SimpleThresholds
        >>> run = RunRecord("r", datetime(2026, 1, 1), "quality_run", "1.1", "success", {},
        ...                 (Metric("rows", "run", "input_rows", 5.0),))
        >>> [(m.kind, m.name, m.value) for m in AnomalyCheck("input_rows",
        ...     SimpleThresholds(lower=10)).judge_with_band(run, [])][1:]
        [('bound', 'lower', 10.0)]
        """
        outcome, values = self._judged(current, history)
        band = getattr(self.strategy, "band", None)
        found = band(values) if band is not None and values is not None else None
        if not found:
            return [outcome]
        key = ".".join(self.key)
        bounds = [
            Metric("bound", key, name, float(v))
            for name, v in zip(("lower", "upper"), found, strict=True)
            if v is not None and math.isfinite(v)
        ]
        return [outcome, *bounds]

    def _judged(
        self, current: RunRecord, history: Sequence[RunRecord]
    ) -> tuple[Metric, list[float] | None]:
        """The outcome, and the series judged (None when nothing was judged)."""
        value = _value(current, self.key)
        if value is None:
            return self._outcome(None, False, "the current run has no such metric"), None
        earlier = [
            r
            for r in history
            if r.status not in _NOT_A_BASELINE
            and r.run_id != current.run_id
            and suite_id(r.suite) == suite_id(current.suite)
            and r.matches(self.tags)
            and r.run_time <= current.run_time
        ]
        points = [(r, v) for r, v in ((r, _value(r, self.key)) for r in earlier) if v is not None]
        if self.window is not None:
            points = points[-self.window :]
        series = [v for _, v in points]
        changed = version_note(current.suite, [r.suite for r, _ in points])
        needed = int(getattr(self.strategy, "min_history", 0))
        if len(series) < needed:
            return self._not_judged(
                value,
                f"{type(self.strategy).__name__} needs {needed} earlier run(s) and the "
                f"history has {len(series)}{changed}",
            ), None
        values = [*series, value]
        try:
            found = self.strategy.detect(values, len(values) - 1)
        except ModelError as err:
            return self._not_judged(value, f"{err.message}{changed}"), None
        if found:
            return self._outcome(value, False, f"anomaly: {found[-1].detail}{changed}"), values
        normal = f"{value:.6g} is normal against {len(series)} earlier runs{changed}"
        return self._outcome(value, True, normal), values

    def _outcome(self, value: float | None, passed: bool, message: str) -> Metric:
        return Metric(
            "anomaly",
            self.description,
            ".".join(self.key),  # the judged metric: reports mark it on that metric's trend
            value,
            "passed" if passed else "failed",
            f"{self.description}: {message}",
            group=self.level,
        )

    def _not_judged(self, value: float | None, why: str) -> Metric:
        """A check the history cannot decide yet: a warning, never "normal", never blocking."""
        return Metric(
            "anomaly",
            self.description,
            ".".join(self.key),
            value,
            NOT_JUDGED,
            f"{self.description}: not judged: {why}",
            group="warning",
        )


#: The status of an anomaly check whose history is too short for its strategy.
NOT_JUDGED = "not_judged"


def suite_id(suite: str | None) -> str | None:
    """The suite's id without its version: a baseline belongs to the data being watched (the
    suite id and the tags), and an edit that bumps the version must not reset it.

    >>> suite_id("7.3"), suite_id("7"), suite_id(None)
    ('7', '7', None)
    """
    return None if suite is None else suite.split(".")[0]


def version_note(current: str | None, earlier: Sequence[str | None]) -> str:
    """`` (suite version changed: 7.1 -> 7.2 within the baseline)`` when the baseline spans
    other versions of the suite than the current run's, else ``""``.

    >>> version_note("7.2", ["7.1", "7.1"]), version_note("7.1", ["7.1"])
    (' (the baseline spans suite versions 7.1 -> 7.2)', '')
    """
    versions = list(dict.fromkeys([*(s for s in earlier if s is not None), current]))
    if len(versions) < 2:
        return ""
    return f" (the baseline spans suite versions {' -> '.join(str(v) for v in versions)})"


def judge_all(
    checks: Sequence[AnomalyCheck], current: RunRecord, repository: MetricsRepository
) -> list[Metric]:
    """Every check's outcome for ``current`` against the runs ``repository`` holds, each
    followed by the band of values it expected (``bound`` metrics, when its strategy says:
    :meth:`AnomalyCheck.judge_with_band`)."""
    if not checks:
        return []
    history = repository.records(suite=suite_id(current.suite))
    return [m for check in checks for m in check.judge_with_band(current, history)]
