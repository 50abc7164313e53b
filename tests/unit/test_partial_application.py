"""Placeholders, callFun and _lambda_ are resolved at compile time (contract section 4)."""

from __future__ import annotations

import pytest

from quality_py import Id, LambdaFunction
from quality_py.errors import LambdaError
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_expression
from quality_py.sql.lambdas import LambdaLibrary

LIB = [
    LambdaFunction("plus", "(a, b, c) -> a + b + c", Id(1, 1)),
    LambdaFunction("retLambda", "(a, b) -> plus(a, b, _())", Id(2, 1)),
    LambdaFunction("inc", "x -> x + 1", Id(3, 1)),
    LambdaFunction("applyIt", "(f, x) -> callFun(f, x)", Id(4, 1)),
    LambdaFunction("mapAll", "(f, arr) -> transform(arr, v -> callFun(f, v))", Id(5, 1)),
]


def _sql(text: str) -> str:
    # arithmetic left as written: the try_ rewrite of contain_errors is tested on its own
    policy = RulePolicy(contain_errors=False)
    tree = compile_expression(text, item_id=Id(9, 9), lambdas=LambdaLibrary(LIB), policy=policy)
    return tree.sql("spark")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("callFun(retLambda(1, 2), 3)", "(1 + 2 + 3)"),
        ("transform(arr, _lambda_(inc(_())))", "TRANSFORM(arr, __qp_p1 -> (__qp_p1 + 1))"),
        ("applyIt(inc(_('int')), 3)", "(3 + 1)"),
        (
            "aggregate(arr, 0, _lambda_(plus(_(), _(), 10)))",
            "AGGREGATE(arr, 0, (__qp_p1, __qp_p2) -> (__qp_p1 + __qp_p2 + 10))",
        ),
        ("mapAll(plus(_(), 1, 2), arr)", "TRANSFORM(arr, __qp_v1 -> (__qp_v1 + 1 + 2))"),
        ("callFun(plus(_(), _(), _('bigint', false)), 1, 2, 3)", "(1 + 2 + 3)"),
    ],
)
def test_partial_application_is_inlined(text: str, expected: str) -> None:
    assert _sql(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("inc(_())", "never called"),
        ("callFun(a, 1)", "needs a partially applied user lambda"),
        ("callFun(plus(_(), 1, 2), 1, 2)", "gives 2 argument(s) to plus, which has 1"),
        ("_() > 1", "placeholder _() may only be"),
        ("_lambda_(inc(1))", "needs a partially applied user lambda"),
    ],
)
def test_misuse_is_a_typed_error_naming_the_rule(text: str, message: str) -> None:
    with pytest.raises(LambdaError) as err:
        _sql(text)
    assert message in err.value.message and err.value.item_id == Id(9, 9)
