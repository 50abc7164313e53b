"""What a written quality run is judged on before it is published: its rules' tolerances
(``warn_if``, ``fail_if``), anomaly checks against the history, SQL checks on the source and the
outputs, and error-rate thresholds (alerts).

A rule past its ``fail_if`` and failed ``error``-level anomaly and SQL checks fail the run
(nothing is published); rules past ``warn_if``, ``warning`` checks and exceeded error rates
are reported in the summary's failed checks, kept in the history (kinds ``tolerance``,
``anomaly``, ``sql``, ``alert``) and sent to the notifiers as an ``alert`` event.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quality_py.actions.error_rates import ErrorRates as ErrorRates  # its home before the split
from quality_py.actions.tolerances import judge_tolerances, past_messages
from quality_py.history.anomaly_checks import NOT_JUDGED
from quality_py.history.records import Metric

if TYPE_CHECKING:
    from quality_py.actions.outcome import RunSummary
    from quality_py.actions.plan import RunPlan


def failed_messages(outcomes: list[Metric], level: str | None = None) -> tuple[str, ...]:
    """``[kind level] message`` of each failed outcome (of one level, or all). An anomaly check
    its history cannot judge yet is not a failure: see :func:`not_judged_messages`."""
    return tuple(
        f"[{m.kind} {m.group}] {m.message}"
        for m in outcomes
        if m.status == "failed" and (level is None or m.group == level)
    )


def not_judged_messages(outcomes: list[Metric]) -> tuple[str, ...]:
    """The message of each anomaly check the history could not judge yet (too few earlier
    runs): shown and kept, never a failed check, a warning or an alert.

    >>> waiting = Metric("anomaly", "volume", "rows", 5.0, NOT_JUDGED, "volume: not judged: "
    ...                  "needs 1 earlier run(s)", group="warning")
    >>> failed_messages([waiting]), not_judged_messages([waiting])
    ((), ('volume: not judged: needs 1 earlier run(s)',))
    """
    return tuple(m.message or m.entity for m in outcomes if m.status == NOT_JUDGED)


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
    tolerances = judge_tolerances(run.refs, summary.rules)
    failed = (*past_messages(tolerances), *failed_messages(outcomes))
    must_fail = bool(failed_messages(outcomes, "error")) or any(
        t.past and t.level == "error" for t in tolerances
    )
    summary = replace(
        summary,
        failed_checks=(*summary.failed_checks, *failed),
        tolerances=tolerances,
        not_judged=not_judged_messages(outcomes),
    )
    return summary, [*(t.metric() for t in tolerances), *outcomes], must_fail
