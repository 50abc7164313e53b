"""Anomaly detection strategies over a metric's history (Deequ's, defined here exactly).

A strategy looks at a series of values (oldest first) and reports the points of a search
interval (by default the whole series) that are anomalous. Every strategy is a frozen
dataclass with ``detect(values, start=0, end=None)``; new ones only need that method.

* :class:`SimpleThresholds`: a point outside ``[lower, upper]``.
* :class:`AbsoluteChange`: the ``order``-th difference at a point (``x[i] - x[i-1]`` for order
  1, the difference of differences for 2, ...) below ``max_decrease`` or above
  ``max_increase``. The first ``order`` points have no difference and are never anomalous.
  :class:`RateOfChange` is the same strategy (Deequ's older name).
* :class:`RelativeRateOfChange`: the ratio ``x[i] / x[i-order]`` below ``max_decrease`` or
  above ``max_increase`` (``0.7`` = "may not drop more than 30%"). ``0 / 0`` is no change
  (1.0); ``x / 0`` with ``x != 0`` is an infinite change in ``x``'s direction.
* :class:`OnlineNormal`: the running mean and population standard deviation of the points
  before ``i`` (Welford's algorithm), leaving out points already judged anomalous when
  ``ignore_anomalies``; ``i`` is anomalous outside ``mean - lower_factor * sd`` ..
  ``mean + upper_factor * sd``. The first ``ignore_start`` share of the series, and any point
  with fewer than two points before it, are not judged. (The current point is not part of its
  own statistics: otherwise a single outlier among ``n`` points can never be more than
  ``sqrt(n - 1)`` deviations away, and a short history would never flag anything.)
* :class:`BatchNormal`: the mean and sample standard deviation (``n - 1``) of the points
  outside the search interval (or of all points with ``include_interval``); a point in the
  interval outside ``mean - lower_factor * sd`` .. ``mean + upper_factor * sd`` is
  anomalous. Fewer than two reference points: an error (nothing to compare with).

A ``None`` bound means no bound on that side. NaN values are never judged (a metric that could
not be computed is the business of the check that computes it).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from quality_py.errors import ModelError


@dataclass(frozen=True)
class Anomaly:
    """A point judged anomalous: its index, value and the bounds it broke."""

    index: int
    value: float
    lower: float | None
    upper: float | None
    detail: str


class Strategy(Protocol):
    """Anything with ``detect``: the anomalous points of ``values[start:end]``."""

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """The anomalies among ``values[start:end]`` (indices into ``values``)."""


def _interval(values: Sequence[float], start: int, end: int | None) -> range:
    stop = len(values) if end is None else min(end, len(values))
    if start < 0 or stop < start:
        raise ModelError(f"search interval [{start}, {end}) does not fit {len(values)} values")
    return range(start, stop)


def _outside(value: float, lower: float | None, upper: float | None) -> bool:
    return (lower is not None and value < lower) or (upper is not None and value > upper)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


@dataclass(frozen=True)
class SimpleThresholds:
    """A point outside ``[lower, upper]``.

    >>> [a.index for a in SimpleThresholds(upper=5).detect([1, 7, 3, 9])]
    [1, 3]
    """

    lower: float | None = None
    upper: float | None = None
    #: earlier points the strategy needs to judge the last one
    min_history = 0

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        out = []
        for i in _interval(values, start, end):
            x = values[i]
            if not math.isnan(x) and _outside(x, self.lower, self.upper):
                detail = f"{x:.6g} is outside [{_fmt(self.lower)}, {_fmt(self.upper)}]"
                out.append(Anomaly(i, x, self.lower, self.upper, detail))
        return out


def _differences(values: Sequence[float], order: int) -> list[float]:
    """``values`` differenced ``order`` times (``len(values) - order`` values)."""
    out = list(values)
    for _ in range(order):
        out = [b - a for a, b in itertools.pairwise(out)]
    return out


@dataclass(frozen=True)
class _ChangeBounds:
    """Bounds on a change between a value and the one ``order`` runs before it."""

    max_decrease: float | None = None
    max_increase: float | None = None
    order: int = 1

    def __post_init__(self) -> None:
        if self.order < 1:
            raise ModelError(f"the order of a change is at least 1, not {self.order}")

    @property
    def min_history(self) -> int:
        """Earlier points needed to judge the last one: ``order``."""
        return self.order


@dataclass(frozen=True)
class AbsoluteChange(_ChangeBounds):
    """The ``order``-th difference outside ``[max_decrease, max_increase]``.

    >>> [a.index for a in AbsoluteChange(-2, 2).detect([10, 11, 5, 6, 12])]
    [2, 4]
    """

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        change = _differences(values, self.order)
        out = []
        for i in _interval(values, start, end):
            if i < self.order:
                continue
            d = change[i - self.order]
            if not math.isnan(d) and _outside(d, self.max_decrease, self.max_increase):
                detail = (
                    f"change {d:+.6g} is outside [{_fmt(self.max_decrease)}, "
                    f"{_fmt(self.max_increase)}]"
                )
                out.append(Anomaly(i, values[i], self.max_decrease, self.max_increase, detail))
        return out


@dataclass(frozen=True)
class RateOfChange(AbsoluteChange):
    """Deequ's older name of :class:`AbsoluteChange`.

    >>> [a.index for a in RateOfChange(max_increase=1).detect([1, 2, 4])]
    [2]
    """


def _ratio(now: float, before: float) -> float:
    if before == 0:
        return 1.0 if now == 0 else math.copysign(math.inf, now)
    return now / before


@dataclass(frozen=True)
class RelativeRateOfChange(_ChangeBounds):
    """``x[i] / x[i-order]`` outside ``[max_decrease, max_increase]``.

    >>> [a.index for a in RelativeRateOfChange(0.7, 1.5).detect([100, 90, 50, 60, 100])]
    [2, 4]
    """

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        out = []
        for i in _interval(values, start, end):
            if i < self.order:
                continue
            now, before = values[i], values[i - self.order]
            if math.isnan(now) or math.isnan(before):
                continue
            rate = _ratio(now, before)
            if _outside(rate, self.max_decrease, self.max_increase):
                detail = (
                    f"{now:.6g} is {rate:.4g}x of {before:.6g}, outside "
                    f"[{_fmt(self.max_decrease)}, {_fmt(self.max_increase)}]"
                )
                out.append(Anomaly(i, now, self.max_decrease, self.max_increase, detail))
        return out


def _bounds(
    mean: float, sd: float, lower_factor: float | None, upper_factor: float | None
) -> tuple[float | None, float | None]:
    lower = None if lower_factor is None else mean - lower_factor * sd
    upper = None if upper_factor is None else mean + upper_factor * sd
    return lower, upper


@dataclass(frozen=True)
class OnlineNormal:
    """Outside the running mean +- factor * standard deviation of the points before it.

    >>> [a.index for a in OnlineNormal(3, 3, ignore_start=0).detect([10, 11, 10, 11, 30, 10])]
    [4]
    """

    lower_factor: float | None = 3.0
    upper_factor: float | None = 3.0
    ignore_start: float = 0.1
    ignore_anomalies: bool = True
    #: earlier points the strategy needs to judge the last one (a mean and a deviation)
    min_history = 2

    def __post_init__(self) -> None:
        if not 0 <= self.ignore_start < 1:
            raise ModelError(f"ignore_start is a share in [0, 1), not {self.ignore_start}")

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        judged = _interval(values, start, end)
        skip = int(len(values) * self.ignore_start)
        n, mean, sn = 0, 0.0, 0.0  # Welford: count, mean, sum of squared deviations
        out = []
        for i, x in enumerate(values[: judged.stop]):
            if math.isnan(x):
                continue
            anomalous = False
            if i in judged and i >= skip and n >= 2:
                lower, upper = _bounds(
                    mean, math.sqrt(sn / n), self.lower_factor, self.upper_factor
                )
                if _outside(x, lower, upper):
                    anomalous = True
                    detail = (
                        f"{x:.6g} is outside [{_fmt(lower)}, {_fmt(upper)}] (mean {mean:.6g} "
                        f"of {n} earlier values)"
                    )
                    out.append(Anomaly(i, x, lower, upper, detail))
            if anomalous and self.ignore_anomalies:
                continue
            n += 1
            delta = x - mean
            mean += delta / n
            sn += delta * (x - mean)
        return out


@dataclass(frozen=True)
class BatchNormal:
    """Outside the mean +- factor * sample standard deviation of the points outside the search
    interval.

    >>> [a.index for a in BatchNormal(3, 3).detect([10, 11, 9, 10, 11, 40], start=5)]
    [5]
    """

    lower_factor: float | None = 3.0
    upper_factor: float | None = 3.0
    include_interval: bool = False
    #: earlier points the strategy needs to judge the last one (a mean and a deviation)
    min_history = 2

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        judged = _interval(values, start, end)
        reference = [
            x
            for i, x in enumerate(values)
            if not math.isnan(x) and (self.include_interval or i not in judged)
        ]
        if len(reference) < 2:
            raise ModelError(
                f"batch normal needs at least two values to compare with, has {len(reference)}"
            )
        mean = sum(reference) / len(reference)
        sd = math.sqrt(sum((x - mean) ** 2 for x in reference) / (len(reference) - 1))
        lower, upper = _bounds(mean, sd, self.lower_factor, self.upper_factor)
        out = []
        for i in judged:
            x = values[i]
            if not math.isnan(x) and _outside(x, lower, upper):
                detail = (
                    f"{x:.6g} is outside [{_fmt(lower)}, {_fmt(upper)}] (mean {mean:.6g}, "
                    f"sd {sd:.6g} of {len(reference)} values)"
                )
                out.append(Anomaly(i, x, lower, upper, detail))
        return out


STRATEGIES: dict[str, type] = {
    "simple_thresholds": SimpleThresholds,
    "absolute_change": AbsoluteChange,
    "rate_of_change": RateOfChange,
    "relative_rate_of_change": RelativeRateOfChange,
    "online_normal": OnlineNormal,
    "batch_normal": BatchNormal,
}


def strategy_from_dict(spec: Mapping[str, Any]) -> Any:
    """A strategy from its name and parameters (as YAML writes them).

    >>> strategy_from_dict({"strategy": "relative_rate_of_change", "max_decrease": 0.7})
    RelativeRateOfChange(max_decrease=0.7, max_increase=None, order=1)
    """
    import dataclasses

    name = str(spec.get("strategy", ""))
    cls = STRATEGIES.get(name)
    if cls is None:
        raise ModelError(f"no anomaly strategy {name!r}; use one of {', '.join(STRATEGIES)}")
    fields = {f.name for f in dataclasses.fields(cls)}
    params = {k: v for k, v in spec.items() if k != "strategy"}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise ModelError(
            f"anomaly strategy {name} has no parameter(s) {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(fields))}"
        )
    return cls(**params)
