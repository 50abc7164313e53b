"""Scan-shareable analyzers (Deequ Table I, upper half): aggregations, state and metric.

Every analyzer turns into a few Spark aggregate expressions (so all of them share one scan), a
state built from those aggregates' values, and a metric computed from the state alone, which is
what lets states of partitions be merged instead of re-reading data. ``where`` restricts an
analyzer to rows matching a predicate. Column names and predicates are untrusted text: predicates
go through the rule compiler and its policy, column names are quoted identifiers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, ClassVar

from quality_py.dataset.states import (
    BinCountsState,
    CoMomentsState,
    ExtremeState,
    MomentsState,
    RatioState,
    SizeState,
    State,
    SumState,
    TypeCountsState,
)
from quality_py.errors import ModelError
from quality_py.gate.numbers import number
from quality_py.model.policy import RulePolicy
from quality_py.model.times import from_micros
from quality_py.model.types import DataFrame
from quality_py.sql.build import to_sql
from quality_py.sql.snippets import quoted, regexp_like


def _col(name: str) -> str:
    return quoted(name)


def _predicate(text: str, policy: RulePolicy) -> str:
    from quality_py.sql.compiler import compile_expression

    return to_sql(compile_expression(text, kind="predicate", policy=policy))


def _filter(where: str | None, policy: RulePolicy) -> str:
    return "" if where is None else f" FILTER (WHERE {_predicate(where, policy)})"


def _double(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class Analyzer:
    """Base: subclasses give the aggregations, the state and the metric."""

    def aggregations(self, policy: RulePolicy) -> list[str]:
        """Spark SQL aggregate expressions whose values make the state."""
        raise NotImplementedError

    def state(self, values: list[Any]) -> State:
        """The state from the aggregations' values (in order)."""
        raise NotImplementedError

    def identity(self) -> State:
        """The state of no rows."""
        raise NotImplementedError

    def metric(self, state: Any) -> float | None:
        """The metric from the state alone (None when undefined, e.g. a ratio over 0 rows)."""
        raise NotImplementedError

    #: True: its aggregations read what only the data as read has (the files' hidden
    #: ``_metadata``), so a run computes it in a scan of its own over its input, never on the
    #: rows it derived (its flags, an observed write)
    own_scan: ClassVar[bool] = False

    def require(self, df: DataFrame) -> None:
        """Refuse ``df`` when the analyzer cannot be computed on it (none here: a missing
        column is Spark's analysis error, named by the check's validation)."""

    def refine(self, df: DataFrame, state: State) -> State:
        """The state computed from ``df``'s rows completed with what its source keeps beside
        them (a table's log); default: as computed."""
        return state

    @property
    def name(self) -> str:
        """A stable name: kind and arguments, used to key stored states."""
        args = ",".join(f"{k}={v}" for k, v in vars(self).items() if v is not None)
        return f"{type(self).__name__}({args})"


@dataclass(frozen=True)
class Size(Analyzer):
    """Number of rows.

    >>> Size().metric(SizeState(7))
    7.0
    """

    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        return [f"count(1){_filter(self.where, policy)}"]

    def state(self, values: list[Any]) -> SizeState:
        return SizeState(int(values[0] or 0))

    def identity(self) -> SizeState:
        return SizeState()

    def metric(self, state: SizeState) -> float:
        return float(state.rows)


def _ratio(state: RatioState) -> float | None:
    return None if state.rows == 0 else state.matches / state.rows


@dataclass(frozen=True)
class Completeness(Analyzer):
    """Fraction of rows where ``column`` is not null."""

    column: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        f = _filter(self.where, policy)
        return [f"count({_col(self.column)}){f}", f"count(1){f}"]

    def state(self, values: list[Any]) -> RatioState:
        return RatioState(int(values[0] or 0), int(values[1] or 0))

    def identity(self) -> RatioState:
        return RatioState()

    def metric(self, state: RatioState) -> float | None:
        return _ratio(state)


@dataclass(frozen=True)
class Compliance(Analyzer):
    """Fraction of rows satisfying ``predicate`` (SQL, compiled under the rule policy)."""

    label: str
    predicate: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        f = _filter(self.where, policy)
        return [
            f"count_if(coalesce({_predicate(self.predicate, policy)}, false)){f}",
            f"count(1){f}",
        ]

    state = Completeness.state
    identity = Completeness.identity
    metric = Completeness.metric


@dataclass(frozen=True)
class PatternMatch(Analyzer):
    """Fraction of rows whose ``column`` matches the regex ``pattern`` (checked as rules are)."""

    column: str
    pattern: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        test = regexp_like(self.column, self.pattern)
        _predicate(test, policy)  # the regex safety check of the policy
        f = _filter(self.where, policy)
        return [f"count_if(coalesce({test}, false)){f}", f"count(1){f}"]

    state = Completeness.state
    identity = Completeness.identity
    metric = Completeness.metric


#: The column types whose extremes are times, as a check sees them (``Minimum.kind``).
TIME_KINDS = ("timestamp", "date")
_EPOCH_DAY = date(1970, 1, 1)


@dataclass(frozen=True)
class Minimum(Analyzer):
    """Smallest non-null value of ``column`` (NaN counts as the largest): a number, or for a
    ``kind`` of ``"timestamp"`` a UTC ``datetime`` and of ``"date"`` a ``date``. A run sets the
    kind from the data's schema (:func:`~quality_py.dataset.times.typed_extremes`), so
    ``has_min("ts", ">= 2026-01-01")`` compares times; its state counts microseconds or days
    since the epoch, the name says the kind, and the numeric name is unchanged.

    >>> Minimum("day", kind="date").metric(ExtremeState(2.0, False))
    datetime.date(1970, 1, 3)
    """

    column: str
    where: str | None = None
    kind: str | None = None  # None: a number

    def __post_init__(self) -> None:
        if self.kind is not None and self.kind not in TIME_KINDS:
            raise ModelError(f"an extreme's kind is one of {TIME_KINDS}, not {self.kind!r}")

    def _value(self) -> str:
        column = _col(self.column)
        if self.kind == "timestamp":
            return f"unix_micros(CAST({column} AS TIMESTAMP))"
        return f"unix_date({column})" if self.kind == "date" else f"CAST({column} AS DOUBLE)"

    def aggregations(self, policy: RulePolicy) -> list[str]:
        return [f"min({self._value()}){_filter(self.where, policy)}"]

    def state(self, values: list[Any]) -> ExtremeState:
        return ExtremeState(_double(values[0]), False)

    def identity(self) -> ExtremeState:
        return ExtremeState(None, False)

    def metric(self, state: ExtremeState) -> Any:
        value = state.value
        if value is None or self.kind is None:
            return value
        if self.kind == "date":
            return _EPOCH_DAY + timedelta(days=int(value))
        return from_micros(value)


@dataclass(frozen=True)
class Maximum(Minimum):
    """Largest non-null value of ``column`` (NaN if there is one); a time as :class:`Minimum`.

    >>> Maximum("ts", kind="timestamp").metric(ExtremeState(1_000_000.0, True))
    datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.timezone.utc)
    """

    def aggregations(self, policy: RulePolicy) -> list[str]:
        return [f"max({self._value()}){_filter(self.where, policy)}"]

    def state(self, values: list[Any]) -> ExtremeState:
        return ExtremeState(_double(values[0]), True)

    def identity(self) -> ExtremeState:
        return ExtremeState(None, True)


@dataclass(frozen=True)
class Sum(Analyzer):
    """Sum of the non-null values of ``column`` (None when there is none)."""

    column: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        f = _filter(self.where, policy)
        c = f"CAST({_col(self.column)} AS DOUBLE)"
        return [f"sum({c}){f}", f"count({c}){f}"]

    def state(self, values: list[Any]) -> SumState:
        return SumState(float(values[0] or 0.0), int(values[1] or 0))

    def identity(self) -> SumState:
        return SumState()

    def metric(self, state: SumState) -> float | None:
        return None if state.count == 0 else state.total


@dataclass(frozen=True)
class Mean(Sum):
    """Mean of the non-null values of ``column``."""

    def metric(self, state: SumState) -> float | None:
        return None if state.count == 0 else state.total / state.count


@dataclass(frozen=True)
class StandardDeviation(Analyzer):
    """Population standard deviation of the non-null values of ``column``."""

    column: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        f = _filter(self.where, policy)
        c = f"CAST({_col(self.column)} AS DOUBLE)"
        return [f"count({c}){f}", f"avg({c}){f}", f"var_pop({c}){f}"]

    def state(self, values: list[Any]) -> MomentsState:
        n = int(values[0] or 0)
        if n == 0:
            return MomentsState()
        return MomentsState(n, float(values[1]), float(values[2]) * n)

    def identity(self) -> MomentsState:
        return MomentsState()

    def metric(self, state: MomentsState) -> float | None:
        return None if state.n == 0 else math.sqrt(max(state.m2, 0.0) / state.n)


@dataclass(frozen=True)
class Correlation(Analyzer):
    """Pearson correlation of two numeric columns over rows where both are non-null."""

    first: str
    second: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        x = f"CAST({_col(self.first)} AS DOUBLE)"
        y = f"CAST({_col(self.second)} AS DOUBLE)"
        both = f"{x} IS NOT NULL AND {y} IS NOT NULL"
        if self.where is not None:
            both = f"({both}) AND coalesce({_predicate(self.where, policy)}, false)"
        f = f" FILTER (WHERE {both})"
        return [
            f"count(1){f}",
            f"avg({x}){f}",
            f"avg({y}){f}",
            f"covar_pop({x}, {y}){f}",
            f"var_pop({x}){f}",
            f"var_pop({y}){f}",
        ]

    def state(self, values: list[Any]) -> CoMomentsState:
        n = int(values[0] or 0)
        if n == 0:
            return CoMomentsState()
        mx, my, cov, vx, vy = (float(v) for v in values[1:])
        return CoMomentsState(n, mx, my, cov * n, vx * n, vy * n)

    def identity(self) -> CoMomentsState:
        return CoMomentsState()

    def metric(self, state: CoMomentsState) -> float | None:
        if state.n == 0:
            return None
        # sqrt of each factor: their product can underflow to 0 for tiny but positive moments
        denominator = math.sqrt(max(state.m2x, 0.0)) * math.sqrt(max(state.m2y, 0.0))
        if not denominator > 0:  # a constant column (or NaN moments): undefined
            return None
        return max(-1.0, min(1.0, state.ck / denominator))  # rounding can pass +-1 slightly


# Deequ's classification of a value's text; the first that matches wins, nulls are "unknown".
TYPE_PATTERNS = (
    ("integral", r"^\\s*[-+]?\\d+\\s*$"),
    ("fractional", r"^\\s*[-+]?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?\\s*$"),
    ("boolean", r"^\\s*(?i:true|false)\\s*$"),
)
TYPE_NAMES = ("unknown", "integral", "fractional", "boolean", "string")


@dataclass(frozen=True)
class DataType(Analyzer):
    """Share of non-null values of ``column`` (by their text) of one inferred type.

    Values are classified as integral, fractional, boolean or string (in that order of tests);
    nulls are unknown and not counted. With ``kind`` the metric is that type's share of the
    non-null values; without, the share of the most common type (1.0 = a consistent type).

    >>> DataType("c").metric(TypeCountsState(0, 3, 1, 0, 0))
    0.75
    """

    column: str
    kind: str | None = None
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        if self.kind is not None and self.kind not in TYPE_NAMES[1:]:
            raise ModelError(f"{self.name}: kind must be one of {TYPE_NAMES[1:]}")
        text = f"CAST({_col(self.column)} AS STRING)"
        f = _filter(self.where, policy)
        out = [f"count_if({text} IS NULL){f}"]
        earlier: list[str] = []
        for _, pattern in TYPE_PATTERNS:
            test = f"{text} RLIKE '{pattern}'"
            out.append(f"count_if({' AND '.join([*earlier, test])}){f}")
            earlier.append(f"NOT {test}")
        out.append(f"count_if({' AND '.join([f'{text} IS NOT NULL', *earlier])}){f}")
        return out

    def state(self, values: list[Any]) -> TypeCountsState:
        return TypeCountsState(*(int(v or 0) for v in values))

    def identity(self) -> TypeCountsState:
        return TypeCountsState()

    def metric(self, state: TypeCountsState) -> float | None:
        counts = state.by_type()
        known = sum(counts[t] for t in TYPE_NAMES[1:])
        if known == 0:
            return None
        if self.kind is not None:
            return counts[self.kind] / known
        return max(counts[t] for t in TYPE_NAMES[1:]) / known


@dataclass(frozen=True)
class MinLength(Minimum):
    """Smallest length (characters) of the non-null values of a text ``column`` (Deequ's
    ``MinLength``; nulls are left out).

    >>> MinLength("s").aggregations(RulePolicy())
    ['min(CAST(length(`s`) AS DOUBLE))']
    """

    def aggregations(self, policy: RulePolicy) -> list[str]:
        c = f"CAST(length({_col(self.column)}) AS DOUBLE)"
        return [f"min({c}){_filter(self.where, policy)}"]


@dataclass(frozen=True)
class MaxLength(Maximum):
    """Largest length (characters) of the non-null values of a text ``column``."""

    def aggregations(self, policy: RulePolicy) -> list[str]:
        c = f"CAST(length({_col(self.column)}) AS DOUBLE)"
        return [f"max({c}){_filter(self.where, policy)}"]


@dataclass(frozen=True)
class BinnedDistribution:
    """A binned histogram: ``edges`` (n + 1 numbers for n bins), rows per bin, the rows outside
    every bin, null rows, and every row (the denominator of each share)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]
    outside: int
    nulls: int
    rows: int

    def ratio(self, label: int | str) -> float:
        """The share of rows in bin ``label`` (0-based), ``"outside"`` or ``"null"``.

        >>> BinnedDistribution((0, 1, 2), (1, 2), 1, 0, 4).ratio(1)
        0.5
        """
        if label == "outside":
            count = self.outside
        elif label == "null":
            count = self.nulls
        else:
            count = self.counts[int(label)]
        return count / self.rows if self.rows else float("nan")


@dataclass(frozen=True)
class HistogramBinned(Analyzer):
    """Rows per bin of a numeric ``column`` between sorted ``edges`` (Deequ's ``HistogramBinned``
    with custom edges): bin i is ``[edges[i], edges[i+1])``, the last bin includes its upper
    edge. One aggregate per bin, so it shares the scan and its state merges by addition.

    >>> HistogramBinned("x", (0.0, 10.0, 20.0)).aggregations(RulePolicy())[0]
    'count_if(CAST(`x` AS DOUBLE) >= 0.0 AND CAST(`x` AS DOUBLE) < 10.0)'
    """

    column: str
    edges: tuple[float, ...]
    where: str | None = None

    def __post_init__(self) -> None:
        edges = tuple(number(e, name="a histogram edge") for e in self.edges)
        if len(edges) < 2 or list(edges) != sorted(set(edges)) or len(edges) > 1001:
            raise ModelError(
                f"histogram edges must be 2 to 1001 increasing numbers, got {list(self.edges)}"
            )
        object.__setattr__(self, "edges", edges)

    def aggregations(self, policy: RulePolicy) -> list[str]:
        f = _filter(self.where, policy)
        c = f"CAST({_col(self.column)} AS DOUBLE)"
        e, last = self.edges, len(self.edges) - 2
        bins = [
            f"count_if({c} >= {e[i]!r} AND {c} {'<=' if i == last else '<'} {e[i + 1]!r}){f}"
            for i in range(len(e) - 1)
        ]
        return [*bins, f"count_if({c} IS NULL){f}", f"count(1){f}"]

    def state(self, values: list[Any]) -> BinCountsState:
        *bins, nulls, rows = (int(v or 0) for v in values)
        return BinCountsState(tuple(bins), rows - nulls - sum(bins), nulls, rows)

    def identity(self) -> BinCountsState:
        return BinCountsState(tuple(0 for _ in self.edges[1:]))

    def metric(self, state: BinCountsState) -> BinnedDistribution:  # type: ignore[override]
        counts = state.counts or tuple(0 for _ in self.edges[1:])
        return BinnedDistribution(self.edges, counts, state.outside, state.nulls, state.rows)
