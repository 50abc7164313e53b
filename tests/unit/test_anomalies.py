"""Each anomaly strategy against expectations computed with numpy on synthetic histories with
known anomalies (no call into the strategy's own arithmetic)."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.errors import ModelError
from quality_py.history import (
    AbsoluteChange,
    AnomalyCheck,
    BatchNormal,
    Metric,
    OnlineNormal,
    RateOfChange,
    RelativeRateOfChange,
    RunRecord,
    SimpleThresholds,
    metric_key,
    strategy_from_dict,
)

RNG = np.random.default_rng(7)
#: 60 points of noise around 100 (sd 2) with three planted anomalies
SERIES = list(100 + RNG.normal(0, 2, 60))
SERIES[20], SERIES[41], SERIES[55] = 140.0, 60.0, 125.0
PLANTED = [20, 41, 55]


def indices(found: list) -> list[int]:  # type: ignore[type-arg]
    return [a.index for a in found]


def test_simple_thresholds() -> None:
    x = np.array(SERIES)
    expected = list(np.flatnonzero((x < 90) | (x > 120)))
    assert indices(SimpleThresholds(90, 120).detect(SERIES)) == expected == PLANTED
    assert indices(SimpleThresholds(upper=130).detect(SERIES)) == [20]
    assert indices(SimpleThresholds(90, 120).detect(SERIES, 30, 50)) == [41]


@pytest.mark.parametrize("order", [1, 2, 3])
def test_absolute_change_is_the_nth_difference(order: int) -> None:
    d = np.diff(np.array(SERIES), n=order)
    expected = [i + order for i in np.flatnonzero((d < -15) | (d > 15))]
    assert indices(AbsoluteChange(-15, 15, order).detect(SERIES)) == expected
    # a jump up and its way back down are both changes
    assert {20, 21} <= set(indices(AbsoluteChange(-15, 15).detect(SERIES)))
    assert indices(RateOfChange(-15, 15, order).detect(SERIES)) == expected


def test_absolute_change_one_sided_and_in_an_interval() -> None:
    d = np.diff(np.array(SERIES))
    drops = [i + 1 for i in np.flatnonzero(d < -15)]
    assert indices(AbsoluteChange(max_decrease=-15).detect(SERIES)) == drops
    assert indices(AbsoluteChange(max_decrease=-15).detect(SERIES, 40, 45)) == [
        i for i in drops if 40 <= i < 45
    ]


@pytest.mark.parametrize("order", [1, 2])
def test_relative_rate_of_change_is_the_ratio(order: int) -> None:
    x = np.array(SERIES)
    ratio = x[order:] / x[:-order]
    expected = [i + order for i in np.flatnonzero((ratio < 0.8) | (ratio > 1.25))]
    assert indices(RelativeRateOfChange(0.8, 1.25, order).detect(SERIES)) == expected


def test_relative_rate_of_change_at_zero() -> None:
    found = RelativeRateOfChange(0.5, 2.0).detect([0.0, 0.0, 5.0, 0.0])
    assert indices(found) == [2, 3]  # 0 -> 0 is no change; 0 -> 5 infinite; 5 -> 0 a drop


def _online_normal_by_hand(values: list[float], factor: float, skip: int) -> list[int]:
    """Mean and population sd of the earlier non-anomalous points, recomputed with numpy."""
    kept: list[float] = []
    out = []
    for i, x in enumerate(values):
        if i >= skip and len(kept) >= 2:
            mean, sd = float(np.mean(kept)), float(np.std(kept))
            if abs(x - mean) > factor * sd:
                out.append(i)
                continue
        kept.append(x)
    return out


def test_online_normal_matches_a_recomputation() -> None:
    expected = _online_normal_by_hand(SERIES, 3.5, 6)
    assert set(PLANTED) <= set(expected)
    assert (
        indices(OnlineNormal(3.5, 3.5, ignore_start=0.1, include_current=False).detect(SERIES))
        == expected
    )


def test_online_normal_one_sided_and_counting_anomalies() -> None:
    ups = [i for i in _online_normal_by_hand(SERIES, 3.5, 6) if SERIES[i] > 100]
    mine = OnlineNormal(None, 3.5, ignore_start=0.1, include_current=False)
    assert indices(mine.detect(SERIES)) == ups
    # anomalies kept in the statistics widen the band: the later, smaller outlier passes
    kept = OnlineNormal(
        3.5, 3.5, ignore_start=0.1, ignore_anomalies=False, include_current=False
    ).detect(SERIES)
    assert 20 in indices(kept)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=0, max_size=40))
def test_online_normal_welford_equals_numpy(values: list[float]) -> None:
    assert indices(
        OnlineNormal(2.0, 2.0, ignore_start=0, include_current=False).detect(values)
    ) == (_online_normal_by_hand_tolerant(values, 2.0))


def _online_normal_by_hand_tolerant(values: list[float], factor: float) -> list[int]:
    # the same as _online_normal_by_hand, with a relative tolerance at the band's edge (numpy
    # and Welford round differently)
    kept: list[float] = []
    out = []
    for i, x in enumerate(values):
        if len(kept) >= 2:
            mean, sd = float(np.mean(kept)), float(np.std(kept))
            edge = factor * sd
            if abs(abs(x - mean) - edge) <= 1e-6 * max(1.0, abs(x), abs(mean), edge):
                strategy = OnlineNormal(factor, factor, ignore_start=0, include_current=False)
                return indices(strategy.detect(values))
            if abs(x - mean) > edge:
                out.append(i)
                continue
        kept.append(x)
    return out


def test_batch_normal_uses_the_points_outside_the_interval() -> None:
    history, judged = SERIES[:50], SERIES[50:]
    mean, sd = float(np.mean(history)), float(np.std(history, ddof=1))
    expected = [50 + i for i, x in enumerate(judged) if abs(x - mean) > 3 * sd]
    assert expected == [55]
    assert indices(BatchNormal(3, 3).detect(SERIES, 50)) == expected
    both = float(np.mean(SERIES)), float(np.std(SERIES, ddof=1))
    wide = [50 + i for i, x in enumerate(judged) if abs(x - both[0]) > 3 * both[1]]
    assert indices(BatchNormal(3, 3, include_interval=True).detect(SERIES, 50)) == wide


def test_batch_normal_needs_two_reference_points() -> None:
    with pytest.raises(ModelError, match="at least two"):
        BatchNormal().detect([1.0, 2.0], 1)


def test_nan_is_never_judged() -> None:
    assert indices(SimpleThresholds(0, 1).detect([math.nan, 5.0])) == [1]
    assert indices(RelativeRateOfChange(0.5, 2).detect([1.0, math.nan, 9.0])) == []


def test_strategies_from_yaml_and_bad_parameters() -> None:
    assert strategy_from_dict({"strategy": "batch_normal", "upper_factor": 2}) == BatchNormal(
        upper_factor=2
    )
    with pytest.raises(ModelError, match="no anomaly strategy 'median'"):
        strategy_from_dict({"strategy": "median"})
    with pytest.raises(ModelError, match="has no parameter"):
        strategy_from_dict({"strategy": "online_normal", "sigma": 3})
    with pytest.raises(ModelError, match="order"):
        AbsoluteChange(-1, 1, order=-1)
    with pytest.raises(ModelError, match="max_increase"):
        AbsoluteChange()


T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _run(i: int, rows: float, status: str = "success", **tags: str) -> RunRecord:
    metrics = (
        Metric("rows", "run", "input_rows", rows),
        Metric("rule", "101.1", "failed_share", rows / 1000, group="10.1"),
    )
    return RunRecord(f"r{i}", T0 + timedelta(days=i), "quality_run", "1.1", status, tags, metrics)


class _Repo:
    def __init__(self, records: list[RunRecord]) -> None:
        self._records = records

    def records(self, **_: object) -> list[RunRecord]:
        return list(self._records)


def test_an_anomaly_check_judges_the_current_run_against_baseline_runs() -> None:
    history = [_run(i, n) for i, n in enumerate([1000, 1010, 990])]
    history.append(_run(3, 10, status="failed"))  # a failed run is no baseline
    check = AnomalyCheck("input_rows", RelativeRateOfChange(max_decrease=0.7))
    ok = check.judge(_run(4, 980), history)
    assert ok.status == "passed" and "against 3 earlier runs" in (ok.message or "")
    bad = check.judge(_run(4, 500), history)
    assert bad.status == "failed" and bad.value == 500 and "0.5051x of 990" in (bad.message or "")
    # a rule's failed share, by rule id without its version, within 3 sigma of the history
    sigma = AnomalyCheck("rule:101", BatchNormal(3, 3), level="warning")
    assert sigma.judge(_run(4, 1000), history).status == "passed"
    assert sigma.judge(_run(4, 1200), history).status == "failed"


@pytest.mark.parametrize(
    ("strategy", "needed"),
    [
        (BatchNormal(), 2),
        (OnlineNormal(include_current=False), 2),
        (OnlineNormal(), 10),  # Deequ's: with 3 deviations a point needs 9 others to stand out
        (RelativeRateOfChange(0.5), 1),
        (AbsoluteChange(-1, 1, order=2), 2),
    ],
)
def test_a_history_shorter_than_the_strategy_needs_is_a_warning_never_normal(
    strategy: object, needed: int
) -> None:
    check = AnomalyCheck("input_rows", strategy)  # an error-level check
    for earlier in range(needed):  # 0 .. needed-1 earlier runs: not judged
        history = [_run(i, 100) for i in range(earlier)]
        out = check.judge(_run(earlier, 5), history)
        assert out.status == "not_judged" and out.group == "warning", out
        assert f"needs {needed} earlier run(s) and the history has {earlier}" in (out.message or "")
        assert "normal" not in (out.message or "")
    history = [_run(i, 100) for i in range(needed)]  # enough: judged (5 after 100s: anomalous)
    assert check.judge(_run(needed, 5), history).status == "failed"


def test_short_history_is_not_judged_and_a_missing_metric_fails() -> None:
    check = AnomalyCheck("input_rows", BatchNormal())
    first = check.judge(_run(0, 5), [])
    assert first.status == "not_judged" and "not judged" in (first.message or "")
    missing = AnomalyCheck("rule:999", SimpleThresholds(0, 1)).judge(_run(1, 5), [])
    assert missing.status == "failed" and "no such metric" in (missing.message or "")


def test_tags_and_window_choose_the_series() -> None:
    history = [_run(i, 1000, table="a") for i in range(5)] + [_run(5, 10, table="b")]
    check = AnomalyCheck("input_rows", RelativeRateOfChange(0.7), tags={"table": "a"})
    assert check.judge(_run(6, 990, table="a"), history).status == "passed"
    untagged = AnomalyCheck("input_rows", RelativeRateOfChange(0.7, 1.3))
    assert untagged.judge(_run(6, 990, table="a"), history).status == "failed"  # after b's 10
    windowed = AnomalyCheck("input_rows", BatchNormal(), window=2)
    assert "against 2 earlier" in (windowed.judge(_run(6, 1000), history[:5]).message or "")


def test_metric_shorthands() -> None:
    assert metric_key("check:completeness:dep_delay complete") == (
        "check",
        "completeness",
        "dep_delay complete",
    )
    assert metric_key(("rows", "run", "valid_rows")) == ("rows", "run", "valid_rows")
    with pytest.raises(ModelError, match="cannot read the metric"):
        metric_key("rows_in")
    assert _Repo([]).records() == []


def test_a_version_bump_keeps_the_baseline_and_says_so() -> None:
    """Three runs of suite 1 at version 1, then the ordinary edit that bumps it to version 2 and
    a batch that collapsed by 96%: judged against the three (by hand: 40 / 1000 = 0.04 < 0.7)."""
    history = [_run(i, 1000) for i in range(3)]
    collapsed = replace(_run(3, 40), suite="1.2")
    out = AnomalyCheck("input_rows", RelativeRateOfChange(0.7)).judge(collapsed, history)
    assert out.status == "failed" and "0.04x of 1000" in (out.message or "")
    assert "suite versions 1.1 -> 1.2" in (out.message or "")
    other_suite = [replace(r, suite="2.1") for r in history]
    alone = AnomalyCheck("input_rows", RelativeRateOfChange(0.7)).judge(collapsed, other_suite)
    assert alone.status == "not_judged"  # another suite's runs are no baseline
