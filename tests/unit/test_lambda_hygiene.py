"""Lambda inlining is hygienic: a name free in a body always means the row's column."""

from __future__ import annotations

from quality_py.model import Id, LambdaFunction
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_expression
from quality_py.sql.lambdas import LambdaLibrary

TRUSTED = RulePolicy.trusted_policy()


def _sql(text: str, *lambdas: tuple[str, str]) -> str:
    lib = LambdaLibrary([LambdaFunction(n, t, Id(10 + i, 1)) for i, (n, t) in enumerate(lambdas)])
    return compile_expression(text, lambdas=lib, policy=TRUSTED).sql("spark")


def _flat(sql: str) -> str:
    return sql.replace("(", "").replace(")", "")


def test_callee_free_column_is_not_captured_by_caller_parameter() -> None:
    # f's y is the column y; g's parameter y must not capture it: g(5) = 1 + <column y>
    sql = _sql("g(5)", ("f", "x -> x + y"), ("g", "y -> f(1)"))
    assert _flat(sql) == _flat(_sql("1 + y"))  # inlined by hand


def test_no_capture_at_depth_and_for_every_arity() -> None:
    sql = _sql(
        "h(100, 200)",
        ("f", "(a, b) -> a + b + y + x"),  # x and y free: columns
        ("g", "(x, y) -> f(x, 2)"),  # passes its x; its y is unused
        ("h", "(y, x) -> g(y, x)"),
    )
    assert _flat(sql) == _flat(_sql("100 + 2 + y + x"))  # inlined by hand


def test_argument_used_inside_a_subquery_means_the_outer_row() -> None:
    lam = ("genMax", "x -> (select max(i) from t where t.i > x)")
    assert "t.i > main.i" in _sql("genMax(i)", lam)
    assert "t.i > main.i" in _sql("genMax(main.i)", lam)
    # a lambda variable of a higher-order function is not a column: left unqualified
    inside = _sql("exists(arr, v -> genMax(v) > 0)", lam)
    assert "main." not in inside


def test_lambda_parameter_reaching_a_subquery_through_a_caller() -> None:
    sql = _sql(
        "wrap(i + 1)",
        ("genMax", "x -> (select max(i) from t where t.i > x)"),
        ("wrap", "z -> genMax(z)"),
    )
    assert "t.i > TRY_ADDmain.i, 1" in _flat(sql)
