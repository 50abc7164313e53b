"""A quality run's plan: what :func:`~quality_py.actions.run.run_quality` decided, as one frozen
value — the flagged frame, each rule's hidden code column, the checks, the run's identity — and
the frames derived from it (valid rows, quarantine rows, the counting columns).

Nothing here writes, judges, records or notifies (:mod:`quality_py.actions.execute` does), so a
plan can be inspected and tested without running a Spark job: ``plan.valid.explain()``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any

from quality_py.actions.counting import RunCounts, counts_column
from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.flags import (
    ANY,
    DROP,
    FAIL,
    FAILED_COLUMN,
    RuleRef,
    failed_rules_sql,
)
from quality_py.actions.notify import Notifier
from quality_py.actions.top_values import TopValuePlan, choose_pairs
from quality_py.dataset.checks import Check, VerificationResult
from quality_py.dataset.table_state import TableState
from quality_py.history.over_time import OverTime
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame
from quality_py.sql.table_firsts import FirstRows

if TYPE_CHECKING:
    from quality_py.actions.sql_checks import SqlCheck


@dataclass(frozen=True, kw_only=True)
class RunPlan:
    """Everything a quality run will do, decided and not yet done."""

    suite: RuleSuite
    prepared: RuleSuite
    source: Any  # the input: grouping analyzers read it (no rule is evaluated for them)
    flagged: Any  # the input, hidden rule values and codes, the DataQuality column, the flags
    column: str
    refs: tuple[RuleRef, ...]
    codes: tuple[str, ...]  # the hidden code column of each rule, in ``refs`` order
    hidden: tuple[str, ...]
    #: the hidden value column of each rule, in ``refs`` order (rules of one value share one)
    values: tuple[str, ...]
    checks: tuple[Check, ...]
    run_id: str
    run_time: datetime
    notifiers: tuple[Notifier, ...] = ()
    #: each rule's value family (``boolean`` rules are counted with fewer aggregates)
    families: tuple[str | None, ...] = ()
    #: where the run's record is kept (quality_py.history), its tags and anomaly checks
    over_time: OverTime = field(default_factory=OverTime)
    #: the columns shown as a failing row's keys (default: the first three)
    keys: tuple[str, ...] = ()
    sql_checks: tuple[SqlCheck, ...] = ()
    error_rates: ErrorRates | None = None
    #: the dataset checks as the precheck found them (``fail`` checks), when it ran
    precheck: VerificationResult | None = None
    #: the key sets the rules partition the input by (rules that see more than one row): each
    #: is a shuffle, which the execution computes once for all its jobs where that pays
    window_keys: tuple[tuple[str, ...], ...] = ()
    #: the input with every rule's value and code (what ``flagged`` is computed from): the
    #: frame kept once computed when the rules see more than one row
    codes_frame: Any = None
    #: whether a rule sums or averages over a window (its last bits depend on the order rows
    #: arrive in, so every job must read one computation of it)
    window_sums: bool = False
    #: where the table the input is a partition of keeps its partitions' states: the dataset
    #: checks answer for the table, and a published run keeps the input's state for its partition
    table_state: TableState | None = None
    #: the key sets the rules count rows by and the keep-one indexes they read, which a
    #: published run keeps for its partition (with a table state: actions/table_rows.py)
    table_keys: tuple[tuple[str, ...] | FirstRows, ...] = ()
    #: each rule's tree as written (before the passes), in ``refs`` order: what tells the
    #: columns its top failing values count (quality_py.sql.telling)
    rule_trees: tuple[Any, ...] = ()
    #: where the run's OpenLineage events go (an ``actions.lineage.RunLineage``), when asked for
    lineage: Any = None
    #: the suite as compiled for this input (a ``CompiledSuite``): ``run_quality`` of another
    #: input takes it in place of the suite and compiles nothing where that input's types
    #: answer its compile's questions as this one's did (a stream's next micro-batch)
    compiled: Any = None

    @property
    def input_columns(self) -> list[str]:
        """The input's columns (the valid output has exactly these)."""
        hidden = {FAIL, DROP, ANY, self.column, *self.hidden}
        return [c for c in self.flagged.columns if c not in hidden]

    @property
    def valid(self) -> Any:
        """Rows failing no ``drop`` rule, with the input's columns only."""
        return self.flagged.where(f"NOT {DROP}").select(*[quoted(c) for c in self.input_columns])

    @property
    def quarantine(self) -> Any:
        """Rows failing any rule in the full form (input columns, the data-quality column with
        every rule's code, run metadata, ``qp_failed_rules``): the view to inspect a run by;
        ``write`` writes the form its ``quarantine_detail`` says (by default the names).
        Written by you, it runs under your session's settings: with a suite of many rules, set
        ``spark.sql.codegen.hugeMethodLimit`` to 8000 first (``write`` does for its own jobs;
        Spark's default made the full quarantine of 84 rules over 1M rows take 54 s)."""
        return self.quarantine_of(self.flagged.where(ANY))

    def quarantine_of(self, rows: DataFrame, detail: str = "full") -> DataFrame:
        """The quarantine's columns of ``rows`` (flagged rows failing a rule) in ``detail``
        (``names``, ``ids`` or ``full``: :data:`~quality_py.actions.flags.QUARANTINE_DETAIL`)."""
        from pyspark.sql import functions as F

        refs_sql = failed_rules_sql(
            self.refs, self.codes, self.prepared.probable_pass, self.families or None, detail
        )
        return rows.select(
            *[quoted(c) for c in self.input_columns],
            *([quoted(self.column)] if detail == "full" else []),
            F.lit(self.run_id).alias("qp_run_id"),
            F.lit(self.run_time).cast("timestamp").alias("qp_run_time"),
            F.expr(f"NOT {DROP}").alias("qp_kept_in_valid"),
            F.expr(refs_sql).alias(FAILED_COLUMN[detail]),
        )

    @property
    def counting(self) -> RunCounts:
        """What the run counts on its valid write (quality_py.actions.counting)."""
        return RunCounts(
            self.codes,
            self.values,
            self.families,
            self.prepared.probable_pass,
            self.top_values,
        )

    @cached_property
    def top_values(self) -> TopValuePlan:
        """The failing values counted beside the counts (quality_py.actions.top_values): none
        when the Spark has no ``approx_top_k`` (before 4.1) or the run keeps no samples."""
        from quality_py.actions.top_values import telling_of
        from quality_py.spark.capabilities import has_function

        if self.over_time.sample_rows == 0:
            return TopValuePlan()
        if not has_function(self.flagged.sparkSession, "approx_top_k(id, 1, 8)"):
            return TopValuePlan()
        entities = [f"{r.rule.id}.{r.rule.version}" for r in self.refs]
        types = {f.name: f.dataType.simpleString() for f in self.flagged.schema.fields}
        columns = list(self.input_columns)
        hidden = self.over_time.hide_columns
        telling = telling_of(self.prepared, self.rule_trees, columns, hidden)
        return choose_pairs(entities, telling, hidden, columns, types)

    def observed_valid(self, quarantine_counted: bool = False) -> tuple[Any, Any, Any]:
        """The valid rows observed for every count (and the checks the precheck left), the
        observation, and the function that finishes the checks (None without pending checks)."""
        from pyspark.sql import Observation

        from quality_py.dataset.observe import observe_checks

        counts = Observation(f"quality_py_run_{uuid.uuid4().hex}")
        columns = [counts_column(self.counting.aggregates(quarantine_counted))]
        # Spark cannot prune a column through an observation: observed on ``flagged`` itself,
        # the valid job would build the data-quality struct of every row only to drop it.
        # (Checks read input columns only: preconditions.require_evaluable.)
        observed = self.flagged.drop(self.column).observe(counts, *columns)
        pending = list(self.checks) if self.precheck is None else []  # precheck: already known
        observed, finish = observe_checks(
            observed,
            pending,
            policy=self.suite.policy,
            grouping_source=self.source,
            table_state=self.table_state,
        )
        valid = observed.where(f"NOT {DROP}").select(*[quoted(c) for c in self.input_columns])
        return valid, counts, (finish if pending else None)

    @property
    def history_place(self) -> str | None:
        """Where the run's history is written (a folder or ``table:NAME``), if it has one."""
        return history_place(self.over_time)


def history_place(over_time: OverTime) -> str | None:
    """Where a run's history is written (a folder or ``table:NAME``), if it has one."""
    history = over_time.history
    root = getattr(history, "root", None)
    if isinstance(root, str):
        return root
    table = getattr(history, "table", None)
    return f"table:{table}" if isinstance(table, str) else None


def suite_name(suite: RuleSuite) -> str:
    """``id.version`` of a suite, as run summaries name it.

    >>> from quality_py import Id
    >>> suite_name(RuleSuite(Id(7, 2), []))
    '7.2'
    """
    return f"{suite.id.id}.{suite.id.version}"


def quoted(name: str) -> str:
    """A column name quoted for Spark SQL.

    >>> quoted("a`b")
    '`a``b`'
    """
    return "`" + name.replace("`", "``") + "`"


def failed_check_messages(verification: VerificationResult) -> tuple[str, ...]:
    """``[level] check: message`` of each failed constraint of ``verification``, by the level
    the check was given (``error``, which fails the run, or ``warning``; a warning was shown as
    its action, ``[ignore]``, which read as if it were not checked)."""
    return tuple(
        f"[{r.level}] {r.check}: {r.message}" for r in verification.results if not r.passed
    )


def action_of(checks: Sequence[Check], description: str) -> str:
    """The action of the check described as ``description`` (``ignore`` when none is)."""
    return next((c.action for c in checks if c.description == description), "ignore")
