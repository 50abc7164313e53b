"""Every number a quality run prints, stores in stats and writes as quarantine reasons agrees
(expected counts by hand, and for random suites and data by Python's own reading of the rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import Check, Id, Rule, RuleSet, RuleSuite, read_outputs, run_quality
from quality_py.runners.summary import format_summary

pytestmark = pytest.mark.wiring  # every surface of a run agrees

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
        rid: quarantine.where(f"array_contains(qp_failed_rule_names, '{rid}.1')").count()
        for rid in expected
    }
    assert named == expected
    stats = spark.read.parquet(str(out / "stats"))
    stored = {
        int(r.rule.split(".")[0]): r.failing_rows for r in stats.where("kind = 'rule'").collect()
    }
    assert stored == expected
    table = format_summary(summary.rules)
    line_500 = next(
        line for line in table.splitlines() if line.startswith("500.1") or "(500.1)" in line
    )
    assert line_500.split()[-1] == "2"
    # the histogram check stores the share its assertion saw: 3 of 5 origins are EWR
    check_row = stats.where("kind = 'check'").collect()[0]
    assert abs(check_row.value - 3 / 5) < 1e-12 and "0.6" in check_row.message


# --- the property: random suites and data, every number agrees with Python's own count ---------

#: Rule templates over ``a INT`` (nullable) and ``s STRING`` (text that may not be a number), each
#: with Python's reading of when the rule fails a row (probable_pass 0.8; a null value, a
#: contained error or a probability below 0.8 fails; soft-failed and disabled do not).
TEMPLATES: list[tuple[str, Any]] = [
    ("a > {k}", lambda a, s, k: a is None or not a > k),
    ("a IS NOT NULL", lambda a, s, k: a is None),
    (
        "CASE WHEN a IS NULL THEN disabled_rule() WHEN a > {k} THEN 1.0D ELSE 0.5D END",
        lambda a, s, k: a is not None and not a > k,
    ),
    ("CASE WHEN a > {k} THEN 'pass' ELSE 'maybe' END", lambda a, s, k: False),
    ("length(s) < {k}", lambda a, s, k: s is None or not len(s) < k),
    (
        "int(s) > {k}",  # 'abc' is a contained cast error: Failed for that row only
        lambda a, s, k: s is None or not s.lstrip("-").isdigit() or not int(s) > k,
    ),
    ("a % 2 = 0 OR s = 'x'", lambda a, s, k: not ((a is not None and a % 2 == 0) or s == "x")),
]


def _numbers(printed: str) -> dict[str, int]:
    import re

    found = re.search(r"rows: (\d+) in, (\d+) valid, (\d+) quarantined, (\d+) dropped", printed)
    assert found, printed
    return dict(
        zip(("in", "valid", "quarantined", "dropped"), map(int, found.groups()), strict=True)
    )


rows_strategy = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(-5, 5)),
        st.sampled_from([None, "", "1", "-2", "37", "abc", "x"]),
    ),
    min_size=1,
    max_size=25,
)
rules_strategy = st.lists(
    st.tuples(
        st.integers(0, len(TEMPLATES) - 1),
        st.integers(-2, 3),
        st.sampled_from(["ignore", "drop"]),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=rows_strategy, picks=rules_strategy)
def test_random_runs_print_store_and_quarantine_the_same_numbers(
    spark: Any, tmp_path_factory: Any, rows: list[tuple[Any, Any]], picks: list[Any]
) -> None:
    rules = [
        Rule(Id(100 + i, 1), TEMPLATES[t][0].format(k=k), action_if_failed=action)
        for i, (t, k, action) in enumerate(picks)
    ]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])
    df = spark.createDataFrame(rows, "a int, s string").repartition(2)
    out = tmp_path_factory.mktemp("run")
    run = run_quality(df, suite, run_id="p")
    summary = run.write(str(out / "v"), str(out / "q"), str(out / "s"))
    # Python's count
    fails = [[TEMPLATES[t][1](a, s, k) for (t, k, _) in picks] for a, s in rows]
    expected_rule = {100 + i: sum(f[i] for f in fails) for i in range(len(picks))}
    dropped = sum(any(f[i] and picks[i][2] == "drop" for i in range(len(picks))) for f in fails)
    quarantined = sum(any(f) for f in fails)
    expected_rows = {
        "in": len(rows),
        "valid": len(rows) - dropped,
        "quarantined": quarantined,
        "dropped": dropped,
    }
    # printed: the run's description and the per-rule table (its last column: rows failed)
    assert summary.rules is not None
    assert _numbers(summary.describe()) == expected_rows
    table = format_summary(summary.rules).splitlines()
    printed_rule = {100 + i: int(table[2 + i].split()[-1]) for i in range(len(picks))}
    assert printed_rule == expected_rule
    assert f"failing: {quarantined}" in table[-1]
    # stored: the stats rows
    valid, quarantine, stats = read_outputs(spark, str(out / "v"), str(out / "q"), str(out / "s"))
    assert valid is not None and quarantine is not None and stats is not None
    stored_rows = {
        r.name.removesuffix("_rows"): int(r.value) for r in stats.where("kind = 'rows'").collect()
    }
    passing = len(rows) - quarantined  # rows no rule failed (docs/glossary.md)
    assert {("in" if k == "input" else k): v for k, v in stored_rows.items()} == {
        **expected_rows,
        "passing": passing,
    }
    stored_rule = {
        int(r.rule.split(".")[0]): r.failing_rows for r in stats.where("kind = 'rule'").collect()
    }
    assert stored_rule == expected_rule
    # written: quarantine reasons and the outputs' sizes
    reasons = {
        rid: quarantine.where(f"array_contains(qp_failed_rule_names, '{rid}.1')").count()
        for rid in expected_rule
    }
    assert reasons == expected_rule
    assert quarantine.count() == quarantined
    assert valid.count() == len(rows) - dropped
