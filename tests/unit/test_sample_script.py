"""The main job's daily step (``scripts/run-sample.sh``) and its Spark test
(``tests/spark/test_daily_flights.py``) run the same command: the test's numbers stand for the
script's only while both give ``run`` the same options and days."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _options(text: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]+", text))


def test_the_daily_step_and_its_test_run_the_same_command() -> None:
    script = (ROOT / "scripts" / "run-sample.sh").read_text(encoding="utf-8")
    step = script[script.index("day() {") :]
    test = (ROOT / "tests" / "spark" / "test_daily_flights.py").read_text(encoding="utf-8")
    command = test[test.index("def _day(") : test.index("def _truth(")]
    # the test adds --json to read the numbers; everything else is the script's
    assert _options(step) == _options(command) - {"--json"}
    assert "rulesets/flights_daily.yaml" in step and '"flights_daily.yaml"' in test
    for days in (
        'for d in 1 2 3; do day "2013-01-0$d" "$d"',
        'day 2013-01-04 "3, 4"',
        "day 2013-01-04 4",
    ):
        assert days in step, days
    assert "for day in (1, 2, 3):" in test and '"2013-01-04", "3, 4"' in test
    assert '_day(tmp_path, "2013-01-04", "4")' in test
