"""Grouping analyzers (Deequ Table I, lower half): states are value frequencies.

A frequency state is a DataFrame of ``(grouping columns..., count)`` (kept in Spark: it can be
as large as the column's cardinality), plus nothing else: the number of rows is the sum of the
counts. Merging is a union and a re-aggregation (Deequ's "outer join + summation"), lazily.
All metrics over one set of grouping columns come from **one** aggregation over its frequencies.

As in Deequ, rows whose grouping columns are **all** null are left out: they are no value and
do not count in the number of rows N of Distinctness, Uniqueness and Entropy (so ``is_unique``
passes on a nullable unique column). A row with some of several grouping columns null is a value.
The stored frequencies keep every row (the null group too), so states stay mergeable.
MutualInformation counts rows where both columns are non-null; Histogram makes null a bin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quality_py.model.types import DataFrame
from quality_py.sql.snippets import quoted

COUNT = "__qp_count"


def _cols(columns: Sequence[str]) -> list[str]:
    return [quoted(c) for c in columns]


@dataclass(frozen=True)
class FrequencyState:
    """Value frequencies of one set of grouping columns (a lazy DataFrame)."""

    columns: tuple[str, ...]
    frame: DataFrame

    @classmethod
    def of(cls, df: DataFrame, columns: Sequence[str]) -> FrequencyState:
        """The frequencies of ``columns`` in ``df`` (no job runs until a metric is asked for)."""
        frame = df.groupBy(*_cols(columns)).agg({"*": "count"})
        frame = frame.withColumnRenamed(frame.columns[-1], COUNT)
        return cls(tuple(columns), frame)

    def merge(self, other: FrequencyState) -> FrequencyState:
        """Union the frequencies and add the counts of equal values."""
        return FrequencyState.union([self, other])

    @staticmethod
    def union(states: Sequence[FrequencyState]) -> FrequencyState:
        """Many frequency states merged by one union and one re-aggregation (lazily)."""
        from functools import reduce

        from pyspark.sql import functions as F

        first = states[0]
        if len(states) == 1:
            return first
        assert all(s.columns == first.columns for s in states), [s.columns for s in states]
        names = [quoted(c) for c in first.frame.columns]
        both = reduce(lambda a, b: a.unionByName(b), (s.frame.select(*names) for s in states))
        merged = both.groupBy(*_cols(first.columns)).agg(F.sum(COUNT).alias(COUNT))
        return FrequencyState(first.columns, merged)


GroupKey = tuple[tuple[str, ...], str | None]  # grouping columns and the analyzers' filter


@dataclass(frozen=True)
class GroupingAnalyzer:
    """An analyzer whose state is the frequencies of ``columns`` (rows matching ``where``)."""

    columns: tuple[str, ...]
    where: str | None = None

    @property
    def key(self) -> GroupKey:
        """Analyzers with equal keys share one frequency state and one query."""
        return (self.columns, self.where)

    @property
    def name(self) -> str:
        """A stable name: kind and arguments."""
        args = ",".join(f"{k}={v}" for k, v in vars(self).items() if v is not None)
        return f"{type(self).__name__}({args})"

    def prepare(self, frame: DataFrame) -> Any:
        """Columns this analyzer needs added to the frequency frame (default: none)."""
        return frame

    def aggregations(self) -> list[str]:
        """Aggregates over the frequency frame (columns: grouping columns + count)."""
        raise NotImplementedError

    def metric(self, values: list[Any]) -> Any:
        """The metric from the aggregates' values."""
        raise NotImplementedError

    def _valued(self) -> str:
        """A group is a value when at least one grouping column is non-null (Deequ)."""
        return "(" + (" OR ".join(f"{c} IS NOT NULL" for c in _cols(self.columns)) or "true") + ")"

    def _all_valued(self) -> str:
        return "(" + (" AND ".join(f"{c} IS NOT NULL" for c in _cols(self.columns)) or "true") + ")"

    def _rows(self) -> str:
        """N: the rows that are a value."""
        return f"sum(IF({self._valued()}, {COUNT}, 0))"


def _one_col(column: str | Sequence[str]) -> tuple[str, ...]:
    return (column,) if isinstance(column, str) else tuple(column)


@dataclass(frozen=True, init=False)
class CountDistinct(GroupingAnalyzer):
    """Number of distinct (non-null) values of the columns."""

    def __init__(self, column: str | Sequence[str], where: str | None = None) -> None:
        object.__setattr__(self, "columns", _one_col(column))
        object.__setattr__(self, "where", where)

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()})"]

    def metric(self, values: list[Any]) -> float | None:
        return float(values[0] or 0)


@dataclass(frozen=True, init=False)
class Distinctness(CountDistinct):
    """Distinct values / rows."""

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()})", self._rows()]

    def metric(self, values: list[Any]) -> float | None:
        rows = int(values[1] or 0)
        return None if rows == 0 else int(values[0] or 0) / rows


@dataclass(frozen=True, init=False)
class Uniqueness(CountDistinct):
    """Values occurring exactly once / rows."""

    def aggregations(self) -> list[str]:
        return [f"count_if({self._valued()} AND {COUNT} = 1)", self._rows()]

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
        # -sum(p ln p) with p = c / N over valued groups, N = the valued rows:
        # ln(N) - sum(c ln c) / N
        return [f"sum(IF({self._valued()}, {COUNT} * ln({COUNT}), 0D))", self._rows()]

    def metric(self, values: list[Any]) -> float | None:
        import math

        rows = int(values[1] or 0)
        if rows == 0:
            return None
        return max(0.0, math.log(rows) - float(values[0] or 0.0) / rows)


@dataclass(frozen=True)
class Distribution:
    """A histogram: the most frequent values (as text; None = null) with counts and ratios."""

    bins: tuple[tuple[str | None, int, float], ...]
    number_of_bins: int
    rows: int

    def ratio(self, value: str | None) -> float:
        """The share of rows with ``value`` (0 when it is not among the kept bins)."""
        return next((r for v, _, r in self.bins if v == value), 0.0)

    def __float__(self) -> float:
        return float(self.number_of_bins)


@dataclass(frozen=True, init=False)
class Histogram(GroupingAnalyzer):
    """Value counts of one column, nulls as their own bin; keeps the ``max_bins`` most frequent.

    The metric is a :class:`Distribution` (its float value is the number of bins). All bins pass
    through one aggregate, so use it on categorical columns, as Deequ intends.
    """

    max_bins: int = 1000

    def __init__(self, column: str, where: str | None = None, max_bins: int = 1000) -> None:
        object.__setattr__(self, "columns", (column,))
        object.__setattr__(self, "where", where)
        object.__setattr__(self, "max_bins", int(max_bins))

    def aggregations(self) -> list[str]:
        (c,) = _cols(self.columns)
        pairs = f"collect_list(named_struct('n', -{COUNT}, 'v', CAST({c} AS STRING)))"
        return [f"sum({COUNT})", "count(1)", f"slice(array_sort({pairs}), 1, {self.max_bins})"]

    def metric(self, values: list[Any]) -> Distribution | None:
        rows = int(values[0] or 0)
        if rows == 0:
            return None
        bins = tuple((b["v"], -int(b["n"]), -int(b["n"]) / rows) for b in values[2] or [])
        return Distribution(bins, int(values[1] or 0), rows)


@dataclass(frozen=True, init=False)
class MutualInformation(GroupingAnalyzer):
    """Mutual information (natural log) of two columns over rows where both are non-null."""

    def __init__(self, first: str, second: str, where: str | None = None) -> None:
        object.__setattr__(self, "columns", (first, second))
        object.__setattr__(self, "where", where)

    def prepare(self, frame: DataFrame) -> Any:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        valued = F.expr(f"IF({self._all_valued()}, {COUNT}, 0)")
        for i, column in enumerate(_cols(self.columns)):
            name = f"__qp_marginal{i}"
            if name not in frame.columns:
                frame = frame.withColumn(
                    name, F.sum(valued).over(Window.partitionBy(F.expr(column)))
                )
        return frame

    def aggregations(self) -> list[str]:
        # MI = sum_ab (c/N) ln(c N / (c_a c_b)) = ln N + (1/N) sum c (ln c - ln c_a - ln c_b)
        c = COUNT
        term = f"{c} * (ln({c}) - ln(__qp_marginal0) - ln(__qp_marginal1))"
        return [
            f"sum(IF({self._all_valued()}, {term}, 0D))",
            f"sum(IF({self._all_valued()}, {c}, 0))",
        ]

    def metric(self, values: list[Any]) -> float | None:
        import math

        n = int(values[1] or 0)
        if n == 0:
            return None
        return max(0.0, math.log(n) + float(values[0] or 0.0) / n)  # >= 0; rounding can dip


def run_grouping(
    frequencies: FrequencyState, analyzers: Sequence[GroupingAnalyzer]
) -> dict[GroupingAnalyzer, Any]:
    """All analyzers over one set of grouping columns, in one aggregation over the frequencies."""
    frame = frequencies.frame
    for analyzer in analyzers:
        frame = analyzer.prepare(frame)
    sqls: list[str] = []
    spans = []
    for analyzer in analyzers:
        aggs = analyzer.aggregations()
        spans.append((len(sqls), len(sqls) + len(aggs)))
        sqls += aggs
    rows = frame.selectExpr(*[f"{s} AS `g{i}`" for i, s in enumerate(sqls)]).collect()
    values = list(rows[0]) if rows else [None] * len(sqls)
    return {a: a.metric(values[lo:hi]) for a, (lo, hi) in zip(analyzers, spans, strict=True)}
