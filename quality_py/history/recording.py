"""Turning a quality run's summary or a verification into a run record, judged and saved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from quality_py.history.anomaly_checks import AnomalyCheck, judge_all
from quality_py.history.records import Metric, RunRecord, check_metrics, run_metrics
from quality_py.history.repository import MetricsRepository
from quality_py.model.times import metric_number, time_text


def summary_record(
    summary: Any,
    tags: Mapping[str, str] | None,
    extra: Sequence[Metric] = (),
    message: str | None = None,
) -> RunRecord:
    """The record of a quality run's ``RunSummary`` (successful or failed)."""
    text = message
    if text is None and summary.failed_checks:
        text = "; ".join(summary.failed_checks)
    return RunRecord(
        summary.run_id,
        summary.run_time,
        "quality_run",
        summary.suite,
        str(summary.status),
        dict(tags or {}),
        (*run_metrics(summary), *extra),
        text,
    )


def judge_summary(
    summary: Any,
    checks: Sequence[AnomalyCheck],
    repository: MetricsRepository | None,
    tags: Mapping[str, str] | None,
) -> list[Metric]:
    """The anomaly checks' outcomes for a run (nothing without checks or a repository)."""
    if not checks or repository is None:
        return []
    return judge_all(checks, summary_record(summary, tags), repository)


def anomaly_messages(outcomes: Sequence[Metric], level: str | None = None) -> tuple[str, ...]:
    """The messages of the failed outcomes (of one level, or all); a check the history could
    not judge yet (``not_judged``) is not a failure."""
    return tuple(
        f"[anomaly {m.group}] {m.message}"
        for m in outcomes
        if m.status == "failed" and (level is None or m.group == level)
    )


def with_anomalies(summary: Any, outcomes: Sequence[Metric]) -> Any:
    """``summary`` with failed anomaly checks among its failed checks."""
    failed = anomaly_messages(outcomes)
    return replace(summary, failed_checks=(*summary.failed_checks, *failed)) if failed else summary


def rule_metrics(refs: Sequence[Any], suite_name: str | None = None) -> list[Metric]:
    """Each rule's action and description (metric ``rule/<id>/action``, no value) and, for a
    named rule, its name (``rule/<id>/name``, the name as message); a named suite's name
    (``suite/suite/name``).

    >>> from quality_py.actions.flags import RuleRef
    >>> from quality_py.model import Id
    >>> ref = RuleRef(Id(1, 1), Id(2, 1), "drop", "d", None, (), "two")
    >>> [(m.name, m.message) for m in rule_metrics([ref], "orders")]
    [('name', 'orders'), ('action', 'd'), ('name', 'two')]
    """
    out = [Metric("suite", "suite", "name", None, None, suite_name)] if suite_name else []
    for r in refs:
        entity, group = f"{r.rule.id}.{r.rule.version}", f"{r.rule_set.id}.{r.rule_set.version}"
        out.append(Metric("rule", entity, "action", None, r.action, r.description, group=group))
        if getattr(r, "name", None):
            out.append(Metric("rule", entity, "name", None, None, r.name, group=group))
    return out


def sample_metrics(rows: Sequence[Mapping[str, Any]]) -> list[Metric]:
    """A few failing rows (metric ``sample/row <i>/row``, JSON of ``keys``, ``values`` and
    ``failed``: the row's key columns, the values its failed rules read, those rules' ids).
    Records of earlier versions have ``sample/row <i>/keys``, the keys alone.

    >>> sample_metrics([{"keys": {"id": 7}, "values": {"a": -1}, "failed": ["10.1"]}])[0].message
    '{"keys": {"id": 7}, "values": {"a": -1}, "failed": ["10.1"]}'
    """
    import json

    return [
        Metric("sample", f"row {i + 1}", "row", None, None, json.dumps(row, default=str))
        for i, row in enumerate(rows)
    ]


def output_metrics(outputs: Mapping[str, str | None]) -> list[Metric]:
    """Where a run wrote each output (metric ``output/<name>/target``, the path or table as the
    message), for the report's page of the run.

    >>> [(m.entity, m.message) for m in output_metrics({"valid": "t", "stats": None})]
    [('valid', 't')]
    """
    return [
        Metric("output", name, "target", None, None, str(where))
        for name, where in outputs.items()
        if where is not None
    ]


def save_or_raise(repository: MetricsRepository, record: RunRecord) -> None:
    """Save ``record``; a history that cannot be written (full disk, wrong path, no rights) is
    a :class:`~quality_py.errors.HistoryError` naming the run and the cause, never silence."""
    from quality_py.errors import HistoryError, QualityError

    try:
        repository.save(record)
    except QualityError:
        raise
    except Exception as err:
        raise HistoryError(
            f"the record of run {record.run_id} could not be saved in the history: "
            f"{type(err).__name__}: {err}"
        ) from err


def save_quietly(repository: MetricsRepository, record: RunRecord) -> None:
    """Save ``record``; a history that cannot be written never hides the run's own outcome, so
    the error is logged (the run's result or error stands)."""
    import logging

    try:
        repository.save(record)
    except Exception as err:  # the run's own error is the one the caller must see
        logging.getLogger("quality_py").error("could not save run %s: %s", record.run_id, err)


def analyzer_metric(name: str, value: object) -> Metric:
    """An analyzer's metric as the history keeps it: a number as it is; a time (the newest
    value, the last write) as seconds since the epoch, with the time itself, in ISO 8601 UTC,
    as the message (so its series can be judged as a number and shown as a time).

    >>> from datetime import timezone
    >>> m = analyzer_metric("LastWrite()", datetime(1970, 1, 2, tzinfo=timezone.utc))
    >>> (m.name, m.value, m.message)
    ('value', 86400.0, '1970-01-02T00:00:00Z')
    >>> analyzer_metric("Size()", 3).value
    3.0
    """
    return Metric("metric", name, "value", metric_number(value), message=time_text(value))


def verification_record(
    result: Any,
    metrics: Mapping[Any, Any],
    run_id: str,
    run_time: datetime,
    suite: str | None,
    tags: Mapping[str, str] | None,
) -> RunRecord:
    """The record of a ``verify``: every analyzer's metric and every constraint's outcome."""
    out = [analyzer_metric(str(getattr(a, "name", a)), value) for a, value in metrics.items()]
    out += check_metrics(result.results)
    return RunRecord(run_id, run_time, "verify", suite, result.status, dict(tags or {}), tuple(out))
