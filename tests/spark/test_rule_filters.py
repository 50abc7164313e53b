"""Per-rule filters and inactive rules on real Spark: every row's code and every count as Python
computes them from the documented meaning (outside the filter, null included: DisabledRule -2;
inactive: -2 everywhere; DisabledRule neither passes nor fails a row)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from quality_py import add_data_quality, run_quality
from quality_py.io.yaml_rulesets import loads_ruleset

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

RULESET = """\
suite: {name: orders}
rule_sets:
  - name: checks
    rules:
      - name: de_amount_positive
        expression: "amount > 0"
        filter: "country = '${HOME_COUNTRY}'"
        action_if_failed: drop
      - name: big_orders_likely
        expression: "CASE WHEN amount > 50 THEN 0.9 ELSE 0.4 END"
        filter: "amount IS NOT NULL AND amount > 10"
      - name: retired
        expression: "amount < 0"
        active: false
        action_if_failed: drop
      - name: everyone
        expression: "amount IS NOT NULL"
"""

PASSED, FAILED, DISABLED = 100000, 0, -2


def expected_codes(amount: int | None, country: str | None) -> list[int]:
    de = country == "DE"
    first = DISABLED if not de else (PASSED if amount is not None and amount > 0 else FAILED)
    applies = amount is not None and amount > 10
    second = DISABLED if not applies else (90000 if amount > 50 else 40000)  # type: ignore[operator]
    everyone = PASSED if amount is not None else FAILED
    return [first, second, DISABLED, everyone]


def rows() -> list[tuple[int | None, str | None]]:
    rng = random.Random(11)
    return [
        (rng.choice([None, -5, 0, 3, 20, 80]), rng.choice([None, "DE", "FR"])) for _ in range(400)
    ]


def test_codes_follow_the_filter_and_the_active_flag(spark: Any) -> None:
    suite = loads_ruleset(RULESET, variables={"HOME_COUNTRY": "DE"})
    data = rows()
    df = spark.createDataFrame(data, "amount int, country string")
    got = df.transform(lambda d: add_data_quality(d, suite)).collect()
    ids = [rule.id.packed for _, rule in suite.iter_rules()]
    for row, (amount, country) in zip(got, data, strict=True):
        results = row.DataQuality.ruleSetResults
        (set_result,) = results.values()
        codes = [set_result.ruleResults[i] for i in ids]
        assert codes == expected_codes(amount, country), (amount, country)
        # the overall: a Failed rule or a probability below 0.8 fails; -2 never does
        want = expected_codes(amount, country)
        fails = any(c == FAILED or 0 < c < 80000 for c in want)
        assert row.DataQuality.overallResult == (FAILED if fails else PASSED)


def test_a_quality_run_counts_disabled_rows_apart(spark: Any, tmp_path: Any) -> None:
    suite = loads_ruleset(RULESET, variables={"HOME_COUNTRY": "DE"})
    data = rows()
    df = spark.createDataFrame(data, "amount int, country string")
    run = run_quality(df, suite, run_id="f")
    summary = run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
    want = [expected_codes(a, c) for a, c in data]
    for i, stats in enumerate(summary.rules.rules):
        codes = [w[i] for w in want]
        assert stats.disabled == codes.count(DISABLED), i
        assert stats.passed == codes.count(PASSED), i
        assert stats.failed == codes.count(FAILED), i
        assert stats.probability == sum(1 for c in codes if c not in (PASSED, FAILED, DISABLED))
    # only the first rule drops (the retired one never fails): DE rows with amount <= 0 or null
    dropped = sum(1 for w in want if w[0] == FAILED)
    assert summary.dropped_rows == dropped
    assert summary.valid_rows == len(data) - dropped
    quarantined = sum(1 for w in want if any(c == FAILED or 0 < c < 80000 for c in w))
    assert summary.quarantined_rows == quarantined
    names = [r.name for r in run.stats_frame(summary).collect() if r.kind == "rule"]
    assert names == ["de_amount_positive", "big_orders_likely", "retired", "everyone"]
