from __future__ import annotations

import pytest

from quality_py import Id, LambdaError, LambdaFunction, LibraryFunctionError
from quality_py.model.blooms import BloomSpec
from quality_py.model.policy import RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_expression
from quality_py.sql.context import PassContext
from quality_py.sql.lambdas import LambdaLibrary
from quality_py.sql.library import REGISTRY, canonical
from quality_py.sql.parse import parse_expression
from quality_py.sql.passes import PASSES, run_passes
from quality_py.sql.passes.bound_growth import bound_growth
from quality_py.sql.passes.contain_aggregates import contain_aggregates
from quality_py.sql.passes.contain_errors import contain_errors
from quality_py.sql.passes.contain_functions import contain_functions
from quality_py.sql.passes.contain_ranges import contain_ranges
from quality_py.sql.passes.inline_lambdas import inline_lambdas
from quality_py.sql.passes.library_functions import library_functions
from quality_py.sql.passes.window_forms import window_forms
from quality_py.sql.shapes import parse_shape

from .golden import FIXTURES, read_cases, read_fixture, read_types

INLINE_CASES, INLINE_LAMBDAS = read_cases("passes/inline_lambdas.sql")
LIBRARY_CASES, _, LIBRARY_SHAPES = read_fixture("passes/library_functions.sql")
LIBRARY_TYPES = read_types("passes/library_functions.sql")


def _library() -> LambdaLibrary:
    return LambdaLibrary(
        [LambdaFunction(n, t, Id(900 + i, 1)) for i, (n, t) in enumerate(INLINE_LAMBDAS)]
    )


@pytest.mark.parametrize("case", INLINE_CASES, ids=[c.title for c in INLINE_CASES])
def test_inline_lambdas_golden(case) -> None:  # type: ignore[no-untyped-def]
    ctx = PassContext(lambdas=_library())
    out = inline_lambdas(parse_expression(case.input), ctx=ctx)
    assert to_sql(out) == case.expected


@pytest.mark.parametrize("case", LIBRARY_CASES, ids=[c.title for c in LIBRARY_CASES])
def test_library_functions_golden(case) -> None:  # type: ignore[no-untyped-def]
    shapes = {k: parse_shape(v) for k, v in LIBRARY_SHAPES.items()}
    # a map "countries" and a bloom "ids" (128 bits, 2 hashes) are loaded, random ids allowed
    policy = (
        RulePolicy(allow_random=True)
        .with_views("countries")
        .with_blooms(BloomSpec("ids", 128, 2, 0.01, "bigint"))
    )
    ctx = PassContext(
        shapes=shapes, type_of=lambda sql: LIBRARY_TYPES.get(sql.lower()), policy=policy
    )
    out = library_functions(parse_expression(case.input), ctx=ctx)
    assert to_sql(out) == case.expected


def test_every_library_function_has_a_golden_case_and_a_docstring() -> None:
    text = (FIXTURES / "passes/library_functions.sql").read_text().lower().replace("_", "")
    for key, fn in REGISTRY.items():
        assert fn.doc, f"{fn.name} has no docstring"
        assert f"{key}(" in text, f"{fn.name} has no golden case"
        assert canonical(fn.name) == key


def test_passes_do_not_mutate_the_input_tree() -> None:
    tree = parse_expression("isPositive(pack_ints(1, 2))")
    before = tree.sql()
    lib = LambdaLibrary([LambdaFunction("isPositive", "x -> x > 0", Id(1, 1))])
    out = run_passes(tree, PassContext(lambdas=lib))
    assert tree.sql() == before
    assert to_sql(out) == "(CAST(4294967298 AS BIGINT) > 0)"
    order = (
        inline_lambdas,
        bound_growth,
        contain_errors,
        contain_functions,
        contain_ranges,
        contain_aggregates,
        library_functions,
        window_forms,
    )
    assert order == PASSES


def test_unknown_arity_names_the_lambda_and_its_arities() -> None:
    lib = LambdaLibrary(
        [LambdaFunction("f", "x -> x", Id(1, 1)), LambdaFunction("f", "(x, y) -> x", Id(1, 2))]
    )
    with pytest.raises(LambdaError) as err:
        compile_expression("a AND f(1, 2, 3)", item_id=Id(7, 1), lambdas=lib)
    assert err.value.code == "LAMBDA_ARITY"
    assert err.value.item_id == Id(7, 1)
    assert "defined arities: 1, 2" in err.value.message
    assert err.value.span is not None and err.value.span.col == 7


def test_recursion_is_reported_with_every_lambda_on_the_cycle() -> None:
    lib = LambdaLibrary(
        [
            LambdaFunction("a", "x -> b(x) + 1", Id(1, 1)),
            LambdaFunction("b", "x -> c(x)", Id(2, 1)),
            LambdaFunction("c", "x -> a(x)", Id(3, 1)),
        ]
    )
    with pytest.raises(LambdaError) as err:
        compile_expression("a(1) > 0", item_id=Id(100, 1), lambdas=lib)
    assert err.value.code == "LAMBDA_RECURSION"
    for ident in ("Id(1, 1)", "Id(2, 1)", "Id(3, 1)"):
        assert ident in err.value.message


def test_direct_self_recursion_is_an_error_not_a_stack_overflow() -> None:
    lib = LambdaLibrary([LambdaFunction("loop", "x -> loop(x)", Id(5, 1))])
    with pytest.raises(LambdaError) as err:
        compile_expression("loop(1)", lambdas=lib)
    assert err.value.code == "LAMBDA_RECURSION"
    assert err.value.item_id == Id(5, 1)


def test_two_lambdas_with_same_name_and_arity_are_an_error() -> None:
    with pytest.raises(LambdaError) as err:
        LambdaLibrary(
            [LambdaFunction("f", "x -> x", Id(1, 1)), LambdaFunction("F", "y -> y", Id(2, 1))]
        )
    assert err.value.code == "DUPLICATE_LAMBDA"
    assert "Id(1, 1)" in err.value.message and "Id(2, 1)" in err.value.message


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pack_ints(1, 'a')", "LIBRARY_TYPE"),
        ("pack_ints(1.5, 2)", "LIBRARY_TYPE"),
        ("probability('x')", "LIBRARY_TYPE"),
        ("probability(true)", "LIBRARY_TYPE"),
        ("pack_ints(4294967296, 1)", "LIBRARY_TYPE"),
        ("passed(1)", "LIBRARY_ARGUMENTS"),
        ("rule_result(dq, 1)", "LIBRARY_ARGUMENTS"),
    ],
)
def test_library_argument_errors_name_the_rule(text: str, code: str) -> None:
    with pytest.raises(LibraryFunctionError) as err:
        compile_expression(text, item_id=Id(42, 3))
    assert err.value.code == code
    assert err.value.item_id == Id(42, 3)
    assert "rule 42.3" in str(err.value)


def test_lambda_bodies_may_use_library_functions() -> None:
    lib = LambdaLibrary([LambdaFunction("ok", "x -> IF(x, passed(), failed())", Id(1, 1))])
    assert to_sql(compile_expression("ok(a > 1)", lambdas=lib)) == "IF((a > 1), 100000, 0)"


@pytest.mark.parametrize("name", ["double", "between", "upper", "coalesce", "cast", "exists"])
def test_lambda_names_that_cannot_be_called_are_rejected(name: str) -> None:
    with pytest.raises(LambdaError) as err:
        LambdaLibrary([LambdaFunction(name, "x -> x", Id(4, 2))])
    assert err.value.code == "LAMBDA_SYNTAX"
    assert err.value.item_id == Id(4, 2)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("update_field(unknown, 'a', 1)", "fields are known"),
        ("update_field(cr, 'a')", "path, value pairs"),
        ("update_field(cr, a, 1)", "string literals"),
        ("drop_field(cr, 'a', 'b')", "every field"),
    ],
)
def test_struct_update_errors(text: str, needle: str) -> None:
    ctx = PassContext(item_id=Id(8, 1), shapes={"cr": parse_shape("struct<a: int, b: int>")})
    with pytest.raises(LibraryFunctionError) as err:
        run_passes(parse_expression(text), ctx)
    assert needle in err.value.message
    assert err.value.item_id == Id(8, 1)


CONTAIN_CASES, _ = read_cases("passes/contain_errors.sql")


@pytest.mark.parametrize("case", CONTAIN_CASES, ids=[c.title for c in CONTAIN_CASES])
def test_contain_errors_golden(case) -> None:  # type: ignore[no-untyped-def]
    out = contain_errors(parse_expression(case.input), ctx=PassContext())
    assert to_sql(out) == case.expected


AGGREGATE_CASES, _ = read_cases("passes/contain_aggregates.sql")


@pytest.mark.parametrize("case", AGGREGATE_CASES, ids=[c.title for c in AGGREGATE_CASES])
def test_contain_aggregates_golden(case) -> None:  # type: ignore[no-untyped-def]
    out = contain_aggregates(parse_expression(case.input), ctx=PassContext())
    assert to_sql(out) == case.expected


WINDOW_CASES, _ = read_cases("passes/window_forms.sql")


@pytest.mark.parametrize("case", WINDOW_CASES, ids=[c.title for c in WINDOW_CASES])
def test_window_forms_golden(case) -> None:  # type: ignore[no-untyped-def]
    out = window_forms(parse_expression(case.input), ctx=PassContext())
    assert to_sql(out) == case.expected


RANGE_CASES, _ = read_cases("passes/contain_ranges.sql")


@pytest.mark.parametrize("case", RANGE_CASES, ids=[c.title for c in RANGE_CASES])
def test_contain_ranges_golden(case) -> None:  # type: ignore[no-untyped-def]
    out = contain_ranges(parse_expression(case.input), ctx=PassContext())
    assert to_sql(out) == case.expected


ARGUMENT_CASES, _ = read_cases("passes/function_arguments.sql")


@pytest.mark.parametrize("case", ARGUMENT_CASES, ids=[c.title for c in ARGUMENT_CASES])
def test_function_arguments_survive_generation(case) -> None:  # type: ignore[no-untyped-def]
    # containment off: what is generated is what was written (contain_errors.sql covers
    # the contained forms)
    policy = RulePolicy(contain_errors=False)
    assert to_sql(compile_expression(case.input, policy=policy)) == case.expected


def test_the_validators_patterns_are_proved_linear() -> None:
    """Each pattern the format validators match is one the regex check accepts (linear per
    match attempt), with DQX's e-mail language split into such parts (sql/library/validators.py)."""
    from quality_py.sql.allowed.regex_safety import unsafe_reason
    from quality_py.sql.library.validators import PATTERNS

    assert len(PATTERNS) == 10  # with the IPv6 group
    assert {p: unsafe_reason(p) for p in PATTERNS} == dict.fromkeys(PATTERNS)
