"""Rules whose values grow past the policy's cap are refused before Spark sees them (the
issue's OutOfMemoryError cases and their class), and ordinary folds and nesting stay allowed."""

from __future__ import annotations

import pytest

from quality_py import Id, LambdaFunction, PolicyError, Rule, RuleSet, RuleSuite
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_expression, compile_suite

DOUBLING = [
    "aggregate(sequence(1, 100), 'ab', (acc, x) -> concat(acc, acc))",  # the issue's OOM in 5 s
    "reduce(sequence(1, 50), 'a', (acc, x) -> acc || acc)",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> repeat(acc, 2))",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> concat_ws(',', acc, x, acc))",
    "aggregate(sequence(1, 60), array(1), (acc, x) -> array_union(acc, flatten(array(acc, acc))))",
    "aggregate(sequence(1, 60), array(1), (acc, x) -> concat(acc, acc))",
    "aggregate(sequence(1, 60), array('a'), (acc, x) -> transform(acc, y -> acc))",
    "aggregate(sequence(1, 60), named_struct('a', 1), (acc, x) -> named_struct('l', acc, 'r', acc))",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> CASE WHEN x > 3 THEN concat(acc, acc) ELSE acc END)",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> coalesce(concat(acc, acc), 'b'))",
    "aggregate(sequence(1, 60), map(1, 'a'), (acc, x) -> map_concat(acc, acc))",
]
NESTED = [
    ("transform(sequence(1, 1000), x -> sequence(1, 1000))", "1,000,000"),
    ("transform(sequence(1, 200), x -> repeat('a', 200))", "40,000"),
    ("repeat(repeat('x', 1000), 1000)", "1,000,000"),
    (
        "exists(transform(sequence(1, 100), x -> array_repeat(x, 1000)), a -> size(a) > 0)",
        "100,000",
    ),
    (
        "aggregate(sequence(1, 10000), '', (acc, x) -> concat(acc, repeat('x', 10000)))",
        "100,000,000",
    ),
    ("filter(array_repeat(1, 5000), x -> size(array_repeat(x, 5000)) > 0)", "25,000,000"),
]
FINE = [
    "aggregate(sequence(1, 100), 0, (acc, x) -> acc + acc)",  # numbers keep their size
    "aggregate(sequence(1, 100), '', (acc, x) -> concat(acc, 'x'))",  # linear: 100 characters
    "aggregate(sequence(1, 100), 0, (acc, x) -> IF(x > acc, x, acc))",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> CASE WHEN x > 3 THEN concat(acc, 'b') "
    "ELSE concat(acc, 'c') END)",  # one branch is taken
    "aggregate(a, '', (acc, x) -> concat(acc, substring(acc, 1, 3)))",
    "aggregate(sequence(1, 10), 0, (acc, x) -> acc + size(array(acc, acc)))",
    "aggregate(sequence(1, 10), 0, (acc, x) -> acc + x, acc -> concat(acc, acc))",  # finish: once
    "transform(sequence(1, 100), x -> repeat('a', 100))",  # 10,000: at the cap
    "aggregate(a, named_struct('s', ''), (acc, x) -> named_struct('s', concat(acc.s, x)))",
    "aggregate(a, array(0), (acc, x) -> array_append(acc, x))",
    "aggregate(a, '', (acc, x) -> concat(acc, ',', CAST(x AS STRING)))",
    "size(transform(a, x -> sequence(1, 1000))) > 0",  # the data's array: its own size
    "exists(sequence(1, 10), x -> x > 5)",
    "aggregate(sequence(1, 60), 'a', (acc, x) -> soundex(acc))",  # four letters, whatever acc is
]


@pytest.mark.parametrize("text", DOUBLING)
def test_folds_that_double_their_accumulator_are_refused(text: str) -> None:
    with pytest.raises(PolicyError, match=r"doubles its accumulator|may enlarge it") as info:
        compile_expression(text, item_id=Id(7, 1))
    assert info.value.item_id == Id(7, 1) and info.value.span is not None


#: Folds whose step enlarges one copy of the accumulator by a factor (issue 24): each function
#: of the allowlist that is not a part, concatenation or collection of its arguments.
ENLARGING = [
    "hex(acc)", "base64(acc)", "to_json(array(acc))", "upper(acc)", "lower(acc)",
    "replace(acc, 'a', 'aa')", "regexp_replace(acc, 'a', 'aa')", "translate(acc, 'a', 'b')",
    "url_encode(acc)", "format_string('%s%s', acc, 'x')", "encode(acc, 'UTF-16')",
    "to_csv(named_struct('a', acc))", "initcap(acc)", "quote(acc)",
    "named_struct('s', hex(acc.s))",
    # concat_ws adds a separator per element of an array argument: an accumulator that is an
    # array grows by its own count at every step (array_union(acc, array(concat_ws(',', acc))))
    "concat_ws(',', acc, CAST(x AS STRING))",
]  # fmt: skip


@pytest.mark.parametrize("step", ENLARGING)
def test_folds_that_enlarge_their_accumulator_are_refused(step: str) -> None:
    init = "named_struct('s', 'a')" if "acc.s" in step else "'a'"
    text = f"aggregate(sequence(1, 60), {init}, (acc, x) -> {step})"
    with pytest.raises(PolicyError, match=r"may enlarge it|not allowed|doubles|refused") as info:
        compile_expression(text, item_id=Id(9, 1))
    assert info.value.item_id == Id(9, 1)


@pytest.mark.parametrize(("text", "size"), NESTED)
def test_nested_amplifiers_multiply_and_are_capped(text: str, size: str) -> None:
    with pytest.raises(PolicyError, match=f"builds {size} elements") as info:
        compile_expression(text, item_id=Id(8, 1))
    assert info.value.item_id == Id(8, 1)


@pytest.mark.parametrize("text", FINE)
def test_ordinary_folds_and_nesting_are_allowed(text: str) -> None:
    compile_expression(text)


def test_the_cap_is_the_policys() -> None:
    wide = RulePolicy(max_amplification=1_000_000)
    compile_expression(NESTED[0][0], policy=wide)
    with pytest.raises(PolicyError):
        compile_expression(NESTED[0][0])


def test_growth_split_across_lambdas_is_found_after_inlining() -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(
                        Id(3, 1), "aggregate(sequence(1, 100), 'a', (acc, x) -> twice(acc)) <> ''"
                    ),
                    Rule(Id(4, 1), "size(transform(sequence(1, 1000), x -> many(x))) > 0"),
                ],
            )
        ],
        lambdas=[
            LambdaFunction("twice", "s -> concat(s, s)", Id(10, 1)),
            LambdaFunction("many", "x -> sequence(1, 1000)", Id(11, 1)),
        ],
    )
    issues = compile_suite(suite, collect=True).issues
    found = {
        (i.item_id, "doubles" in i.error.message or "builds" in i.error.message) for i in issues
    }
    assert found == {(Id(3, 1), True), (Id(4, 1), True)}
