"""What judges a run over time, as one typed value: where its record is kept (a metrics
repository), the tags of that record, and the anomaly checks that judge it against the earlier
records. Built and validated here, once, for ``run_quality`` and ``verify`` alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quality_py.errors import ModelError
from quality_py.history.anomaly_checks import AnomalyCheck
from quality_py.history.repository import MetricsRepository


@dataclass(frozen=True, slots=True, kw_only=True)
class OverTime:
    """A run's history, tags and anomaly checks (all optional; anomaly checks need a history).

    >>> OverTime(tags={"table": "orders", "day": 5}).tags
    {'table': 'orders', 'day': '5'}
    >>> try:
    ...     OverTime(anomaly_checks=(object(),))
    ... except Exception as err:
    ...     print(err.message)
    anomaly checks judge a run against its history: give history=...
    """

    history: MetricsRepository | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    anomaly_checks: tuple[AnomalyCheck, ...] = ()
    #: columns whose values the record's sample failing rows never show (sensitive data)
    hide_columns: tuple[str, ...] = ()
    #: how many failing rows the record keeps (0: none)
    sample_rows: int = 10

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", {str(k): str(v) for k, v in (self.tags or {}).items()})
        object.__setattr__(self, "anomaly_checks", tuple(self.anomaly_checks))
        if isinstance(self.hide_columns, str):
            raise ModelError("hide_columns is a list of column names, not one string")
        object.__setattr__(self, "hide_columns", tuple(str(c) for c in self.hide_columns))
        rows = self.sample_rows
        if isinstance(rows, bool) or not isinstance(rows, int) or not 0 <= rows <= 100:
            raise ModelError(f"sample_rows is a whole number from 0 to 100, not {rows!r}")
        if self.anomaly_checks and self.history is None:
            raise ModelError("anomaly checks judge a run against its history: give history=...")

    @classmethod
    def of(
        cls,
        history: MetricsRepository | None,
        tags: Mapping[str, Any] | None,
        anomaly_checks: Sequence[AnomalyCheck] = (),
        hide_columns: Sequence[str] = (),
    ) -> OverTime:
        """The value of the keyword arguments the runs take (``None`` tags are none).

        >>> OverTime.of(None, None).tags
        {}
        """
        return cls(
            history=history,
            tags=dict(tags or {}),
            anomaly_checks=tuple(anomaly_checks),
            hide_columns=tuple(hide_columns),
        )
