"""Issue 57, point 1: rules inside a declarative pipeline. ``pipeline_checks`` analyses a suite
against a declared schema; its plans (the checked rows, the valid rows, the quarantine) need no
analysis, and give a batch run's rows and names. Expected rows by hand from the data below;
the batch run of the same suite on the same rows is read back from what it wrote.

Rows i = 0..11: id = i % 10, amount = i - 3, note null when i % 4 == 0.
* positive (drop), ``amount > 0``: fails i = 0, 1, 2, 3 (amounts -3, -2, -1, 0);
* unique_id (drop), one row per id: fails i = 0, 10 (id 0) and 1, 11 (id 1);
* has_note (ignore): fails i = 0, 4, 8.
Valid: i = 4..9 (ids 4 to 9). Quarantined: i = 0, 1, 2, 3, 4, 8, 10, 11; kept in valid: 4, 8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, pipeline_checks, run_quality
from quality_py.actions.pipelines import PIPELINE_STATS
from quality_py.errors import ModelError

pytestmark = pytest.mark.wiring  # the pipeline's plans against a batch run's outputs

SUITE = RuleSuite(
    Id(1, 1),
    [
        RuleSet(
            Id(10, 1),
            [
                Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="drop"),
                Rule(Id(101, 1), "count(*) OVER (PARTITION BY id) = 1", name="unique_id",
                     action_if_failed="drop"),
                Rule(Id(102, 1), "note IS NOT NULL", name="has_note"),
            ],
        )
    ],
)  # fmt: skip
SCHEMA = "id INT, amount DOUBLE, note STRING"
#: amount (= i - 3) -> the names of the rules row i fails, by hand
FAILED = {
    -3.0: ["positive", "unique_id", "has_note"],
    -2.0: ["positive", "unique_id"],
    -1.0: ["positive"],
    0.0: ["positive"],
    1.0: ["has_note"],
    5.0: ["has_note"],
    7.0: ["unique_id"],
    8.0: ["unique_id"],
}


def _orders(spark: Any) -> Any:
    return spark.range(12).selectExpr(
        "CAST(id % 10 AS INT) AS id",
        "CAST(id - 3 AS DOUBLE) AS amount",
        "CASE WHEN id % 4 = 0 THEN NULL ELSE 'n' END AS note",
    )


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_the_plans_give_a_batch_runs_rows_and_names(
    spark: Any, tmp_path: Path, layout: str
) -> None:
    checks = pipeline_checks(SUITE, SCHEMA, layout=layout, spark=spark)
    checked = checks.apply(_orders(spark))
    valid = checks.valid(checked)
    quarantine = checks.quarantine(checked)
    assert valid.columns == ["id", "amount", "note"]
    assert sorted(r.id for r in valid.collect()) == [4, 5, 6, 7, 8, 9]
    rows = {r.amount: r for r in quarantine.collect()}
    assert {a: r.qp_failed_rule_names for a, r in rows.items()} == FAILED
    assert sorted(a for a, r in rows.items() if r.qp_kept_in_valid) == [1.0, 5.0]
    # the batch run of the same suite on the same rows, as it wrote them
    run_quality(_orders(spark), SUITE, run_id="r1").write(
        str(tmp_path / "valid"), str(tmp_path / "quarantine")
    )
    batch_valid = spark.read.parquet(str(tmp_path / "valid"))
    assert sorted(batch_valid.collect()) == sorted(valid.collect())
    batch_q = {r.amount: r for r in spark.read.parquet(str(tmp_path / "quarantine")).collect()}
    assert {a: r.qp_failed_rule_names for a, r in batch_q.items()} == FAILED
    assert {a: r.qp_kept_in_valid for a, r in batch_q.items()} == {
        a: r.qp_kept_in_valid for a, r in rows.items()
    }


def test_an_input_of_other_types_fails_naming_the_column(spark: Any) -> None:
    checks = pipeline_checks(SUITE, SCHEMA, spark=spark)
    drifted = _orders(spark).selectExpr("id", "CAST(amount AS STRING) AS amount", "note")
    with pytest.raises(Exception, match="analysed for column amount of type double, not string"):
        checks.apply(drifted).collect()
    # the declared types: the test folds away (no per-row check in the plan Spark runs)
    plan = checks.apply(_orders(spark))._jdf.queryExecution().optimizedPlan().toString()
    assert "typeof" not in plan.lower() and "raise_error" not in plan.lower()


def test_a_fail_rule_fails_the_flow_and_tolerances_are_refused(spark: Any) -> None:
    failing = RuleSuite(
        Id(2, 1), [RuleSet(Id(20, 1), [Rule(Id(200, 1), "amount > 0", action_if_failed="fail")])]
    )
    checks = pipeline_checks(failing, SCHEMA, spark=spark)
    checked = checks.apply(_orders(spark))
    for output in (checks.valid, checks.quarantine):  # neither is published, as in a batch run
        with pytest.raises(Exception, match=r"a row fails a fail rule of suite 2.1 \(200.1\)"):
            output(checked).collect()
    tolerant = RuleSuite(
        Id(3, 1),
        [RuleSet(Id(30, 1), [Rule(Id(300, 1), "amount > 0", name="p", warn_if="> 1 %")])],
    )
    with pytest.raises(ModelError, match=r"rule\(s\) p have tolerances"):
        pipeline_checks(tolerant, SCHEMA, spark=spark)


def test_columns_beyond_the_declared_ones_are_kept(spark: Any) -> None:
    """A column the rules were not analysed for travels along, as in a batch run's outputs."""
    checks = pipeline_checks(SUITE, SCHEMA, spark=spark)
    checked = checks.apply(_orders(spark).selectExpr("*", "'EU' AS region"))
    assert checks.valid(checked).columns == ["id", "amount", "note", "region"]
    assert checks.quarantine(checked).columns == [
        "id", "amount", "note", "region", "qp_kept_in_valid", "qp_failed_rule_names",
    ]  # fmt: skip


def test_the_stats_are_a_batch_runs_counts(spark: Any, tmp_path: Path) -> None:
    """The stats plan counts what a batch run's stats count, on the same rows. By hand: 12
    rows, 6 dropped and 6 valid; positive fails 4, unique_id 4, has_note 3; likely (a
    probability: 0.9 for amount > 4, i = 8..11, else 0.3) fails the 8 rows below 0.8, i = 0..7;
    quarantined: i = 0..8, 10, 11 (the 8 of the other rules' and likely's), 11 rows."""
    likely = Rule(Id(103, 1), "CASE WHEN amount > 4 THEN 0.9 ELSE 0.3 END", name="likely")
    suite = RuleSuite(SUITE.id, [RuleSet(Id(10, 1), [*SUITE.rule_sets[0].rules, likely])])
    checks = pipeline_checks(suite, SCHEMA, spark=spark)
    stats = checks.stats(checks.apply(_orders(spark)))
    columns = ["kind", "name", "rule_set", "rule", "action", "passed", "failed", "soft_failed",
               "disabled", "probability", "value", "failing_rows"]  # fmt: skip
    mine = sorted(tuple(r) for r in stats.select(*columns).collect())
    run_quality(_orders(spark), suite, run_id="r1").write(
        str(tmp_path / "valid"), str(tmp_path / "quarantine"), str(tmp_path / "stats")
    )
    batch = spark.read.parquet(str(tmp_path / "stats")).where("kind IN ('rows', 'rule')")
    batch = batch.where("kind = 'rule' OR name IN "
                        "('input_rows', 'valid_rows', 'quarantined_rows', 'dropped_rows')")  # fmt: skip
    assert mine == sorted(tuple(r) for r in batch.select(*columns).collect())
    by_name = {r[1]: r for r in mine}
    assert {
        n: by_name[n][-2] for n in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows")
    } == {"input_rows": 12.0, "valid_rows": 6.0, "quarantined_rows": 11.0, "dropped_rows": 6.0}
    assert {n: by_name[n][6] for n in ("positive", "unique_id", "has_note")} == {
        "positive": 4,
        "unique_id": 4,
        "has_note": 3,
    }
    assert (by_name["likely"][9], by_name["likely"][-1]) == (12, 8)  # probabilities; failing
    assert tuple(stats.columns) == PIPELINE_STATS
