"""Partially applied lambdas evaluate to the values the contract gives (section 4)."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import functions as F

from quality_py import (
    Id,
    LambdaFunction,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    rule_engine_with_struct,
)
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_expression
from quality_py.sql.lambdas import LambdaLibrary

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

LAMBDAS = [
    LambdaFunction("plus", "(a, b, c) -> a + b + c", Id(1, 1)),
    LambdaFunction("retLambda", "(a, b) -> plus(a, b, _())", Id(2, 1)),
    LambdaFunction("scale", "(x, k) -> x * k", Id(3, 1)),
]


def test_partial_application_values(spark: Any) -> None:
    lib = LambdaLibrary(LAMBDAS)
    df = spark.createDataFrame([([1, 2, 3],)], "arr array<int>")
    exprs = {
        "six": "callFun(retLambda(1L, 2L), 3L)",
        "scaled": "transform(arr, _lambda_(scale(_(), 10)))",
        "total": "aggregate(arr, 0, _lambda_(plus(_(), _(), 100)))",
    }
    row = df.select(
        *[F.expr(to_sql(compile_expression(t, lambdas=lib))).alias(k) for k, t in exprs.items()]
    ).first()
    assert (row.six, row.scaled, row.total) == (6, [10, 20, 30], 306)


def test_partial_application_in_an_engine_output(spark: Any) -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(
                        Id(3, 1),
                        "size(arr) > 0",
                        salience=1,
                        output=OutputExpression(
                            Id(9, 1), "transform(arr, _lambda_(scale(_(), 2)))"
                        ),
                    )
                ],
            )
        ],
        lambdas=LAMBDAS,
    )
    df = spark.createDataFrame([([1, 2],), ([],)], "arr array<int>")
    out = rule_engine_with_struct(df, suite, "array<int>")
    assert [r.ruleEngine.result for r in out.collect()] == [[2, 4], None]


def test_user_lambdas_partially_applied_as_agg_expr_sum_and_result(spark: Any) -> None:
    """The original's documented form ``agg_expr('DECIMAL(38,18)', dec IS NOT NULL, myinc(_()),
    myretsum(_(), _()))``. By hand: decs 1.5 and 2.25 match (null does not): sum 3.75, mean
    3.75 / 2 = 1.875."""
    from decimal import Decimal

    from quality_py import expression_runner

    lambdas = [
        LambdaFunction("myinc", "entry -> entry + dec", Id(201, 1)),
        LambdaFunction("myretsum", "(sum, count) -> sum", Id(202, 1)),
        LambdaFunction("mymean", "(s, c) -> s / c", Id(203, 1)),
    ]
    df = spark.createDataFrame(
        [(Decimal("1.5"),), (Decimal("2.25"),), (None,)], "dec decimal(10,2)"
    )
    rules = [
        Rule(
            Id(10, 1), "agg_expr('DECIMAL(38,18)', dec IS NOT NULL, myinc(_()), myretsum(_(), _()))"
        ),
        Rule(Id(11, 1), "aggExpr('DECIMAL(38,18)', dec IS NOT NULL, myinc(_()), mymean(_(), _()))"),
    ]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)], lambdas=lambdas)
    res = df.select(expression_runner(df, suite)).first().expressionResults
    (values,) = res.ruleSetResults.values()
    got = [Decimal(values[k].result) for k in sorted(values)]  # rule 10, then 11
    assert got == [Decimal("3.75"), Decimal("1.875")]


def test_a_bare_select_is_a_lambda_body_and_an_output(spark: Any) -> None:
    """``ii -> select max(i) from t where i > ii`` reads as the scalar subquery it is. By hand:
    t holds 1, 5, 9; above 4 the max is 9, above 9 there is none (null)."""
    from quality_py import RulePolicy, add_data_quality

    spark.createDataFrame([(1,), (5,), (9,)], "i int").createOrReplaceTempView("qp_bare_t")
    lambdas = [
        LambdaFunction("maxAbove", "ii -> select max(i) from qp_bare_t where i > ii", Id(5, 1))
    ]
    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(10, 1), "maxAbove(a) = 9")])],
        lambdas=lambdas,
    ).with_policy(RulePolicy().with_views("qp_bare_t"))
    df = spark.createDataFrame([(4,), (9,)], "a int")
    out = add_data_quality(df, suite, layout="compact").orderBy("a").collect()
    assert [list(r.DataQuality.ruleResults) for r in out] == [[100000], [0]]
    engine = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(
                        Id(10, 1),
                        "a > 0",
                        output=OutputExpression(Id(7, 1), "select max(i) from qp_bare_t"),
                    )
                ],
            )
        ],
    ).with_policy(RulePolicy().with_views("qp_bare_t"))
    got = rule_engine_with_struct(df, engine, "int", "r").collect()
    assert [r.r.result for r in got] == [9, 9]
