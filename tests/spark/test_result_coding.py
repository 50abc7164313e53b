"""Rule value -> stored result int, for every value kind of the contract (semantics 1.2, 1.3)."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality, rule_runner

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

CASES: list[tuple[str, int]] = [
    # booleans
    ("true", 100000),
    ("false", 0),
    ("CAST(NULL AS BOOLEAN)", 0),
    ("a > 0", 100000),
    # integers: only 0 / 1 / -1 / -2 are meaningful, anything else fails
    ("0", 0),
    ("1", 100000),
    ("-1", -1),
    ("-2", -2),
    ("42", 0),
    ("-4", 0),
    ("CAST(1 AS BIGINT)", 100000),
    ("CAST(-1 AS TINYINT)", -1),
    ("CAST(-2 AS SMALLINT)", -2),
    ("-1657899192881000L", 0),
    ("CAST(NULL AS INT)", 0),
    # doubles and floats: 0/1/-1/-2 by value, else a probability truncated toward zero
    ("0.0D", 0),
    ("1.0D", 100000),
    ("-1.0D", -1),
    ("-2.0D", -2),
    ("0.9D", 90000),
    ("0.29D", 28999),
    ("85.0D", 8500000),
    ("-1.32D", -132000),
    ("CAST('NaN' AS DOUBLE)", 0),
    ("CAST('Infinity' AS DOUBLE)", 2147483647),
    ("CAST('-Infinity' AS DOUBLE)", -2147483648),
    ("CAST(NULL AS DOUBLE)", 0),
    ("CAST(0.9 AS FLOAT)", 89999),
    ("CAST(1 AS FLOAT)", 100000),
    # decimals are always probabilities (the original's boxed equality excludes them)
    ("0.9", 90000),
    ("1.0", 100000),
    ("-1.0", -100000),
    ("0.0", 0),
    ("CAST(NULL AS DECIMAL(10, 2))", 0),
    # strings, case-insensitive
    ("'TRUE'", 100000),
    ("'Passed'", 100000),
    ("'pass'", 100000),
    ("'yes'", 100000),
    ("'1'", 100000),
    ("'1.0'", 100000),
    ("'false'", 0),
    ("'FAIL'", 0),
    ("'no'", 0),
    ("'0.0'", 0),
    ("'softfail'", -1),
    ("'MAYBE'", -1),
    ("'DisabledRule'", -2),
    ("'disabled'", -2),
    ("'other'", 0),
    ("CAST(NULL AS STRING)", 0),
    ("NULL", 0),
    # library functions as rule values
    ("passed()", 100000),
    ("failed()", 0),
    ("soft_failed()", -1),
    ("disabled_rule()", -2),
    ("probability(1000)", 1000),
    ("softFail(1 > 2)", -1),
    ("soft_fail(1 < 2)", 100000),
    ("soft_fail(0.4)", 40000),
    ("soft_fail(disabled_rule())", -2),
    ("soft_fail('maybe')", -1),
    ("soft_fail(CAST(NULL AS BOOLEAN))", 0),
]

SUITE = RuleSuite(
    Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(i, 1), text) for i, (text, _) in enumerate(CASES)])]
)


def _codes(row: Any) -> dict[int, int]:
    (rule_set,) = row.ruleSetResults.values()
    return {Id.unpack(k).id: v for k, v in rule_set.ruleResults.items()}


@pytest.mark.parametrize("ansi", ["true", "false"])
def test_every_value_kind_maps_to_its_code(spark: Any, ansi: str) -> None:
    spark.conf.set("spark.sql.ansi.enabled", ansi)
    try:
        df = spark.createDataFrame([(5,)], "a int")
        typed = add_data_quality(df, SUITE).first().DataQuality
        generic = df.select(rule_runner(SUITE).alias("dq")).first().dq
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    expected = {i: code for i, (_, code) in enumerate(CASES)}
    typed_codes, generic_codes = _codes(typed), _codes(generic)
    wrong = {CASES[i][0]: (typed_codes[i], c) for i, c in expected.items() if typed_codes[i] != c}
    assert not wrong, f"typed path (got, expected): {wrong}"
    assert generic_codes == typed_codes


def test_probability_and_soft_fail_values(spark: Any) -> None:
    row = (
        spark.range(1)
        .selectExpr(
            "0.01D AS dummy",
        )
        .first()
    )
    assert row.dummy == 0.01
    from quality_py.functions import expr

    got = (
        spark.range(1)
        .select(
            expr("probability(1000)").alias("p"),
            expr("cast(softFail(1 > 2) as int)").alias("f"),
            expr("cast(soft_fail(499 > 2) as int)").alias("t"),
            expr("soft_fail(0.4)").alias("q"),
            expr("soft_fail(disabled_rule())").alias("d"),
            expr("soft_fail(CAST(NULL AS INT))").alias("n"),
        )
        .first()
    )
    assert (got.p, got.f, got.t, got.q, got.d, got.n) == (0.01, -1, 1, 0.4, -2.0, None)


def test_a_family_fixed_by_syntax_is_the_one_spark_types(spark: Any) -> None:
    """Without a frame, a value whose syntax fixes its type is coded by that type's branch alone
    (``static_family``): never a branch other than the one ``typeof`` picks on Spark."""
    from quality_py.sql.build import to_sql
    from quality_py.sql.coding import family_of, static_family
    from quality_py.sql.compiler import compile_expression

    extra = ["a = 1", "a <=> NULL", "NOT a > 1", "a IN (1, 2)", "'x' LIKE 'y%'", "a BETWEEN 1 AND 2",
             "a IS NULL", "EXISTS(array(1), x -> x > 0)", "CAST(a AS DECIMAL(10, 2))",
             "CAST(a AS STRING)", "CAST(a AS CHAR(3))", "2147483648", "-9223372036854775807",
             "9223372036854775807", "-a", "soft_fail(a)", "soft_fail(a > 0)"]  # fmt: skip
    texts = [t for t, _ in CASES] + extra
    trees = [compile_expression(t) for t in texts]
    row = (
        spark.createDataFrame([(5,)], "a int")
        .selectExpr(*[f"typeof({to_sql(tree)}) AS t{i}" for i, tree in enumerate(trees)])
        .first()
    )
    fixed = {t: static_family(tree) for t, tree in zip(texts, trees, strict=True)}
    assert sum(f is not None for f in fixed.values()) > 40  # most of the cases are fixed
    wrong = {t: (f, row[i]) for i, (t, f) in enumerate(fixed.items())
             if f is not None and f != family_of(row[i])}  # fmt: skip
    assert wrong == {}
