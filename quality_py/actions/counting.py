"""The counts a quality run observes on its writes: rows, dropped rows and each rule's result
counts on the valid write, the quarantined rows on the quarantine's (no extra pass).

Boolean rules are counted from their values (:func:`~quality_py.runners.summary.code_counts`),
so the valid job computes only the codes its ``drop`` flag needs. When the quarantine counts
its own rows, it also counts the boolean rules' failures, from their codes: a row a boolean rule
fails is a quarantined row, so the counts are the same, rows that fail nothing cost no count,
and the codes are what the quarantine's reasons read anyway. Their null values stay counted on
the valid job (counted on the quarantine, the values of every rule had to travel with each
quarantined row: 2.19x the hand-written run at 500 rules where every row fails, against 1.69x).
Measured in benchmarks/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quality_py.actions.flags import ANY, DROP
from quality_py.actions.top_values import TopValuePlan
from quality_py.model.types import Column
from quality_py.runners.summary import code_counts


@dataclass(frozen=True)
class RunCounts:
    """What a run counts: each rule's code column, value column and value family."""

    codes: tuple[str, ...]
    values: tuple[str, ...]
    families: tuple[str | None, ...]
    probable_pass: float
    #: the failing values counted beside the counts (none before Spark 4.1)
    top: TopValuePlan = field(default_factory=TopValuePlan)

    def _rule_columns(self, quarantine: bool | None = None) -> list[Column]:
        """Rows and each rule's counts; ``quarantine``: only the boolean rules' failures,
        counted from their codes (True), or every other count (False)."""
        from pyspark.sql import functions as F

        pairs = code_counts(self.codes, self.probable_pass, self.values, self.families or None)
        copies = self.copies()
        if quarantine is None:
            return [F.expr(sql).alias(key) for key, sql in pairs if key not in copies]
        by_code = dict(code_counts(self.codes, self.probable_pass, None, self.families or None))
        out = []
        for key, sql in pairs:
            failures = self._of_boolean_rule(key) and key.endswith("_failed")
            if key in copies:
                continue
            if quarantine and failures:
                out.append(F.expr(by_code[key]).alias(key))
            elif not quarantine and not failures:
                out.append(F.expr(sql).alias(key))
        return out

    def copies(self) -> dict[str, str]:
        """The counts that are another's (``r<i>_<kind>`` -> the first rule's key): rules that
        share their value column (:func:`~quality_py.runners.staging.rule_slots`) have the same
        counts, aggregated once.

        >>> RunCounts(("c0", "c1", "c2"), ("v0", "v1", "v0"), ("boolean",) * 3, 0.8).copies()
        {'r2_failed': 'r0_failed', 'r2_null': 'r0_null'}
        """
        first: dict[str, int] = {}
        for i, value in enumerate(self.values):
            first.setdefault(value, i)
        out: dict[str, str] = {}
        for key, _ in code_counts(
            self.codes, self.probable_pass, self.values, self.families or None
        ):
            if key.startswith("r") and "_" in key:
                rule, kind = key[1:].split("_", 1)
                source = first[self.values[int(rule)]]
                if source != int(rule):
                    out[key] = f"r{source}_{kind}"
        return out

    def completed(self, observed: dict[str, Any]) -> dict[str, Any]:
        """``observed`` with the counts of rules sharing another's code (:meth:`copies`).

        >>> counts = RunCounts(("c0", "c1"), ("v0", "v0"), ("boolean",) * 2, 0.8)
        >>> counts.completed({"rows": 2, "r0_failed": 1, "r0_null": 0})["r1_failed"]
        1
        """
        copied = {k: observed[v] for k, v in self.copies().items() if v in observed}
        return {**observed, **copied}

    def _of_boolean_rule(self, key: str) -> bool:
        """Whether the count ``key`` (``rows`` or ``r<i>_<kind>``) is a boolean rule's."""
        if not key.startswith("r") or "_" not in key or not self.families:
            return False
        return self.families[int(key[1:].split("_", 1)[0])] == "boolean"

    def columns(self, quarantine_counted: bool = False) -> list[Column]:
        """The aggregates to observe on every row: rows and rule counts, dropped rows,
        and, unless the quarantine's own write counts them (:meth:`quarantine_columns`), the
        quarantined rows and the boolean rules' failures.

        >>> _ = spark  # Columns are built in a session
        >>> counts = RunCounts(("c",), ("v",), ("boolean",), 0.8)
        >>> [str(c) for c in counts.columns()][-1]
        "Column<'count_if(__qp_any) AS quarantined'>"
        >>> [str(c).rsplit(" AS ", 1)[1][:-2] for c in counts.columns(quarantine_counted=True)]
        ['rows', 'r0_null', 'dropped']
        """
        from pyspark.sql import functions as F

        rules = self._rule_columns(False if quarantine_counted else None)
        columns = [*rules, F.expr(f"count_if({DROP})").alias("dropped")]
        if not quarantine_counted:
            columns.append(F.expr(f"count_if({ANY})").alias("quarantined"))
            columns += self.top.columns(self.codes, self.probable_pass, self.values, self.families)
        return columns

    def quarantine_columns(self) -> list[Column]:
        """The aggregates to observe on the quarantine's own rows: how many there are and the
        boolean rules' failures, from their codes (each of their failing rows is quarantined).

        >>> _ = spark  # Columns are built in a session
        >>> counts = RunCounts(("c",), ("v",), ("boolean",), 0.8)
        >>> [str(c).rsplit(" AS ", 1)[1][:-2] for c in counts.quarantine_columns()]
        ['quarantined', 'r0_failed']
        """
        from pyspark.sql import functions as F

        top = self.top.columns(self.codes, self.probable_pass, None, self.families)
        return [F.count(F.lit(1)).alias("quarantined"), *self._rule_columns(True), *top]

    @staticmethod
    def read(observed: dict[str, Any]) -> dict[str, Any]:
        """The observed counts, with ``overall`` (rows failing no rule): the rows less the
        quarantined rows.

        >>> RunCounts.read({"rows": 3, "dropped": 1, "quarantined": 2})
        {'rows': 3, 'dropped': 1, 'quarantined': 2, 'overall': 1}
        """
        return {**observed, "overall": int(observed["rows"]) - int(observed["quarantined"])}


__all__ = ["RunCounts"]
