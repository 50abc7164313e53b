"""Golden snapshots of compiled data-quality structs (SQL text), one file per case.

Regenerate after an intended change with ``QUALITY_PY_UPDATE_SNAPSHOTS=1 pytest tests/unit``
and review the diff.
"""

from __future__ import annotations

import os

import pytest

from quality_py import Id, LambdaFunction, Rule, RuleSet, RuleSuite
from quality_py.runners.data_quality import rule_runner_sql

from .golden import FIXTURES

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(Id(50, 1), [Rule(Id(100, 1), "a % 2 == 0"), Rule(Id(100, 2), "isPositive(b)")]),
        RuleSet(Id(51, 1), [Rule(Id(101, 1), "0.9"), Rule(Id(102, 1), "'maybe'")]),
        RuleSet(Id(52, 1), []),
    ],
    lambdas=[LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))],
)

CASES = {
    "map_typed": {"layout": "map", "families": ["boolean", "boolean", "decimal", "string"]},
    "compact_typed": {"layout": "compact", "families": ["boolean", "boolean", "decimal", "string"]},
    "compact_generic": {"layout": "compact", "families": None},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_suite_sql_matches_snapshot(name: str) -> None:
    sql = rule_runner_sql(SUITE, **CASES[name]) + "\n"  # type: ignore[arg-type]
    path = FIXTURES / "compiled" / f"{name}.sql"
    if os.environ.get("QUALITY_PY_UPDATE_SNAPSHOTS"):
        path.write_text(sql)
    assert path.exists(), f"missing snapshot {path}; run with QUALITY_PY_UPDATE_SNAPSHOTS=1"
    assert sql == path.read_text()
