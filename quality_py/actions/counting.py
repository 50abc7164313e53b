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

    def _rule_sqls(self, quarantine: bool | None = None) -> list[tuple[str, str]]:
        """Rows and each rule's counts (name, SQL); ``quarantine``: only the boolean rules'
        failures, counted from their codes (True), or every other count (False)."""
        pairs = code_counts(self.codes, self.probable_pass, self.values, self.families or None)
        copies = self.copies()
        if quarantine is None:
            return [(key, sql) for key, sql in pairs if key not in copies]
        by_code = dict(code_counts(self.codes, self.probable_pass, None, self.families or None))
        out = []
        for key, sql in pairs:
            failures = self._of_boolean_rule(key) and key.endswith("_failed")
            if key in copies:
                continue
            if quarantine and failures:
                out.append((key, by_code[key]))
            elif not quarantine and not failures:
                out.append((key, sql))
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

    def aggregates(self, quarantine_counted: bool = False) -> list[tuple[str, str]]:
        """The counts to observe on every row (name, SQL): rows and rule counts, dropped rows,
        and, unless the quarantine's own write counts them (:meth:`quarantine_aggregates`),
        the quarantined rows and the boolean rules' failures.

        >>> counts = RunCounts(("c",), ("v",), ("boolean",), 0.8)
        >>> counts.aggregates()[-1]
        ('quarantined', 'count_if(__qp_any)')
        >>> [name for name, _ in counts.aggregates(quarantine_counted=True)]
        ['rows', 'r0_null', 'dropped']
        """
        pairs = self._rule_sqls(False if quarantine_counted else None)
        pairs.append(("dropped", f"count_if({DROP})"))
        if not quarantine_counted:
            pairs.append(("quarantined", f"count_if({ANY})"))
            pairs += self.top.aggregates(self.codes, self.probable_pass, self.values, self.families)
        return pairs

    def quarantine_aggregates(self) -> list[tuple[str, str]]:
        """The counts to observe on the quarantine's own rows: how many there are and the
        boolean rules' failures, from their codes (each of their failing rows is quarantined).

        >>> counts = RunCounts(("c",), ("v",), ("boolean",), 0.8)
        >>> [name for name, _ in counts.quarantine_aggregates()]
        ['quarantined', 'r0_failed']
        """
        top = self.top.aggregates(self.codes, self.probable_pass, None, self.families)
        return [("quarantined", "count(1)"), *self._rule_sqls(True), *top]

    @staticmethod
    def read(observed: dict[str, Any]) -> dict[str, Any]:
        """The observed counts, with ``overall`` (rows failing no rule): the rows less the
        quarantined rows.

        >>> RunCounts.read({"rows": 3, "dropped": 1, "quarantined": 2})
        {'rows': 3, 'dropped': 1, 'quarantined': 2, 'overall': 1}
        """
        return {**observed, "overall": int(observed["rows"]) - int(observed["quarantined"])}


__all__ = ["RunCounts"]


#: The one observed column that holds a run's counts, as a struct.
COUNTS = "qp_counts"


def counts_column(pairs: list[tuple[str, str]]) -> Column:
    """One observed column holding every count of ``pairs`` (name, SQL) as a struct field.

    One column, one JVM call to build however many counts there are: a Column per count cost
    one Py4J round trip each on a classic session (~1 ms: 2 s of every run at 1000 rules, and
    most of a stream's micro-batch at 5000). Spark aggregates each count as it would alone.

    >>> _ = spark  # Columns are built in a session
    >>> str(counts_column([("rows", "count(1)"), ("n", "count_if(a)")]))
    "Column<'named_struct('rows', count(1), 'n', count_if(a)) AS qp_counts'>"
    """
    from pyspark.sql import functions as F

    fields = ", ".join(f"'{name}', {sql}" for name, sql in pairs)
    return F.expr(f"named_struct({fields})").alias(COUNTS)


def observed_counts(values: dict[str, Any]) -> dict[str, Any]:
    """The counts of an observation of :func:`counts_column`, by name (PySpark 3.5 hands a
    struct over as the JVM's row: read through its JSON, every count being a whole number).

    >>> from pyspark.sql import Row
    >>> observed_counts({COUNTS: Row(rows=3, n=1), "other": 5})
    {'other': 5, 'rows': 3, 'n': 1}
    """
    import json

    from pyspark.sql import Row

    out = {k: v for k, v in values.items() if k != COUNTS}
    if COUNTS in values:
        struct = values[COUNTS]
        out.update(struct.asDict() if isinstance(struct, Row) else json.loads(struct.json()))
    return out
