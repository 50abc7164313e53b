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


def test_spark_default_method_limit_is_lowered_to_what_hotspot_compiles_then_restored(
    spark: Any, setting: Callable[[str, str], None]
) -> None:
    setting(METHOD_LIMIT, "65535")  # Spark's default
    setting(CONSTRAINT_PROPAGATION, "true")
    with wide_plan_settings(spark):
        assert spark.conf.get(METHOD_LIMIT) == "8000"
        assert spark.conf.get(CONSTRAINT_PROPAGATION) == "false"
    assert spark.conf.get(METHOD_LIMIT) == "65535"
    assert spark.conf.get(CONSTRAINT_PROPAGATION) == "true"


def test_a_session_already_as_wanted_is_left_as_it_is(
    spark: Any, setting: Callable[[str, str], None]
) -> None:
    setting(METHOD_LIMIT, "4000")  # lower than 8000: the session's choice stands
    setting(CONSTRAINT_PROPAGATION, "false")
    with wide_plan_settings(spark):
        assert spark.conf.get(METHOD_LIMIT) == "4000"
        assert spark.conf.get(CONSTRAINT_PROPAGATION) == "false"
    assert spark.conf.get(METHOD_LIMIT) == "4000"
    assert spark.conf.get(CONSTRAINT_PROPAGATION) == "false"


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
