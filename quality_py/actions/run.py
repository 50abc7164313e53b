"""A quality run: valid rows, quarantined rows and stats from one suite and dataset checks.

Semantics (Spark-Expectations' hierarchy on our single data-quality column):

* a row failing a ``fail`` rule fails the whole run: :class:`QualityRunFailed` is raised before
  anything is written, with the rules, counts and sample keys;
* otherwise a row failing a ``drop`` rule leaves the valid output and goes to quarantine;
* a row failing only ``ignore`` rules stays valid and is also recorded in quarantine;
* a failing dataset check with action ``fail`` fails the run; with ``ignore`` it is recorded.

Every input row is in valid or quarantine (both for ignore-only failures), exactly once each.

Spark jobs: without ``fail`` rules or ``fail`` checks, :meth:`QualityRun.write` runs two (the
quarantine write, which counts its own rows when it goes to a path, and the valid write, which
carries every other count through ``observe``: actions/counting.py), plus one per
grouping key of dataset checks. With them, one aggregation runs first (in :func:`run_quality`) so
that a failing run writes nothing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from quality_py.actions.counting import RunCounts
from quality_py.actions.flags import (
    ANY,
    DROP,
    FAIL,
    RuleRef,
    failed_rules_sql,
    fails_any_sql,
    flag_rows,
)
from quality_py.actions.judging import ErrorRates, judge_written
from quality_py.actions.notify import Notifier, notify_all
from quality_py.actions.outcome import QualityRunFailed, RunSummary
from quality_py.actions.preconditions import (
    require_distinct_rule_ids,
    require_evaluable,
    require_quarantine_detail,
    require_run_id,
    require_usable_input,
    split_checks,
)
from quality_py.actions.samples import sample_rows
from quality_py.dataset.checks import Check, VerificationResult
from quality_py.errors import QualityError
from quality_py.history.over_time import OverTime
from quality_py.history.recording import (
    output_metrics,
    rule_metrics,
    sample_metrics,
    save_or_raise,
    save_quietly,
    summary_record,
)
from quality_py.model.enums import RunStatus
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame
from quality_py.progress import describing
from quality_py.runners.summary import stats_from_row
from quality_py.spark.session import wide_plan_settings
from quality_py.sql.compiler import CompiledSuite

if TYPE_CHECKING:
    from quality_py.actions.sql_checks import SqlCheck


def _suite_name(suite: RuleSuite) -> str:
    return f"{suite.id.id}.{suite.id.version}"


@dataclass
class _Outcome:
    """What a run learns as it goes: the precheck's verification and the written summary."""

    precheck: VerificationResult | None = None
    summary: RunSummary | None = None


@dataclass(frozen=True, kw_only=True)
class QualityRun:
    """The outputs of :func:`run_quality`: lazy ``valid`` and ``quarantine``, and ``stats``.

    ``write`` writes all three with the counts observed on the writes; ``stats`` read before a
    write runs one aggregation of its own. Frozen: what the run learns (the precheck, the
    summary) is kept in its outcome.
    """

    suite: RuleSuite
    prepared: RuleSuite
    source: Any  # the input: grouping analyzers read it (no rule is evaluated for them)
    flagged: Any  # the input, hidden rule values and codes, the DataQuality column, the flags
    column: str
    refs: tuple[RuleRef, ...]
    codes: tuple[str, ...]  # the hidden code column of each rule, in ``refs`` order
    hidden: tuple[str, ...]
    checks: tuple[Check, ...]
    run_id: str
    run_time: datetime
    notifiers: tuple[Notifier, ...] = ()
    outcome: _Outcome = field(default_factory=_Outcome)
    #: each rule's value family (``boolean`` rules are counted with fewer aggregates)
    families: tuple[str | None, ...] = ()
    #: where the run's record is kept (quality_py.history), its tags and anomaly checks
    over_time: OverTime = field(default_factory=OverTime)
    #: the columns shown as a failing row's keys (default: the first three)
    keys: tuple[str, ...] = ()
    sql_checks: tuple[SqlCheck, ...] = ()
    error_rates: ErrorRates | None = None

    @property
    def precheck(self) -> VerificationResult | None:
        """The dataset checks as the precheck found them (``fail`` checks), if it ran."""
        return self.outcome.precheck

    @property
    def summary(self) -> RunSummary | None:
        """The summary of the written run (None before :meth:`write` or :attr:`stats`)."""
        return self.outcome.summary

    @property
    def input_columns(self) -> list[str]:
        """The input's columns (the valid output has exactly these)."""
        hidden = {FAIL, DROP, ANY, self.column, *self.hidden}
        return [c for c in self.flagged.columns if c not in hidden]

    @property
    def valid(self) -> Any:
        """Rows failing no ``drop`` rule, with the input's columns only."""
        return self.flagged.where(f"NOT {DROP}").select(*[_q(c) for c in self.input_columns])

    @property
    def quarantine(self) -> Any:
        """Rows failing any rule: input columns, the data-quality column and run metadata."""
        return self._quarantine_of(self.flagged.where(ANY))

    def _quarantine_of(self, rows: DataFrame, detail: str = "full") -> DataFrame:
        """The quarantine's columns of ``rows`` (flagged rows failing a rule) in ``detail``."""
        from pyspark.sql import functions as F

        packed = detail == "ids"
        refs_sql = failed_rules_sql(
            self.refs, self.codes, self.prepared.probable_pass, self.families or None, packed
        )
        return rows.select(
            *[_q(c) for c in self.input_columns],
            *([] if packed else [_q(self.column)]),
            F.lit(self.run_id).alias("qp_run_id"),
            F.lit(self.run_time).cast("timestamp").alias("qp_run_time"),
            F.expr(f"NOT {DROP}").alias("qp_kept_in_valid"),
            F.expr(refs_sql).alias("qp_failed_rule_ids" if packed else "qp_failed_rules"),
        )

    @property
    def counting(self) -> RunCounts:
        """What the run counts on its valid write (quality_py.actions.counting)."""
        return RunCounts(
            self.codes, self.hidden[: len(self.codes)], self.families, self.prepared.probable_pass
        )

    def _observed_valid(self, quarantine_counted: bool = False) -> tuple[Any, Any, Any]:
        from pyspark.sql import Observation

        from quality_py.dataset.observe import observe_checks

        counts = Observation(f"quality_py_run_{uuid.uuid4().hex}")
        columns = self.counting.columns(quarantine_counted)
        # Spark cannot prune a column through an observation: observed on ``flagged`` itself,
        # the valid job would build the data-quality struct of every row only to drop it.
        # (Checks read input columns only: _require_evaluable.)
        observed = self.flagged.drop(self.column).observe(counts, *columns)
        pending = list(self.checks) if self.precheck is None else []  # precheck: already known
        observed, finish = observe_checks(
            observed, pending, policy=self.suite.policy, grouping_source=self.source
        )
        valid = observed.where(f"NOT {DROP}").select(*[_q(c) for c in self.input_columns])
        return valid, counts, (finish if pending else None)

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
        quarantine_detail: str = "full",
    ) -> RunSummary:
        """Write the outputs (paths, URIs or table names) and return the run's summary.

        ``target`` gets the valid rows with ``mode``; ``quarantine`` and ``stats`` are
        partitioned by run id and a run replaces only its own partition, so re-running a run id
        is idempotent. ``partition_valid_by_run`` does the same for the target (streaming).

        ``format``: ``auto`` (the default) writes paths as parquet, an existing table in its own
        format and a new table as Delta where the Spark server has Delta (else parquet);
        ``parquet``, ``delta``, ``orc``, ``json`` or ``csv`` for every output.

        Paths on this machine are published atomically (``publish="atomic"``, see
        :mod:`quality_py.actions.publish`): everything is staged beside its destination and
        switched in together at the end, so a run killed at any point leaves readers the previous
        run's complete outputs. A path atomic publication cannot prove local (an object store,
        ``dbfs:/``, ``/Volumes/``, a Spark whose writers may run on other machines) is refused
        with the alternatives: ``publish="direct"`` writes in place; Delta and tables are
        written directly, one commit per output.

        ``quarantine_detail``: ``full`` (the data-quality column and ``qp_failed_rules``) or
        ``ids`` (only ``qp_failed_rule_ids``, packed rule ids: docs/actions.md).

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
        from quality_py.actions.outputs import OutputWriter, require_apart

        require_quarantine_detail(quarantine_detail, self.prepared)
        places = {"valid": target, "quarantine": quarantine, "stats": stats}
        require_apart(self.source, [*places.items(), ("history", history_place(self.over_time))])
        started = time.perf_counter()
        outcomes: list[Any] = []
        try:
            spark = self.source.sparkSession
            with (
                OutputWriter([target, quarantine, stats], format, publish, spark) as out,
                wide_plan_settings(spark),
            ):
                where = (target, quarantine)
                how = (mode, partition_valid_by_run, quarantine_detail)
                summary = self._write_rows(out, where, how, started)
                summary, outcomes, failing = judge_written(self, summary)
                if failing:  # an error-level anomaly or SQL check: nothing is published
                    raise QualityRunFailed(replace(summary, status=RunStatus.FAILED))
                self.outcome.summary = summary
                if stats is not None:
                    frame = self.stats_frame(summary)
                    out.write(frame, stats, "overwrite", "qp_run_id", self.run_id)
                out.commit()
        except QualityRunFailed as err:
            self._record(err.summary, outcomes)
            notify_all(self.notifiers, "failure", err.summary)
            raise
        except Exception as err:
            failed = RunSummary(
                self.run_id, self.run_time, _suite_name(self.suite), RunStatus.FAILED
            )
            self._record(failed, (), message=f"{type(err).__name__}: {err}")
            notify_all(self.notifiers, "failure", failed, error=err)
            raise
        written = {"valid": target, "quarantine": quarantine, "stats": stats}
        return self._published(summary, [*outcomes, *output_metrics(written)])

    def _write_rows(
        self,
        out: Any,
        destinations: tuple[str | None, str | None],
        how: tuple[str, bool, str],
        started: float,
    ) -> RunSummary:
        """Write quarantine and valid rows and return the summary of their counts; ``how``: the
        valid rows' mode, whether they are partitioned by run, and the quarantine's detail.

        A quarantine written to a path counts its own rows (one aggregate over the failing rows
        only), so the valid job needs no rule but the ``drop`` rules' codes for its counts."""
        from pyspark.sql import Observation

        from quality_py.gate.locations import is_path

        target, quarantine = destinations
        mode, by_run, detail = how
        counted = quarantine is not None and is_path(quarantine)
        valid, counts, finish = self._observed_valid(quarantine_counted=counted)
        quarantined = Observation(f"quality_py_quarantine_{uuid.uuid4().hex}") if counted else None
        if quarantine is not None:
            rows = self.flagged.where(ANY)
            if quarantined is not None:
                rows = rows.observe(quarantined, *self.counting.quarantine_columns())
            frame = self._quarantine_of(rows, detail)
            out.write(frame, quarantine, "overwrite", "qp_run_id", self.run_id)
        self._write_valid(out, valid, target, mode, by_run)
        verification = finish() if finish is not None else self.precheck
        values = {**counts.get, **(quarantined.get if quarantined is not None else {})}
        return self._summary(values, verification, started)

    def _write_valid(
        self, out: Any, valid: DataFrame, target: str | None, mode: str, by_run: bool
    ) -> None:
        """The valid rows to ``target`` (partitioned by run id when ``by_run``), or to nowhere
        when there is no target: every row is still read, so every count is observed."""
        if target is None:
            with describing(valid.sparkSession, "checking every row"):
                valid.write.format("noop").mode("overwrite").save()
        elif by_run:
            from pyspark.sql import functions as F

            frame = valid.withColumn("qp_run_id", F.lit(self.run_id))
            out.write(frame, target, "overwrite", "qp_run_id", self.run_id)
        else:
            out.write(valid, target, mode)

    def _published(self, summary: RunSummary, outcomes: list[Any]) -> RunSummary:
        """After the outputs are published: keep the record (one that cannot be kept is an
        error, raised after the notifications), alert, and notify success."""
        lost: QualityError | None = None
        try:
            self._record(summary, outcomes, loud=True)
        except QualityError as err:
            lost = err
        alerts = [m.message or m.name for m in outcomes if m.status == "failed"]
        if alerts:
            notify_all(self.notifiers, "alert", summary, alerts=alerts)
        notify_all(self.notifiers, "success", summary)
        if lost is not None:
            raise lost
        return summary

    def _record(
        self, summary: RunSummary, outcomes: Any, message: str | None = None, loud: bool = False
    ) -> None:
        """Keep the run's record in the history (when the run has one), with each rule's action
        and description and a few failing rows (actions/samples.py: one small job stopping at
        ``over_time.sample_rows`` rows); ``loud``: a record that cannot be saved raises, else
        the run's own error stands."""
        if self.over_time.history is None:
            return
        samples: list[dict[str, Any]] = []
        where = FAIL if summary.failing_rules else ANY if summary.quarantined_rows else None
        if where is not None:
            try:
                samples = sample_rows(self, where)
            except Exception:
                samples = [{"keys": k, "values": {}, "failed": []} for k in summary.sample_keys]
        extra = [*rule_metrics(self.refs), *sample_metrics(samples), *outcomes]
        record = summary_record(summary, self.over_time.tags, extra, message)
        (save_or_raise if loud else save_quietly)(self.over_time.history, record)

    def _summary(
        self, values: dict[str, Any], verification: VerificationResult | None, started: float
    ) -> RunSummary:
        values = RunCounts.read(values)
        rows = int(values["rows"])
        dropped = int(values["dropped"])
        # a failing `fail` check stopped the run in the precheck: what is left is recorded only
        failed_checks = (
            () if verification is None else _failed_check_messages(self.checks, verification)
        )
        return RunSummary(
            self.run_id,
            self.run_time,
            _suite_name(self.suite),
            RunStatus.SUCCESS,
            input_rows=rows,
            valid_rows=rows - dropped,
            quarantined_rows=int(values["quarantined"]),
            dropped_rows=dropped,
            failed_checks=failed_checks,
            rules=stats_from_row(self.prepared, values),
            checks=verification,
            timings={"write_seconds": round(time.perf_counter() - started, 3)},
        )

    @property
    def stats(self) -> Any:
        """The stats as a DataFrame (after :meth:`write`, from its counts; else one query)."""
        summary = self.outcome.summary
        if summary is None:
            valid, counts, finish = self._observed_valid()
            with wide_plan_settings(valid.sparkSession):
                valid.write.format("noop").mode("overwrite").save()
            verification = finish() if finish is not None else self.precheck
            summary = self._summary(counts.get, verification, time.perf_counter())
            self.outcome.summary = summary
        return self.stats_frame(summary)

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
        from quality_py.actions.stats import stats_frame

        return stats_frame(self.flagged.sparkSession, self.suite, self.refs, summary)


def history_place(over_time: OverTime) -> str | None:
    """Where a run's history is written (a folder or ``table:NAME``), if it has one."""
    history = over_time.history
    root = getattr(history, "root", None)
    if isinstance(root, str):
        return root
    table = getattr(history, "table", None)
    return f"table:{table}" if isinstance(table, str) else None


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _action_of(checks: Sequence[Check], description: str) -> str:
    return next((c.action for c in checks if c.description == description), "ignore")


def _failed_check_messages(
    checks: Sequence[Check], verification: VerificationResult
) -> tuple[str, ...]:
    return tuple(
        f"[{_action_of(checks, r.check)}] {r.check}: {r.message}"
        for r in verification.results
        if not r.passed
    )


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

    ``suite`` may be ``compile_suite(suite)`` done beforehand (to report rule errors before any
    data is read); it is reused when the data's schema changes nothing in the suite.

    Raises :class:`QualityRunFailed` here when a ``fail`` rule or ``fail`` check fails (one
    aggregation job, run only when the suite or checks have ``fail`` actions; nothing is
    written). ``keys`` name the columns shown as sample failing rows (default: the first three).

    ``over_time`` (:class:`~quality_py.history.over_time.OverTime`: a metrics repository, tags
    and anomaly checks) keeps the run's record, with its tags (table, partition, ...), when the
    run is written or fails; the anomaly checks judge the run's metrics against that history
    before anything is published (an ``error``-level anomaly fails the run, a ``warning`` is
    reported in the summary). ``error_rates`` alert through the notifiers.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
    ...     Rule(Id(10, 1), "a > 0", action_if_failed="drop"),
    ...     Rule(Id(11, 1), "a < 3")])])
    >>> run = run_quality(spark.createDataFrame([(0,), (1,), (5,)], "a int"), suite)
    >>> sorted(r.a for r in run.valid.collect()), sorted(r.a for r in run.quarantine.collect())
    ([1, 5], [0, 5])
    """
    from quality_py.runners.staging import require_new_columns

    compiled = suite if isinstance(suite, CompiledSuite) else None
    rules = suite.suite if isinstance(suite, CompiledSuite) else suite
    over_time = over_time or OverTime()
    require_usable_input(df.columns, keys)
    run_id = run_id or uuid.uuid4().hex
    require_run_id(run_id)
    require_distinct_rule_ids(rules, over_time, error_rates)
    started = RunSummary(run_id, datetime.now(timezone.utc), _suite_name(rules), RunStatus.RUNNING)
    notify_all(tuple(notifiers), "start", started)
    with _failures_reported(over_time, tuple(notifiers), started):
        dataset_checks, sql_checks = split_checks(checks, rules.policy)
        require_new_columns(df, name)
        require_evaluable(dataset_checks, df, rules)
        staged, prepared, refs, codes, flagged = flag_rows(df, rules, compiled, layout, name)
        run = QualityRun(
            suite=rules,
            prepared=prepared,
            source=df,
            flagged=flagged,
            column=name,
            refs=refs,
            codes=codes,
            hidden=staged.hidden,
            checks=dataset_checks,
            run_id=run_id,
            run_time=started.run_time,
            notifiers=tuple(notifiers),
            families=tuple(staged.families),
            over_time=over_time,
            keys=tuple(keys or ()),
            sql_checks=sql_checks,
            error_rates=error_rates,
        )
        if any(r.action == "fail" for r in refs) or any(c.action == "fail" for c in dataset_checks):
            _precheck(run, keys)
    return run


@contextmanager
def _failures_reported(
    over_time: OverTime, notifiers: tuple[Notifier, ...], started: RunSummary
) -> Iterator[None]:
    """A run that fails before it is written is kept in the history and notified, then raised."""
    tags = dict(over_time.tags)
    try:
        yield
    except QualityRunFailed as err:
        if over_time.history is not None:
            save_quietly(over_time.history, summary_record(err.summary, tags))
        notify_all(notifiers, "failure", err.summary)
        raise
    except Exception as err:
        if over_time.history is not None:
            failed = replace(started, status=RunStatus.FAILED)
            reason = f"{type(err).__name__}: {err}"
            save_quietly(over_time.history, summary_record(failed, tags, (), reason))
        notify_all(notifiers, "failure", started, error=err)
        raise


def _precheck(run: QualityRun, keys: Sequence[str] | None) -> None:
    """One aggregation: rows failing each ``fail`` rule plus every check's shareable metrics."""
    from pyspark.sql import functions as F

    from quality_py.dataset.observe import checks_aggregation

    started = time.perf_counter()
    fail_refs = [r for r in run.refs if r.action == "fail"]
    fail_codes = [c for c, r in zip(run.codes, run.refs, strict=True) if r.action == "fail"]
    check_columns, assess_from = checks_aggregation(run.checks, run.source, policy=run.suite.policy)
    columns = [
        F.expr(f"count_if({fails_any_sql([c], run.prepared.probable_pass)})").alias(f"f{i}")
        for i, c in enumerate(fail_codes)
    ] + check_columns
    row = run.flagged.agg(*columns).collect()[0].asDict() if columns else None
    counts = [int(row[f"f{i}"]) for i in range(len(fail_refs))] if row is not None else []
    verification = None
    if run.checks:
        verification = assess_from(row)
        run.outcome.precheck = verification
    failing = tuple((r, n) for r, n in zip(fail_refs, counts, strict=True) if n > 0)
    failed_checks = _failed_check_messages(run.checks, verification) if verification else ()
    check_failed = verification is not None and any(
        not r.passed and _action_of(run.checks, r.check) == "fail" for r in verification.results
    )
    if not failing and not check_failed:
        return
    sample: tuple[dict[str, Any], ...] = ()
    if failing:
        shown = list(keys) if keys else run.input_columns[:3]
        rows = run.flagged.where(FAIL).select(*[_q(c) for c in shown]).limit(5).collect()
        sample = tuple(r.asDict() for r in rows)
    raise QualityRunFailed(
        RunSummary(
            run.run_id,
            run.run_time,
            _suite_name(run.suite),
            RunStatus.FAILED,
            failing_rules=failing,
            failed_checks=failed_checks,
            sample_keys=sample,
            checks=verification,
            timings={"precheck_seconds": round(time.perf_counter() - started, 3)},
        )
    )
