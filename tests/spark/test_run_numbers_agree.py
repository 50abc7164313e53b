"""Every number a quality run prints, stores in stats and writes as quarantine reasons agrees
(expected counts by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quality_py import Check, Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.runners.summary import format_summary

PUNCTUAL = (
    "CASE WHEN arr_delay IS NULL THEN disabled_rule() WHEN arr_delay <= 15 THEN 1.0D "
    "WHEN arr_delay <= 60 THEN 0.9D ELSE 0.5D END"
)


def test_printed_stored_and_quarantined_counts_agree(spark: Any, tmp_path: Path) -> None:
    rows = [
        (1, 5.0, 50, "EWR"),
        (2, 30.0, 200, "EWR"),
        (3, 90.0, 300, "JFK"),
        (4, None, 400, "LGA"),
        (5, 200.0, 10, "EWR"),
    ]
    df = spark.createDataFrame(rows, "id int, arr_delay double, distance int, origin string")
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(500, 1), PUNCTUAL),  # a probability: 0.5 fails at probable_pass 0.8
                    Rule(Id(501, 1), "distance > 100", action_if_failed="drop"),
                ],
            )
        ],
    )
    checks = [Check("warning", "origins").has_histogram_values("origin", "> 0.3", "EWR")]
    run = run_quality(df, suite, checks, run_id="r1")
    out = tmp_path
    summary = run.write(str(out / "valid"), str(out / "quarantine"), str(out / "stats"))
    # by hand: rule 500 fails ids 3 and 5 (0.5); 0.9 passes; null is disabled. Rule 501 fails
    # ids 1 and 5 (distance 50 and 10).
    expected = {500: 2, 501: 2}
    assert summary.rules is not None
    printed = {r.rule_id.id: r.failing for r in summary.rules.rules}
    assert printed == expected
    assert printed[500] != summary.rules.rules[0].failed  # the code count alone says 0
    quarantine = spark.read.parquet(str(out / "quarantine"))
    named = {
        rid: quarantine.where(f"exists(qp_failed_rules, x -> x.ruleId = {rid})").count()
        for rid in expected
    }
    assert named == expected
    stats = spark.read.parquet(str(out / "stats"))
    stored = {
        int(r.rule.split(".")[0]): r.failing_rows for r in stats.where("kind = 'rule'").collect()
    }
    assert stored == expected
    table = format_summary(summary.rules)
    line_500 = next(line for line in table.splitlines() if " 500.1" in line)
    assert line_500.split()[-1] == "2"
    # the histogram check stores the share its assertion saw: 3 of 5 origins are EWR
    check_row = stats.where("kind = 'check'").collect()[0]
    assert abs(check_row.value - 3 / 5) < 1e-12 and "0.6" in check_row.message
