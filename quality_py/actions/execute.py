"""A quality run's execution: write a :class:`~quality_py.actions.plan.RunPlan`'s outputs, judge
them, keep the record and notify, and return the summary (the plan is never changed).

Spark jobs: without ``fail`` rules or ``fail`` checks, :func:`write_plan` runs two (the quarantine
write, which counts its own rows when it goes to a path, and the valid write, which carries every
other count through ``observe``: actions/counting.py), plus one per grouping key of dataset
checks.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from quality_py.actions.counting import RunCounts, counts_column, observed_counts
from quality_py.actions.flags import ANY, FAIL
from quality_py.actions.judging import judge_written
from quality_py.actions.lineage import RunLineage
from quality_py.actions.notify import Notifier, notify_all, notify_run
from quality_py.actions.outcome import QualityRunFailed, RunSummary
from quality_py.actions.plan import RunPlan, failed_check_messages, suite_name
from quality_py.actions.preconditions import require_quarantine_detail
from quality_py.actions.quarantine_form import DEFAULT_FORM, quarantine_form
from quality_py.actions.samples import sample_rows
from quality_py.actions.stats import stats_frame
from quality_py.actions.table_rows import key_index
from quality_py.dataset.checks import VerificationResult
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.store import StagedState, StateStoreError
from quality_py.gate.locations import is_path
from quality_py.history.over_time import OverTime
from quality_py.history.recording import (
    output_metrics,
    rule_metrics,
    sample_metrics,
    save_or_raise,
    save_quietly,
    summary_record,
)
from quality_py.history.records import Metric, undelivered_metrics
from quality_py.history.repository import MetricsRepository
from quality_py.model.enums import RunStatus
from quality_py.model.types import DataFrame
from quality_py.outputs.writing import OutputWriter, require_apart, run_rows
from quality_py.progress import describing
from quality_py.runners.summary import stats_from_row
from quality_py.spark.session import wide_plan_settings


@dataclass(frozen=True)
class Destinations:
    """Where a run writes (paths, URIs or table names; None: not written) and how.

    >>> Destinations("out/valid").places()["valid"]
    'out/valid'
    """

    valid: str | None = None
    quarantine: str | None = None
    stats: str | None = None
    mode: str = "overwrite"
    format: str = "auto"
    partition_valid_by_run: bool = False
    publish: str = "atomic"
    #: ``names``, ``ids`` or ``full``; None: the form the quarantine holds, else ``names``
    quarantine_detail: str | None = None

    def places(self) -> dict[str, str | None]:
        """Each output's place by its name."""
        return {"valid": self.valid, "quarantine": self.quarantine, "stats": self.stats}


def write_plan(plan: RunPlan, to: Destinations) -> RunSummary:
    """Write, judge, record and notify ``plan``'s run to ``to``; its summary (or
    :class:`QualityRunFailed` with nothing published). Documented on ``QualityRun.write``."""
    if to.quarantine_detail is not None:
        require_quarantine_detail(to.quarantine_detail, plan.prepared)
    require_apart(plan.source, [*to.places().items(), ("history", plan.history_place)])
    spark = plan.source.sparkSession
    to = replace(
        to,
        quarantine_detail=quarantine_form(spark, to.quarantine, to.format, to.quarantine_detail),
    )
    require_quarantine_detail(to.quarantine_detail or "", plan.prepared)
    started = time.perf_counter()
    outcomes: list[Metric] = []
    staged: StagedState | None = None
    lineage = plan.lineage.writing(plan, list(to.places().items())) if plan.lineage else None
    told = lineage.start() if lineage is not None else []
    try:
        with (
            OutputWriter(to.places(), to.format, to.publish, spark) as out,
            wide_plan_settings(spark),
            computed_once(plan),
        ):
            summary = _write_rows(plan, out, to, started)
            summary, outcomes, failing = judge_written(plan, summary)
            if failing:  # past a fail_if, an error-level anomaly or SQL check: nothing published
                raise QualityRunFailed(replace(summary, status=RunStatus.FAILED))
            if to.stats is not None:
                frame = stats_frame(plan.flagged.sparkSession, plan.suite, plan.refs, summary)
                out.write(frame, to.stats, "overwrite", "qp_run_id", plan.run_id)
            staged = _staged_state(plan, summary)
            out.commit()
    except QualityRunFailed as err:
        _discard(staged)
        err.summary, lost = failure_told(plan.notifiers, err.summary, None, plan.over_time.history)
        err.summary, lost = lineage_failed(lineage, told, plan, err.summary, None, lost)
        record_run(plan, err.summary, [*outcomes, *lost])
        raise
    except Exception as err:
        _discard(staged)
        failed = RunSummary(
            plan.run_id,
            plan.run_time,
            suite_name(plan.suite),
            RunStatus.FAILED,
            suite_name=plan.suite.name,
        )
        failed, lost = failure_told(plan.notifiers, failed, err, plan.over_time.history)
        failed, lost = lineage_failed(lineage, told, plan, None, err, lost, failed)
        record_run(plan, failed, lost, message=f"{type(err).__name__}: {err}")
        raise
    kept = _keep_state(plan, staged)
    metrics = [*outcomes, *output_metrics(to.places())]
    summary = _published(plan, summary, metrics, to, (lineage, told))
    if isinstance(kept, BaseException):
        raise kept
    return summary


def _staged_state(plan: RunPlan, summary: RunSummary) -> StagedState | None:
    """The input's state for its partition of the table, written in full under a temporary name
    (the frequencies of grouping checks: one job each) before the outputs' commit: a store that
    cannot be written fails the run with nothing published."""
    if plan.table_state is None:
        return None
    checked = summary.checks.state if summary.checks is not None else None
    state = checked if checked is not None else AnalysisResult({})
    # the key index and a grouping check of the same key hold the same counts: kept once
    index = key_index(plan.source, plan.table_keys)
    state = replace(state, frequencies={**state.frequencies, **index})
    where = plan.table_state
    try:
        with describing(plan.source.sparkSession, "keeping the partition's state"):
            return where.stage(state, rows=plan.source)
    except OSError as err:
        raise StateStoreError(
            f"the state of partition {where.partition} cannot be written to the table state at "
            f"{where.location} ({type(err).__name__}: {err}): nothing was published",
            item_kind="state",
        ) from err


def _discard(staged: StagedState | None) -> None:
    if staged is not None:
        with contextlib.suppress(Exception):  # the run's own error stands
            staged.discard()


def _keep_state(plan: RunPlan, staged: StagedState | None) -> StateStoreError | None:
    """Publish the staged state right after the outputs' commit (one link or rename); the error
    to raise, once the run is recorded, when it cannot be (the outputs are published then)."""
    if staged is None or plan.table_state is None:
        return None
    try:
        staged.publish()
    except Exception as err:
        where = plan.table_state
        return StateStoreError(
            f"run {plan.run_id} published its outputs, but the state of partition "
            f"{where.partition} could not be kept in {where.location} ({type(err).__name__}: "
            f"{err}). Until this partition is run again with the table state, the table's "
            "stored state does not describe it: re-run it before any other partition's run",
            item_kind="state",
        )
    return None


@contextmanager
def computed_once(plan: RunPlan) -> Iterator[None]:
    """While a run's jobs read its rows (the quarantine write, the valid write, the SQL
    checks), keep the rule codes once computed when the rules see more than one row and the
    jobs would otherwise repeat enough shuffles to pay for it: several key sets (each a shuffle
    and sort of the input), or SQL checks reading the rows again; and always when a rule sums
    or averages over a window, whose floating-point value may differ in its last bits between
    two jobs (rows arrive in another order) and so put a row at its limit in both outputs or in
    neither. What is kept is the input with each rule's value and code, not the data-quality
    struct (which the valid job never builds). Measured (medians of three, local[2]): the
    flights main job (336,776 rows, three key sets, two SQL checks) took 18.0 s keeping the
    codes, 26.6 s computing them in each job and 21.1 s keeping the struct too; one key set and
    the two writes alone (benchmarks/bench_rows.py, 1M rows) ran 0-20 % faster computing again,
    so those are not kept. Spark keeps the rows in memory and on disk and recomputes a lost
    part from the input, identically (``row_number`` is ordered totally:
    :mod:`quality_py.sql.windows`). A platform that keeps no DataFrame (Databricks serverless
    refuses ``persist``) computes them again in each job, to the same rows (sums and averages
    over a window to the same value up to their last bits)."""
    pays = len(plan.window_keys) > 1 or plan.sql_checks or plan.window_sums
    if not plan.window_keys or not pays:
        yield
        return
    from pyspark.storagelevel import StorageLevel

    kept = plan.codes_frame if plan.codes_frame is not None else plan.flagged
    try:
        kept.persist(StorageLevel.MEMORY_AND_DISK)
    except Exception:  # the platform keeps no DataFrame: each job computes the rows again
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            kept.unpersist()


def _write_rows(plan: RunPlan, out: Any, to: Destinations, started: float) -> RunSummary:
    """Write quarantine and valid rows and return the summary of their counts.

    A quarantine written to a path counts its own rows (one aggregate over the failing rows
    only), so the valid job needs no rule but the ``drop`` rules' codes for its counts."""
    from pyspark.sql import Observation

    counted = to.quarantine is not None and is_path(to.quarantine)
    valid, counts, finish = plan.observed_valid(quarantine_counted=counted)
    quarantined = Observation(f"quality_py_quarantine_{uuid.uuid4().hex}") if counted else None
    if to.quarantine is not None:
        rows = plan.flagged.where(ANY)
        if quarantined is not None:
            rows = rows.observe(quarantined, counts_column(plan.counting.quarantine_aggregates()))
        frame = plan.quarantine_of(rows, to.quarantine_detail or DEFAULT_FORM)
        out.write(frame, to.quarantine, "overwrite", "qp_run_id", plan.run_id)
    _write_valid(plan, out, valid, to)
    verification = finish() if finish is not None else plan.precheck
    values = observed_counts(counts.get)
    if quarantined is not None:  # its own struct of counts: read apart, then merged
        values.update(observed_counts(quarantined.get))
    return summarize(plan, values, verification, started)


def _write_valid(plan: RunPlan, out: Any, valid: DataFrame, to: Destinations) -> None:
    """The valid rows to their place (partitioned by run id when asked), or to nowhere when
    there is none: every row is still read, so every count is observed."""
    if to.valid is None:
        with describing(valid.sparkSession, "checking every row"):
            valid.write.format("noop").mode("overwrite").save()
    elif to.partition_valid_by_run:
        from pyspark.sql import functions as F

        frame = valid.withColumn("qp_run_id", F.lit(plan.run_id))
        out.write(frame, to.valid, "overwrite", "qp_run_id", plan.run_id)
    else:
        out.write(valid, to.valid, to.mode)


def measure(plan: RunPlan) -> RunSummary:
    """The run's counts without writing anything (one job reading every row)."""
    valid, counts, finish = plan.observed_valid()
    with wide_plan_settings(valid.sparkSession):
        valid.write.format("noop").mode("overwrite").save()
    verification = finish() if finish is not None else plan.precheck
    return summarize(plan, observed_counts(counts.get), verification, time.perf_counter())


def _published(
    plan: RunPlan,
    summary: RunSummary,
    outcomes: list[Metric],
    to: Destinations,
    lineage: tuple[RunLineage | None, list[str]] = (None, []),
) -> RunSummary:
    """After the outputs are published: alert and notify success, tell lineage (COMPLETE),
    then keep the record with what could not be delivered (one that cannot be kept is an
    error, raised last)."""
    alerts = [m.message or m.name for m in outcomes if m.status == "failed"]
    undelivered: tuple[str, ...] = ()
    if alerts:
        undelivered = notify_all(plan.notifiers, "alert", summary, alerts=alerts)
    history = plan.over_time.history
    lost, incident = notify_run(plan.notifiers, "success", summary, history, alerts=alerts)
    undelivered += lost
    run_lineage, told = lineage
    if run_lineage is not None:
        undelivered += (*told, *run_lineage.complete(plan, summary))
    summary = replace(summary, undelivered=undelivered)
    extra = [*outcomes, *undelivered_metrics(undelivered), *incident]
    record_run(plan, summary, extra, loud=True, quarantine=to)
    return summary


def _written(
    plan: RunPlan, summary: RunSummary, to: Destinations | None
) -> tuple[Any, str, dict[str, int]] | None:
    """This run's published quarantine rows, their form and each rule's failing rows, to
    sample from (None when the run published no quarantine)."""
    if to is None or to.quarantine is None or summary.status == RunStatus.FAILED:
        return None
    if summary.rules is None:
        return None
    failing = {
        f"{r.rule_id.id}.{r.rule_id.version}": r.failed if r.failing is None else r.failing
        for r in summary.rules.rules
    }
    frame = run_rows(plan.flagged.sparkSession, to.quarantine, to.format, plan.run_id)
    return frame, to.quarantine_detail or DEFAULT_FORM, failing


def record_run(
    plan: RunPlan, summary: RunSummary, outcomes: Sequence[Metric], message: str | None = None,
    loud: bool = False, quarantine: Destinations | None = None,
) -> None:  # fmt: skip
    """Keep the run's record in the history (when the run has one), with each rule's action
    and description and a few failing rows (actions/samples.py: one small job stopping at
    ``over_time.sample_rows`` rows); ``loud``: a record that cannot be saved raises, else the
    run's own error stands."""
    if plan.over_time.history is None:
        return
    samples: list[dict[str, Any]] = []
    where = FAIL if summary.failing_rules else ANY if summary.quarantined_rows else None
    if where is not None:
        try:
            with wide_plan_settings(plan.flagged.sparkSession):
                samples = sample_rows(plan, where, _written(plan, summary, quarantine))
        except Exception:
            samples = [{"keys": k, "values": {}, "failed": []} for k in summary.sample_keys]
    extra = [*rule_metrics(plan.refs, plan.suite.name), *sample_metrics(samples), *outcomes]
    record = summary_record(summary, plan.over_time.tags, extra, message)
    (save_or_raise if loud else save_quietly)(plan.over_time.history, record)


def summarize(
    plan: RunPlan, values: dict[str, Any], verification: VerificationResult | None, started: float
) -> RunSummary:
    """The summary of a run's observed ``values`` and its dataset checks' ``verification``."""
    values = RunCounts.read(plan.counting.completed(values))
    rows = int(values["rows"])
    dropped = int(values["dropped"])
    # a failing `fail` check stopped the run in the precheck: what is left is recorded only
    failed_checks = () if verification is None else failed_check_messages(verification)
    return RunSummary(
        plan.run_id,
        plan.run_time,
        suite_name(plan.suite),
        RunStatus.SUCCESS,
        input_rows=rows,
        valid_rows=rows - dropped,
        quarantined_rows=int(values["quarantined"]),
        dropped_rows=dropped,
        failed_checks=failed_checks,
        rules=stats_from_row(plan.prepared, values),
        checks=verification,
        timings={"write_seconds": round(time.perf_counter() - started, 3)},
        suite_name=plan.suite.name,
        top_values=plan.top_values.read(values),
    )


@contextmanager
def failures_reported(
    over_time: OverTime,
    notifiers: tuple[Notifier, ...],
    started: RunSummary,
    lineage: RunLineage | None = None,
) -> Iterator[list[RunPlan]]:
    """A run that fails before it is written is kept in the history, notified and told to
    lineage (START, then FAIL with what the plan the block appends to the yielded list
    found), then raised."""
    tags = dict(over_time.tags)
    seen: list[RunPlan] = []
    try:
        yield seen
    except QualityRunFailed as err:
        err.summary, lost = failure_told(notifiers, err.summary, None, over_time.history)
        plan = seen[-1] if seen else None
        started_told = lineage.start() if lineage is not None else []
        err.summary, lost = lineage_failed(lineage, started_told, plan, err.summary, None, lost)
        if over_time.history is not None:
            save_quietly(over_time.history, summary_record(err.summary, tags, lost))
        raise
    except Exception as err:
        told, lost = failure_told(notifiers, started, err, over_time.history)
        started_told = lineage.start() if lineage is not None else []
        told, lost = lineage_failed(lineage, started_told, None, None, err, lost, told)
        if over_time.history is not None:
            failed = replace(told, status=RunStatus.FAILED)
            reason = f"{type(err).__name__}: {err}"
            save_quietly(over_time.history, summary_record(failed, tags, lost, reason))
        raise


def lineage_failed(
    lineage: RunLineage | None,
    told: list[str],
    plan: RunPlan | None,
    found: RunSummary | None,
    error: BaseException | None,
    lost: list[Metric],
    summary: RunSummary | None = None,
) -> tuple[RunSummary, list[Metric]]:
    """Tell lineage a run failed (FAIL, with what ``found`` says, or ``error``): the run's
    summary (``found``, else ``summary``) with the lineage lines that were not delivered
    (``told``: the START's) added to its undelivered ones and to the record's rows ``lost``."""
    out = found if found is not None else summary
    assert out is not None
    if lineage is None:
        return out, lost
    lines = [*told, *lineage.fail(plan, found, error)]
    if not lines:
        return out, lost
    out = replace(out, undelivered=(*out.undelivered, *lines))
    return out, [*lost, *undelivered_metrics(lines)]


def failure_told(
    notifiers: Sequence[Notifier],
    summary: RunSummary,
    error: BaseException | None = None,
    history: MetricsRepository | None = None,
) -> tuple[RunSummary, list[Metric]]:
    """Notify a failed run: its summary with the notifications that could not be delivered,
    and the record's rows of them and of the run's incident (with a ``history``)."""
    lost, incident = notify_run(notifiers, "failure", summary, history, error=error)
    return replace(summary, undelivered=lost), [*undelivered_metrics(lost), *incident]
