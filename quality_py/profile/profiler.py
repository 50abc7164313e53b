"""A column profiler in at most three passes over the data (the Deequ paper's section 4.2).

1. **One aggregation** for every column: completeness, an approximate distinct count (an HLL
   sketch), for text columns the inferred type of each value (integral, fractional, boolean,
   string: the rules of :class:`~quality_py.dataset.analyzers.DataType`), for numeric columns
   minimum, maximum, mean, population standard deviation and sum. These are the dataset
   analyzers' own aggregations, shared in one scan.
2. **One grouped query** for the value frequencies of every low-cardinality column (approximate
   distinct count at most ``max_categories``): each row contributes one ``(column, value)`` pair
   per such column, grouped once.
3. **One aggregation** of exact distinct counts, only for the columns that look unique (an
   approximate distinct count within 1% of the non-null count), so a suggested uniqueness
   check is never based on the sketch's error.

Columns of other types (nested, binary, maps) are profiled for completeness only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quality_py.model.types import DataFrame
from quality_py.sql.snippets import quoted

_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")
_TEXT = ("string", "varchar", "char")


@dataclass(frozen=True)
class ColumnProfile:
    """What the profiler learned of one column."""

    name: str
    spark_type: str
    completeness: float | None
    approx_distinct: int | None = None
    #: counts of non-null values per inferred type (text columns)
    type_counts: Mapping[str, int] = field(default_factory=dict)
    minimum: float | None = None
    maximum: float | None = None
    mean: float | None = None
    stddev: float | None = None
    total: float | None = None
    #: value -> rows, for low-cardinality columns (nulls are not counted)
    histogram: Mapping[str, int] | None = None
    #: exact distinct non-null values, for columns that look unique
    exact_distinct: int | None = None

    @property
    def is_numeric(self) -> bool:
        """Whether Spark holds the column as a number."""
        return self.spark_type.split("(")[0] in _NUMERIC

    @property
    def inferred_type(self) -> str | None:
        """The one type of every non-null value of a text column (None: mixed or not text)."""
        counts = {k: v for k, v in self.type_counts.items() if v}
        return next(iter(counts)) if len(counts) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (for reports and the suggested ruleset's comments)."""
        return {
            "name": self.name,
            "spark_type": self.spark_type,
            "completeness": self.completeness,
            "approx_distinct": self.approx_distinct,
            "type_counts": dict(self.type_counts),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "mean": self.mean,
            "stddev": self.stddev,
            "sum": self.total,
            "histogram": None if self.histogram is None else dict(self.histogram),
            "exact_distinct": self.exact_distinct,
        }


@dataclass(frozen=True)
class DatasetProfile:
    """The row count and a profile per column, in the input's column order."""

    rows: int
    columns: tuple[ColumnProfile, ...]
    passes: int

    def column(self, name: str) -> ColumnProfile:
        """The profile of ``name``."""
        return next(c for c in self.columns if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "rows": self.rows,
            "passes": self.passes,
            "columns": [c.to_dict() for c in self.columns],
        }


def _quoted(name: str) -> str:
    """A column name in SQL text we hand Spark: generated (a name holding ``${``, which Spark
    would substitute, is refused; sql/build.py)."""
    return quoted(name)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _first_pass(kinds: dict[str, str], simple: list[str]) -> list[Any]:
    """Pass 1's analyzers: the size, every column's completeness, approximate distinct counts
    of simple columns, type counts of text and the moments of numbers."""
    from quality_py.dataset.analyzers import (
        Completeness,
        DataType,
        Maximum,
        Mean,
        Minimum,
        Size,
        StandardDeviation,
        Sum,
    )
    from quality_py.dataset.sketches import ApproxCountDistinct

    analyzers: list[Any] = [Size()]
    for name, kind in kinds.items():
        analyzers.append(Completeness(name))
        if name in simple:
            analyzers.append(ApproxCountDistinct(name))
        if kind in _TEXT:
            analyzers.append(DataType(name))
        if kind.split("(")[0] in _NUMERIC:
            analyzers += [Minimum(name), Maximum(name), Mean(name), StandardDeviation(name)]
            analyzers.append(Sum(name))
    return analyzers


def _histograms(df: DataFrame, low: list[str]) -> dict[str, dict[str, int]]:
    """Every low-cardinality column's value frequencies, in one grouped query."""
    histograms: dict[str, dict[str, int]] = {n: {} for n in low}
    pairs = ", ".join(
        f"named_struct('c', {i}, 'v', CAST({_quoted(n)} AS STRING))" for i, n in enumerate(low)
    )
    counted = (
        df.selectExpr(f"inline(array({pairs}))")
        .where("v IS NOT NULL")
        .groupBy("c", "v")
        .count()
        .collect()
    )
    for r in counted:
        histograms[low[int(r["c"])]][str(r["v"])] = int(r["count"])
    return histograms


def _columns(
    kinds: dict[str, str],
    first: Any,
    approx: dict[str, int | None],
    histograms: dict[str, dict[str, int]],
    exact: dict[str, int],
) -> list[ColumnProfile]:
    """Each column's profile from the three passes' results."""
    from quality_py.dataset.analyzers import (
        Completeness,
        DataType,
        Maximum,
        Mean,
        Minimum,
        StandardDeviation,
        Sum,
    )
    from quality_py.dataset.states import TypeCountsState

    metrics = first.metrics
    out = []
    for name, kind in kinds.items():
        numeric = kind.split("(")[0] in _NUMERIC
        state = first.states.get(DataType(name)) if kind in _TEXT else None
        counts = (
            {t: getattr(state, t) for t in ("integral", "fractional", "boolean", "string")}
            if isinstance(state, TypeCountsState)
            else {}
        )
        out.append(
            ColumnProfile(
                name,
                kind,
                _float(metrics[Completeness(name)]),
                approx.get(name),
                counts,
                _float(metrics.get(Minimum(name))) if numeric else None,
                _float(metrics.get(Maximum(name))) if numeric else None,
                _float(metrics.get(Mean(name))) if numeric else None,
                _float(metrics.get(StandardDeviation(name))) if numeric else None,
                _float(metrics.get(Sum(name))) if numeric else None,
                dict(sorted(histograms[name].items())) if name in histograms else None,
                exact.get(name),
            )
        )
    return out


def profile(
    df: DataFrame, *, max_categories: int = 120, columns: Sequence[str] | None = None
) -> DatasetProfile:
    """Profile ``df`` (or the named ``columns``) in at most three passes (see the module docs).

    >>> df = spark.createDataFrame([("1", 2.0), ("2", None), ("x", 4.0)], "s string, d double")
    >>> p = profile(df)
    >>> p.rows, p.column("s").type_counts["integral"], p.column("d").completeness
    (3, 2, 0.6666666666666666)
    >>> p.column("s").histogram
    {'1': 1, '2': 1, 'x': 1}
    """
    from quality_py.dataset.analyzers import Completeness, Size
    from quality_py.dataset.runner import run_analyzers
    from quality_py.dataset.sketches import ApproxCountDistinct

    fields = [f for f in df.schema.fields if columns is None or f.name in columns]
    kinds = {f.name: f.dataType.simpleString() for f in fields}
    simple = [
        n
        for n, k in kinds.items()
        if k.split("(")[0] in (*_NUMERIC, *_TEXT, "boolean", "date", "timestamp")
    ]
    first = run_analyzers(df, _first_pass(kinds, simple))  # pass 1
    metrics = first.metrics
    rows = int(metrics[Size()])
    passes = 1
    approx: dict[str, int | None] = {}
    for n in simple:
        estimate = metrics.get(ApproxCountDistinct(n))
        approx[n] = None if estimate is None else int(estimate)
    low = [n for n in simple if (approx[n] or 0) <= max_categories and approx[n] is not None]
    histograms: dict[str, dict[str, int]] = {n: {} for n in low}
    if low and rows:  # pass 2
        histograms = _histograms(df, low)
        passes += 1
    nonnull = {n: round((_float(metrics[Completeness(n)]) or 0.0) * rows) for n in kinds}
    candidates = [n for n in simple if nonnull[n] and (approx[n] or 0) >= 0.99 * nonnull[n]]
    exact: dict[str, int] = {}
    if candidates:  # pass 3: exact distinct counts where uniqueness is plausible
        row = df.selectExpr(
            *[f"count(DISTINCT {_quoted(n)}) AS `c{i}`" for i, n in enumerate(candidates)]
        ).collect()[0]
        exact = {n: int(row[f"c{i}"]) for i, n in enumerate(candidates)}
        passes += 1
    out = _columns(kinds, first, approx, histograms, exact)
    return DatasetProfile(rows, tuple(out), passes)
