"""Partially applied lambdas evaluate to the values the contract gives (section 4)."""

from __future__ import annotations

from typing import Any

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
from quality_py.sql.context import LambdaLibrary

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
