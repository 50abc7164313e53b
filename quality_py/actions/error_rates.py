"""Error-rate thresholds: the share of a run's rows quarantined, and of each rule's failing rows,
above which a run alerts (judged by :mod:`quality_py.actions.judging`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quality_py.errors import ModelError, item_text
from quality_py.gate.numbers import check_fields, number, numeric
from quality_py.history.records import Metric

if TYPE_CHECKING:
    from quality_py.actions.outcome import RunSummary


@dataclass(frozen=True)
class ErrorRates:
    """Alert thresholds: the share of input rows quarantined by the run, and per rule (by its
    name, its id for any version, or ``"id.version"``; a key naming no rule of the suite is
    refused when the run starts) the share of input rows failing it. A share alerts when
    it exceeds its threshold; ``inclusive``: when it reaches it and at least one row counts (as
    Spark-Expectations' ``error_drop_threshold`` does).

    >>> ErrorRates(run=0.05, rules={101: 0.01}).rules
    {'101': 0.01}
    """

    run: float | None = field(default=None, metadata=numeric(0, 1, optional=True))
    rules: Mapping[str, float] = field(default_factory=dict)
    inclusive: bool = False

    @property
    def _verb(self) -> str:
        return "reaches" if self.inclusive else "exceeds"

    @property
    def _at(self) -> str:
        return "at or over" if self.inclusive else "over"

    def _over(self, count: int, rate: float, limit: float) -> bool:
        return count > 0 and rate >= limit if self.inclusive else rate > limit

    def __post_init__(self) -> None:
        check_fields(self)
        if not isinstance(self.rules, Mapping):
            raise ModelError(f"error_rates rules are {{rule id: share}}, not {self.rules!r}")
        rules = {}
        for key, value in self.rules.items():
            try:
                rules[str(key)] = number(value, name=f"rule {key}'s error rate", low=0, high=1)
            except ModelError as err:
                err.parameter = f"rules.{key}"  # type: ignore[attr-defined]
                raise
        object.__setattr__(self, "rules", rules)

    def exceeded(self, summary: RunSummary) -> list[Metric]:
        """One ``alert`` metric per exceeded threshold.

        >>> from types import SimpleNamespace
        >>> summary = SimpleNamespace(input_rows=100, quarantined_rows=30, rules=None)
        >>> [m.message for m in ErrorRates(run=0.2).exceeded(summary)]
        ['error rate 0.3000 of the run exceeds 0.2']
        """
        out = []
        rows = summary.input_rows or 0
        if self.run is not None and rows and summary.quarantined_rows is not None:
            rate = summary.quarantined_rows / rows
            if self._over(summary.quarantined_rows, rate, self.run):
                out.append(
                    Metric("alert", "run", "quarantined_share", rate, "failed",
                           f"error rate {rate:.4f} of the run {self._verb} {self.run}",
                           group="warning")
                )  # fmt: skip
        stats = summary.rules.rules if summary.rules is not None else ()
        for r in stats:
            full = f"{r.rule_id.id}.{r.rule_id.version}"
            keys = (r.name, full, str(r.rule_id.id)) if r.name else (full, str(r.rule_id.id))
            limit = next((self.rules[k] for k in keys if k in self.rules), None)
            failing = r.failing if r.failing is not None else r.failed
            if limit is None or not rows:
                continue
            rate = failing / rows
            if self._over(failing, rate, limit):
                out.append(
                    Metric("alert", full, "failed_share", rate, "failed",
                           f"{item_text('rule', r.rule_id, r.name)} fails {rate:.4f} of the "
                           f"rows, {self._at} {limit}",
                           group="warning")
                )  # fmt: skip
        return out
