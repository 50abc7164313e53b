"""Fuzzing the compile step with untrusted text: it either refuses with a typed error, or what it
accepts contains no forbidden construct (checked by an oracle independent of the allowlist)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import Id, LambdaFunction, Rule, RuleSet, RuleSuite
from quality_py.errors import QualityError
from quality_py.io.yaml_rulesets import load_ruleset
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_suite

FORBIDDEN = [
    "reflect",
    "java_method",
    "try_reflect",
    "raise_error",
    "assert_true",
    "current_user",
    "session_user",
    "user",
    "secret",
    "input_file_name",
    "rand",
    "randn",
    "uuid",
    "shuffle",
    "monotonically_increasing_id",
    "spark_partition_id",
    "my_udf",
    "from_csv",
]
_ORACLE = re.compile(r"\b(" + "|".join(FORBIDDEN) + r")\s*\(", re.IGNORECASE)
_QUERY = re.compile(r"\b(select|transform\s*\(.*using|over\s*\()", re.IGNORECASE)

CALLS = [
    "abs",
    "upper",
    "concat",
    "coalesce",
    "size",
    "element_at",
    "regexp_extract",
    "repeat",
    "sequence",
    "transform",
    "exists",
    "isPositive",
    "sum",
    "count",
    "row_number",
    *FORBIDDEN,
    "builtin.reflect",
    "`ReFlEcT`",
    "IDENTIFIER('ref' || 'lect')",
]
ATOMS = [
    "a",
    "b",
    "s",
    "arr",
    "main.a",
    "1",
    "0",
    "-5",
    "2.5",
    "'x'",
    "'(a|b)+'",
    "NULL",
    "true",
    "x",
    "1000000000",
    "'^(.*?,){11}P'",
    "`weird col`",
]
OPS = ["+", "-", "*", "/", "%", "=", "<>", ">", "AND", "OR", "||", "rlike", "LIKE", "DIV"]
NOISE = [
    ";",
    "--",
    "/*",
    "*/",
    ")",
    "(",
    "'",
    "`",
    "->",
    ",",
    "AS q",
    "SELECT 1 FROM t",
    "transform(1) using 'sh'",
    "\x00",
    "\n",
    "OVER (ORDER BY a)",
]

LAMBDAS = [LambdaFunction("isPositive", "x -> x > 0", Id(9, 1))]
RULESETS = sorted((Path(__file__).parents[2] / "rulesets").glob("*.yaml"))
REAL = [r.expression for p in RULESETS for _, r in load_ruleset(p).iter_rules()]


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.integers(0, 4 if depth < 4 else 0))
    if kind == 0:
        return draw(st.sampled_from(ATOMS))
    if kind in (1, 2):
        left, right = draw(expressions(depth + 1)), draw(expressions(depth + 1))
        return f"{left} {draw(st.sampled_from(OPS))} {right}"
    if kind == 3:
        args = draw(st.lists(expressions(depth + 1), max_size=3))
        return f"{draw(st.sampled_from(CALLS))}({', '.join(args)})"
    return f"({draw(expressions(depth + 1))})"


@st.composite
def mutations(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(REAL))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(text)))
        choice = draw(st.integers(0, 2))
        if choice == 0:  # insert a fragment
            text = (
                text[:pos] + " " + draw(st.sampled_from(NOISE + CALLS + ATOMS)) + " " + text[pos:]
            )
        elif choice == 1:  # delete a span
            text = text[:pos] + text[pos + draw(st.integers(1, 8)) :]
        else:  # wrap in a call
            text = f"{draw(st.sampled_from(CALLS))}({text})"
    return text


def _check(text: str) -> None:
    if not text.strip():
        return
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(5, 1), text)])], lambdas=LAMBDAS)
    refused: QualityError | None = None
    try:
        compiled = compile_suite(suite, policy=RulePolicy().with_views("airlines", "airports"))
    except QualityError as err:  # a refusal must name the rule; anything else fails the test
        refused = err
    if refused is not None:
        assert refused.item_id == Id(5, 1), refused
        return
    sql = compiled.rules[0].sql
    assert not _ORACLE.search(sql), (text, sql)
    lowered = sql.lower()
    # only lookups of the permitted views (a column such as 0SELECT is a name and 'SELECT' a
    # string, not a query)
    if re.search(r"\bselect\b", re.sub(r"`[^`]*`|'(?:[^'\\]|\\.)*'", "", lowered)):
        assert re.findall(r"from\s+(\w+)", lowered) and all(
            t in ("airlines", "airports") for t in re.findall(r"from\s+([\w.`/]+)", lowered)
        ), (text, sql)
    assert " using " not in lowered, (text, sql)
    # windows (rules over more than one row): each partitions by a key, none has a frame or
    # reads a neighbour row or collects rows (docs/rules-over-rows.md)
    for window in re.finditer(r"\bover\s*\(", lowered):
        assert lowered[window.end() :].lstrip().startswith("partition by"), (text, sql)
    assert not re.search(r"\b(rows|range)\s+between\b", lowered), (text, sql)
    neighbours = r"\b(lag|lead|first_value|last_value|nth_value|collect_list|array_agg)\s*\("
    assert not re.search(neighbours, lowered), (text, sql)


# derandomized in CI so a run is repeatable; the slow run below explores freely
FAST = settings(
    max_examples=1000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.long
@FAST
@given(expressions())
def test_grammar_fuzz(text: str) -> None:
    _check(text)


@pytest.mark.long
@FAST
@given(mutations())
def test_mutation_fuzz(text: str) -> None:
    _check(text)


@pytest.mark.slow
@settings(max_examples=50_000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(expressions(), mutations(), st.text(max_size=200)))
def test_long_fuzz(text: str) -> None:
    _check(text)
