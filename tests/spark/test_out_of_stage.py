"""The data-quality struct kept out of whole-stage code under Spark's default method limit
(runners.one_projection.session_form): the operators holding it, and a filter on its overall
result that Spark moves below it, run Spark's split generated code on every Spark we support;
the answers and the schema are those of a session where Spark falls back by itself.

Expected values by hand from ROWS: rule k of 12 asks ``(c{k % 4} % {2 + k // 4}) = 0``, so
rules 0-3 test c0..c3 against 2, rules 4-7 against 3, rules 8-11 against 4. Row 1 (every c 6):
moduli 2 and 3 pass, 4 fails (6 % 4 = 2); row 2 (every c 12) passes all; row 3 (c0..c3 = 1, 2,
3, 4) by each modulus in turn; row 4: c0 null fails the rules over c0 (null is Failed), 12
passes the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.sql.codegen_limits import METHOD_LIMIT, ONE_WITHOUT_CODEGEN, PHOTON

pytestmark = pytest.mark.semantics  # what Spark generates code for differs by version

P, F = 100000, 0
ROWS = [(1, 6, 6, 6, 6), (2, 12, 12, 12, 12), (3, 1, 2, 3, 4), (4, None, 12, 12, 12)]
RULES = 12  # over 4 columns: the narrow-table shape that fell into one whole-stage method


def _suite() -> RuleSuite:
    rules = [Rule(Id(100 + k, 1), f"(c{k % 4} % {2 + k // 4}) = 0") for k in range(RULES)]
    return RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), rules[:6]), RuleSet(Id(11, 1), rules[6:])])


# by hand, per row id: each rule's code in suite order (moduli 2, 2, 2, 2, 3, 3 | 3, 3, 4, ...)
CODES = {
    1: [P] * 8 + [F] * 4,  # 6 % 4 = 2
    2: [P] * 12,
    3: [F, P, F, P, F, F, P, F, F, F, F, P],  # 1 2 3 4 against moduli 2, 3 and 4
    4: [F, P, P, P, F, P, P, P, F, P, P, P],  # c0 null: every rule over c0 Failed
}


def _whole_stage_lines(frame: Any, word: str) -> list[str]:
    """The physical plan's operators naming ``word``, and whether each is whole-stage code
    (Spark prints those ``*(n)``)."""
    plan = frame._jdf.queryExecution().executedPlan().toString()
    return [line.strip(" +-:") for line in plan.splitlines() if word in line]


def test_the_marker_is_one_and_never_whole_stage_code(spark: Any) -> None:
    """The claim the mechanism rests on, on this Spark: an operator holding the marker is not
    whole-stage code, and the marker is 1 for every row."""
    out = spark.range(5).selectExpr(f"id * {ONE_WITHOUT_CODEGEN} AS v")
    assert [r.v for r in out.collect()] == [0, 1, 2, 3, 4]
    lines = _whole_stage_lines(out, "zip_with")
    assert lines and not any(line.startswith("*(") for line in lines), lines


@pytest.mark.parametrize("layout", ["compact", "map"])
def test_under_the_default_limit_the_struct_and_its_filter_stay_out(
    spark: Any, setting: Any, layout: str
) -> None:
    setting(METHOD_LIMIT, "65535")  # Spark's default
    df = spark.createDataFrame(ROWS, "id int, c0 int, c1 int, c2 int, c3 int")
    out = add_data_quality(df, _suite(), layout=layout)
    structs = _whole_stage_lines(out, "named_struct")
    assert structs and not any(line.startswith("*(") for line in structs), structs
    kept = out.where("DataQuality.overallResult = 100000")
    filters = [line for line in _whole_stage_lines(kept, "least(") if "Filter" in line]
    assert filters and not any(line.startswith("*(") for line in filters), filters
    assert sorted(r.id for r in kept.collect()) == [2]  # by hand: only row 2 passes all
    for row in out.collect():
        dq, want = row.DataQuality, CODES[row.id]
        sets = [P if F not in want[:6] else F, P if F not in want[6:] else F]
        assert dq.overallResult == (P if want == [P] * RULES else F), row.id
        if layout == "compact":
            assert (dq.ruleResults, dq.ruleSetResults) == (want, sets), row.id
        else:
            got = [dq.ruleSetResults[Id(s, 1).packed].overallResult for s in (10, 11)]
            assert got == sets, row.id


def test_where_spark_falls_back_by_itself_nothing_is_added(spark: Any, setting: Any) -> None:
    """Under a limit of 8000 Spark leaves a small stage whole-stage code and falls back from a
    large one: no marker, and the same schema and answers as under the default limit."""
    df = spark.createDataFrame(ROWS, "id int, c0 int, c1 int, c2 int, c3 int")
    setting(METHOD_LIMIT, "65535")
    marked = add_data_quality(df, _suite(), layout="compact")
    setting(METHOD_LIMIT, "8000")
    plain = add_data_quality(df, _suite(), layout="compact")
    assert "zip_with" not in plain._jdf.queryExecution().executedPlan().toString()
    assert plain.schema == marked.schema  # nullability too: the column's contract
    assert sorted(plain.collect()) == sorted(marked.collect())


def test_under_photon_the_struct_is_built_as_before(spark: Any, setting: Any) -> None:
    """Photon does not run Spark's generated code, and an expression it lacks could move the
    projection off it: no marker, and the staged struct (not one projection) as before."""
    setting(METHOD_LIMIT, "65535")
    setting(PHOTON, "true")
    df = spark.createDataFrame(ROWS, "id int, c0 int, c1 int, c2 int, c3 int")
    out = add_data_quality(df, _suite(), layout="compact")
    plan = out._jdf.queryExecution().analyzed().toString()
    assert "zip_with" not in plan and "__qp_c" in plan
    assert {r.id: r.DataQuality.ruleResults for r in out.collect()} == CODES
