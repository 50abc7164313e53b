"""The compile passes keep meaning: compiled SQL equals a hand-written equivalent on real rows.

Each case pairs rule text that uses lambdas / library functions with the expression a person
would write without them; both run in Spark over rows with nulls and edge values.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import Id, LambdaFunction
from quality_py.functions import expr
from quality_py.model.policy import RulePolicy

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

LAMBDAS = [
    LambdaFunction("isPositive", "x -> x > 0", Id(1, 1)),
    LambdaFunction("inRange", "(x, lo, hi) -> x >= lo AND x <= hi", Id(2, 1)),
    LambdaFunction("either", "(p, q) -> p OR q", Id(3, 1)),
    LambdaFunction("neg", "x -> -x", Id(4, 1)),
    LambdaFunction("addAll", "v -> transform(arr, x -> x + v)", Id(5, 1)),
    LambdaFunction("nullSafe", "x -> coalesce(x, 0)", Id(6, 1)),
    LambdaFunction("total", "a + b", Id(7, 1)),
    LambdaFunction("score", "x -> score(x, 10)", Id(8, 1)),
    LambdaFunction("score", "(x, w) -> x * w + total()", Id(9, 1)),
]

CASES = [
    ("isPositive(a - b)", "(a - b) > 0"),
    ("either(a > 1, b > 1) AND a < 3", "((a > 1) OR (b > 1)) AND a < 3"),
    ("NOT either(a IS NULL, b IS NULL)", "NOT ((a IS NULL) OR (b IS NULL))"),
    ("neg(a - b) * 2", "(-(a - b)) * 2"),
    ("inRange(a + 1, b, b * 3)", "(a + 1) >= b AND (a + 1) <= b * 3"),
    ("addAll(x)", "transform(arr, y -> y + x)"),
    ("nullSafe(a) + nullSafe(b)", "coalesce(a, 0) + coalesce(b, 0)"),
    ("score(a)", "a * 10 + (a + b)"),
    ("isPositive(inRange(a, 0, 2)::int)", "CAST(a >= 0 AND a <= 2 AS INT) > 0"),
    (
        "soft_fail(a > b) > 0",
        "(CASE WHEN a > b THEN 1.0D WHEN a IS NULL OR b IS NULL THEN NULL ELSE -1.0D END) > 0",
    ),
    (
        "pack_ints(a, b) = (shiftleft(CAST(a AS BIGINT), 32) | (CAST(b AS BIGINT) & 4294967295L))",
        "a IS NOT NULL AND b IS NOT NULL OR NULL",
    ),
]


@pytest.mark.parametrize(("rule", "manual"), CASES, ids=[c[0] for c in CASES])
def test_compiled_rule_equals_hand_written(spark: Any, rule: str, manual: str) -> None:
    df = spark.createDataFrame(
        [(1, 2, 5, [1, 2]), (3, 1, 0, []), (None, 1, 2, None), (2, None, -1, [7]), (0, 0, 0, [0])],
        "a int, b int, x int, arr array<int>",
    )
    # one case compares with a hand-written bit expression: allow the operators on both sides
    bits = RulePolicy(allow_bitwise_operators=True)
    trusted = RulePolicy.trusted_policy()  # the hand-written side is our code
    got = df.select(
        expr(rule, LAMBDAS, policy=bits).alias("r"), expr(manual, policy=trusted).alias("m")
    )
    got = got.collect()
    assert [r.r for r in got] == [r.m for r in got]
