"""A quality run told to lineage (quality_py.lineage): which datasets the run reads and writes,
and what its rules and checks found, from the plan, the destinations and the summary.

Each rule is one assertion on the input: ``success`` when no row fails it, ``severity``
``error`` for a ``fail`` rule (its failure stops the run) and ``warn`` for the others, its
SQL as ``content``, the column it reads when it reads one, and its failing rows as ``actual``.
Each dataset check's constraint is one assertion too (``error`` at the error level). The
input's metrics are its rows and, per column, what the dataset checks counted of the batch
(nulls from completeness, minimum, maximum, sum). Delivery problems are lines of the run's
summary, as for alerts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from quality_py.gate.locations import Location, location
from quality_py.lineage.openlineage import Emitter, OpenLineage
from quality_py.model.types import DataFrame

if TYPE_CHECKING:
    from quality_py.actions.outcome import RunSummary
    from quality_py.actions.plan import RunPlan
    from quality_py.lineage.events import Assertion, ColumnNumbers, Outcome, RunIdentity
    from quality_py.model.rules import RuleSuite

#: the longest error text a FAIL event carries
_ERROR_CHARS = 2000


@dataclass(frozen=True)
class RunLineage:
    """One run's emitter, its job and its datasets (outputs once the run writes)."""

    emitter: Emitter
    identity: RunIdentity

    def start(self) -> list[str]:
        """The START event; the lines of what was not delivered."""
        return _lines(self.emitter.send("START", self.identity))

    def complete(self, plan: RunPlan, summary: RunSummary) -> list[str]:
        """The COMPLETE event of a published run."""
        return _lines(self.emitter.send("COMPLETE", self.identity, outcome(plan, summary)))

    def fail(
        self, plan: RunPlan | None, summary: RunSummary | None, error: BaseException | None
    ) -> list[str]:
        """The FAIL event: what the run found before it stopped, and why it stopped."""
        from quality_py.lineage.events import Outcome

        found = outcome(plan, summary) if plan is not None and summary is not None else Outcome()
        text = f"{type(error).__name__}: {error}" if error is not None else None
        if text is None and summary is not None:
            text = summary.describe()
        found = replace(found, error=(text or "the run failed")[:_ERROR_CHARS])
        return _lines(self.emitter.send("FAIL", self.identity, found))

    def writing(self, plan: RunPlan, destinations: Sequence[tuple[str, str | None]]) -> RunLineage:
        """This run's lineage with the outputs it writes."""
        from quality_py.outputs.writing import write_places

        writes = write_places(plan.source.sparkSession, destinations)
        return replace(self, identity=replace(self.identity, outputs=dict(writes)))


def _lines(line: str | None) -> list[str]:
    return [] if line is None else [line]


def run_lineage(
    notifiers: Sequence[object], source: DataFrame, suite: RuleSuite, run_id: str
) -> RunLineage | None:
    """The lineage of a run of ``suite`` over ``source`` when an :class:`OpenLineage` is among
    its ``notifiers`` (its emitter made now: a missing client or secret is refused before any
    job); None without one. Two are refused: a run is one OpenLineage run."""
    from quality_py.errors import ModelError

    settings = [n for n in notifiers if isinstance(n, OpenLineage)]
    if not settings:
        return None  # the OpenLineage client, an optional extra, is imported by lineage only
    if len(settings) > 1:
        raise ModelError(
            f"a run takes one OpenLineage setting, not {len(settings)}: a run is one "
            "OpenLineage run (one transport may fan out: the client's composite transport)",
            code="LINEAGE",
        )
    setting = settings[0]
    emitter = setting.emitter()  # refused here, naming the extra, when the client is missing
    from quality_py.lineage.events import RunIdentity

    suite_text = f"{suite.id.id}.{suite.id.version}"
    identity = RunIdentity(
        namespace=setting.namespace,
        job=setting.job or suite.name or f"suite_{suite.id.id}",
        run_id=run_id,
        suite=suite_text,
        input=_input(setting, source),
        outputs={},
        table_namespace=setting.table_namespace,
    )
    return RunLineage(emitter, identity)


def _input(setting: OpenLineage, source: DataFrame) -> Location | None:
    """The input as named, else the folder of the input's files (one place; several: the
    folder they share), else none."""
    if setting.input is not None:
        return location(setting.input)
    from quality_py.outputs.writing import read_places

    try:
        reads = read_places(source)
    except Exception:  # a source that will not say what it reads
        return None
    if len(reads) <= 1:
        return reads[0] if reads else None
    first = reads[0]
    if any((r.scheme, r.host) != (first.scheme, first.host) for r in reads):
        return None
    shared = os.path.commonpath([r.path for r in reads])
    return replace(first, path=shared, shown=shared)


def outcome(plan: RunPlan, summary: RunSummary) -> Outcome:
    """What ``summary`` says of ``plan``'s run, for lineage."""
    from quality_py.lineage.events import Outcome

    outputs = {"valid": summary.valid_rows, "quarantine": summary.quarantined_rows}
    return Outcome(
        assertions=(*_rule_assertions(plan, summary), *_check_assertions(summary)),
        rows=summary.input_rows,
        columns=_column_numbers(summary),
        output_rows={k: v for k, v in outputs.items() if v is not None},
    )


def _rule_assertions(plan: RunPlan, summary: RunSummary) -> list[Assertion]:
    from quality_py.lineage.events import Assertion
    from quality_py.sql.telling import sole_column

    expressions = {(s.id, r.id): r.expression for s, r in plan.suite.iter_rules()}
    counted: dict[tuple[Any, Any], int] = {}
    if summary.rules is not None:
        for stats in summary.rules.rules:
            rows = stats.failed if stats.failing is None else stats.failing
            counted[(stats.rule_set_id, stats.rule_id)] = rows
    else:  # a run stopped by its fail rules knows those rules' counts only
        counted = {(ref.rule_set, ref.rule): n for ref, n in summary.failing_rules}
    columns = plan.input_columns
    trees = plan.rule_trees or (None,) * len(plan.refs)
    out = []
    for ref, tree in zip(plan.refs, trees, strict=False):
        failing = counted.get((ref.rule_set, ref.rule))
        if failing is None:
            continue  # not counted: the run stopped before it
        rule_id = f"{ref.rule.id}.{ref.rule.version}"
        rule_set_id = f"{ref.rule_set.id}.{ref.rule_set.version}"
        out.append(
            Assertion(
                kind="custom_sql",
                name=ref.name or rule_id,
                success=failing == 0,
                severity="error" if ref.action == "fail" else "warn",
                column=sole_column(tree, columns) if tree is not None else None,
                content=expressions.get((ref.rule_set, ref.rule)),
                content_type="sql",
                expected="0",
                actual=str(failing),
                params={"ruleId": rule_id, "ruleSetId": rule_set_id, "action": ref.action},
            )
        )
    return out


def _check_assertions(summary: RunSummary) -> list[Assertion]:
    from quality_py.lineage.events import Assertion

    if summary.checks is None:
        return []
    out = []
    for result in summary.checks.results:
        kind = _check_kind(result.constraint)
        out.append(
            Assertion(
                kind=kind,
                name=f"{result.check}: {result.constraint}",
                success=result.passed,
                severity="error" if result.level == "error" else "warn",
                content=result.constraint,
                content_type="expression",
                actual=None if result.metric is None else str(result.metric),
                params={"check": result.check, "level": result.level},
            )
        )
    return out


#: words of a constraint's text and the assertion kind OpenLineage's examples name for them
_CHECK_KINDS = (("complete", "not_null"), ("unique", "unique"), ("size", "row_count"),
                ("fresh", "freshness"))  # fmt: skip


def _check_kind(constraint: str) -> str:
    """The kind of a dataset check's constraint, from its text.

    >>> _check_kind("note completeness"), _check_kind("size >= 20"), _check_kind("min(amount)")
    ('not_null', 'row_count', 'dataset_check')
    """
    low = constraint.lower()
    return next((kind for word, kind in _CHECK_KINDS if word in low), "dataset_check")


def _column_numbers(summary: RunSummary) -> Mapping[str, ColumnNumbers]:
    """Per column, what the dataset checks counted of the batch (whole-batch analyzers only)."""
    from quality_py.dataset.analyzers import Completeness, Maximum, Minimum, Sum
    from quality_py.dataset.states import ExtremeState, RatioState, SumState
    from quality_py.lineage.events import ColumnNumbers

    state = None if summary.checks is None else summary.checks.state
    if state is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for analyzer, value in state.states.items():
        column = getattr(analyzer, "column", None)
        if not isinstance(column, str) or getattr(analyzer, "where", None) is not None:
            continue
        numbers = found.setdefault(column, {})
        if type(analyzer) is Completeness and isinstance(value, RatioState):
            numbers["nulls"] = value.rows - value.matches
        elif type(analyzer) in (Minimum, Maximum) and isinstance(value, ExtremeState):
            if getattr(analyzer, "kind", None) is None:  # a number, not a time
                kind = "minimum" if type(analyzer) is Minimum else "maximum"
                numbers[kind] = value.value
        elif type(analyzer) is Sum and isinstance(value, SumState):
            numbers["total"], numbers["count"] = value.total, value.count
    return {column: ColumnNumbers(**numbers) for column, numbers in found.items() if numbers}


__all__ = ["RunLineage", "outcome", "run_lineage"]
