"""The settings a run's jobs run under (``spark.session.wide_plan_settings``): set while they
run, the session's own values back afterwards, a value already as wanted left alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.spark.session import CONSTRAINT_PROPAGATION, wide_plan_settings
from quality_py.sql.codegen_limits import METHOD_LIMIT

pytestmark = pytest.mark.wiring  # which settings hold when, not what Spark computes


@pytest.mark.parametrize(
    ("limit", "propagation", "limit_during", "propagation_during"),
    [
        ("65535", "true", "8000", "false"),  # Spark's defaults: lowered, then put back
        ("4000", "false", "4000", "false"),  # already as wanted: the session's choice stands
    ],
)
def test_a_run_sets_what_it_needs_while_it_runs_and_puts_the_session_back(
    spark: Any,
    setting: Callable[[str, str], None],
    limit: str,
    propagation: str,
    limit_during: str,
    propagation_during: str,
) -> None:
    setting(METHOD_LIMIT, limit)
    setting(CONSTRAINT_PROPAGATION, propagation)
    with wide_plan_settings(spark):
        assert spark.conf.get(METHOD_LIMIT) == limit_during
        assert spark.conf.get(CONSTRAINT_PROPAGATION) == propagation_during
    assert spark.conf.get(METHOD_LIMIT) == limit
    assert spark.conf.get(CONSTRAINT_PROPAGATION) == propagation


def test_settings_are_restored_when_the_block_fails(
    spark: Any, setting: Callable[[str, str], None]
) -> None:
    setting(METHOD_LIMIT, "65535")
    with pytest.raises(RuntimeError), wide_plan_settings(spark):
        raise RuntimeError("a job failed")
    assert spark.conf.get(METHOD_LIMIT) == "65535"


def test_a_written_run_leaves_the_session_as_it_found_it(
    spark: Any, setting: Callable[[str, str], None], tmp_path: Path
) -> None:
    setting(METHOD_LIMIT, "65535")
    df = spark.createDataFrame([(1,), (2,), (None,)], "a int")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1")])])
    summary = run_quality(df, suite, run_id="s").write(
        str(tmp_path / "valid"), str(tmp_path / "quarantine")
    )
    # by hand: 1 fails a > 1, null fails it too (Failed); 2 passes
    assert (summary.input_rows, summary.quarantined_rows) == (3, 2)
    assert spark.conf.get(METHOD_LIMIT) == "65535"
