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


def test_yaml_names_the_write_time_check_and_the_data_s_time_never_judges_it() -> None:
    from quality_py.dataset.times import LastWrite, at_data_time

    ruleset = loads_ruleset_file(
        """
suite: {id: 1}
rule_sets: [{id: 2, rules: [{id: 3, expression: "true"}]}]
checks:
  - level: error
    description: loads
    constraints:
      - was_written_within: 1 day
      - was_written_within: {max_age: 6 hours, now: "2026-11-28T06:00:00Z"}
"""
    )
    clock, fixed = ruleset.checks[0].constraints
    assert clock.analyzer == fixed.analyzer == LastWrite()
    # written 2026-11-28 00:00 UTC: six hours before the check's own now (by hand)
    assert fixed.evaluate(datetime(2026, 11, 28, tzinfo=timezone.utc)) == (
        True,
        "written within 6 hours (last write at most 6 hours old): metric 21600 s (the last "
        "write, 2026-11-28T00:00:00Z) meets <= 21600",
    )
    # a write time is a clock's: a data_time tag (2013) leaves both as they were
    judged = at_data_time(ruleset.checks, "2013-01-01")[0].constraints
    assert judged == (clock, fixed)


def test_the_history_keeps_a_time_metric_as_a_time() -> None:
    from quality_py.dataset.checks import VerificationResult
    from quality_py.dataset.times import LastWrite
    from quality_py.history.recording import verification_record

    when = datetime(2026, 11, 28, 6, tzinfo=timezone.utc)
    record = verification_record(
        VerificationResult(()), {LastWrite(): when, Newest("ts"): None}, "r", when, "s", {}
    )
    kept = {m.entity: (m.value, m.message) for m in record.metrics}
    # 2026-11-28 06:00 UTC is 20,785 days and 6 hours after the epoch
    assert kept == {
        "LastWrite()": (20_785 * 86_400 + 6 * 3600.0, "2026-11-28T06:00:00Z"),
        "Newest(column=ts)": (None, None),
    }


def test_a_state_kept_before_extremes_had_a_kind_still_loads(tmp_path: object) -> None:
    """A ``Maximum`` state stored before ``kind`` existed (its args without the field) loads as
    the numeric maximum it was; its file is rewritten here as that version wrote it."""
    import hashlib
    import json
    from pathlib import Path

    from quality_py.dataset.analyzers import Maximum
    from quality_py.dataset.runner import AnalysisResult
    from quality_py.dataset.states import ExtremeState
    from quality_py.dataset.store import FileStateStore

    store = FileStateStore(str(tmp_path))
    store.save("t", AnalysisResult({Maximum("x"): ExtremeState(7.0, True)}))
    (path,) = Path(str(tmp_path)).rglob("v1.json")
    doc = json.loads(path.read_text())
    doc.pop("sha256")
    del doc["analyzers"][0]["args"]["kind"]
    text = json.dumps(doc, sort_keys=True, allow_nan=True, separators=(",", ":"))
    doc["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    path.write_text(json.dumps(doc))
    assert store.load("t").metrics == {Maximum("x"): 7.0}


def test_a_numeric_bound_on_a_time_reads_seconds_since_the_epoch() -> None:
    """A threshold written when a timestamp's extreme was seconds since the epoch reads the same
    instant now that it is a time: 1,764,000,000 s is 2025-11-24 16:00 UTC (20,416 days and
    16 hours)."""
    from quality_py.dataset.checks import as_predicate

    after = as_predicate("> 1764000000")
    assert after(datetime(2025, 11, 24, 16, 0, 1, tzinfo=timezone.utc)) is True
    assert after(datetime(2025, 11, 24, 16, 0, 0, tzinfo=timezone.utc)) is False
    assert 20_416 * 86_400 + 16 * 3600 == 1_764_000_000
