"""Overall results of rule sets and suites (semantics 1.4), in both layouts."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import FAILED, PASSED, Id, Rule, RuleSet, RuleSuite, add_data_quality

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


def _suite(*rule_sets: list[str], probable_pass: float = 0.8) -> RuleSuite:
    sets = [
        RuleSet(Id(10 + s, 1), [Rule(Id(100 + r, 1), text) for r, text in enumerate(texts)])
        for s, texts in enumerate(rule_sets)
    ]
    return RuleSuite(Id(1, 1), sets, probable_pass=probable_pass)


CASES: list[tuple[str, RuleSuite, list[int], int]] = [
    ("probability above", _suite(["0.9"]), [PASSED], PASSED),
    ("probability below", _suite(["0.6"]), [FAILED], FAILED),
    ("probability below raised bar", _suite(["0.9"], probable_pass=0.95), [FAILED], FAILED),
    ("probability above lowered bar", _suite(["0.6"], probable_pass=0.5), [PASSED], PASSED),
    ("strict less-than: 0.8 passes", _suite(["0.8"]), [PASSED], PASSED),
    ("disabled alone passes", _suite(["disabled_rule()"]), [PASSED], PASSED),
    ("soft failure does not fail", _suite(["soft_failed()", "true"]), [PASSED], PASSED),
    ("failure is sticky", _suite(["soft_failed()", "false", "true"]), [FAILED], FAILED),
    ("probability above 1 passes", _suite(["85.0D"]), [PASSED], PASSED),
    ("negative probability fails", _suite(["-1.32D"]), [FAILED], FAILED),
    (
        "one failing set fails the suite",
        _suite(["true"], ["false"], ["0.9"]),
        [PASSED, FAILED, PASSED],
        FAILED,
    ),
    ("empty rule set passes", _suite([], ["true"]), [PASSED, PASSED], PASSED),
    ("empty suite passes", _suite(), [], PASSED),
    ("null fails", _suite(["CAST(NULL AS BOOLEAN)"]), [FAILED], FAILED),
    (
        "probable_pass 0 still fails Failed",
        _suite(["false", "0.1"], probable_pass=0.0),
        [FAILED],
        FAILED,
    ),
    (
        "probable_pass 0 passes tiny probability",
        _suite(["0.00001"], probable_pass=0.0),
        [PASSED],
        PASSED,
    ),
    (
        "probable_pass above 1 keeps Passed",
        _suite(["true", "1.5D"], probable_pass=1.2),
        [PASSED],
        PASSED,
    ),
    (
        "probable_pass above 1 fails lower",
        _suite(["true", "1.1D"], probable_pass=1.2),
        [FAILED],
        FAILED,
    ),
]


@pytest.mark.parametrize("layout", ["map", "compact"])
def test_overall_results(spark: Any, layout: str) -> None:
    df = spark.createDataFrame([(1,)], "a int")
    failures = []
    for name, suite, set_overalls, suite_overall in CASES:
        dq = add_data_quality(df, suite, layout=layout).first().DataQuality
        if layout == "map":
            got_sets = [dq.ruleSetResults[rs.id.packed].overallResult for rs in suite.rule_sets]
        else:
            got_sets = list(dq.ruleSetResults)
        if (got_sets, dq.overallResult) != (set_overalls, suite_overall):
            failures.append((name, got_sets, dq.overallResult))
    assert not failures
