"""The rows each rule of a one-rule-set suite fails, read from a run's default result column."""

from __future__ import annotations

from typing import Any

from quality_py import add_data_quality
from quality_py.model.rules import RuleSuite


def failing_rows(suite: RuleSuite, df: Any, key: str) -> list[list[Any]]:
    """For each rule of ``suite`` (in order), the ``key`` values of the rows it fails (code 0),
    sorted by ``key``."""
    ids = [r.id.packed for _, r in suite.iter_rules()]
    (set_id,) = [rs.id.packed for rs in suite.rule_sets]
    rows = add_data_quality(df, suite).orderBy(key).collect()
    return [[r[key] for r in rows if r.DataQuality.ruleSetResults[set_id].ruleResults[i] == 0]
            for i in ids]  # fmt: skip
