"""The row flags of a quality run (actions/flags.py) against the failure rule written in Python.

A code fails its row when it is Failed (0), null, or a probability below ``probable_pass``;
Passed (100000), SoftFailed (-1) and DisabledRule (-2) never do. Boolean rules' codes are only
Passed or Failed, which lets the flag test them with one ``least``: the cases mix both kinds.
"""

from __future__ import annotations

import random

import pytest

from quality_py.actions.flags import fails_any_sql

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ANY_CODES = [100000, 0, -1, -2, 79999, 80000, 50000, 1, None]
BOOLEAN_CODES = [100000, 0]


def fails(code: int | None, probable_pass: float) -> bool:
    if code is None or code == 0:
        return True
    if code in (100000, -1, -2):
        return False
    return code < probable_pass * 100000


@pytest.mark.parametrize("seed", range(3))
def test_fails_any_matches_python(spark, seed: int) -> None:
    rng = random.Random(seed)
    width = rng.randint(1, 6)
    families = [rng.choice(["boolean", "number", None]) for _ in range(width)]
    rows = [
        tuple(rng.choice(BOOLEAN_CODES if f == "boolean" else ANY_CODES) for f in families)
        for _ in range(200)
    ]
    names = [f"c{i}" for i in range(width)]
    df = spark.createDataFrame(rows, ", ".join(f"{n} int" for n in names))
    flag = fails_any_sql(names, 0.8, families)
    got = [r.f for r in df.selectExpr(f"{flag} AS f").collect()]
    want = [any(fails(c, 0.8) for c in row) for row in rows]
    assert got == want
    assert any(want) and not all(want)  # both outcomes are exercised


@pytest.mark.parametrize("seed", range(3))
def test_failed_rules_match_python(spark, seed: int) -> None:
    """The quarantine's reasons: exactly the rules whose code fails the row, in rule order."""
    from quality_py import Id
    from quality_py.actions.flags import RuleRef, failed_rules_sql

    rng = random.Random(100 + seed)
    width = rng.randint(1, 6)
    families = tuple(rng.choice(["boolean", "number", None]) for _ in range(width))
    rows = [
        tuple(rng.choice(BOOLEAN_CODES if f == "boolean" else ANY_CODES) for f in families)
        for _ in range(200)
    ]
    names = tuple(f"c{i}" for i in range(width))
    refs = tuple(RuleRef(Id(7, 1), Id(100 + i, 2), "drop", f"d{i}", None, ()) for i in range(width))
    df = spark.createDataFrame(rows, ", ".join(f"{n} int" for n in names))
    sql = failed_rules_sql(refs, names, 0.8, families)
    got = [
        [(x.ruleSetId, x.ruleSetVersion, x.ruleId, x.ruleVersion) for x in r.f]
        for r in df.selectExpr(f"{sql} AS f").collect()
    ]
    want = [[(7, 1, 100 + i, 2) for i, c in enumerate(row) if fails(c, 0.8)] for row in rows]
    assert got == want
    assert any(want) and not all(want)


@pytest.mark.parametrize("quarantine", [False, True], ids=["valid-counted", "quarantine-counted"])
def test_run_counts_failures_and_nulls(spark, tmp_path, quarantine: bool) -> None:
    """Each rule's failures and null values as Python counts them (boolean rules are counted
    from their values); the quarantined rows counted on the valid job, or on the quarantine's
    own write when it goes to a path."""
    from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality

    rng = random.Random(7)
    rows = [(rng.choice([None, -2, 0, 1, 5]), rng.choice([None, 1, 2])) for _ in range(300)]
    texts = ["a > 0", "b = 1", "a + b > 2"]
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10 + i, 1), t) for i, t in enumerate(texts)])]
    )
    df = spark.createDataFrame(rows, "a int, b int")

    def value(i: int, a: int | None, b: int | None) -> bool | None:
        if i == 0:
            return None if a is None else a > 0
        if i == 1:
            return None if b is None else b == 1
        return None if a is None or b is None else a + b > 2

    paths = (None, str(tmp_path / "q")) if quarantine else ()
    summary = run_quality(df, suite, run_id="p").write(*paths)
    stats = summary.rules.rules
    assert summary.quarantined_rows == sum(
        1 for a, b in rows if any(value(i, a, b) is not True for i in range(3))
    )

    for i, got in enumerate(stats):
        values = [value(i, a, b) for a, b in rows]
        assert got.failed == sum(1 for v in values if v is not True)
        assert got.null_values == sum(1 for v in values if v is None)
        assert got.passed == sum(1 for v in values if v is True)
