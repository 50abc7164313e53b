"""Struct shapes known at compile time, without Spark: structs built in the text."""

from __future__ import annotations

import pytest

from quality_py.errors import QualityError
from quality_py.model import Id, LambdaFunction
from quality_py.sql.compiler import compile_expression
from quality_py.sql.lambdas import LambdaLibrary
from quality_py.sql.parse import parse_expression
from quality_py.sql.shapes import literal_shape


def test_literal_shapes() -> None:
    assert literal_shape(parse_expression("named_struct('a', 1, 'b', named_struct('c', x))")) == (
        ("a", None),
        ("b", (("c", None),)),
    )
    assert literal_shape(parse_expression("struct(a, b AS c)")) == (("a", None), ("c", None))
    assert literal_shape(parse_expression("CAST(s AS struct<a: int>)")) == (("a", None),)
    assert literal_shape(parse_expression("s")) is None


def test_nested_updates_of_a_lambda_result_compile_without_spark() -> None:
    lib = LambdaLibrary([LambdaFunction("mk", "(a, b) -> named_struct('a', a, 'b', b)", Id(1, 1))])
    sql = compile_expression(
        "updateField(updateField(mk(1, 2), 'a', 10), 'c', 3)", lambdas=lib
    ).sql("spark")
    # by hand: fields a, b kept in order, c appended; no unknown struct left
    assert "'a', 10" in sql and "'c', 3" in sql and "'b'" in sql


def test_a_column_needs_a_dataframe_and_the_error_says_so() -> None:
    with pytest.raises(QualityError) as err:
        compile_expression("updateField(s, 'a', 1)", item_id=Id(5, 1))
    assert err.value.item_id == Id(5, 1)
    assert "when the rules run against a DataFrame" in err.value.message


def test_lambda_parameters_spelled_like_keywords() -> None:
    lib = LambdaLibrary([LambdaFunction("f", "(row, key) -> row + key", Id(1, 1))])
    assert compile_expression("f(1, 2) > 0", lambdas=lib).sql("spark").count("TRY_ADD") == 1
