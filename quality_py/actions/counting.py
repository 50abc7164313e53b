"""The counts a quality run observes on its writes: rows, dropped rows and each rule's result
counts on the valid write, the quarantined rows on the quarantine's (no extra pass).

Boolean rules are counted from their values (:func:`~quality_py.runners.summary.code_counts`),
so the valid job computes only the codes its ``drop`` flag needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quality_py.actions.flags import ANY, DROP
from quality_py.model.types import Column
from quality_py.runners.summary import code_counts


@dataclass(frozen=True)
class RunCounts:
    """What a run counts: each rule's code column, value column and value family."""

    codes: tuple[str, ...]
    values: tuple[str, ...]
    families: tuple[str | None, ...]
    probable_pass: float

    def _rule_columns(self) -> list[Column]:
        from pyspark.sql import functions as F

        return [
            F.expr(sql).alias(key)
            for key, sql in code_counts(
                self.codes,
                self.probable_pass,
                self.values,
                self.families or None,
            )
        ]

    def columns(self, quarantine_counted: bool = False) -> list[Column]:
        """The aggregates to observe on every row: rows and rule counts, dropped rows,
        and, unless the quarantine's own write counts them (:meth:`quarantine_columns`), the
        quarantined rows: that count needs every rule's code on the valid job, which else
        computes only the ``drop`` rules' (500 rules: 6.5 s -> 4.2 s per 200k rows).

        >>> counts = RunCounts(("c",), ("v",), ("boolean",), 0.8)
        >>> [str(c) for c in counts.columns()][-1]
        "Column<'count_if(__qp_any) AS quarantined'>"
        >>> [str(c) for c in counts.columns(quarantine_counted=True)][-1]
        "Column<'count_if(__qp_drop) AS dropped'>"
        """
        from pyspark.sql import functions as F

        columns = [*self._rule_columns(), F.expr(f"count_if({DROP})").alias("dropped")]
        if not quarantine_counted:
            columns.append(F.expr(f"count_if({ANY})").alias("quarantined"))
        return columns

    @staticmethod
    def quarantine_columns() -> list[Column]:
        """The aggregate to observe on the quarantine's own rows: how many there are."""
        from pyspark.sql import functions as F

        return [F.count(F.lit(1)).alias("quarantined")]

    @staticmethod
    def read(observed: dict[str, Any]) -> dict[str, Any]:
        """The observed counts, with ``overall`` (rows failing no rule): the rows less the
        quarantined rows.

        >>> RunCounts.read({"rows": 3, "dropped": 1, "quarantined": 2})
        {'rows': 3, 'dropped': 1, 'quarantined': 2, 'overall': 1}
        """
        return {**observed, "overall": int(observed["rows"]) - int(observed["quarantined"])}


__all__ = ["RunCounts"]
