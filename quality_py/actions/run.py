"""A quality run: valid rows, quarantined rows and stats from one suite and dataset checks.

Semantics (Spark-Expectations' hierarchy on our single data-quality column):

* a row failing a ``fail`` rule fails the whole run: :class:`QualityRunFailed` is raised before
  anything is written, with the rules, counts and sample keys;
* otherwise a row failing a ``drop`` rule leaves the valid output and goes to quarantine;
* a row failing only ``ignore`` rules stays valid and is also recorded in quarantine;
* a failing dataset check with action ``fail`` fails the run; with ``ignore`` it is recorded.

Every input row is in valid or quarantine (both for ignore-only failures), exactly once each.

The run is planned here (:func:`run_quality` returns a :class:`QualityRun`, a frozen
:class:`~quality_py.actions.plan.RunPlan`) and executed by :mod:`quality_py.actions.execute`
(``QualityRun.write`` delegates). With ``fail`` rules or ``fail`` checks, one aggregation runs
first (in :func:`run_quality`) so that a failing run writes nothing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from quality_py.actions import stats as run_stats
from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.execute import (
    Destinations,
    failures_reported,
    measure,
    write_plan,
)
from quality_py.actions.flags import FAIL, fails_any_sql, flag_rows
from quality_py.actions.lineage import run_lineage
from quality_py.actions.notify import Notifier, notify_all
from quality_py.actions.outcome import QualityRunFailed, RunSummary
from quality_py.actions.plan import (
    RunPlan,
    action_of,
    failed_check_messages,
    quoted,
    suite_name,
)
from quality_py.actions.plan import history_place as history_place  # public before the split
from quality_py.actions.preconditions import (
    require_distinct_rule_ids,
    require_evaluable,
    require_report_columns,
    require_usable_input,
    split_checks,
    table_state_of,
)
from quality_py.actions.table_rows import planned_keys, table_rows
from quality_py.dataset.checks import Check, VerificationResult
from quality_py.gate.run_ids import require_run_id
from quality_py.history.over_time import OverTime
from quality_py.model.enums import RunStatus
from quality_py.model.reads import columns_read
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame
from quality_py.runners.staging import require_new_columns
from quality_py.spark.session import wide_plan_settings
from quality_py.sql.compiler import CompiledSuite
from quality_py.sql.windows import key_sets, sums_over_windows

if TYPE_CHECKING:
    from quality_py.actions.sql_checks import SqlCheck


@dataclass
class _Outcome:
    """The summary of the run once written (kept for ``QualityRun.summary`` and ``.stats``)."""

    summary: RunSummary | None = None


@dataclass(frozen=True, kw_only=True)
class QualityRun(RunPlan):
    """The outputs of :func:`run_quality`: lazy ``valid`` and ``quarantine``, and ``stats``.

    A :class:`~quality_py.actions.plan.RunPlan` (inspect it without writing) with the execution
    one call away: ``write`` writes all three with the counts observed on the writes; ``stats``
    read before a write runs one aggregation of its own.
    """

    outcome: _Outcome = field(default_factory=_Outcome)

    @property
    def summary(self) -> RunSummary | None:
        """The summary of the written run (None before :meth:`write` or :attr:`stats`)."""
        return self.outcome.summary

    def write(
        self,
        target: str | None = None,
        quarantine: str | None = None,
        stats: str | None = None,
        *,
        mode: str = "overwrite",
        format: str = "auto",
        partition_valid_by_run: bool = False,
        publish: str = "atomic",
        quarantine_detail: str | None = None,
    ) -> RunSummary:
        """Write the outputs (paths, URIs or table names) and return the run's summary.

        ``target`` gets the valid rows with ``mode``; ``quarantine`` and ``stats`` are
        partitioned by run id and a run replaces only its own partition, so re-running a run id
        is idempotent. ``partition_valid_by_run`` does the same for the target (streaming).

        ``format``: ``auto`` (the default) writes paths as parquet, an existing table in its own
        format and a new table as Delta where the Spark server has Delta (else parquet);
        ``parquet``, ``delta``, ``orc``, ``json`` or ``csv`` for every output.

        Paths on this machine are published atomically (``publish="atomic"``, see
        :mod:`quality_py.outputs.publish`): everything is staged beside its destination and
        switched in together at the end, so a run killed at any point leaves readers the previous
        run's complete outputs. A path atomic publication cannot prove local (an object store,
        ``dbfs:/``, ``/Volumes/``, a Spark whose writers may run on other machines) is refused
        with the alternatives: ``publish="direct"`` writes in place; Delta and tables are
        written directly, one commit per output.

        ``quarantine_detail``: what a quarantined row says of the rules it failed (docs/actions.md):
        ``names`` (``qp_failed_rule_names``, at the hand-written cost), ``ids``
        (``qp_failed_rule_ids``, packed rule ids) or ``full`` (the data-quality column with
        every rule's code, and ``qp_failed_rules``, four ids each). Left out: the form the
        quarantine already holds (one quarantine holds one form), else ``names``.

        >>> import tempfile
        >>> from quality_py import Id, Rule, RuleSet, RuleSuite
        >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
        ...     Rule(Id(3, 1), "a > 0", action_if_failed="drop")])])
        >>> run = run_quality(spark.createDataFrame([(0,), (1,)], "a int"), suite, run_id="r1")
        >>> out = tempfile.mkdtemp()
        >>> summary = run.write(f"{out}/valid", f"{out}/quarantine")
        >>> summary.valid_rows, summary.dropped_rows, spark.read.parquet(f"{out}/valid").count()
        (1, 1, 1)
        """
        to = Destinations(
            target, quarantine, stats, mode, format, partition_valid_by_run, publish,
            quarantine_detail,
        )  # fmt: skip
        summary = write_plan(self, to)
        self.outcome.summary = summary
        return summary

    @property
    def stats(self) -> Any:
        """The stats as a DataFrame (after :meth:`write`, from its counts; else one query)."""
        if self.outcome.summary is None:
            self.outcome.summary = measure(self)
        return self.stats_frame(self.outcome.summary)

    def stats_frame(self, summary: RunSummary) -> Any:
        """One row per count, rule and check of ``summary``.

        >>> import tempfile
        >>> from quality_py import Id, Rule, RuleSet, RuleSuite
        >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
        ...     Rule(Id(3, 1), "a > 0", action_if_failed="drop")])])
        >>> run = run_quality(spark.createDataFrame([(0,), (1,)], "a int"), suite, run_id="r1")
        >>> frame = run.stats_frame(run.write())
        >>> sorted((r.name, r.value) for r in frame.where("kind = 'rows'").collect())[:2]
        [('dropped_rows', 1.0), ('input_rows', 2.0)]
        """
        return run_stats.stats_frame(self.flagged.sparkSession, self.suite, self.refs, summary)


def _read_by(run: RunPlan, refs: Sequence[Any]) -> list[str]:
    """The input columns the rules ``refs`` read, in input order."""
    read = columns_read(run.prepared, run.input_columns)
    wanted = {c for r in refs for c in read.get(f"{r.rule.id}.{r.rule.version}", ())}
    return [c for c in run.input_columns if c in wanted]


def run_quality(
    df: DataFrame,
    suite: RuleSuite | CompiledSuite,
    checks: Sequence[Check | SqlCheck] = (),
    run_id: str | None = None,
    *,
    name: str = "DataQuality",
    layout: Layout | str = Layout.COMPACT,
    keys: Sequence[str] | None = None,
    notifiers: Sequence[Notifier] = (),
    over_time: OverTime | None = None,
    error_rates: ErrorRates | None = None,
) -> QualityRun:
    """Check ``df`` with ``suite`` (row rules) and ``checks`` (dataset checks: :class:`Check`
    and :class:`~quality_py.actions.sql_checks.SqlCheck`, judged on the source and outputs).

    ``suite`` may be compiled beforehand (``compile_suite(suite)`` or another run's ``compiled``):
    reused where this input's types compile it the same (``runners.staging.reusable``).

    Raises :class:`QualityRunFailed` here when a ``fail`` rule or check fails (one aggregation
    job, run only for ``fail`` actions; nothing is written). ``keys`` name the columns shown as
    sample failing rows (default: the first three).

    ``over_time`` (:class:`~quality_py.history.over_time.OverTime`): the run's record in a
    history, its anomaly checks (an ``error``-level anomaly fails the run before anything is
    published) and a ``table_state``: checks and counts per key answer for the table ``df`` is a
    partition of (docs/growing-tables.md). ``error_rates`` alert through the notifiers; an
    :class:`~quality_py.OpenLineage` among them sends the run's lineage (docs/lineage.md).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
    ...     Rule(Id(10, 1), "a > 0", action_if_failed="drop"),
    ...     Rule(Id(11, 1), "a < 3")])])
    >>> run = run_quality(spark.createDataFrame([(0,), (1,), (5,)], "a int"), suite)
    >>> sorted(r.a for r in run.valid.collect()), sorted(r.a for r in run.quarantine.collect())
    ([1, 5], [0, 5])
    """
    rules, compiled = (suite.suite, suite) if isinstance(suite, CompiledSuite) else (suite, None)
    over_time = over_time or OverTime()
    require_usable_input(df.columns, keys)
    run_id = require_run_id(run_id or uuid.uuid4().hex)
    require_distinct_rule_ids(rules, over_time, error_rates)
    now = datetime.now(timezone.utc)
    started = RunSummary(run_id, now, suite_name(rules), RunStatus.RUNNING, suite_name=rules.name)
    told = run_lineage(notifiers, df, rules, run_id)
    notify_all(tuple(notifiers), "start", started)
    with failures_reported(over_time, tuple(notifiers), started, told) as seen:
        dataset_checks, sql_checks = split_checks(checks, rules.policy, over_time, df)
        table_state = table_state_of(over_time, dataset_checks)
        require_new_columns(df, name)
        require_evaluable(dataset_checks, df, rules)
        require_report_columns(rules, df.columns)
        rows = table_rows(table_state) if table_state is not None else None
        staged, prepared, refs, codes, flagged = flag_rows(df, rules, compiled, layout, name, rows)
        run = QualityRun(
            suite=rules,
            prepared=prepared,
            source=df,
            flagged=flagged,
            column=name,
            refs=refs,
            codes=codes,
            hidden=staged.hidden,
            values=tuple(staged.value_names()),
            checks=dataset_checks,
            run_id=run_id,
            run_time=started.run_time,
            notifiers=tuple(notifiers),
            families=tuple(staged.families),
            over_time=over_time,
            keys=tuple(keys or ()),
            sql_checks=sql_checks,
            error_rates=error_rates,
            codes_frame=staged.frame,
            table_state=table_state,
            table_keys=planned_keys(table_state, dataset_checks, staged.compiled, df.columns),
            **compiled_facts(staged.compiled, staged.early),
            lineage=told,
        )
        return _prechecked(run, keys, seen)


def compiled_facts(compiled: CompiledSuite, early: CompiledSuite | None) -> dict[str, Any]:
    """What a run plan keeps of the compiled rules: the key sets they partition by, whether
    one sums over a window, each rule's tree as written (before the passes), and ``early``, the
    suite as compiled before staging (what another input reuses)."""
    return {
        "compiled": early,
        "window_keys": window_keys(compiled),
        "window_sums": any(sums_over_windows(r.tree) for r in compiled.rules),
        "rule_trees": tuple(r.parsed if r.parsed is not None else r.tree for r in compiled.rules),
    }


def window_keys(compiled: CompiledSuite) -> tuple[tuple[str, ...], ...]:
    """The distinct key sets the compiled rules partition their input by, sorted."""
    found: set[tuple[str, ...]] = set()
    for rule in compiled.rules:
        found |= key_sets(rule.tree)
    return tuple(sorted(found))


def _prechecked(run: QualityRun, keys: Sequence[str] | None, seen: list[Any]) -> QualityRun:
    """``run`` with its precheck, when a ``fail`` rule or check stops a run (raised here, once
    ``run`` is in ``seen``: a failing precheck tells lineage what the plan found)."""
    seen.append(run)
    if any(r.stops_run for r in run.refs) or any(c.action == "fail" for c in run.checks):
        return replace(run, precheck=_precheck(run, keys))
    return run


def _precheck(run: QualityRun, keys: Sequence[str] | None) -> VerificationResult | None:
    """One aggregation: rows failing each ``fail`` rule plus every check's shareable metrics;
    the checks' verification (None without checks), or :class:`QualityRunFailed`."""
    from pyspark.sql import functions as F

    from quality_py.dataset.observe import checks_aggregation

    started = time.perf_counter()
    fail_refs = [r for r in run.refs if r.stops_run]  # with fail_if: judged once written
    fail_codes = [c for c, r in zip(run.codes, run.refs, strict=True) if r.stops_run]
    check_columns, assess_from = checks_aggregation(
        run.checks, run.source, policy=run.suite.policy, table_state=run.table_state
    )
    columns = [
        F.expr(f"count_if({fails_any_sql([c], run.prepared.probable_pass)})").alias(f"f{i}")
        for i, c in enumerate(fail_codes)
    ] + check_columns
    with wide_plan_settings(run.flagged.sparkSession):
        row = run.flagged.agg(*columns).collect()[0].asDict() if columns else None
    counts = [int(row[f"f{i}"]) for i in range(len(fail_refs))] if row is not None else []
    verification = None
    if run.checks:
        verification = assess_from(row)
    failing = tuple((r, n) for r, n in zip(fail_refs, counts, strict=True) if n > 0)
    failed_checks = failed_check_messages(verification) if verification else ()
    check_failed = verification is not None and any(
        not r.passed and action_of(run.checks, r.check) == "fail" for r in verification.results
    )
    if not failing and not check_failed:
        return verification
    sample: tuple[dict[str, Any], ...] = ()
    if failing:
        shown = list(keys) if keys else _read_by(run, [r for r, _ in failing])
        if shown:  # the declared keys, else what the failing rules read (never leading columns)
            picked = run.flagged.where(FAIL).select(*[quoted(c) for c in shown]).limit(5)
            with wide_plan_settings(run.flagged.sparkSession):
                rows = picked.collect()
            sample = tuple(r.asDict() for r in rows)
    raise QualityRunFailed(
        RunSummary(
            run.run_id,
            run.run_time,
            suite_name(run.suite),
            RunStatus.FAILED,
            failing_rules=failing,
            failed_checks=failed_checks,
            sample_keys=sample,
            checks=verification,
            timings={"precheck_seconds": round(time.perf_counter() - started, 3)},
            suite_name=run.suite.name,
        )
    )
