"""A written run's rules judged against their tolerances (``warn_if``, ``fail_if``): each rule's
failing rows of the run's input rows, from the counts the write observed (no extra scan).

A rule past ``fail_if`` fails the run (nothing is published); past ``warn_if`` it warns. Every
judged tolerance is in the summary (``tolerances``), the stats (kind ``tolerance``), the history
(metrics of kind ``tolerance``) and ``--json``; the ones past are in the failed checks that
alerts and the console show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quality_py.errors import item_text
from quality_py.history.records import Metric
from quality_py.model.ids import Id
from quality_py.model.tolerance import TOLERANCE_FIELDS, parse_tolerance, share_text

if TYPE_CHECKING:
    from quality_py.actions.flags import RuleRef
    from quality_py.runners.summary import SuiteStats

#: the level of a tolerance that is past, by its field
LEVELS = {"fail_if": "error", "warn_if": "warning"}


@dataclass(frozen=True)
class RuleTolerance:
    """One rule's tolerance as a run judged it: ``failing`` of ``rows`` against ``tolerance``
    (``field``: ``fail_if`` or ``warn_if``), ``past`` or not.

    >>> t = RuleTolerance(Id(101, 1), "late", "warn_if", "> 0.5 %", 31, 5000, True)
    >>> t.share, t.message
    (0.0062, "rule 'late' (101.1) fails 31 of 5000 rows (0.62 %), past its warn_if '> 0.5 %'")
    """

    rule: Id
    name: str | None
    field: str
    tolerance: str
    failing: int
    rows: int
    past: bool

    @property
    def entity(self) -> str:
        """The rule's ``id.version``."""
        return f"{self.rule.id}.{self.rule.version}"

    @property
    def share(self) -> float | None:
        """The failing rows' share of the run's rows (None with no rows)."""
        return self.failing / self.rows if self.rows else None

    @property
    def level(self) -> str:
        """``error`` (``fail_if``) or ``warning`` (``warn_if``)."""
        return LEVELS[self.field]

    @property
    def status(self) -> str:
        """``failed`` (past ``fail_if``), ``warning`` (past ``warn_if``) or ``passed``."""
        if not self.past:
            return "passed"
        return "failed" if self.level == "error" else "warning"

    @property
    def message(self) -> str:
        """What was judged, in one line."""
        rule = item_text("rule", self.rule, self.name)
        where = "past" if self.past else "within"
        return (
            f"{rule} fails {self.failing} of {self.rows} rows "
            f"({share_text(self.failing, self.rows)}), {where} its {self.field} "
            f"{self.tolerance!r}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``--json``, notifiers)."""
        return {
            "rule": self.entity,
            "name": self.name,
            "field": self.field,
            "tolerance": self.tolerance,
            "failing_rows": self.failing,
            "rows": self.rows,
            "share": self.share,
            "status": self.status,
        }

    def metric(self) -> Metric:
        """The history's metric: kind ``tolerance``, the rule, the field, the share."""
        status = "failed" if self.past else "passed"
        return Metric("tolerance", self.entity, self.field, self.share, status, self.message,
                      group=self.level)  # fmt: skip


def judge_tolerances(
    refs: Sequence[RuleRef], stats: SuiteStats | None
) -> tuple[RuleTolerance, ...]:
    """Every tolerance of ``refs`` judged on the run's rule ``stats``, in rule order, ``fail_if``
    before ``warn_if``.

    >>> from quality_py.actions.flags import RuleRef
    >>> from quality_py.runners.summary import RuleStats, SuiteStats
    >>> ref = RuleRef(Id(1, 1), Id(2, 1), "drop", None, None, (), warn_if="> 1 %")
    >>> stats = SuiteStats(200, 197, (RuleStats(Id(1, 1), Id(2, 1), 197, 3, 0, 0, 0),))
    >>> [(t.field, t.past) for t in judge_tolerances([ref], stats)]
    [('warn_if', True)]
    """
    if stats is None:
        return ()
    counts = {
        (r.rule_set_id, r.rule_id): r.failing if r.failing is not None else r.failed
        for r in stats.rules
    }
    out = []
    for ref in refs:
        failing = counts.get((ref.rule_set, ref.rule))
        if failing is None:
            continue
        for field in TOLERANCE_FIELDS:
            text = getattr(ref, field)
            if text is None:
                continue
            past = parse_tolerance(text, field=field, item_id=ref.rule).past(failing, stats.rows)
            out.append(RuleTolerance(ref.rule, ref.name, field, text, failing, stats.rows, past))
    return tuple(out)


def past_messages(tolerances: Sequence[RuleTolerance]) -> tuple[str, ...]:
    """``[tolerance level] message`` of each tolerance past; a rule past its ``fail_if`` is not
    also listed for its ``warn_if``.

    >>> past = RuleTolerance(Id(2, 1), None, "fail_if", "> 5", 9, 100, True)
    >>> also = RuleTolerance(Id(2, 1), None, "warn_if", "> 1", 9, 100, True)
    >>> past_messages([past, also])
    ("[tolerance error] rule 2.1 fails 9 of 100 rows (9.00 %), past its fail_if '> 5'",)
    """
    failed = {t.rule for t in tolerances if t.past and t.field == "fail_if"}
    return tuple(
        f"[tolerance {t.level}] {t.message}"
        for t in tolerances
        if t.past and (t.field == "fail_if" or t.rule not in failed)
    )


__all__ = ["RuleTolerance", "judge_tolerances", "past_messages"]
