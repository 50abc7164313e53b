"""The band of values an anomaly check expected, as the report draws it: worked out by hand
from each strategy's definition, and consistent with what the strategy flags."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from quality_py.history import AnomalyCheck, Metric, RunRecord
from quality_py.history.anomalies import (
    AbsoluteChange,
    BatchNormal,
    HoltWinters,
    RelativeRateOfChange,
    SimpleThresholds,
)

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def _run(i: int, rows: float) -> RunRecord:
    return RunRecord(f"r{i}", T0 + timedelta(days=i), "quality_run", "1.1", "success", {},
                     (Metric("rows", "run", "input_rows", rows),))  # fmt: skip


def test_bands_by_hand() -> None:
    assert SimpleThresholds(lower=2, upper=9).band([1, 5]) == (2, 9)
    assert AbsoluteChange(-2, 3).band([10, 11]) == (8, 13)  # 10 - 2, 10 + 3
    assert AbsoluteChange(-2, 3, order=2).band([10, 11, 12]) is None  # bounds a 2nd difference
    assert RelativeRateOfChange(0.5, 2.0).band([10, 11]) == (5.0, 20.0)
    assert RelativeRateOfChange(0.5, 2.0).band([0, 11]) is None  # no ratio after a zero
    # mean 2 and sample sd sqrt(2) of [1, 3]; one sd either side
    lo, hi = BatchNormal(1, 1).band([1, 3, 100])
    assert (lo, hi) == pytest.approx((2 - math.sqrt(2), 2 + math.sqrt(2)))
    assert not hasattr(HoltWinters, "band")  # a forecast's interval: not drawn


@pytest.mark.parametrize("value", [7.0, 8.0, 13.0, 13.5, 20.0])
def test_a_value_is_flagged_exactly_when_outside_its_band(value: float) -> None:
    strategy = AbsoluteChange(-2, 3)
    lo, hi = strategy.band([10, value])
    flagged = bool(strategy.detect([10, value], start=1))
    assert flagged == (not lo <= value <= hi)


def test_the_check_records_its_band_beside_its_outcome() -> None:
    check = AnomalyCheck("input_rows", BatchNormal(2, 2), name="volume")
    history = [_run(0, 100), _run(1, 110), _run(2, 90)]
    outcome, *bounds = check.judge_with_band(_run(3, 300), history)
    assert outcome.kind == "anomaly" and outcome.status == "failed"
    # mean 100, sample sd 10 of 100, 110, 90: 100 -+ 2 * 10
    assert [(b.kind, b.entity, b.name, b.value) for b in bounds] == [
        ("bound", "rows.run.input_rows", "lower", 80.0),
        ("bound", "rows.run.input_rows", "upper", 120.0),
    ]
    # too short a history: judged by nobody, no band
    assert check.judge_with_band(_run(1, 300), [_run(0, 100)])[1:] == []
