"""The builders of :class:`~quality_py.dataset.checks.Check` about time: how fresh the data is,
when its table was last written, and whether a daily or hourly table has a gap.

They are constraint names YAML may use, as every public builder of
:class:`~quality_py.dataset.constraints.ConstraintBuilders` (which inherits these).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.times import AgeAt, LastWrite, Newest, TimeBuckets, WriteAgeAt, aware
from quality_py.errors import ModelError
from quality_py.model.times import parse_duration

if TYPE_CHECKING:
    from quality_py.dataset.checks import Check


class TimeConstraintBuilders:
    """The time constraints of a check (``is_fresh``, ``was_written_within``, ``has_no_gaps``)."""

    __slots__ = ()

    def _add(
        self,
        description: str,
        analyzer: Analyzer,
        assertion: Callable[[Any], bool] | str,
        pick: Callable[[Any], Any] | None = None,
    ) -> Check:
        raise NotImplementedError

    def is_fresh(
        self, column: str, max_age: str | timedelta, now: str | datetime | None = None
    ) -> Check:
        """The newest value of the timestamp or date ``column`` is at most ``max_age`` old
        (``"1 day"``, ``"6 hours"``, a ``timedelta``) at ``now``: the data's own time (an ISO
        date or time, or a ``datetime``; a time without a zone is UTC), or the clock when the
        check is judged. The metric is the newest value's age in seconds; with a table state,
        the table's newest value.

        >>> from quality_py.dataset.checks import Check
        >>> Check("error", "t").is_fresh("loaded_at", "1 day").constraints[-1].description
        'loaded_at is fresh (newest at most 1 day old)'
        """
        age = parse_duration(max_age)
        shown = max_age if isinstance(max_age, str) else str(age)
        at = AgeAt(None if now is None else aware(now))
        return self._add(
            f"{column} is fresh (newest at most {shown} old)",
            Newest(column),
            f"<= {age.total_seconds():g}",
            pick=at,
        )

    def was_written_within(
        self, max_age: str | timedelta, now: str | datetime | None = None
    ) -> Check:
        """The newest file the data is read from was written at most ``max_age`` before ``now``
        (an ISO time or a ``datetime``; default: the clock when the check is judged, never the
        data's own time, since a write time is a clock's).

        The write time is each file's modification time as Spark lists it (its hidden
        ``_metadata.file_modification_time``), so this works on any table or folder of files
        Spark reads: Parquet, ORC, CSV, JSON; for a Delta table it is its last commit, read
        from its log (``quality_py.gate.delta_log``: any commit, a delete or a change of
        properties included). Data not read from files (a DataFrame built in memory,
        a join or an aggregation) is refused with this check's name. The metric is the age in
        seconds; with a table state, of the table's newest write.

        >>> from quality_py.dataset.checks import Check
        >>> Check("error", "t").was_written_within("1 day").constraints[-1].description
        'written within 1 day (last write at most 1 day old)'
        """
        age = parse_duration(max_age)
        shown = max_age if isinstance(max_age, str) else str(age)
        at = WriteAgeAt(None if now is None else aware(now, "was_written_within"))
        return self._add(
            f"written within {shown} (last write at most {shown} old)",
            LastWrite(),
            f"<= {age.total_seconds():g}",
            pick=at,
        )

    def has_no_gaps(self, column: str, every: str | timedelta = "1 day") -> Check:
        """Every ``every`` (``"1 day"``, ``"1 hour"``) between the first and the last value of
        the timestamp or date ``column`` holds a value: no empty day in a daily table. Days are
        calendar days in the Spark session's time zone; shorter steps are counted from the
        epoch. The metric is the number of empty steps; with a table state, the table's.

        >>> from quality_py.dataset.checks import Check
        >>> Check("error", "t").has_no_gaps("day").constraints[-1].description
        'day has no gap of 1 day'
        """
        step = parse_duration(every)
        seconds = step.total_seconds()
        if seconds != int(seconds):
            raise ModelError(f"has_no_gaps: every is a whole number of seconds, not {every!r}")
        shown = every if isinstance(every, str) else str(step)
        return self._add(
            f"{column} has no gap of {shown}", TimeBuckets(column, int(seconds)), "== 0"
        )
