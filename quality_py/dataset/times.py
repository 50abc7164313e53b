"""Analyzers of time: the newest value of a timestamp or date column (how fresh the data is) and
the time buckets that hold a value (where a daily or hourly table has a gap).

Both have mergeable states, so they answer for a growing table from its partitions' states as
every scan-shareable analyzer does (dataset/table_state.py). Times are counted in UTC from the
epoch; a day bucket is a calendar day in the Spark session's time zone (a date column's own
day), shorter buckets are counted from the epoch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar

from quality_py.dataset.analyzers import (
    TIME_KINDS,
    Analyzer,
    Maximum,
    Minimum,
    _col,
    _double,
    _filter,
)
from quality_py.dataset.states import BucketsState, ExtremeState, State
from quality_py.errors import CheckDefinitionError, ModelError
from quality_py.model.policy import RulePolicy
from quality_py.model.times import from_micros, parse_datetime
from quality_py.model.types import DataFrame

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The most distinct buckets a state keeps: beyond it the step is too fine for the data's span
MAX_BUCKETS = 100_000
DAY = 86_400


@dataclass(frozen=True)
class _Age:
    """A time's age in seconds at ``now`` (None: the clock when it is judged)."""

    now: datetime | None = None
    #: what the time is, in a constraint's message
    label = "the time"

    def __call__(self, when: datetime) -> float:
        now = self.now if self.now is not None else datetime.now(timezone.utc)
        return (now - when).total_seconds()


@dataclass(frozen=True)
class AgeAt(_Age):
    """What an ``is_fresh`` assertion sees of the newest time: its age in seconds at ``now``.

    >>> AgeAt(datetime(2026, 1, 2, tzinfo=timezone.utc))(datetime(2026, 1, 1, tzinfo=timezone.utc))
    86400.0
    """

    label = "the newest value"


@dataclass(frozen=True)
class WriteAgeAt(_Age):
    """What a ``was_written_within`` assertion sees of the last write: its age in seconds at
    ``now``. Not an :class:`AgeAt`: a write time is a clock's, so it is never judged at the
    data's own time (:func:`at_data_time` leaves it).

    >>> WriteAgeAt(datetime(2026, 1, 1, 6, tzinfo=timezone.utc))(EPOCH.replace(year=2026))
    21600.0
    """

    label = "the last write"


def aware(value: str | datetime, what: str = "is_fresh") -> datetime:
    """A time with a zone (one without is UTC); ``what`` names the check in an error.

    >>> aware("2026-01-02")
    datetime.datetime(2026, 1, 2, 0, 0, tzinfo=datetime.timezone.utc)
    """
    found = parse_datetime(value) if isinstance(value, str) else value
    if not isinstance(found, datetime):
        raise ModelError(f"{what}: now is a time, not {value!r}")
    return found if found.tzinfo is not None else found.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class _NewestTime(Analyzer):
    """The largest of microseconds since the epoch, a UTC ``datetime`` (None without a row)."""

    def state(self, values: list[Any]) -> ExtremeState:
        return ExtremeState(_double(values[0]), True)

    def identity(self) -> ExtremeState:
        return ExtremeState(None, True)

    def metric(self, state: ExtremeState) -> Any:
        return None if state.value is None else from_micros(state.value)


@dataclass(frozen=True)
class Newest(_NewestTime):
    """The newest value of the timestamp or date ``column``, a UTC ``datetime`` (None when it
    has no value); a date is the start of its day in the session's time zone.

    >>> Newest("ts").metric(ExtremeState(1_500_000.0, True))
    datetime.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=datetime.timezone.utc)
    """

    column: str
    where: str | None = None

    def aggregations(self, policy: RulePolicy) -> list[str]:
        micros = f"unix_micros(CAST({_col(self.column)} AS TIMESTAMP))"
        return [f"max({micros}){_filter(self.where, policy)}"]


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: The hidden column Spark's file sources (and Delta) give each row: the file it was read from
FILE_TIME = "_metadata.file_modification_time"


@dataclass(frozen=True)
class LastWrite(_NewestTime):
    """When the newest file holding the data was written: the largest modification time of the
    files its rows are read from (Spark's hidden ``_metadata`` column), a UTC ``datetime``
    (None when no row is read). It runs its own scan of the data as read (``own_scan``), since
    the column exists only on a plan that reads files.

    >>> LastWrite().metric(ExtremeState(3_600_000_000.0, True))
    datetime.datetime(1970, 1, 1, 1, 0, tzinfo=datetime.timezone.utc)
    """

    own_scan: ClassVar[bool] = True

    def aggregations(self, policy: RulePolicy) -> list[str]:
        return [f"max(unix_micros({FILE_TIME}))"]

    def problem(self, df: DataFrame) -> str | None:
        """Why ``df`` has no write time to read (None: it has one); analysis only, no job."""
        from pyspark.errors import AnalysisException

        if any(c.lower() == "_metadata" for c in df.columns):
            return (
                "the data has a column named _metadata, which hides the files' own (their write "
                "times); rename it to check when the data was written"
            )
        try:
            df.select(FILE_TIME).schema  # noqa: B018 - analysis only
        except AnalysisException:
            return (
                "the write time is read from the files the data comes from (a table or folder "
                "of Parquet, Delta, ORC, CSV or JSON files, as read); this data is not read "
                "from files, or was computed from them (a join, a union, an aggregation)"
            )
        return None

    def refine(self, df: DataFrame, state: State) -> State:
        """The last commit time instead of the files' when ``df`` reads a Delta table
        (:mod:`quality_py.gate.delta_log`: its log's newest commit, which also counts commits
        that wrote no file)."""
        from quality_py.gate.delta_log import last_commit

        when = last_commit(df)
        if when is None:
            return state
        return ExtremeState(float((when - _EPOCH) // timedelta(microseconds=1)), True)

    def require(self, df: DataFrame) -> None:
        """Refuse ``df`` when it has no write time (:meth:`problem`)."""
        problem = self.problem(df)
        if problem is not None:
            raise CheckDefinitionError(f"was_written_within: {problem}", item_kind="check")


@dataclass(frozen=True)
class TimeBuckets(Analyzer):
    """How many buckets of ``seconds`` (a day, an hour, ...) between the first and the last
    value of the timestamp or date ``column`` hold no value: the gaps of a table that should
    have data every day or hour (None when it has no value).

    >>> TimeBuckets("day", 86_400).metric(BucketsState((0, 1, 4)))
    2.0
    """

    column: str
    seconds: int
    where: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, int) or self.seconds < 1:
            raise ModelError(f"a time bucket is a whole number of seconds, not {self.seconds!r}")

    def aggregations(self, policy: RulePolicy) -> list[str]:
        column = _col(self.column)
        if self.seconds % DAY == 0:  # calendar days in the session's time zone
            value, step = f"unix_date(CAST({column} AS DATE))", self.seconds // DAY
        else:
            value, step = f"unix_micros(CAST({column} AS TIMESTAMP))", self.seconds * 1_000_000
        bucket = f"({value} - pmod({value}, {step})) div {step}"  # floor, exact for any sign
        # as JSON text: an observed array reaches Python as a JVM object on pyspark 3.5
        return [f"to_json(collect_set({bucket}){_filter(self.where, policy)})"]

    def state(self, values: list[Any]) -> BucketsState:
        found = sorted({int(v) for v in json.loads(values[0] or "[]")})
        if len(found) > MAX_BUCKETS:
            raise ModelError(
                f"{self.column}: more than {MAX_BUCKETS:,} distinct buckets of {self.seconds} s "
                "hold a value: the step is too fine for the data's span; choose a longer one"
            )
        return BucketsState(tuple(found))

    def identity(self) -> BucketsState:
        return BucketsState()

    def metric(self, state: BucketsState) -> float | None:
        return None if not state.buckets else float(len(state.missing()))

    def starts(self, buckets: tuple[int, ...]) -> list[str]:
        """Where each bucket starts, as text (a date for days).

        >>> TimeBuckets("d", 86_400).starts((0, 2))
        ['1970-01-01', '1970-01-03']
        """
        if self.seconds % DAY == 0:
            days = self.seconds // DAY
            return [(EPOCH + timedelta(days=b * days)).date().isoformat() for b in buckets]
        return [
            (EPOCH + timedelta(seconds=b * self.seconds)).isoformat().replace("+00:00", "Z")
            for b in buckets
        ]


def _extreme(analyzer: object) -> bool:
    """A smallest or largest value itself (not a length's, which subclasses them)."""
    return type(analyzer) in (Minimum, Maximum)


def typed_extremes(checks: Sequence[Any], df: DataFrame) -> tuple[Any, ...]:
    """``checks`` whose smallest and largest values of a timestamp or date column (``has_min``,
    ``has_max``) are compared as times: their analyzers take the column's kind from ``df``'s
    schema (read only when such a constraint is there), so the assertion sees a UTC
    ``datetime`` or a ``date`` (``">= 2026-11-01"``, a callable comparing with a ``datetime``),
    not a number.

    >>> from quality_py.dataset.checks import Check
    >>> df = spark.createDataFrame([], "day date")
    >>> typed = typed_extremes([Check("error", "t").has_max("day", ">= 2026-11-01")], df)
    >>> typed[0].constraints[0].analyzer.kind
    'date'
    """
    untyped = any(
        _extreme(k.analyzer) and k.analyzer.kind is None for c in checks for k in c.constraints
    )
    if not untyped:
        return tuple(checks)
    kinds = {f.name.lower(): f.dataType.typeName() for f in df.schema.fields}
    out = []
    for check in checks:
        constraints = tuple(
            replace(c, analyzer=replace(c.analyzer, kind=kinds[c.analyzer.column.lower()]))
            if _extreme(c.analyzer)
            and c.analyzer.kind is None
            and kinds.get(c.analyzer.column.lower()) in TIME_KINDS
            else c
            for c in check.constraints
        )
        out.append(replace(check, constraints=constraints))
    return tuple(out)


def at_data_time(checks: Sequence[Any], data_time: str | None) -> list[Any]:
    """``checks`` whose ``is_fresh`` constraints without their own ``now`` are judged at the
    data's time (the ``data_time`` tag: a date is judged at the end of that day, a time at that
    time), not the clock: a backfill of an old day is as fresh as its data was.

    >>> from quality_py.dataset.checks import Check
    >>> checks = at_data_time([Check("error", "t").is_fresh("ts", "1 day")], "2026-11-23")
    >>> checks[0].constraints[0].pick.now
    datetime.datetime(2026, 11, 24, 0, 0, tzinfo=datetime.timezone.utc)
    """
    if data_time is None:
        return list(checks)
    when = aware(data_time)
    if len(data_time.strip()) == 10:  # a date: its data runs to the end of the day
        when += timedelta(days=1)
    out = []
    for check in checks:
        constraints = tuple(
            replace(c, pick=AgeAt(when)) if isinstance(c.pick, AgeAt) and c.pick.now is None else c
            for c in check.constraints
        )
        out.append(replace(check, constraints=constraints))
    return out
