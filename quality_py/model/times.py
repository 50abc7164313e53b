"""ISO dates and times as every supported Python reads them.

Python 3.10's ``fromisoformat`` refuses what 3.11 reads (a ``Z`` for UTC, fractions of other than
three or six digits); records, assertions and ``--since`` go through here so that one text means
one time on every Python we support.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from quality_py.errors import InputError

_FRACTION = re.compile(r"(\d{2}:\d{2}:\d{2})\.(\d+)")


def parse_datetime(text: str) -> datetime:
    """An ISO date or date-time (``Z`` for UTC, any fraction of a second, a date alone).

    >>> parse_datetime("2026-01-02T10:00:00Z")
    datetime.datetime(2026, 1, 2, 10, 0, tzinfo=datetime.timezone.utc)
    >>> parse_datetime("2026-01-02 10:00:00.5").microsecond, parse_datetime("2026-01-02").day
    (500000, 2)
    """
    cleaned = text.strip()
    if cleaned.endswith(("Z", "z")):
        cleaned = cleaned[:-1] + "+00:00"
    cleaned = _FRACTION.sub(lambda m: f"{m.group(1)}.{(m.group(2) + '000000')[:6]}", cleaned)
    try:
        return datetime.fromisoformat(cleaned)
    except ValueError:
        raise InputError(
            f"cannot read the time {text!r}: give an ISO date or time (2026-01-02, "
            "2026-01-02T10:00:00Z)",
            item_kind="time",
        ) from None


_DURATION = re.compile(
    r"^\s*(\d+(?:\.\d+)?)\s*(w|weeks?|d|days?|h|hours?|m|min|minutes?|s|sec|seconds?)\s*$", re.I
)
_UNIT_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(value: object) -> timedelta:
    """A positive duration: a ``timedelta``, or text such as ``1 day``, ``6 hours``, ``30m``.

    >>> parse_duration("1 day"), parse_duration("90 min"), parse_duration("2w").days
    (datetime.timedelta(days=1), datetime.timedelta(seconds=5400), 14)
    """
    if isinstance(value, timedelta):
        found = value
    else:
        matched = _DURATION.match(str(value)) if isinstance(value, str) else None
        if matched is None:
            raise InputError(
                f"cannot read the duration {value!r}: give a number and a unit (weeks, days, "
                "hours, minutes or seconds), for example '1 day', '6 hours' or '30 minutes'",
                item_kind="duration",
            )
        unit = matched.group(2).lower()
        unit = "m" if unit.startswith("min") else unit[0]
        found = timedelta(seconds=float(matched.group(1)) * _UNIT_SECONDS[unit])
    if found <= timedelta(0):
        raise InputError(f"a duration is positive, not {value!r}", item_kind="duration")
    return found


def from_micros(micros: float) -> datetime:
    """A UTC time from microseconds since the epoch (exact below 2**53).

    >>> from_micros(86_400_000_000.0)
    datetime.datetime(1970, 1, 2, 0, 0, tzinfo=datetime.timezone.utc)
    """
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=int(micros))


def metric_number(value: object) -> float | None:
    """A metric as the history, the stats and ``metrics_frame`` keep it: a number as it is, a
    time as seconds since the epoch (one without a zone is UTC; a date: its midnight UTC), any
    other value as None.

    >>> metric_number(3), metric_number(date(1970, 1, 2)), metric_number("x")
    (3.0, 86400.0, None)
    >>> metric_number(datetime(1970, 1, 1, 1, tzinfo=timezone.utc))
    3600.0
    """
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return aware.timestamp()
    if isinstance(value, date):
        return float((value - date(1970, 1, 1)).days * 86_400)
    return float(value) if isinstance(value, int | float) else None


def time_text(value: object) -> str | None:
    """A time metric as ISO 8601 text (UTC with ``Z``; a date alone), None for anything else.

    >>> time_text(datetime(2026, 1, 2, 3, tzinfo=timezone.utc)), time_text(date(2026, 1, 2))
    ('2026-01-02T03:00:00Z', '2026-01-02')
    >>> time_text(1.5) is None
    True
    """
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return aware.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    return None
