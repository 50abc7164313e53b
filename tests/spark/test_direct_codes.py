"""Codes selected straight from the input where the rules' text types them
(runners.direct_codes): the same answers as the staged form, the same plan after Spark's
optimizer, one analysis fewer, and the staged form wherever that would not hold.

Expected codes are written by hand from ROWS with SQL's three-valued logic and the coding
rules (semantics 1.2): a boolean true is Passed (100000), false or null Failed (0); a row whose
rule filter is not true gets DisabledRule (-2); a rule set passes unless a rule Failed.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.errors import ModelError, RuleAnalysisError
from quality_py.model.policy import RulePolicy
from quality_py.runners.one_projection import METHOD_LIMIT, SUBEXPRESSIONS
from quality_py.runners.staging import stage_rule_codes

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes

ROWS = [(1, "x"), (2, "y"), (None, "z"), (4, None)]
P, F, D = 100000, 0, -2
TEXTS = [
    "a % 2 = 0",
    "a > 1 AND s <> 'y'",
    "s IN ('x', 'z')",
    "s LIKE 'x%' OR a IS NULL",
    "a BETWEEN 2 AND 3",
    "NOT (a = 4)",
]
# per row (by a): the six rules above, then "a > 1" filtered on "s IS NOT NULL"
CODES = {
    1: [F, F, P, P, F, P, F],
    2: [P, F, F, F, P, P, P],
    None: [F, F, P, P, F, F, F],  # null % 2, null > 1, NOT (null = 4): null, Failed
    4: [P, F, F, F, F, F, D],  # s is null: IN, LIKE and the AND are null; the filter is not true
}


def _suite(*extra: str, policy: RulePolicy | None = None) -> RuleSuite:
    rules = [Rule(Id(100 + i, 1), t) for i, t in enumerate([*TEXTS, *extra])]
    filtered = Rule(Id(200, 1), "a > 1", filter="s IS NOT NULL")
    sets = [RuleSet(Id(10, 1), rules), RuleSet(Id(11, 1), [filtered])]
    kw = {"policy": policy} if policy is not None else {}
    return RuleSuite(Id(1, 1), sets, **kw)


def _direct(frame: Any) -> bool:
    """Whether the codes came straight from the input: no value column was analysed."""
    plan = frame._jdf.queryExecution().analyzed().toString()
    assert "__qp_c" in plan
    return "__qp_v" not in plan


def _projects(frame: Any) -> int:
    plan = frame._jdf.queryExecution().optimizedPlan().toString()
    return sum(1 for line in plan.splitlines() if line.lstrip(" +-:").startswith("Project"))


@pytest.mark.parametrize("layout", ["compact", "map"])
def test_every_rule_is_answered_as_coded_by_hand(spark: Any, setting: Any, layout: str) -> None:
    setting(SUBEXPRESSIONS, "false")  # no one projection: the struct is staged over the codes
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(), layout=layout)
    assert _direct(out)
    assert _projects(out) == 2  # the codes, then the struct: what the staged form runs
    for row in out.collect():
        want = CODES[row.a]
        sets = [P if F not in want[:6] else F, P if F not in want[6:] else F]
        dq = row.DataQuality
        assert dq.overallResult == (P if sets == [P, P] else F), row.a
        if layout == "compact":
            assert dq.ruleResults == want and dq.ruleSetResults == sets, row.a
        else:
            first = dq.ruleSetResults[Id(10, 1).packed]
            assert [first.ruleResults[Id(100 + i, 1).packed] for i in range(6)] == want[:6]
            assert dq.ruleSetResults[Id(11, 1).packed].ruleResults == {Id(200, 1).packed: want[6]}
            assert [first.overallResult, dq.ruleSetResults[Id(11, 1).packed].overallResult] == sets
    assert out.columns == ["a", "s", "DataQuality"]


@pytest.mark.parametrize(
    ("extra", "policy"),
    [
        (("a % 2 = 0",), None),  # the same text twice: one value column shared
        (("a",), None),  # an int: its type decides the coding
        (("IF(a > 1, 'passed', 'failed')",), None),  # text: its coding reads the words
        (("exists(array(a), x -> x > 0)",), None),  # a lambda
        ((), RulePolicy(allow_random=True)),  # each rule evaluated once, as written
        ((), RulePolicy(allow_implicit_casts=True)),  # containment reads the analysed types
    ],
    ids=["repeated", "int", "text", "lambda", "random-allowed", "contained-casts"],
)
def test_what_the_text_does_not_settle_is_staged(
    spark: Any, setting: Any, extra: tuple[str, ...], policy: RulePolicy | None
) -> None:
    setting(SUBEXPRESSIONS, "false")  # the staged form
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(*extra, policy=policy), layout="compact")
    assert not _direct(out)
    got = {r.a: r.DataQuality.ruleResults for r in out.collect()}
    assert {a: c[:6] + c[-1:] for a, c in got.items()} == CODES


def test_one_projection_is_preferred_where_the_session_allows_it(spark: Any, setting: Any) -> None:
    setting(METHOD_LIMIT, "8000")
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(), layout="compact")
    assert _projects(out) == 1
    assert {r.a: r.DataQuality.ruleResults for r in out.collect()} == CODES


def test_errors_are_the_staged_forms(spark: Any, setting: Any) -> None:
    setting(SUBEXPRESSIONS, "false")  # the staged form
    df = spark.createDataFrame(ROWS, "a int, s string")
    with pytest.raises(RuleAnalysisError) as err:  # names the rule, as staged
        add_data_quality(df, _suite("nope > 1"))
    assert err.value.item_id == Id(106, 1) and "nope" in err.value.message
    with pytest.raises(RuleAnalysisError) as err:  # text against a number: refused
        add_data_quality(df, _suite("s > 1"))
    assert err.value.code == "IMPLICIT_CAST" and err.value.item_id == Id(106, 1)
    allowed = RulePolicy(allowed_functions=frozenset({"rand"}))
    with pytest.raises(RuleAnalysisError) as err:  # Spark's determinism gate
        add_data_quality(df, _suite("rand() < 2", policy=allowed))
    assert err.value.item_id == Id(106, 1) and "nondeterministic" in err.value.message
    clash = spark.createDataFrame([(1, 2)], "a int, __qp_c0 int")
    with pytest.raises(ModelError, match="clash with internal names"):
        add_data_quality(clash, _suite())


def test_direct_codes_have_no_value_columns_to_read(spark: Any) -> None:
    df = spark.createDataFrame(ROWS, "a int, s string")
    staged = stage_rule_codes(df, _suite())
    with pytest.raises(ValueError, match="without value columns"):
        staged.value_names()
    # a quality run shares codes and reads the values (its top values): staged as before
    shared = stage_rule_codes(df, _suite(), shared_codes=True)
    assert len(shared.value_names()) == 7


BOOLEAN_BY_SYNTAX = [
    "a = 1",
    "a <=> NULL",
    "NOT (s LIKE 'a%')",
    "s ILIKE 'X%'",
    "s RLIKE '^x'",
    "a IN (1, NULL)",
    "(a > 1) = (s IS NULL)",
    "a IS NOT DISTINCT FROM 1",
    "TRUE",
    "s IS NOT NULL OR a BETWEEN 1 AND 2",
    "NOT a <> 2",
]


def test_what_the_text_calls_boolean_spark_types_boolean(spark: Any) -> None:
    """The claim the direct form rests on, checked against Spark's own analysis."""
    from quality_py.runners.direct_codes import direct_families
    from quality_py.sql.compiler import compile_suite

    df = spark.createDataFrame(ROWS, "a int, s string")
    rules = [Rule(Id(100 + i, 1), t) for i, t in enumerate(BOOLEAN_BY_SYNTAX)]
    compiled = compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), rules)]))
    assert direct_families(compiled, range(len(rules))) == ["boolean"] * len(rules)
    kinds = df.selectExpr(*(f"({r.sql}) AS v{i}" for i, r in enumerate(compiled.rules))).schema
    assert [f.dataType.simpleString() for f in kinds.fields] == ["boolean"] * len(rules)
