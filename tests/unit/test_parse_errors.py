from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py import Id, LambdaFunction, QualityError, RuleSyntaxError
from quality_py.errors import ERROR_CODES, Span, escape_text
from quality_py.sql.parse import parse_expression, parse_lambda


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [("a +", 1, 3), ("CASE WHEN a THEN 1", 1, 18), ("a > 1 AND\n (b <", 2, 5)],
)
def test_syntax_errors_carry_rule_id_line_and_column(text: str, line: int, col: int) -> None:
    with pytest.raises(RuleSyntaxError) as err:
        parse_expression(text, item_id=Id(100, 2))
    e = err.value
    assert e.code == "RULE_SYNTAX"
    assert e.item_id == Id(100, 2)
    assert e.span is not None and (e.span.line, e.span.col) == (line, col)
    rendered = str(e).splitlines()
    assert "rule 100.2" in rendered[0]
    assert rendered[-1] == "  " + " " * (col - 1) + "^"


@pytest.mark.parametrize(
    "text",
    [
        "select 1",
        "SELECT * FROM t",
        "a; DROP TABLE t",
        "drop table t",
        "insert into t values (1)",
        "with x as (select 1) select * from x",
    ],
)
def test_statements_are_not_expressions(text: str) -> None:
    with pytest.raises(RuleSyntaxError) as err:
        parse_expression(text, item_id=Id(1, 1))
    assert err.value.code == "UNSUPPORTED_STATEMENT"


def test_unterminated_string_is_a_syntax_error() -> None:
    with pytest.raises(RuleSyntaxError) as err:
        parse_expression("name = 'abc", item_id=Id(3, 1))
    assert err.value.item_id == Id(3, 1)


@pytest.mark.parametrize(
    ("text", "params", "body"),
    [
        ("x -> x > 0", ("x",), "x > 0"),
        ("(a, b) -> a + b * c", ("a", "b"), "a + b * c"),
        ("(x) -> x", ("x",), "x"),
        ("amount > 0", (), "amount > 0"),
        ("x -> transform(arr, y -> y + x)", ("x",), "TRANSFORM(arr, y -> y + x)"),
    ],
)
def test_lambda_forms(text: str, params: tuple[str, ...], body: str) -> None:
    parsed = parse_lambda(LambdaFunction("f", text, Id(1, 1)))
    assert parsed.params == params
    assert parsed.body.sql("spark") == body


def test_lambda_body_errors_point_into_the_full_text() -> None:
    with pytest.raises(RuleSyntaxError) as err:
        parse_lambda(LambdaFunction("f", "(a, b) -> a +", Id(9, 1)))
    assert err.value.item_kind == "lambda"
    assert err.value.item_id == Id(9, 1)
    assert err.value.span is not None and err.value.span.col == 13


def test_lambda_without_body_and_repeated_parameters() -> None:
    with pytest.raises(QualityError) as err:
        parse_lambda(LambdaFunction("f", "x -> ", Id(9, 1)))
    assert err.value.code == "LAMBDA_SYNTAX"
    with pytest.raises(QualityError) as err2:
        parse_lambda(LambdaFunction("f", "(x, X) -> x", Id(9, 1)))
    assert err2.value.code == "LAMBDA_SYNTAX"


def test_control_characters_in_rule_text_are_escaped_in_messages() -> None:
    with pytest.raises(RuleSyntaxError) as err:
        parse_expression("a +\x1b[31m", item_id=Id(1, 1))
    assert "\x1b" not in str(err.value)
    assert "\\x1b" in str(err.value)


@given(st.text(max_size=40))
def test_escape_text_never_emits_control_characters(text: str) -> None:
    out = escape_text(text)
    assert all(ch in "\n\t" or (ord(ch) >= 32 and ord(ch) != 127) for ch in out)


@given(st.text(alphabet="ab\n", max_size=30), st.integers(min_value=0, max_value=30))
def test_span_line_and_column_match_offsets(text: str, offset: int) -> None:
    span = Span.from_offsets(text, offset)
    start = span.start
    assert text[:start].count("\n") + 1 == span.line
    assert start - (text.rfind("\n", 0, start) + 1) + 1 == span.col


def test_error_codes_are_sorted_and_unique() -> None:
    assert list(ERROR_CODES) == sorted(set(ERROR_CODES))


@given(st.text(max_size=60))
def test_parser_never_raises_anything_but_quality_errors(text: str) -> None:
    with contextlib.suppress(QualityError):
        parse_expression(text, item_id=Id(1, 1))


def test_a_parenthesised_scalar_subquery_is_an_expression() -> None:
    tree = parse_expression("(SELECT max(k) FROM t WHERE t.k > main.k)", kind="output")
    assert tree.sql("spark") == "(SELECT MAX(k) FROM t WHERE t.k > main.k)"


@pytest.mark.parametrize("kind", ["lambda", "output"])
def test_a_bare_select_is_a_scalar_subquery_in_lambdas_and_outputs(kind: str) -> None:
    tree = parse_expression("select max(i) from t where i > ii", kind=kind)
    assert tree.sql("spark") == "(SELECT MAX(i) FROM t WHERE i > ii)"
    for statement in ("select 1 union select 2", "with x as (select 1) select * from x"):
        with pytest.raises(RuleSyntaxError) as err:
            parse_expression(statement, kind=kind)
        assert err.value.code == "UNSUPPORTED_STATEMENT"


def test_prefixed_to_long_pair_with_two_texts_is_ambiguous() -> None:
    from quality_py.errors import LibraryFunctionError
    from quality_py.sql.compiler import compile_expression

    with pytest.raises(LibraryFunctionError) as err:
        compile_expression("prefixed_to_long_pair('p', 'q')")
    assert "cannot tell which is the id" in str(err.value)
