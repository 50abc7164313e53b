"""Freshness and gap checks without Spark: durations, YAML, what the assertion sees (issue 55)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from quality_py.dataset.checks import Check
from quality_py.dataset.states import BucketsState
from quality_py.dataset.times import Newest, TimeBuckets
from quality_py.errors import InputError, ModelError
from quality_py.io.ruleset_file import loads_ruleset_file
from quality_py.model.times import parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1 day", 86400), ("2 days", 172800), ("6 hours", 21600), ("90 min", 5400), ("30m", 1800),
     ("1 week", 604800), ("45 seconds", 45), ("1.5h", 5400)],
)  # fmt: skip
def test_durations_read_by_hand(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("bad", ["", "day", "1 fortnight", "-1 day", "0 hours", 5, None])
def test_a_duration_without_a_unit_or_not_positive_is_refused(bad: object) -> None:
    with pytest.raises(InputError, match="duration"):
        parse_duration(bad)


def test_yaml_names_the_time_checks() -> None:
    ruleset = loads_ruleset_file(
        """
suite: {id: 1}
rule_sets: [{id: 2, rules: [{id: 3, expression: "true"}]}]
checks:
  - level: warning
    description: loads
    constraints:
      - is_fresh: {column: load_day, max_age: 2 days, now: "2026-11-28"}
      - has_no_gaps: [load_day, 1 hour]
"""
    )
    fresh, gaps = ruleset.checks[0].constraints
    assert fresh.analyzer == Newest("load_day") and gaps.analyzer == TimeBuckets("load_day", 3600)
    # 2026-11-27 00:00 UTC is a day before the data's time, 2026-11-28 00:00 UTC
    assert fresh.seen(datetime(2026, 11, 27, tzinfo=timezone.utc)) == 86400.0
    assert fresh.evaluate(datetime(2026, 11, 27, tzinfo=timezone.utc))[0] is True
    assert gaps.evaluate(TimeBuckets("x", 3600).metric(BucketsState((1, 3))))[0] is False


def test_a_step_that_is_not_whole_seconds_is_refused() -> None:
    with pytest.raises(ModelError, match="whole number of seconds"):
        Check("warning", "t").has_no_gaps("ts", "0.5 seconds")
