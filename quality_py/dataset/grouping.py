"""Grouping analyzers (Deequ Table I, lower half): states are value frequencies.

A frequency state is a DataFrame of ``(grouping columns..., count)`` (kept in Spark: it can be
as large as the column's cardinality), plus nothing else: the number of rows is the sum of the
counts. Merging is a union and a re-aggregation (Deequ's "outer join + summation"), lazily.
All metrics over one set of grouping columns come from **one** aggregation over its frequencies.

A value counts only when all its grouping columns are non-null (as in Deequ); rows with nulls
still count in the number of rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from quality_py.sql.build import to_sql

COUNT = "__qp_count"


def _cols(columns: Sequence[str]) -> list[str]:
    return [to_sql(exp.column(c, quoted=True)) for c in columns]


@dataclass(frozen=True)
class FrequencyState:
    """Value frequencies of one set of grouping columns (a lazy DataFrame)."""

    columns: tuple[str, ...]
    frame: Any

    @classmethod
    def of(cls, df: Any, columns: Sequence[str]) -> FrequencyState:
        """The frequencies of ``columns`` in ``df`` (no job runs until a metric is asked for)."""
        frame = df.groupBy(*_cols(columns)).agg({"*": "count"})
        frame = frame.withColumnRenamed(frame.columns[-1], COUNT)
        return cls(tuple(columns), frame)

    def merge(self, other: FrequencyState) -> FrequencyState:
        """Union the frequencies and add the counts of equal values."""
        from pyspark.sql import functions as F

        assert self.columns == other.columns, (self.columns, other.columns)
        both = self.frame.unionByName(other.frame)
        merged = both.groupBy(*_cols(self.columns)).agg(F.sum(COUNT).alias(COUNT))
        return FrequencyState(self.columns, merged)


@dataclass(frozen=True)
class GroupingAnalyzer:
    """An analyzer whose state is the frequencies of ``columns``."""

    columns: tuple[str, ...]

    def aggregations(self) -> list[str]:
        """Aggregates over the frequency frame (columns: grouping columns + count)."""
        raise NotImplementedError

    def metric(self, values: list[Any]) -> float | None:
        """The metric from the aggregates' values."""
        raise NotImplementedError

    def _valued(self) -> str:
        return " AND ".join(f"{c} IS NOT NULL" for c in _cols(self.columns)) or "true"


def _one_col(column: str | Sequence[str]) -> tuple[str, ...]:
    return (column,) if isinstance(column, str) else tuple(column)


@dataclass(frozen=True, init=False)
class CountDistinct(GroupingAnalyzer):
    """Number of distinct (non-null) values of the columns."""

    def __init__(self, column: str | Sequence[str]) -> None:
        object.__setattr__(self, "columns", _one_col(column))

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()})"]

    def metric(self, values: list[Any]) -> float | None:
        return float(values[0] or 0)


@dataclass(frozen=True, init=False)
class Distinctness(CountDistinct):
    """Distinct values / rows."""

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()})", f"sum({COUNT})"]

    def metric(self, values: list[Any]) -> float | None:
        rows = int(values[1] or 0)
        return None if rows == 0 else int(values[0] or 0) / rows


@dataclass(frozen=True, init=False)
class Uniqueness(CountDistinct):
    """Values occurring exactly once / rows."""

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()} AND {COUNT} = 1)", f"sum({COUNT})"]

    def metric(self, values: list[Any]) -> float | None:
        rows = int(values[1] or 0)
        return None if rows == 0 else int(values[0] or 0) / rows


@dataclass(frozen=True, init=False)
class UniqueValueRatio(CountDistinct):
    """Values occurring exactly once / distinct values."""

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()} AND {COUNT} = 1)", f"count_if({self._valued()})"]

    def metric(self, values: list[Any]) -> float | None:
        distinct = int(values[1] or 0)
        return None if distinct == 0 else int(values[0] or 0) / distinct


@dataclass(frozen=True, init=False)
class Entropy(CountDistinct):
    """Entropy (natural log) of the value distribution over rows."""

    def aggregations(self) -> list[str]:
        # -sum(p ln p) with p = c / N over valued groups, N = all rows (nulls included):
        # (ln(N) * sum(c) - sum(c ln c)) / N
        return [
            f"sum(IF({self._valued()}, {COUNT} * ln({COUNT}), 0D))",
            f"sum(IF({self._valued()}, {COUNT}, 0))",
            f"sum({COUNT})",
        ]

    def metric(self, values: list[Any]) -> float | None:
        import math

        rows = int(values[2] or 0)
        if rows == 0:
            return None
        return (math.log(rows) * int(values[1] or 0) - float(values[0] or 0.0)) / rows


def run_grouping(
    frequencies: FrequencyState, analyzers: Sequence[GroupingAnalyzer]
) -> dict[GroupingAnalyzer, float | None]:
    """All analyzers over one set of grouping columns, in one aggregation over the frequencies."""
    sqls: list[str] = []
    spans = []
    for analyzer in analyzers:
        aggs = analyzer.aggregations()
        spans.append((len(sqls), len(sqls) + len(aggs)))
        sqls += aggs
    rows = frequencies.frame.selectExpr(*[f"{s} AS `g{i}`" for i, s in enumerate(sqls)]).collect()
    values = list(rows[0]) if rows else [None] * len(sqls)
    return {a: a.metric(values[lo:hi]) for a, (lo, hi) in zip(analyzers, spans, strict=True)}
