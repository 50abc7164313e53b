"""The data-quality struct built as one projection from the input (runners.one_projection)
answers exactly what the staged form answers, and is taken only where it may be.

Expected codes are written by hand from ROWS and the coding rules (semantics 1.2 and 1.4):
a boolean true is Passed (100000), false or null Failed (0); the text 'softfail' is
SoftFailed (-1); a probability p is p * 100000; -2 is DisabledRule; a rule set passes unless
a rule is Failed or a probability is below 0.8; SoftFailed and DisabledRule never fail it.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.model.policy import RulePolicy
from quality_py.runners.one_projection import SUBEXPRESSIONS
from quality_py.sql.codegen_limits import METHOD_LIMIT

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes

ROWS = [(1, "x"), (2, "y"), (3, None), (4, "z"), (None, "w")]
P, F = 100000, 0
VIEW = "qp_one_projection_ref"


def _suite(policy: RulePolicy | None = None, extra: tuple[str, ...] = ()) -> RuleSuite:
    texts = [
        "a % 2 = 0",  # boolean; repeated below
        "a > 2",
        "IF(a = 1, 'softfail', 'passed')",  # a null a is not 1: 'passed'
        "CASE WHEN a = 3 THEN 0.5D ELSE 1D END",
        "IF(a IS NULL, -2, 1)",
        *extra,
    ]
    first = RuleSet(Id(10, 1), [Rule(Id(100 + i, 1), t) for i, t in enumerate(texts)])
    second = RuleSet(Id(11, 1), [Rule(Id(200, 1), " a  % 2 = 0 "), Rule(Id(201, 1), "s <> 'y'")])
    kw = {"policy": policy} if policy is not None else {}
    return RuleSuite(Id(1, 1), [first, second], **kw)


# Per row: the first set's five codes, the second set's two (the repeated even test, s <> 'y').
CODES = {
    1: ([F, F, -1, P, P], [F, P]),
    2: ([P, F, P, P, P], [P, F]),
    3: ([F, P, P, 50000, P], [F, F]),  # s is null: s <> 'y' is null, Failed
    4: ([P, P, P, P, P], [P, P]),
    None: ([F, F, P, P, -2], [F, P]),
}


def _expected(a: int | None) -> tuple[int, list[int], list[int]]:
    first, second = CODES[a]

    def passes(codes: list[int]) -> bool:
        return all(c in (P, -1, -2) or c >= 80000 for c in codes)

    sets = [P if passes(first) else F, P if passes(second) else F]
    return (P if all(s == P for s in sets) else F), sets, first + second


def _projects(frame: Any) -> int:
    plan = frame._jdf.queryExecution().optimizedPlan().toString()
    return sum(1 for line in plan.splitlines() if line.lstrip(" +-:").startswith("Project"))


@pytest.mark.parametrize(
    ("key", "value"),
    [(METHOD_LIMIT, "8000"), (METHOD_LIMIT, "65535"), (SUBEXPRESSIONS, "false")],
    ids=["falls-back", "default-limit", "no-shared-subexpressions"],
)
def test_both_forms_answer_every_rule_as_coded_by_hand(
    spark: Any, setting: Any, key: str, value: str
) -> None:
    setting(key, value)
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(), layout="compact")
    got = {r.a: r.DataQuality for r in out.collect()}
    for a in CODES:
        overall, sets, codes = _expected(a)
        assert got[a].overallResult == overall, a
        assert got[a].ruleSetResults == sets, a
        assert got[a].ruleResults == codes, a
    # one projection from the input (under the default limit kept out of whole-stage code:
    # tests/spark/test_out_of_stage.py); staged where Spark would compute each copy of a rule
    assert (_projects(out) == 1) is (key == METHOD_LIMIT)
    assert out.columns == ["a", "s", "DataQuality"]


def test_the_map_layout_is_the_same_in_one_projection(spark: Any, setting: Any) -> None:
    setting(METHOD_LIMIT, "8000")
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite())
    assert _projects(out) == 1
    for row in out.collect():
        overall, sets, codes = _expected(row.a)
        dq = row.DataQuality
        assert dq.overallResult == overall
        first = dq.ruleSetResults[Id(10, 1).packed]
        assert first.overallResult == sets[0]
        assert [first.ruleResults[Id(100 + i, 1).packed] for i in range(5)] == codes[:5]
        second = dq.ruleSetResults[Id(11, 1).packed]
        assert [second.ruleResults[Id(200 + i, 1).packed] for i in range(2)] == codes[5:]


@pytest.mark.parametrize(
    ("policy", "extra"),
    [
        (RulePolicy(allow_random=True), ()),  # each rule evaluated once, as staged
        (RulePolicy().with_views(VIEW), (f"a IN (SELECT v FROM {VIEW})",)),  # planned apart
        (None, ("row_number() OVER (PARTITION BY s ORDER BY a) = 1",)),  # a window
        (None, ("exists(array(a), x -> x > 0)",)),  # a lambda
    ],
    ids=["random-allowed", "subquery", "window", "lambda"],
)
def test_what_would_change_by_repeating_its_text_stays_staged(
    spark: Any, setting: Any, policy: RulePolicy | None, extra: tuple[str, ...]
) -> None:
    setting(METHOD_LIMIT, "8000")
    spark.createDataFrame([(2,)], "v int").createOrReplaceTempView(VIEW)
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(policy, extra), layout="compact")
    plan = out._jdf.queryExecution().analyzed().toString()
    assert "__qp_c" in plan  # the staged code columns
    skip = 5 + len(extra)  # the extra rule ends the first set
    got = {r.a: r.DataQuality.ruleResults for r in out.collect()}
    assert {a: c[:5] + c[skip:] for a, c in got.items()} == {
        a: first + second for a, (first, second) in CODES.items()
    }


def test_without_subexpression_elimination_the_struct_stays_staged(
    spark: Any, setting: Any
) -> None:
    """Each copy of a rule's text would be evaluated apart: the staged form evaluates it once."""
    setting(METHOD_LIMIT, "8000")
    setting("spark.sql.subexpressionElimination.enabled", "false")
    df = spark.createDataFrame(ROWS, "a int, s string")
    out = add_data_quality(df, _suite(), layout="compact")
    assert "__qp_c" in out._jdf.queryExecution().analyzed().toString()
    assert _projects(out) > 1


def test_a_suite_past_the_bound_stays_staged(spark: Any, setting: Any) -> None:
    """Past MAX_INLINE_RULES the text repeated in one projection costs the build more than the
    row saves; by hand: a > i holds for the rows with a above i."""
    from quality_py.runners.one_projection import MAX_INLINE_RULES

    setting(METHOD_LIMIT, "8000")
    n = MAX_INLINE_RULES + 1
    rules = [Rule(Id(1000 + i, 1), f"a > {i}") for i in range(n)]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])
    out = add_data_quality(spark.createDataFrame([(3,)], "a int"), suite, layout="compact")
    assert "__qp_c" in out._jdf.queryExecution().analyzed().toString()
    codes = out.first().DataQuality.ruleResults
    assert codes == [P] * 3 + [F] * (n - 3)
