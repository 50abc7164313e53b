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
from dataclasses import dataclass, field
from typing import Any, Protocol

from quality_py.errors import ModelError
from quality_py.gate.numbers import check_fields, numeric
from quality_py.model.glossary import out_of_bounds


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


def _parameter_error(parameter: str, message: str) -> ModelError:
    """A strategy's refused parameter, named (YAML adds the file, line and column)."""
    error = ModelError(f"{parameter}: {message}")
    error.parameter = parameter  # type: ignore[attr-defined]
    return error


def _interval(values: Sequence[float], start: int, end: int | None) -> range:
    stop = len(values) if end is None else min(end, len(values))
    if start < 0 or stop < start:
        raise ModelError(f"search interval [{start}, {end}) does not fit {len(values)} values")
    return range(start, stop)


def _outside(value: float, lower: float | None, upper: float | None) -> bool:
    return (lower is not None and value < lower) or (upper is not None and value > upper)


@dataclass(frozen=True)
class SimpleThresholds:
    """A point outside ``[lower, upper]``.

    >>> [a.index for a in SimpleThresholds(upper=5).detect([1, 7, 3, 9])]
    [1, 3]
    """

    lower: float | None = field(default=None, metadata=numeric(optional=True))
    upper: float | None = field(default=None, metadata=numeric(optional=True))
    #: earlier points the strategy needs to judge the last one
    min_history = 0

    def __post_init__(self) -> None:
        check_fields(self)
        if self.lower is None and self.upper is None:
            raise _parameter_error("upper", "simple thresholds need a lower or an upper bound")
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise _parameter_error(
                "lower", f"the lower bound {self.lower} is above the upper bound {self.upper}"
            )

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        out = []
        for i in _interval(values, start, end):
            x = values[i]
            if not math.isnan(x) and _outside(x, self.lower, self.upper):
                detail = out_of_bounds(x, self.lower, self.upper)
                out.append(Anomaly(i, x, self.lower, self.upper, detail))
        return out

    def band(self, values: Sequence[float]) -> tuple[float | None, float | None]:
        """The values the last of ``values`` may take without being anomalous."""
        return self.lower, self.upper


def _differences(values: Sequence[float], order: int) -> list[float]:
    """``values`` differenced ``order`` times (``len(values) - order`` values)."""
    out = list(values)
    for _ in range(order):
        out = [b - a for a, b in itertools.pairwise(out)]
    return out


@dataclass(frozen=True)
class _ChangeBounds:
    """Bounds on a change between a value and the one ``order`` runs before it."""

    max_decrease: float | None = field(default=None, metadata=numeric(optional=True))
    max_increase: float | None = field(default=None, metadata=numeric(optional=True))
    order: int = field(default=1, metadata=numeric(0, integer=True))

    #: the smallest order the strategy takes (Deequ: 0 for differences, 1 for ratios)
    _min_order = 0

    def __post_init__(self) -> None:
        check_fields(self)  # the order is a whole number, the bounds finite
        if self.order < self._min_order:
            raise _parameter_error(
                "order", f"the order is at least {self._min_order}, not {self.order}"
            )
        if self.max_decrease is None and self.max_increase is None:
            raise _parameter_error(
                "max_increase", "a change needs a max_decrease or a max_increase (or both)"
            )
        if (
            self.max_decrease is not None
            and self.max_increase is not None
            and self.max_decrease > self.max_increase
        ):
            raise _parameter_error(
                "max_decrease",
                f"max_decrease {self.max_decrease} is above max_increase {self.max_increase}",
            )

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
                detail = out_of_bounds(d, self.max_decrease, self.max_increase, "change ")
                out.append(Anomaly(i, values[i], self.max_decrease, self.max_increase, detail))
        return out

    def band(self, values: Sequence[float]) -> tuple[float | None, float | None] | None:
        """The values the last of ``values`` may take (order 1: higher orders bound a
        difference of differences, not a value). ``AbsoluteChange(-2, 3)``, 10: 8 to 13."""
        if self.order != 1 or len(values) < 2 or math.isnan(values[-2]):
            return None
        before = values[-2]
        return (
            None if self.max_decrease is None else before + self.max_decrease,
            None if self.max_increase is None else before + self.max_increase,
        )


@dataclass(frozen=True)
class RateOfChange(AbsoluteChange):
    """Deequ's older name of :class:`AbsoluteChange`.

    >>> [a.index for a in RateOfChange(max_increase=1).detect([1, 2, 4])]
    [2]
    """


def _ratio(now: float, before: float) -> float:
    """``now / before`` as IEEE division gives it (Deequ divides the vectors): ``0 / 0`` is NaN,
    never anomalous; ``x / 0`` an infinite change in ``x``'s direction."""
    if before == 0:
        return math.nan if now == 0 else math.copysign(math.inf, now) * math.copysign(1.0, before)
    return now / before


@dataclass(frozen=True)
class RelativeRateOfChange(_ChangeBounds):
    """``x[i] / x[i-order]`` outside ``[max_decrease, max_increase]``.

    >>> [a.index for a in RelativeRateOfChange(0.7, 1.5).detect([100, 90, 50, 60, 100])]
    [2, 4]
    """

    _min_order = 1

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
            if not math.isnan(rate) and _outside(rate, self.max_decrease, self.max_increase):
                detail = f"{now:.6g} is {rate:.4g}x of {before:.6g}: the ratio " + out_of_bounds(
                    rate, self.max_decrease, self.max_increase
                )
                out.append(Anomaly(i, now, self.max_decrease, self.max_increase, detail))
        return out

    def band(self, values: Sequence[float]) -> tuple[float | None, float | None] | None:
        """The values the last of ``values`` may take (order 1, after a positive value)."""
        if self.order != 1 or len(values) < 2 or not values[-2] > 0:
            return None
        before = values[-2]
        return (
            None if self.max_decrease is None else before * self.max_decrease,
            None if self.max_increase is None else before * self.max_increase,
        )


def _bounds(
    mean: float, sd: float, lower_factor: float | None, upper_factor: float | None
) -> tuple[float | None, float | None]:
    lower = None if lower_factor is None else mean - lower_factor * sd
    upper = None if upper_factor is None else mean + upper_factor * sd
    return lower, upper


def _check_factors(lower: float | None, upper: float | None) -> None:
    if lower is None and upper is None:
        raise _parameter_error("upper_factor", "give a lower_factor or an upper_factor (or both)")
    for name, value in (("lower_factor", lower), ("upper_factor", upper)):
        if value is not None and not value >= 0:
            raise _parameter_error(name, f"a deviation factor is at least 0, not {value}")


@dataclass(frozen=True)
class OnlineNormal:
    """Outside the running mean +- factor * population standard deviation, as Deequ computes it.

    By default (``include_current=True``, Deequ's definition) the running statistics at point
    ``i`` include ``i`` itself, weighed by its position ``i + 1`` (also after earlier anomalies
    were taken back out, as Deequ does); a point judged anomalous is then taken back out of them
    when ``ignore_anomalies``. Points before ``len(values) * ignore_start`` (compared as a fraction)
    are not judged. With the current point included, a single outlier among ``n`` points is at
    most ``sqrt(n - 1)`` deviations from their mean, so the strategy cannot flag anything before
    ``factor**2 + 1`` points: :attr:`min_history` says so, and an anomaly check reports "not
    judged" until then. ``include_current=False`` judges each point against the points before it
    only (at least two), which flags an outlier in a short history.

    >>> [a.index for a in OnlineNormal(1.5, 1.5, 0.2).detect([1, 1, 1, 2, 1, 1, 1])]
    [3]
    >>> [a.index for a in OnlineNormal(3, 3, 0, include_current=False).detect([10, 11, 10, 30])]
    [3]
    """

    lower_factor: float | None = field(default=3.0, metadata=numeric(0, optional=True))
    upper_factor: float | None = field(default=3.0, metadata=numeric(0, optional=True))
    ignore_start: float = field(default=0.1, metadata=numeric(0, 1))
    ignore_anomalies: bool = True
    include_current: bool = True

    def __post_init__(self) -> None:
        check_fields(self)
        _check_factors(self.lower_factor, self.upper_factor)
        if not 0 <= self.ignore_start <= 1:
            raise _parameter_error(
                "ignore_start", f"ignore_start is a share in [0, 1], not {self.ignore_start}"
            )

    @property
    def min_history(self) -> int:
        """Earlier points needed before the last one can be judged anomalous at all."""
        if not self.include_current:
            return 2
        factors = [f for f in (self.lower_factor, self.upper_factor) if f is not None]
        spread = math.floor(min(factors) ** 2) + 1 if math.isfinite(min(factors)) else 2**31
        # the last of n points is judged when n - 1 >= n * ignore_start
        start = 2**31 if self.ignore_start >= 1 else math.ceil(1 / (1 - self.ignore_start)) - 1
        return max(spread, start)

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        judged = _interval(values, start, end)
        skip = len(values) * self.ignore_start
        n, mean, sn = 0, 0.0, 0.0  # Welford: count, mean, sum of squared deviations
        out = []
        for i, x in enumerate(values[: judged.stop]):
            if math.isnan(x):
                continue
            before = (n, mean, sn)
            if self.include_current:
                # Deequ weighs by the position, i + 1, also after it took anomalies back out
                n, mean, sn = _welford(i, mean, sn, x)
            lower, upper = _bounds(mean, math.sqrt(sn / n) if n else 0.0, self.lower_factor,
                                   self.upper_factor)  # fmt: skip
            enough = self.include_current or n >= 2
            anomalous = i in judged and i >= skip and enough and _outside(x, lower, upper)
            if anomalous:
                detail = f"{out_of_bounds(x, lower, upper)}; mean {mean:.6g} of {n} values"
                out.append(Anomaly(i, x, lower, upper, detail))
            if anomalous and self.ignore_anomalies:
                n, mean, sn = before
            elif not self.include_current:
                n, mean, sn = _welford(n, mean, sn, x)
        return out


def _welford(n: int, mean: float, sn: float, x: float) -> tuple[int, float, float]:
    """One step of Welford's running mean and sum of squared deviations."""
    n += 1
    delta = x - mean
    mean += delta / n
    return n, mean, sn + delta * (x - mean)


@dataclass(frozen=True)
class BatchNormal:
    """Outside the mean +- factor * sample standard deviation of the points outside the search
    interval.

    >>> [a.index for a in BatchNormal(3, 3).detect([10, 11, 9, 10, 11, 40], start=5)]
    [5]
    """

    lower_factor: float | None = field(default=3.0, metadata=numeric(0, optional=True))
    upper_factor: float | None = field(default=3.0, metadata=numeric(0, optional=True))
    include_interval: bool = False
    #: earlier points the strategy needs to judge the last one (a mean and a deviation)
    min_history = 2

    def __post_init__(self) -> None:
        check_fields(self)
        _check_factors(self.lower_factor, self.upper_factor)

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
                    f"{out_of_bounds(x, lower, upper)}; mean {mean:.6g}, sd {sd:.6g} of "
                    f"{len(reference)} values"
                )
                out.append(Anomaly(i, x, lower, upper, detail))
        return out

    def band(self, values: Sequence[float]) -> tuple[float | None, float | None] | None:
        """The values the last of ``values`` may take, judged against the ones before it."""
        reference = [x for x in values[:-1] if not math.isnan(x)]
        if len(reference) < 2:
            return None
        mean = sum(reference) / len(reference)
        sd = math.sqrt(sum((x - mean) ** 2 for x in reference) / (len(reference) - 1))
        return _bounds(mean, sd, self.lower_factor, self.upper_factor)


@dataclass(frozen=True)
class HoltWinters:
    """Deequ's additive Holt-Winters (triple exponential smoothing, ETS(A, A)): a model of level,
    trend and a season of ``periodicity`` points is fitted to the points before the search
    interval (smoothing parameters in [0, 1] minimising the one-step squared residuals, from
    0.3, 0.1, 0.1), then each point of the interval is anomalous when it is further than 1.96
    standard deviations of the absolute residuals from its forecast. ``periodicity``: 7 for
    daily metrics with a weekly season, 12 for monthly ones with a yearly season, 24 for hourly
    ones with a daily season (:meth:`of`). It needs two full seasons before the interval.

    >>> week = [10, 10, 12, 13, 15, 21, 19]
    >>> [a.index for a in HoltWinters(7).detect(week * 3 + [0], start=21)]
    [21]
    """

    periodicity: int = field(default=7, metadata=numeric(2, integer=True))

    def __post_init__(self) -> None:
        check_fields(self)  # a whole number, at least 2 (a season's points)

    @classmethod
    def of(cls, metric_interval: str, seasonality: str) -> HoltWinters:
        """Deequ's named pairs: ``("daily", "weekly")`` = 7, ``("monthly", "yearly")`` = 12,
        ``("hourly", "daily")`` = 24.

        >>> HoltWinters.of("daily", "weekly").periodicity
        7
        """
        pairs = {("daily", "weekly"): 7, ("monthly", "yearly"): 12, ("hourly", "daily"): 24}
        key = (metric_interval.lower(), seasonality.lower())
        if key not in pairs:
            raise _parameter_error(
                "seasonality",
                f"no Holt-Winters season for {metric_interval} metrics with {seasonality} "
                "seasonality; use daily/weekly, monthly/yearly, hourly/daily or a periodicity",
            )
        return cls(pairs[key])

    @property
    def min_history(self) -> int:
        """Two full seasons."""
        return 2 * self.periodicity

    def detect(
        self, values: Sequence[float], start: int = 0, end: int | None = None
    ) -> list[Anomaly]:
        """See the class."""
        if not values:
            raise ModelError("Holt-Winters needs a series; it is empty")
        stop = len(values) if end is None else end
        if start >= stop:
            raise ModelError(f"the search interval [{start}, {stop}) is empty")
        if start < 2 * self.periodicity:
            raise ModelError(
                f"Holt-Winters needs two full seasons ({2 * self.periodicity} points) before the "
                f"points it judges, has {start}"
            )
        horizon = 1 if start >= len(values) else min(stop, len(values)) - start
        training = [float(v) for v in values[:start]]
        alpha, beta, gamma = _fit_holt_winters(training, self.periodicity, horizon)
        forecasts, residuals = _holt_winters(
            training, self.periodicity, horizon, alpha, beta, gamma
        )
        sd = _sample_sd([abs(r) for r in residuals])
        out = []
        for offset, (x, forecast) in enumerate(zip(values[start:stop], forecasts, strict=False)):
            if abs(x - forecast) > 1.96 * sd:
                detail = f"{x:.6g} is more than 1.96 sd ({sd:.6g}) from its forecast {forecast:.6g}"
                out.append(Anomaly(start + offset, x, forecast - 1.96 * sd, forecast + 1.96 * sd,
                                   detail))  # fmt: skip
        return out


def _sample_sd(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _holt_winters(
    series: Sequence[float], p: int, horizon: int, alpha: float, beta: float, gamma: float
) -> tuple[list[float], list[float]]:
    """Additive Holt-Winters as Deequ defines it: forecasts of the ``horizon`` points after
    ``series`` and the one-step residuals of ``series``."""
    first, second = sum(series[:p]), sum(series[p : 2 * p])
    level = [first / p]
    trend = [(second - first) / (p * p)]
    season = [x - level[0] for x in series[:p]]
    fitted = [level[0] + trend[0] + season[0]]
    ys = list(series)
    for t in range(len(series) + horizon):
        if t >= len(series):
            ys.append(level[-1] + trend[-1] + season[len(season) - p])
        level.append(alpha * (ys[t] - season[t]) + (1 - alpha) * (level[t] + trend[t]))
        trend.append(beta * (level[t + 1] - level[t]) + (1 - beta) * trend[t])
        season.append(gamma * (ys[t] - level[t] - trend[t]) + (1 - gamma) * season[t])
        fitted.append(level[t + 1] + trend[t + 1] + season[t + 1])
    residuals = [x - f for f, x in zip(fitted, series, strict=False)]
    return ys[len(series) :], residuals


def _fit_holt_winters(series: Sequence[float], p: int, horizon: int) -> tuple[float, float, float]:
    """Smoothing parameters in [0, 1]^3 minimising the residual sum of squares, from
    (0.3, 0.1, 0.1): projected gradient descent with forward-difference gradients and a
    backtracking line search (Deequ uses L-BFGS-B with approximate gradients)."""

    def rss(x: Sequence[float]) -> float:
        _, residuals = _holt_winters(series, p, horizon, *x)
        return sum(r * r for r in residuals)

    def clip(x: Sequence[float]) -> list[float]:
        return [min(1.0, max(0.0, v)) for v in x]

    x = [0.3, 0.1, 0.1]
    fx = rss(x)
    step = 1.0
    for _ in range(500):
        eps = 1e-5
        grad = []
        for i in range(3):
            probe = list(x)
            probe[i] += eps if probe[i] + eps <= 1 else -eps
            grad.append((rss(probe) - fx) / (probe[i] - x[i]))
        norm = math.sqrt(sum(g * g for g in grad))
        if norm == 0 or not math.isfinite(norm):
            break
        step = min(step * 2, 1.0)
        while step > 1e-12:
            candidate = clip([v - step * g / norm for v, g in zip(x, grad, strict=True)])
            fc = rss(candidate)
            if fc < fx - 1e-12 * abs(fx):
                break
            step /= 2
        else:
            break
        if max(abs(a - b) for a, b in zip(candidate, x, strict=True)) < 1e-9:
            x, fx = candidate, fc
            break
        x, fx = candidate, fc
    return x[0], x[1], x[2]


STRATEGIES: dict[str, type] = {
    "simple_thresholds": SimpleThresholds,
    "absolute_change": AbsoluteChange,
    "rate_of_change": RateOfChange,
    "relative_rate_of_change": RelativeRateOfChange,
    "online_normal": OnlineNormal,
    "batch_normal": BatchNormal,
    "holt_winters": HoltWinters,
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
