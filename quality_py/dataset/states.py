"""Analyzer states: commutative monoids, so metrics of a union come from merged states.

Each state has an identity (the state of no rows) and ``merge`` (associative, commutative).
Counts, minima and maxima merge exactly; moments merge with Chan et al.'s parallel update, exact
up to floating-point rounding. Spark's ordering is kept: NaN is larger than every number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

S = TypeVar("S", bound="State")

STATE_FORMAT = 2  # bump when a state's serialized fields change meaning (2: HLL value prefix,
# data files pinned in the manifest)


class State(Protocol):
    """What every state offers."""

    def merge(self: S, other: S) -> S: ...

    def to_dict(self) -> dict[str, Any]: ...


def _spark_order(value: float) -> tuple[int, float]:
    """Spark sorts NaN above +Infinity."""
    return (1, 0.0) if math.isnan(value) else (0, value)


@dataclass(frozen=True, slots=True)
class SizeState:
    """Number of rows."""

    rows: int = 0

    def merge(self, other: SizeState) -> SizeState:
        """Add the counts.

        >>> SizeState(2).merge(SizeState(3))
        SizeState(rows=5)
        """
        return SizeState(self.rows + other.rows)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"rows": self.rows}


@dataclass(frozen=True, slots=True)
class RatioState:
    """``(matches, rows)``: completeness, compliance and pattern match."""

    matches: int = 0
    rows: int = 0

    def merge(self, other: RatioState) -> RatioState:
        """Add element-wise."""
        return RatioState(self.matches + other.matches, self.rows + other.rows)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"matches": self.matches, "rows": self.rows}


@dataclass(frozen=True, slots=True)
class ExtremeState:
    """The minimum or maximum seen (None: no non-null value yet)."""

    value: float | None = None
    largest: bool = False

    def merge(self, other: ExtremeState) -> ExtremeState:
        """Keep the smaller (or larger) value, ordering NaN above every number.

        >>> ExtremeState(1.0, True).merge(ExtremeState(float("nan"), True)).value
        nan
        """
        if self.value is None:
            return ExtremeState(other.value, self.largest)
        if other.value is None:
            return self
        pick = max if self.largest else min
        return ExtremeState(pick(self.value, other.value, key=_spark_order), self.largest)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"value": self.value, "largest": self.largest}


@dataclass(frozen=True, slots=True)
class SumState:
    """``(sum, non-null count)``: sum and mean."""

    total: float = 0.0
    count: int = 0

    def merge(self, other: SumState) -> SumState:
        """Add element-wise."""
        return SumState(self.total + other.total, self.count + other.count)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"total": self.total, "count": self.count}


@dataclass(frozen=True, slots=True)
class MomentsState:
    """``(n, mean, m2)`` with ``m2`` the sum of squared deviations from the mean."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def merge(self, other: MomentsState) -> MomentsState:
        """Chan et al.'s parallel combination of two sets of moments.

        >>> a, b = MomentsState(2, 1.5, 0.5), MomentsState(1, 3.0, 0.0)
        >>> a.merge(b)
        MomentsState(n=3, mean=2.0, m2=2.0)
        """
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * other.n / n
        m2 = self.m2 + other.m2 + delta * delta * self.n * other.n / n
        return MomentsState(n, mean, m2)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"n": self.n, "mean": self.mean, "m2": self.m2}


@dataclass(frozen=True, slots=True)
class CoMomentsState:
    """Online covariance statistics of two columns over rows where both are non-null."""

    n: int = 0
    mean_x: float = 0.0
    mean_y: float = 0.0
    ck: float = 0.0  # sum of (x - mean_x)(y - mean_y)
    m2x: float = 0.0
    m2y: float = 0.0

    def merge(self, other: CoMomentsState) -> CoMomentsState:
        """Parallel combination of co-moments."""
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        dx = other.mean_x - self.mean_x
        dy = other.mean_y - self.mean_y
        w = self.n * other.n / n
        return CoMomentsState(
            n,
            self.mean_x + dx * other.n / n,
            self.mean_y + dy * other.n / n,
            self.ck + other.ck + dx * dy * w,
            self.m2x + other.m2x + dx * dx * w,
            self.m2y + other.m2y + dy * dy * w,
        )

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {
            "n": self.n,
            "mean_x": self.mean_x,
            "mean_y": self.mean_y,
            "ck": self.ck,
            "m2x": self.m2x,
            "m2y": self.m2y,
        }


@dataclass(frozen=True, slots=True)
class TypeCountsState:
    """Counts of values per inferred type (unknown = null): the data type analyzer."""

    unknown: int = 0
    integral: int = 0
    fractional: int = 0
    boolean: int = 0
    string: int = 0

    def merge(self, other: TypeCountsState) -> TypeCountsState:
        """Add element-wise."""
        return TypeCountsState(
            *(a + b for a, b in zip(self.to_dict().values(), other.to_dict().values(), strict=True))
        )

    def by_type(self) -> dict[str, int]:
        """The counts keyed by type name."""
        return self.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {
            "unknown": self.unknown,
            "integral": self.integral,
            "fractional": self.fractional,
            "boolean": self.boolean,
            "string": self.string,
        }


@dataclass(frozen=True, slots=True)
class BinCountsState:
    """Rows per histogram bin, with the rows outside every bin and the null ones apart.

    >>> BinCountsState((1, 2), 0, 1, 4).merge(BinCountsState((0, 1), 1, 0, 2))
    BinCountsState(counts=(1, 3), outside=1, nulls=1, rows=6)
    """

    counts: tuple[int, ...] = ()
    outside: int = 0
    nulls: int = 0
    rows: int = 0

    def merge(self, other: BinCountsState) -> BinCountsState:
        """Add element-wise (a state of no rows has no bins yet)."""
        if not self.counts:
            return BinCountsState(other.counts, other.outside + self.outside,
                                  other.nulls + self.nulls, other.rows + self.rows)  # fmt: skip
        if not other.counts:
            return other.merge(self)
        return BinCountsState(
            tuple(a + b for a, b in zip(self.counts, other.counts, strict=True)),
            self.outside + other.outside,
            self.nulls + other.nulls,
            self.rows + other.rows,
        )

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {
            "counts": list(self.counts),
            "outside": self.outside,
            "nulls": self.nulls,
            "rows": self.rows,
        }


@dataclass(frozen=True, slots=True)
class BucketsState:
    """The distinct time buckets (days, hours, ... numbered from the epoch) that hold a value:
    where a table has data and where it has none.

    >>> BucketsState((1, 3)).merge(BucketsState((2, 3)))
    BucketsState(buckets=(1, 2, 3))
    """

    buckets: tuple[int, ...] = ()

    def merge(self, other: BucketsState) -> BucketsState:
        """The union, sorted."""
        return BucketsState(tuple(sorted(set(self.buckets) | set(other.buckets))))

    def missing(self) -> tuple[int, ...]:
        """The buckets between the first and the last that hold no value.

        >>> BucketsState((1, 4, 5)).missing()
        (2, 3)
        """
        if not self.buckets:
            return ()
        held = set(self.buckets)
        return tuple(b for b in range(min(held), max(held) + 1) if b not in held)

    def to_dict(self) -> dict[str, Any]:
        """Serializable fields."""
        return {"buckets": list(self.buckets)}
