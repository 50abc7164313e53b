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

#: The tag that says the time of the data a run checks (the report's charts place runs by it)
DATA_TIME = "data_time"


def data_time(text: str) -> str:
    """The ``data_time`` tag's value as the history keeps it: an ISO date, or an ISO time in
    UTC (a time without a zone is taken as UTC).

    >>> data_time("2026-11-23"), data_time("2026-11-23T10:00:00+01:00")
    ('2026-11-23', '2026-11-23T09:00:00+00:00')
    """
    from datetime import timezone

    from quality_py.model.times import parse_datetime

    try:
        when = parse_datetime(text)
    except Exception:
        raise ModelError(
            f"data_time {text!r} is not a time: give the time of the data the run checks as an "
            "ISO date or time (2026-11-23, 2026-11-23T10:00:00Z)"
        ) from None
    if len(text.strip()) == 10:  # a date alone
        return when.date().isoformat()
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat()


@dataclass(frozen=True, slots=True, kw_only=True)
class OverTime:
    """What a run keeps from one run to the next: its history, tags and anomaly checks, and the
    state of the table its input is a partition of (all optional; anomaly checks need a
    history).

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
    #: the table the input is a partition of (a :class:`quality_py.TableState`: where its
    #: partitions' states are kept, and which partition the input is): the dataset checks answer
    #: for the table, and an accepted run keeps the input's state for its partition
    table_state: object | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", {str(k): str(v) for k, v in (self.tags or {}).items()})
        if DATA_TIME in self.tags:
            object.__setattr__(
                self, "tags", {**self.tags, DATA_TIME: data_time(self.tags[DATA_TIME])}
            )
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
        table_state: object | None = None,
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
            table_state=table_state,
        )
