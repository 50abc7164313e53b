"""Deequ's own anomaly strategy test cases, read as facts (awslabs/deequ,
src/test/scala/com/amazon/deequ/anomalydetection): the same series, built with Java's random
generator where Deequ uses one (tests/java_random.py), must flag exactly Deequ's anomalies, and
the parameters Deequ refuses are refused when a strategy is built, naming the parameter.
"""

from __future__ import annotations

import math

import pytest

from quality_py.errors import ModelError
from quality_py.history import (
    AbsoluteChange,
    BatchNormal,
    OnlineNormal,
    RateOfChange,
    RelativeRateOfChange,
    SimpleThresholds,
    strategy_from_dict,
)
from quality_py.history.anomalies import HoltWinters
from tests.java_random import JavaRandom

MAX = 1.7976931348623157e308  # Double.MaxValue


def indices(found: list) -> list[int]:  # type: ignore[type-arg]
    return [a.index for a in found]


def gaussian_series(n: int) -> list[float]:
    """Deequ's normal-strategy series: ``new Random(1)`` gaussians, with i added at even and
    subtracted at odd indices 20..30."""
    r = JavaRandom(1)
    dist = [r.next_gaussian() for _ in range(n)]
    for i in range(20, 31):
        dist[i] += i + (i % 2 * -2 * i)
    return dist


ONLINE = gaussian_series(51)
BATCH = gaussian_series(50)
#: the change strategies' series: 1 outside 20..30, i at even and -i at odd indices inside
CHANGES = [1.0 if i < 20 or i > 30 else float(i if i % 2 == 0 else -i) for i in range(51)]
RATES = [1.0 if i < 20 or i > 30 else float(i if i % 2 == 0 else 1) for i in range(51)]


# --- OnlineNormalStrategyTest ------------------------------------------------------------------


def test_online_normal_detects_all_anomalies() -> None:
    assert indices(OnlineNormal(3.5, 3.5, 0.2).detect(ONLINE)) == list(range(20, 31))


def test_online_normal_only_in_the_interval() -> None:
    assert indices(OnlineNormal(1.5, 1.5, 0.2).detect(ONLINE, 25, 31)) == list(range(25, 31))


def test_online_normal_one_sided() -> None:
    assert indices(OnlineNormal(None, 1.5).detect(ONLINE)) == list(range(20, 31, 2))
    assert indices(OnlineNormal(1.5, None).detect(ONLINE)) == list(range(21, 30, 2))


def test_online_normal_empty_and_max_factors() -> None:
    assert OnlineNormal(1.5, 1.5, 0.2).detect([]) == []
    assert OnlineNormal(MAX, MAX).detect(ONLINE) == []


def test_online_normal_ignores_anomalies_if_wanted() -> None:
    data = [1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0]
    assert indices(OnlineNormal(1.5, 1.5, 0.2).detect(data)) == [3]
    # kept in the statistics, the 2.0 widens the band (Deequ: mean and sd of all 7 values)
    kept = OnlineNormal(1.5, 1.5, 0.2, ignore_anomalies=False).detect(data)
    assert indices(kept) == [3]


def test_online_normal_variance_is_the_population_variance() -> None:
    """Deequ: the last running mean equals breeze's mean and its sd is within 0.1% of breeze's
    (sample) sd on 1000 points; here the band of the last point is checked against Python."""
    r = JavaRandom(1)
    for _ in range(51):
        r.next_gaussian()  # the series above came first in Deequ's suite
    data = [r.next_gaussian() * (5000.0 / i) for i in range(1, 1001)]
    mean = sum(data) / len(data)
    sd = math.sqrt(sum((x - mean) ** 2 for x in data) / len(data))
    # a point just inside the band of the whole series is normal, just outside is not
    strategy = OnlineNormal(1.0, 1.0, 0.0, ignore_anomalies=False)
    n = len(data) + 1
    inside = mean + 0.99 * sd * math.sqrt((n - 1) / n)
    assert strategy.detect([*data, inside], n - 1) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lower_factor": None, "upper_factor": None},
        {"lower_factor": None, "upper_factor": -3.0},
        {"lower_factor": -3.0, "upper_factor": None},
        {"ignore_start": 1.5},
        {"ignore_start": -1.0},
    ],
)
def test_online_normal_refuses_what_deequ_refuses(kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ModelError) as err:
        OnlineNormal(**kwargs)
    named = next(k for k, v in kwargs.items() if v is not None or k == "upper_factor")
    assert named in str(err.value)


def test_online_normal_accepts_what_deequ_accepts() -> None:
    OnlineNormal(ignore_start=1.0)
    OnlineNormal(0.0, None)


# --- BatchNormalStrategyTest -------------------------------------------------------------------


def test_batch_normal_only_in_the_interval() -> None:
    assert indices(BatchNormal(1.0, 1.0).detect(BATCH, 25, 50)) == list(range(25, 31))


def test_batch_normal_one_sided() -> None:
    assert indices(BatchNormal(None, 1.0).detect(BATCH, 20, 31)) == list(range(20, 31, 2))
    assert indices(BatchNormal(1.0, None).detect(BATCH, 10, 30)) == list(range(21, 30, 2))


def test_batch_normal_leaves_the_interval_out_of_its_statistics() -> None:
    data = [1.0, 1.0, 1.0, 1000.0, 500.0, 1.0]
    assert indices(BatchNormal(3.0, 3.0).detect(data, 3, 5)) == [3, 4]


def test_batch_normal_refuses_to_exclude_every_point_and_bad_factors() -> None:
    with pytest.raises(ModelError):
        BatchNormal().detect(BATCH)
    assert BatchNormal(MAX, MAX).detect(BATCH, 30, 51) == []
    for kwargs in ({"lower_factor": None, "upper_factor": -3.0}, {"lower_factor": -3.0},
                   {"lower_factor": None, "upper_factor": None}):  # fmt: skip
        with pytest.raises(ModelError, match="factor"):
            BatchNormal(**kwargs)  # type: ignore[arg-type]


# --- SimpleThresholdStrategyTest ---------------------------------------------------------------


def test_simple_thresholds() -> None:
    data = [-1.0, 2.0, 3.0, 0.5]
    assert indices(SimpleThresholds(upper=1.0).detect(data, 0, 4)) == [1, 2]
    assert indices(SimpleThresholds(upper=1.0).detect(data)) == [1, 2]
    assert SimpleThresholds(upper=1.0).detect([]) == []
    assert indices(SimpleThresholds(-0.5, 1.0).detect(data)) == [0, 1, 2]
    with pytest.raises(ModelError, match="lower"):
        SimpleThresholds(2.0, 1.0)
    with pytest.raises(ModelError, match="upper"):
        SimpleThresholds()


# --- AbsoluteChangeStrategyTest, RateOfChangeStrategyTest --------------------------------------


@pytest.mark.parametrize("cls", [AbsoluteChange, RateOfChange])
def test_absolute_change(cls: type) -> None:
    strategy = cls(-2.0, 2.0)
    assert indices(strategy.detect(CHANGES)) == list(range(20, 32))
    assert indices(strategy.detect(CHANGES, 25, 50)) == list(range(25, 32))
    assert indices(cls(None, 1.0).detect(CHANGES)) == list(range(20, 31, 2))
    assert indices(cls(-1.0, None).detect(CHANGES)) == list(range(21, 32, 2))
    assert cls(-MAX, MAX).detect(CHANGES) == []
    assert strategy.detect([]) == []


def test_absolute_change_orders_and_indices() -> None:
    data = [0.0, 1.0, 3.0, 6.0, 18.0, 72.0]
    assert indices(AbsoluteChange(None, 8.0, order=2).detect(data)) == [4, 5]
    assert indices(AbsoluteChange(None, 8.0, order=2).detect(data, 5, 6)) == [5]
    assert indices(AbsoluteChange(-2.0, 2.0).detect([1.0, -1.0, 4.0, -7.0])) == [2, 3]
    # Deequ's diff of order 3 of (1, 5, -10, 3, 100, 0.01, 0.0065) is (47, 56, -280.99,
    # 296.9765): bounds just inside and outside each pick exactly that point
    third = [1.0, 5.0, -10.0, 3.0, 100.0, 0.01, 0.0065]
    assert indices(AbsoluteChange(-281.0, 296.9, order=3).detect(third)) == [6]
    assert indices(AbsoluteChange(-280.9, 297.0, order=3).detect(third)) == [5]
    # order 0 is the values themselves (Deequ accepts it for differences)
    assert indices(AbsoluteChange(-2.0, 2.0, order=0).detect([1.0, -3.0, 4.0])) == [1, 2]


@pytest.mark.parametrize("cls", [AbsoluteChange, RateOfChange, RelativeRateOfChange])
def test_change_bounds_deequ_refuses(cls: type) -> None:
    with pytest.raises(ModelError, match="max_decrease"):
        cls(-2.0, -3.0)
    with pytest.raises(ModelError, match="max_increase"):
        cls(None, None)
    with pytest.raises(ModelError, match="order"):
        cls(-1.0, 1.0, order=-1)


# --- RelativeRateOfChangeStrategyTest ----------------------------------------------------------


def test_relative_rate_of_change() -> None:
    strategy = RelativeRateOfChange(0.5, 2.0)
    assert indices(strategy.detect(RATES)) == list(range(20, 32))
    assert indices(strategy.detect(RATES, 25, 50)) == list(range(25, 32))
    assert indices(RelativeRateOfChange(None, 1.0).detect(RATES)) == list(range(20, 31, 2))
    assert indices(RelativeRateOfChange(0.5, None).detect(RATES)) == list(range(21, 32, 2))
    assert RelativeRateOfChange(-MAX, MAX).detect(RATES) == []
    assert strategy.detect([]) == []


def test_relative_rate_orders_and_indices() -> None:
    data = [0.0, 1.0, 3.0, 6.0, 18.0, 72.0]
    assert indices(RelativeRateOfChange(None, 8.0, order=2).detect(data)) == [2, 5]
    assert indices(RelativeRateOfChange(None, 8.0, order=2).detect(data, 5, 6)) == [5]
    with pytest.raises(ModelError, match="order"):
        RelativeRateOfChange(0.5, 2.0, order=0)  # Deequ: order of diff cannot be zero


def test_relative_rate_zero_over_zero_is_no_anomaly() -> None:
    # Deequ divides the vectors: 0/0 is NaN, which no bound flags, even one excluding 1.0
    assert RelativeRateOfChange(1.5, 2.0).detect([0.0, 0.0]) == []


# --- HoltWintersTest ---------------------------------------------------------------------------

TWO_WEEKS = [1, 1, 1.2, 1.3, 1.5, 2.1, 1.9] * 2


def _two_weeks() -> list[float]:
    r = JavaRandom(42)
    return [x + r.next_gaussian() for x in TWO_WEEKS]


WEEKLY = HoltWinters.of("daily", "weekly")


def test_holt_winters_refusals() -> None:
    data = _two_weeks()
    with pytest.raises(ModelError, match="empty"):
        WEEKLY.detect(data, 1, 1)
    with pytest.raises(ModelError, match="empty"):
        WEEKLY.detect([], 0)
    with pytest.raises(ModelError, match="two full seasons"):
        WEEKLY.detect([1.0, 2.0, 3.0], 0)
    with pytest.raises(ModelError, match="periodicity"):
        HoltWinters(1)


def test_holt_winters_on_deequs_series() -> None:
    data = _two_weeks()
    assert WEEKLY.detect(data, 100, 110) == []  # beyond the series: nothing to judge
    assert WEEKLY.detect([*data, data[0]], 14, 15) == []
    assert indices(WEEKLY.detect([*data, 0.0], 14)) == [14]
    assert WEEKLY.detect(data + data, 26) == []
    assert WEEKLY.detect([1.0] * 21, 14) == []
    assert indices(WEEKLY.detect([1.0] * 20 + [0.0], 14)) == [20]
    assert WEEKLY.detect([float(t) for t in range(48)], 36) == []
    seasonal = [math.sin(2 * math.pi / 7 * t) + t for t in range(48)]
    assert WEEKLY.detect(seasonal, 36) == []
    train = [0.0, 1, 1, 1, 1, 1, 1] * 2
    assert indices(WEEKLY.detect([*train, *[1.0] * 7], 14, 21)) == [14]


MILK = [
    589, 561, 640, 656, 727, 697, 640, 599, 568, 577, 553, 582,
    600, 566, 653, 673, 742, 716, 660, 617, 583, 587, 565, 598,
    628, 618, 688, 705, 770, 736, 678, 639, 604, 611, 594, 634,
    658, 622, 709, 722, 782, 756, 702, 653, 615, 621, 602, 635,
]  # fmt: skip
CARS = [
    6550, 8728, 12026, 14395, 14587, 13791, 9498, 8251, 7049, 9545, 9364, 8456,
    7237, 9374, 11837, 13784, 15926, 13821, 11143, 7975, 7610, 10015, 12759, 8816,
    10677, 10947, 15200, 17010, 20900, 16205, 12143, 8997, 5568, 11474, 12256, 10583,
    10862, 10965, 14405, 20379, 20128, 17816, 12268, 8642, 7962, 13932, 15936, 12628,
]  # fmt: skip
TRAFFIC = [
    15, 13, 10, 7, 9, 6, 9, 8, 11, 12, 15, 17, 16, 15, 16, 12, 12, 16, 17, 20, 17, 19, 20, 15,
    14, 12, 14, 12, 12, 11, 13, 14, 12, 22, 32, 31, 35, 26, 34, 30, 27, 27, 24, 26, 29, 32, 30, 27,
    21, 18, 19, 13, 11, 11, 11, 14, 15, 29, 33, 32, 32, 29, 27, 26, 28, 26, 25, 29, 26, 24, 25, 20,
    18, 18, 13, 13, 10, 12, 13, 11, 13, 22, 26, 27, 31, 24, 23, 26, 26, 24, 23, 25, 26, 24, 26, 24,
    19, 20, 18, 13, 13, 9, 12, 12, 15, 16, 23, 24, 25, 24, 26, 22, 20, 20, 22, 26, 22, 21, 21, 21,
    16, 18, 19, 14, 12, 13, 14, 14, 13, 20, 22, 26, 26, 21, 23, 23, 19, 19, 20, 24, 18, 19, 16, 17,
    16, 16, 10, 9, 8, 7, 9, 8, 12, 13, 17, 14, 14, 14, 14, 11, 15, 13, 12, 17, 18, 17, 16, 15, 13,
]  # fmt: skip


def test_holt_winters_yearly_and_daily_seasons() -> None:
    monthly = HoltWinters.of("monthly", "yearly")
    assert len(monthly.detect([float(x) for x in MILK], 36, 48)) == 7
    assert len(HoltWinters(12).detect([float(x) for x in MILK], 36, 48)) == 7
    assert len(monthly.detect([float(x) for x in CARS], 36, 48)) == 3
    hourly = HoltWinters.of("hourly", "daily")
    assert len(hourly.detect([float(x) for x in TRAFFIC[:168]], 144, 168)) == 2


def test_strategies_from_yaml_names() -> None:
    assert strategy_from_dict({"strategy": "holt_winters", "periodicity": 12}) == HoltWinters(12)


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ("strategy: simple_thresholds\n    lower: 5\n    upper: 1", "lower"),
        ("strategy: online_normal\n    upper_factor: -3", "upper_factor"),
        ("strategy: online_normal\n    ignore_start: 1.5", "ignore_start"),
        ("strategy: relative_rate_of_change\n    max_decrease: 2\n    max_increase: 1",
         "max_decrease"),
        ("strategy: batch_normal\n    lower_factor: null\n    upper_factor: null",
         "upper_factor"),
    ],
)  # fmt: skip
def test_yaml_names_the_refused_parameter_with_its_position(params: str, parameter: str) -> None:
    from quality_py.errors import QualityError
    from quality_py.io.ruleset_sections import loads_anomalies

    text = f"suite: {{id: 1}}\nanomalies:\n  - metric: input_rows\n    {params}\n"
    with pytest.raises(QualityError) as err:
        loads_anomalies(text, "r.yaml")
    message = str(err.value)
    line = next(i + 1 for i, t in enumerate(text.splitlines()) if t.strip().startswith(parameter))
    assert parameter in message and "r.yaml" in message and f"line {line}" in message, message
