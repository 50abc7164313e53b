"""What a written quality run is judged on before it is published: anomaly checks against the
history, SQL checks on the source and the outputs, and error-rate thresholds (alerts).

Failed ``error``-level anomaly and SQL checks fail the run (nothing is published); ``warning``
ones and exceeded error rates are reported in the summary's failed checks, kept in the history
(kinds ``anomaly``, ``sql``, ``alert``) and sent to the notifiers as an ``alert`` event.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quality_py.actions.error_rates import ErrorRates as ErrorRates  # its home before the split
from quality_py.history.anomaly_checks import NOT_JUDGED
from quality_py.history.records import Metric

if TYPE_CHECKING:
    from quality_py.actions.outcome import RunSummary
    from quality_py.actions.plan import RunPlan


def failed_messages(outcomes: list[Metric], level: str | None = None) -> tuple[str, ...]:
    """``[kind level] message`` of each failed outcome (of one level, or all), and of each
    anomaly check its history could not judge yet (always a warning)."""
    return tuple(
        f"[{m.kind} {m.group}] {m.message}"
        for m in outcomes
        if m.status in ("failed", NOT_JUDGED) and (level is None or m.group == level)
    )


def judge_written(run: RunPlan, summary: RunSummary) -> tuple[RunSummary, list[Metric], bool]:
    """The run's summary with its failed judgements, every outcome, and whether it must fail."""
    from quality_py.actions.sql_checks import run_sql_checks
    from quality_py.history.recording import judge_summary

    over_time = run.over_time
    outcomes = judge_summary(summary, over_time.anomaly_checks, over_time.history, over_time.tags)
    if run.sql_checks:
        frames = {"source": run.source, "valid": run.valid, "quarantine": run.quarantine}
        outcomes += run_sql_checks(run.sql_checks, frames, run.suite.policy)
    if run.error_rates is not None:
        outcomes += run.error_rates.exceeded(summary)
    failed = failed_messages(outcomes)
    if failed:
        summary = replace(summary, failed_checks=(*summary.failed_checks, *failed))
    return summary, outcomes, bool(failed_messages(outcomes, "error"))
