"""Rules whose SQL is identical share one computed value (runners.staging.rule_slots), and
every output still answers for each rule: codes, counts, names, the quarantine, a preview.

Expected values by hand from ROWS: ``a % 2 = 0`` holds for 2 and 4 (null fails); ``a > 2``
holds for 3 and 4."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality, run_quality
from quality_py.actions.preview import preview_edit
from quality_py.model.policy import RulePolicy
from quality_py.runners.staging import stage_rule_codes

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes

ROWS = [(1, 1), (2, 2), (3, 3), (4, 4), (5, None)]
EVEN, BIG = "a % 2 = 0", "a > 2"


def _suite(policy: RulePolicy | None = None) -> RuleSuite:
    kw = {"policy": policy} if policy is not None else {}
    return RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(10, 1),
                [
                    Rule(Id(100, 1), EVEN, name="even", action_if_failed="drop"),
                    Rule(Id(101, 1), BIG, name="big"),
                ],
            ),
            RuleSet(
                Id(11, 1),
                [
                    Rule(Id(102, 1), EVEN, name="even_again", action_if_failed="drop"),
                    Rule(Id(103, 1), " a  % 2 = 0 ", name="even_spaced"),
                ],
            ),
        ],
        **kw,
    )


@pytest.fixture
def df(spark: Any) -> Any:
    return spark.createDataFrame(ROWS, "id INT, a INT")


def test_identical_rules_share_one_column(df: Any) -> None:
    staged = stage_rule_codes(df, _suite())
    # the spaced text compiles to the same SQL: three rules, one value
    assert staged.slots == (0, 1, 0, 0)
    assert staged.value_names() == ["__qp_v0", "__qp_v1", "__qp_v0", "__qp_v0"]
    hidden = [c for c in staged.frame.columns if c.startswith("__qp_")]
    assert sorted(hidden) == ["__qp_c0", "__qp_c1", "__qp_c2", "__qp_c3", "__qp_v0", "__qp_v1"]
    run_staged = stage_rule_codes(df, _suite(), shared_codes=True)  # what a quality run stages
    assert run_staged.code_names() == ["__qp_c0", "__qp_c1", "__qp_c0", "__qp_c0"]
    hidden = [c for c in run_staged.frame.columns if c.startswith("__qp_")]
    assert sorted(hidden) == ["__qp_c0", "__qp_c1", "__qp_v0", "__qp_v1"]


def test_every_rule_keeps_its_own_result(df: Any) -> None:
    checked = add_data_quality(df, _suite(), layout="compact")
    got = {r.id: list(r.DataQuality.ruleResults) for r in checked.collect()}
    p, f = 100000, 0
    assert got == {
        1: [f, f, f, f],
        2: [p, f, p, p],
        3: [f, p, f, f],
        4: [p, p, p, p],
        5: [f, f, f, f],  # a null value fails
    }


def test_a_run_counts_and_names_each_rule(df: Any, tmp_path: Path) -> None:
    run = run_quality(df, _suite(), run_id="shared")
    summary = run.write(str(tmp_path / "v"), str(tmp_path / "q"))
    failed = {(s.rule_set_id.id, s.rule_id.id): s.failed for s in summary.rules.rules}
    assert failed == {(10, 100): 3, (10, 101): 3, (11, 102): 3, (11, 103): 3}
    assert (summary.valid_rows, summary.quarantined_rows) == (2, 4)
    quarantine = df.sparkSession.read.parquet(str(tmp_path / "q"))
    names = {r.id: list(r.qp_failed_rule_names) for r in quarantine.collect()}
    every = ["even", "big", "even_again", "even_spaced"]
    assert names == {
        1: every,
        2: ["big"],
        3: ["even", "even_again", "even_spaced"],
        5: every,
    }
    valid = sorted(r.id for r in df.sparkSession.read.parquet(str(tmp_path / "v")).collect())
    assert valid == [2, 4]


def test_a_preview_compares_shared_rules(df: Any) -> None:
    old = _suite()
    new = RuleSuite(
        Id(1, 2),
        [RuleSet(Id(10, 1), [Rule(Id(100, 1), BIG, name="even"), Rule(Id(101, 1), BIG)])],
    )
    preview = preview_edit(df, old, new)
    by_rule = {p.change.key: p for p in preview.rules}
    changed = by_rule[(10, 100)]
    # old: even fails 1, 3, 5; new: a > 2 fails 1, 2, 5 (row 2 newly fails, row 3 passes)
    assert (changed.failing_old, changed.failing_new) == (3, 3)
    assert (changed.newly_failing, changed.newly_passing) == (1, 1)
    gone = by_rule[(11, 103)]  # shared its column with rule 100 in the old suite
    assert (gone.failing_old, gone.failing_new) == (3, None)
    # new: both rules are a > 2 (one column); dropped under old: rows failing even (1, 3, 5)
    assert preview.dropped == (3, 0)


def test_a_policy_allowing_random_values_shares_nothing(df: Any) -> None:
    staged = stage_rule_codes(df, _suite(RulePolicy(allow_random=True)))
    assert staged.slots == (0, 1, 2, 3)
