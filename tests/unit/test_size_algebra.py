"""Sizes by type (issue 24, item 4): every function declares how its value grows, the growth pass
computes with those declarations, and the bound it computes holds.

The property test is the independent check: string functions modelled in plain Python (their
documented behaviour, not our code) are nested at random, run on random text, and the length
of each real result must stay within the bound ``value_size`` computed for the expression.
"""

from __future__ import annotations

import pytest
import sqlglot
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from quality_py import Id, PolicyError
from quality_py.model.policy import RulePolicy
from quality_py.sql.allowed.catalogue import LIBRARY_SIZES, SPECS, size_rule
from quality_py.sql.allowed.size_bounds import additive, fixed_size, rule_of, value_size
from quality_py.sql.allowed.sizes import Poly
from quality_py.sql.compiler import compile_expression
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library import REGISTRY
from quality_py.sql.parse import parse_expression


def test_every_allowlisted_function_declares_its_size_and_signatures() -> None:
    for spec in SPECS.values():
        assert spec.signatures, spec.name
        head = spec.size.split()[0]
        assert head in ("fixed", "sum", "scale", "product", "amp", "hof", "data"), spec.name


def test_every_library_function_declares_its_size() -> None:
    assert [name for name in REGISTRY if size_rule(name) is None] == []
    assert all(size_rule(name) for name in LIBRARY_SIZES)


def test_every_node_the_parser_builds_from_allowed_calls_has_a_size_rule() -> None:
    # sqlglot fuses some pairs of calls into one node (lower(hex(s)) is LowerHex): every pair of
    # one-argument functions of the catalogue, parsed, holds only nodes the growth pass knows
    single = [n for n, spec in SPECS.items() if any(sig in _ONE for sig in spec.signatures)]
    unknown: dict[str, str] = {}
    for outer in single:
        for inner in single:
            try:
                tree = sqlglot.parse_one(f"{outer}({inner}(c))", dialect=DIALECT)
            except sqlglot.errors.ParseError:
                continue
            for node in tree.walk():
                if (
                    isinstance(node, exp.Func)
                    and not isinstance(node, (exp.Cast, exp.TryCast))
                    and rule_of(node) is None
                    and not (fixed_size(node) or additive(node))
                ):
                    unknown.setdefault(type(node).__name__, f"{outer}({inner}(c))")
    assert unknown == {}


_ONE = ("s", "n", "d", "l", "a", "dt", "ts", "bin", "m")


#: Values whose size grows with the square of the data: refused (by hand: a copy of one
#: data-sized value per element or per match of another).
QUADRATIC = [
    "size(transform(a, x -> s)) > 0",
    "length(replace(s, 'a', t)) > 0",
    "length(array_join(arr, s)) > 0",
    "size(transform(a, x -> concat(x, s))) > 0",
    "size(zip_with(a, b, (x, y) -> b)) > 0",
    "length(concat_ws(s, arr)) > 0",
]


@pytest.mark.parametrize("text", QUADRATIC)
def test_values_that_grow_with_the_square_of_the_data_are_refused(text: str) -> None:
    with pytest.raises(PolicyError, match="square of the data") as info:
        compile_expression(text, item_id=Id(4, 2))
    assert info.value.item_id == Id(4, 2)


def test_chains_of_enlarging_functions_are_refused_past_the_cap() -> None:
    # hex doubles: 2^14 = 16,384 > 10,000 (the default cap); 2^3 is fine
    deep = "s"
    for _ in range(14):
        deep = f"hex({deep})"
    with pytest.raises(PolicyError, match="max_amplification"):
        compile_expression(f"length({deep}) > 0")
    compile_expression("length(hex(hex(hex(s)))) > 0")
    compile_expression(f"length({deep}) > 0", policy=RulePolicy(max_amplification=100_000))


LINEAR = [
    "size(transform(a, x -> x + 1)) > 0",
    "size(transform(arr, x -> upper(x))) > 0",  # per element: 3·|x|, summed: 3·|arr|
    "size(filter(a, x -> x > n)) > 0",
    "exists(a, x -> x = n)",
    "length(replace(s, 'a', 'bb')) > 0",  # a literal replacement: 3·|s|
    "length(concat_ws(',', arr)) > 0",
    "aggregate(a, 0, (acc, x) -> acc + x) > 0",
    "length(aggregate(arr, '', (acc, x) -> concat(acc, x))) > 0",
    "size(transform(a, x -> sequence(1, 1000))) > 0",
]


@pytest.mark.parametrize("text", LINEAR)
def test_values_linear_in_the_data_are_allowed(text: str) -> None:
    compile_expression(text)


def test_a_function_without_a_declaration_may_not_feed_growth() -> None:
    policy = RulePolicy(allowed_functions=frozenset({"my_udf"}))
    compile_expression("my_udf(s) > 0", policy=policy)  # its own value: the policy's choice
    compile_expression("length(my_udf(s)) > 0", policy=policy)
    with pytest.raises(PolicyError, match="no size declaration"):
        compile_expression("length(repeat(my_udf(s), 100)) > 0", policy=policy)
    with pytest.raises(PolicyError, match="no size declaration"):
        compile_expression("size(transform(a, x -> my_udf(x))) > 0", policy=policy)


# --- the property: Python models of string functions, nested at random --------------------

_MODELS = {
    "upper": (1, lambda a: a[0].upper()),
    "lower": (1, lambda a: a[0].lower()),
    "hex": (1, lambda a: a[0].encode().hex().upper()),
    "reverse": (1, lambda a: a[0][::-1]),
    "trim": (1, lambda a: a[0].strip(" ")),
    "concat": (2, lambda a: a[0] + a[1]),
    "replace": (3, lambda a: a[0].replace(a[1], a[2]) if a[1] else a[0]),
    "repeat": (1, None),  # repeat(x, k): built below with a literal count
    "lpad": (1, None),
}


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 0) -> tuple[str, object]:
    """(SQL text over columns s and t, Python function of {s, t} giving its value)."""
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        choice = draw(st.sampled_from(["s", "t", "'ab'", "'ß'"]))
        if choice in ("s", "t"):
            return choice, lambda env, c=choice: env[c]
        literal = choice.strip("'")
        return choice, lambda env, v=literal: v
    name = draw(st.sampled_from(sorted(_MODELS)))
    arity, model = _MODELS[name]
    if name == "repeat":
        inner, fn = draw(_expressions(depth + 1))
        k = draw(st.integers(0, 5))
        return f"repeat({inner}, {k})", lambda env, f=fn, k=k: f(env) * k
    if name == "lpad":
        inner, fn = draw(_expressions(depth + 1))
        k = draw(st.integers(0, 12))
        return f"lpad({inner}, {k}, '*')", lambda env, f=fn, k=k: f(env).rjust(k, "*")[:k]
    parts = [draw(_expressions(depth + 1)) for _ in range(arity)]
    if name == "replace":  # the search text must be a literal or a column, as rules write it
        parts[1] = ("'a'", lambda env: "a")
    text = f"{name}({', '.join(p for p, _ in parts)})"
    fns = [f for _, f in parts]
    return text, lambda env, m=model, fns=fns: m([f(env) for f in fns])


def _evaluate(bound: Poly, n: int) -> float:
    total = 0.0
    for mono, coef in bound.items():
        value = coef
        for _, power in mono:
            value *= n**power
        total += value
    return total


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_expressions(), st.text(alphabet="abß ẞﬁ1", max_size=8), st.text(max_size=8))
def test_the_computed_bound_holds_for_modelled_string_functions(
    expr: tuple[str, object], s: str, t: str
) -> None:
    text, fn = expr
    try:
        bound = value_size(parse_expression(text), PassContext())
    except PolicyError:
        return  # refused: nothing to hold
    assert bound is not None
    value = fn({"s": s, "t": t})  # type: ignore[operator]
    n = max(len(s.encode()), len(t.encode()), 1)
    # sizes in UTF-16 units (Spark's characters) of the real value, against the bound at N
    assert len(value.encode("utf-16-le")) // 2 <= _evaluate(bound, n), (text, s, t, value)
