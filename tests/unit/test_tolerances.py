"""Rules' tolerances without Spark: the text, the exact comparison, the model's refusals, YAML,
the JSON Schema, rule table rows, the generated docs and a suite's changes (issue 56, part 1).

Expected values are by hand (and, for the comparison, Python's ``decimal`` arithmetic)."""

from __future__ import annotations

from decimal import Decimal

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py import Id, Rule, RuleSet, RuleSuite
from quality_py.actions.flags import RuleRef
from quality_py.actions.tolerances import judge_tolerances, past_messages
from quality_py.docgen.model import tolerance_words
from quality_py.errors import ModelError, QualityError, RuleTableError
from quality_py.io.schema import ruleset_schema
from quality_py.io.tables.rows import RuleRow, check_rows, suite_to_tables
from quality_py.io.yaml_rulesets import dumps_ruleset, loads_ruleset
from quality_py.model.changes import suite_changes
from quality_py.model.tolerance import parse_tolerance
from quality_py.runners.summary import RuleStats, SuiteStats


@pytest.mark.parametrize(
    ("text", "failing", "rows", "past"),
    [
        ("> 0.5 %", 5, 1000, False),  # exactly 0.5 %
        ("> 0.5 %", 6, 1000, True),
        (">= 0.5 %", 5, 1000, True),
        ("> 1000", 1000, 10**9, False),
        (">= 1000", 1000, 10**9, True),
        ("> 0", 1, 10**12, True),  # any failing row
        ("> 0", 0, 10, False),
        (">= 100 %", 7, 7, True),
        ("> 33.33 %", 1, 3, True),  # 33.333... %
        (">= 5 %", 0, 0, False),  # no rows, no failing row: never past
        ("  >=2%  ", 2, 100, True),  # spaces are free
    ],
)
def test_past_by_hand(text: str, failing: int, rows: int, past: bool) -> None:
    assert parse_tolerance(text).past(failing, rows) is past


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("5 %", "must be '>' or '>='"),
        ("< 5 %", "must be '>' or '>='"),
        ("> -1", "must be '>' or '>='"),
        ("> 1e3", "must be '>' or '>='"),
        ("> 5 % of rows", "must be '>' or '>='"),
        ("> 101 %", "above 100 %"),
        (">= 0", "past on every run"),
        (">= 0 %", "past on every run"),
        (0.05, "must be text"),
        (True, "must be text"),
    ],
)
def test_refused_texts_name_the_field(text: object, why: str) -> None:
    with pytest.raises(ModelError) as err:
        parse_tolerance(text, field="warn_if", item_id=Id(7, 2))
    assert why in err.value.message and "warn_if" in err.value.message
    assert "rule 7.2" in str(err.value)


@given(
    st.decimals(min_value=0, max_value=100, places=3, allow_nan=False),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=10**6),
    st.booleans(),
)
def test_the_share_is_compared_exactly(limit: Decimal, failing: int, rows: int, at: bool) -> None:
    failing = min(failing, rows)
    if at and limit == 0:
        return  # refused: past on every run
    text = f"{'>=' if at else '>'} {limit} %"
    # Decimal products of a 3-place limit and integers are exact
    exact = failing * 100 >= limit * rows if at else failing * 100 > limit * rows
    assert parse_tolerance(text).past(failing, rows) is (failing > 0 and exact)


def test_a_fail_rule_with_warn_if_needs_fail_if() -> None:
    with pytest.raises(ModelError, match="could never warn"):
        Rule(Id(1, 1), "a > 0", action_if_failed="fail", warn_if="> 1 %")
    Rule(Id(1, 1), "a > 0", action_if_failed="fail", warn_if="> 1 %", fail_if="> 5 %")
    Rule(Id(1, 1), "a > 0", warn_if="> 1 %")  # an ignore rule may warn


def test_flags_of_a_tolerated_fail_rule() -> None:
    tolerated = RuleRef(Id(1, 1), Id(2, 1), "fail", None, None, (), fail_if="> 5")
    assert (tolerated.stops_run, tolerated.drops_row) == (False, True)
    strict = RuleRef(Id(1, 1), Id(2, 1), "fail", None, None, ())
    assert (strict.stops_run, strict.drops_row) == (True, False)


def test_judged_on_the_failing_count_not_the_code_count() -> None:
    ref = RuleRef(Id(1, 1), Id(2, 1), "drop", None, None, (), "late", "> 1 %", "> 3 %")
    # failed (result code) 1, failing (a probability below probable_pass too) 4 of 100
    stats = SuiteStats(100, 96, (RuleStats(Id(1, 1), Id(2, 1), 96, 1, 0, 0, 3, failing=4),))
    judged = judge_tolerances([ref], stats)
    assert [(t.field, t.failing, t.past) for t in judged] == [("fail_if", 4, True),
                                                              ("warn_if", 4, True)]  # fmt: skip
    assert past_messages(judged) == (
        "[tolerance error] rule 'late' (2.1) fails 4 of 100 rows (4.00 %), past its fail_if "
        "'> 3 %'",
    )


YAML = """
suite: {id: 1, version: 1}
rule_sets:
  - id: 50
    version: 1
    rules:
      - id: 100
        version: 1
        expression: "a > 0"
        action_if_failed: drop
        warn_if: "> 0.5 %"
        fail_if: FAIL
"""


def test_yaml_round_trip_and_positioned_errors() -> None:
    suite = loads_ruleset(YAML.replace("FAIL", '">= 1000"'))
    rule = suite.rule_sets[0].rules[0]
    assert (rule.warn_if, rule.fail_if) == ("> 0.5 %", ">= 1000")
    assert loads_ruleset(dumps_ruleset(suite)) == suite
    with pytest.raises(QualityError) as err:
        loads_ruleset(YAML.replace("FAIL", "0.05"))
    assert ":12:" in str(err.value) and "rule 100.1: fail_if '0.05' must be" in str(err.value)


def test_the_schema_agrees_with_the_reader() -> None:
    validator = jsonschema.Draft202012Validator(ruleset_schema())
    import yaml

    good = yaml.safe_load(YAML.replace("FAIL", '"> 2%"'))
    assert not list(validator.iter_errors(good))
    for bad in ('"2 %"', '"< 5"', "0.05"):
        assert list(validator.iter_errors(yaml.safe_load(YAML.replace("FAIL", bad))))


def test_rule_table_rows_list_a_bad_tolerance() -> None:
    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0", warn_if="> 1", fail_if="> 2 %")])]
    )
    (row,) = suite_to_tables(suite).rules
    assert (row.warn_if, row.fail_if) == ("> 1", "> 2 %")
    raw = {f: getattr(row, f) for f in RuleRow.__dataclass_fields__}
    assert check_rows(RuleRow, [raw]) == [row]
    with pytest.raises(RuleTableError) as err:
        check_rows(RuleRow, [{**raw, "fail_if": "over 2 %"}, {**raw, "rule_id": 10,
                              "action_if_failed": "fail", "fail_if": None}])  # fmt: skip
    problems = [p for b in err.value.broken for p in b.problems]
    assert any("fail_if 'over 2 %' must be" in p for p in problems)
    assert "warn_if on a fail rule with no fail_if could never warn" in problems


def test_docs_and_changes_say_it() -> None:
    rule = Rule(Id(1, 1), "a > 0", warn_if="> 0.5 %", fail_if=">= 1")
    assert tolerance_words(rule) == (
        "the run warns past more than 0.5 % of the rows and fails past at least 1 failing row"
    )
    assert tolerance_words(Rule(Id(1, 1), "a > 0")) is None
    old = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(1, 1), "a > 0")])])
    new = RuleSuite(Id(1, 2), [RuleSet(Id(5, 1), [rule])])
    (change,) = suite_changes(old, new)
    assert change.differences == ["warn_if: none -> '> 0.5 %'", "fail_if: none -> '>= 1'"]


def test_an_unquoted_tolerance_is_told_to_be_quoted() -> None:
    """YAML reads ``> 0.5 %`` as the start of a folded block: the error says to quote it."""
    for style in (YAML.replace('"> 0.5 %"', "> 0.5 %").replace("FAIL", '"> 1"'),
                  YAML.replace("FAIL", ">= 2")):  # fmt: skip
        with pytest.raises(QualityError) as err:
            loads_ruleset(style)
        assert "a value starting with > or < must be quoted" in str(err.value)
    with pytest.raises(QualityError) as err:
        loads_ruleset(YAML.replace("FAIL", '"> 1"').replace("rule_sets:", "rule_sets: ["))
    assert "must be quoted" not in str(err.value)  # other YAML mistakes get no such hint
