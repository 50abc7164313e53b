"""Quality over time: run records in a metrics repository, and anomaly checks over them."""

from __future__ import annotations

from quality_py.errors import HistoryError
from quality_py.history.anomalies import (
    AbsoluteChange,
    Anomaly,
    BatchNormal,
    HoltWinters,
    OnlineNormal,
    RateOfChange,
    RelativeRateOfChange,
    SimpleThresholds,
    strategy_from_dict,
)
from quality_py.history.anomaly_checks import AnomalyCheck, judge_all, metric_key
from quality_py.history.over_time import OverTime
from quality_py.history.records import Metric, RunRecord
from quality_py.history.repository import (
    FileMetricsRepository,
    MetricsRepository,
    TableMetricsRepository,
    history_frame,
    open_repository,
)

__all__ = [
    "AbsoluteChange",
    "Anomaly",
    "AnomalyCheck",
    "BatchNormal",
    "FileMetricsRepository",
    "HistoryError",
    "HoltWinters",
    "Metric",
    "MetricsRepository",
    "OnlineNormal",
    "OverTime",
    "RateOfChange",
    "RelativeRateOfChange",
    "RunRecord",
    "SimpleThresholds",
    "TableMetricsRepository",
    "history_frame",
    "judge_all",
    "metric_key",
    "open_repository",
    "strategy_from_dict",
]
