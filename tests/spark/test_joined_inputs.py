"""Rules written against a join's own qualifiers work in every runner (the input is then not
re-aliased ``main``); ``main.`` keeps working for correlated subqueries on plain inputs."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    Id,
    ModelError,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
    rule_engine_with_struct,
    rule_folder_with_struct,
    run_quality,
)
from quality_py.validation import validate

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

PASSED, FAILED = 100000, 0

# by hand: (account, amount, limit) -> amount <= limit
ROWS = {"a1": (50, 100), "a2": (150, 100), "a3": (20, 10)}


@pytest.fixture(scope="module")
def joined(spark: Any) -> Any:
    src = spark.createDataFrame(
        [(k, amount) for k, (amount, _) in ROWS.items()], "account string, amount int"
    ).alias("src")
    lookups = spark.createDataFrame(
        [(k, limit) for k, (_, limit) in ROWS.items()], "account string, limit int"
    ).alias("lookups")
    return src.join(lookups, src["account"] == lookups["account"])


SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(2, 1),
            [
                Rule(Id(3, 1), "src.amount <= lookups.limit"),
                Rule(Id(4, 1), "src.account = lookups.account"),
            ],
        )
    ],
)


def _by_account(rows: Any, value: Any) -> dict[str, Any]:
    return {r["account"]: value(r) for r in rows}


def test_data_quality_on_a_join(joined: Any) -> None:
    out = add_data_quality(joined, SUITE).select("src.account", "DataQuality").collect()
    got = _by_account(out, lambda r: r.DataQuality.overallResult)
    assert got == {k: PASSED if a <= lim else FAILED for k, (a, lim) in ROWS.items()}


def test_engine_on_a_join(joined: Any) -> None:
    over = OutputExpression(Id(9, 1), "src.amount - lookups.limit")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1), [Rule(Id(3, 1), "src.amount > lookups.limit", salience=1, output=over)]
            )
        ],
    )
    out = rule_engine_with_struct(joined, suite, "int").select("src.account", "ruleEngine")
    got = _by_account(out.collect(), lambda r: r.ruleEngine.result)
    assert got == {k: (a - lim if a > lim else None) for k, (a, lim) in ROWS.items()}


def test_folder_on_a_join(joined: Any) -> None:
    cap = OutputExpression(Id(9, 1), "set(amount = lookups.limit)")
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(3, 1), "src.amount > lookups.limit", salience=1, output=cap)])],
    )
    out = rule_folder_with_struct(joined, suite, "struct(src.account, src.amount)")
    got = _by_account(
        out.select("src.account", "ruleFolder").collect(),
        lambda r: None if r.ruleFolder.result is None else r.ruleFolder.result.amount,
    )
    assert got == {k: (lim if a > lim else None) for k, (a, lim) in ROWS.items()}


def test_quality_run_on_a_join_with_distinct_names(joined: Any) -> None:
    frame = joined.select("src.account", "src.amount", "lookups.limit")
    # qualifiers survive a select of qualified columns
    run = run_quality(
        frame,
        RuleSuite(
            SUITE.id,
            [
                RuleSet(
                    Id(2, 1),
                    [Rule(Id(3, 1), "src.amount <= lookups.limit", action_if_failed="drop")],
                )
            ],
        ),
    )
    assert sorted(r.account for r in run.valid.collect()) == sorted(
        k for k, (a, lim) in ROWS.items() if a <= lim
    )


def test_quality_run_refuses_repeated_column_names(joined: Any) -> None:
    with pytest.raises(ModelError) as err:
        run_quality(joined, SUITE)
    assert err.value.code == "DUPLICATE_COLUMNS" and "account" in err.value.message


def test_validation_keeps_the_join_qualifiers(joined: Any) -> None:
    assert validate(SUITE, joined).errors == ()
    bad = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(5, 1), "src.nothing > 0")])])
    assert [f.item_id for f in validate(bad, joined).errors] == [Id(5, 1)]


def test_main_still_names_a_plain_input(spark: Any) -> None:
    spark.createDataFrame([(10,), (45,)], "k int").createOrReplaceTempView("qp_join_limits")
    from quality_py.model.policy import RulePolicy

    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [Rule(Id(3, 1), "EXISTS(SELECT 1 FROM qp_join_limits l WHERE l.k > main.v)")],
            )
        ],
    ).with_policy(RulePolicy().with_views("qp_join_limits"))
    df = spark.createDataFrame([(5,), (50,)], "v int")
    got = {r.v: r.DataQuality.overallResult for r in add_data_quality(df, suite).collect()}
    assert got == {5: PASSED, 50: FAILED}
