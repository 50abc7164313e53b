"""Rule tables without Spark: round trips, versioning (contract 5.2), linking, broken rows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py import Id, LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.errors import ModelError, RuleTableError
from quality_py.io.tables import (
    DELETED,
    LambdaRow,
    OutputRow,
    RuleRow,
    SuiteTables,
    check_rows,
    suite_to_tables,
    tables_to_suites,
)
from quality_py.model import MetaRuleSet

small = st.integers(min_value=-5, max_value=2**31 - 1)
ids = st.builds(Id, small, st.integers(min_value=0, max_value=9))
# no control or line-separator characters: YAML normalises them (a NEL becomes a space)
chars = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp"))
text = st.text(chars, min_size=1).filter(lambda t: t.strip() != "" and t != DELETED)
# (0, 0) is the tables' "no output" marker: such an output is refused (test below), not kept
outputs = st.builds(OutputExpression, ids.filter(lambda i: (i.id, i.version) != (0, 0)), text)


@st.composite
def suites(draw: st.DrawFn) -> RuleSuite:
    shared = draw(st.lists(outputs, max_size=3, unique_by=lambda o: o.id))
    rule_sets = []
    for set_id in draw(st.lists(ids, max_size=4, unique=True)):
        rules = [
            Rule(
                rule_id,
                draw(text),
                draw(st.integers(-(2**31), 2**31 - 1)),
                draw(st.sampled_from([None, *shared])),
                draw(st.none() | text),
                draw(st.none() | text),
                tuple(draw(st.lists(text, max_size=2))),
                draw(st.sampled_from(["ignore", "drop", "fail"])),
                name=draw(st.none() | st.just(f"r{set_id.id}.{set_id.version}.{rule_id.id}")),
                filter=draw(st.none() | text),
                active=draw(st.booleans()),
            )
            # min_size=1: a table has one row per rule, so an empty rule set has no row
            # unique rule numbers: versioned reading keeps one version of each rule
            for rule_id in draw(st.lists(ids, min_size=1, max_size=5, unique_by=lambda i: i.id))
        ]
        rule_sets.append(RuleSet(set_id, sorted(rules, key=lambda r: r.id.packed)))
    lambdas = [
        LambdaFunction(name, draw(text), lam_id)
        for name, lam_id in zip(
            draw(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), max_size=3)),
            draw(st.lists(ids, min_size=3, max_size=3, unique_by=lambda i: i.id)),
            strict=False,
        )
    ]
    metas = [
        MetaRuleSet(mid, draw(st.text(chars, max_size=10)), draw(text))
        for mid in draw(st.lists(ids, max_size=2, unique_by=lambda i: i.id))
        if mid not in {rs.id for rs in rule_sets}
    ]
    return RuleSuite(
        draw(ids),
        sorted(rule_sets, key=lambda rs: rs.id.packed),
        sorted(lambdas, key=lambda lam: (lam.id.id, lam.id.version)),
        meta_rule_sets=sorted(metas, key=lambda m: (m.id.id, m.id.version)),
    )


@settings(max_examples=150, deadline=None)
@given(suites(), st.booleans())
def test_suite_to_tables_and_back_is_exact(suite: RuleSuite, versioned: bool) -> None:
    if not suite.rule_sets:  # a suite without rules writes no rule row, so has no version
        assert tables_to_suites(suite_to_tables(suite)).suites == {}
        return
    loaded = tables_to_suites(suite_to_tables(suite), versioned=versioned)
    assert loaded.suites == {suite.id: suite}
    assert loaded.missing_outputs == {}


def _rule(sv: int, set_id: int, set_v: int, rule_id: int, v: int, expr: str) -> RuleRow:
    return RuleRow(1, sv, set_id, set_v, rule_id, v, expr)


def _ids(suite: RuleSuite) -> dict[tuple[int, int], list[tuple[int, int, str]]]:
    return {
        (rs.id.id, rs.id.version): [(r.id.id, r.id.version, r.expression) for r in rs.rules]
        for rs in suite.rule_sets
    }


def test_versioning_takes_the_latest_rule_version_at_or_below_each_suite_version() -> None:
    rows = (
        _rule(1, 50, 1, 101, 1, "a"),
        _rule(1, 50, 1, 102, 1, "b"),
        _rule(1, 52, 1, 112, 1, "old"),
        _rule(2, 50, 2, 102, 2, "b2"),  # a new rule-set version is a separate rule set
        _rule(2, 53, 1, 112, 2, DELETED),  # DELETED under another rule set deletes nothing
        _rule(3, 50, 1, 101, 2, DELETED),
        _rule(3, 51, 1, 105, 1, "new"),
    )
    loaded = tables_to_suites(SuiteTables(rules=rows))
    assert set(loaded.suites) == {Id(1, 1), Id(1, 2), Id(1, 3)}
    assert _ids(loaded.suites[Id(1, 1)]) == {
        (50, 1): [(101, 1, "a"), (102, 1, "b")],
        (52, 1): [(112, 1, "old")],
    }
    assert _ids(loaded.suites[Id(1, 2)]) == {
        (50, 1): [(101, 1, "a")],
        (50, 2): [(102, 2, "b2")],
        (52, 1): [(112, 1, "old")],
    }
    assert _ids(loaded.suites[Id(1, 3)]) == {
        (50, 2): [(102, 2, "b2")],
        (51, 1): [(105, 1, "new")],
        (52, 1): [(112, 1, "old")],
    }
    unversioned = tables_to_suites(SuiteTables(rules=rows), versioned=False)
    assert _ids(unversioned.suites[Id(1, 3)]) == {(51, 1): [(105, 1, "new")]}


def test_a_snapshot_listing_a_rule_again_does_not_duplicate_it() -> None:
    rows = (_rule(1, 50, 1, 101, 1, "a"), _rule(2, 50, 1, 101, 1, "a"))
    assert _ids(tables_to_suites(SuiteTables(rules=rows)).suites[Id(1, 2)]) == {
        (50, 1): [(101, 1, "a")]
    }


def test_lambdas_and_outputs_come_from_the_same_or_lower_version_of_the_same_suite_only() -> None:
    rules = (
        RuleRow(1, 1, 50, 1, 101, 1, "f(a)", 10, 900, 1),
        RuleRow(1, 3, 50, 1, 102, 1, "f(b)", 5, 900, 2),
        RuleRow(2, 1, 60, 1, 201, 1, "f(c)", 1, 900, 1),
    )
    lambdas = (
        LambdaRow("f", "x -> x > 1", 7, 1, 1, 1),
        LambdaRow("f", "x -> x > 2", 7, 2, 1, 2),
        LambdaRow("g", "x -> x", 8, 1, 1, 3),
        LambdaRow("g", DELETED, 8, 2, 1, 4),
        LambdaRow("f", "x -> x > 0", 9, 1, 5, 1),  # suite 5: the global library
    )
    outputs = (
        OutputRow("'one'", 900, 1, 1, 1),
        OutputRow("'two'", 900, 2, 1, 2),
        OutputRow("'global'", 900, 1, 5, 1),
    )
    tables = SuiteTables(rules, lambdas, outputs)
    loaded = tables_to_suites(tables)
    v1, v3 = loaded.suites[Id(1, 1)], loaded.suites[Id(1, 3)]
    assert [(la.name, la.expression) for la in v1.lambdas] == [("f", "x -> x > 1")]
    assert [(la.name, la.expression) for la in v3.lambdas] == [("f", "x -> x > 2"), ("g", "x -> x")]
    outs = {r.id.id: r.output for _, r in v3.iter_rules()}
    assert outs[101] == OutputExpression(Id(900, 1), "'one'")
    assert outs[102] == OutputExpression(Id(900, 2), "'two'")
    # suite 2 has no lambdas or outputs of its own and never borrows suite 1's
    other = loaded.suites[Id(2, 1)]
    assert other.lambdas == () and next(iter(other.iter_rules()))[1].output is None
    assert loaded.missing_outputs == {Id(2, 1): ((Id(201, 1), Id(900, 1)),)}
    with_global = tables_to_suites(tables, global_library=Id(5, 1))
    other = with_global.suites[Id(2, 1)]
    assert [la.expression for la in other.lambdas] == ["x -> x > 0"]
    assert next(iter(other.iter_rules()))[1].output == OutputExpression(Id(900, 1), "'global'")
    # a suite's own lambda of the same name wins over the library's
    assert [la.expression for la in with_global.suites[Id(1, 1)].lambdas] == ["x -> x > 1"]
    assert with_global.missing_outputs == {}


GOOD_ROW = {
    "rule_suite_id": 1,
    "rule_suite_version": 1,
    "rule_set_id": 50,
    "rule_set_version": 1,
    "rule_id": 100,
    "rule_version": 1,
    "rule_expr": "a > 0",
}


def test_every_broken_row_is_listed() -> None:
    good = dict(GOOD_ROW)
    raw = [
        good,
        {**good, "rule_id": None},
        {**good, "rule_id": 101, "rule_expr": "  "},
        {**good, "rule_id": "1.5"},
        {**good, "rule_id": 2**40},
        {**good, "rule_expr": "a > 1"},  # same ids and version as `good`, other text
        {**good, "rule_id": "102", "rule_version": 1.0},  # integral values are fine
    ]
    with pytest.raises(RuleTableError) as err:
        check_rows(RuleRow, raw)
    problems = [b.problems for b in err.value.broken]
    assert err.value.code == "RULE_TABLE"
    assert problems == [
        (
            "(rule_suite_id, rule_set_id, rule_set_version, rule_id, rule_version) repeats with a "
            "different rule_expr",
        ),
        ("rule_id is null",),
        ("rule_expr is null or blank",),
        ("rule_id is not a 32-bit integer ('1.5')",),
        (f"rule_id is not a 32-bit integer ({2**40})",),
        (
            "(rule_suite_id, rule_set_id, rule_set_version, rule_id, rule_version) repeats with a "
            "different rule_expr",
        ),
    ]
    assert "rule_id=None" in str(err.value)
    assert check_rows(RuleRow, [good, raw[-1]])[1].rule_id == 102


def test_the_action_column_is_optional_and_checked() -> None:
    good = dict(GOOD_ROW)
    assert check_rows(RuleRow, [good])[0].action_if_failed == "ignore"  # an old table
    assert check_rows(RuleRow, [{**good, "action_if_failed": None}])[0].action_if_failed == "ignore"
    assert (
        check_rows(RuleRow, [{**good, "action_if_failed": " DROP"}])[0].action_if_failed == "drop"
    )
    with pytest.raises(RuleTableError) as err:
        check_rows(RuleRow, [{**good, "action_if_failed": "explode"}])
    assert "action_if_failed must be one of ignore, drop, fail" in str(err.value)


@settings(max_examples=100, deadline=None)
@given(suites())
def test_yaml_and_tables_convert_both_ways(suite: RuleSuite) -> None:
    from quality_py.io.yaml_rulesets import dumps_ruleset, loads_ruleset

    from_yaml = loads_ruleset(dumps_ruleset(suite))
    assert from_yaml == suite
    if suite.rule_sets:
        back = tables_to_suites(suite_to_tables(from_yaml)).suites[suite.id]
        assert loads_ruleset(dumps_ruleset(back)) == suite


def test_own_lambda_replaces_only_the_global_overload_of_its_arity() -> None:
    rules = (RuleRow(1, 1, 50, 1, 100, 1, "f(a) AND f(a, b)"),)
    lambdas = (
        LambdaRow("f", "x -> x > 10", 1, 1, 1, 1),  # the suite's own f/1
        LambdaRow("f", "x -> x > 0", 9, 1, 5, 1),  # global f/1: replaced
        LambdaRow("f", "(x, y) -> x < y", 10, 1, 5, 1),  # global f/2: still callable
        LambdaRow("F", "1", 11, 1, 5, 1),  # global f/0 (names are case-insensitive)
    )
    loaded = tables_to_suites(SuiteTables(rules, lambdas, ()), global_library=Id(5, 1))
    got = sorted(la.expression for la in loaded.suites[Id(1, 1)].lambdas)
    assert got == ["(x, y) -> x < y", "1", "x -> x > 10"]


def test_two_versions_of_one_meta_rule_set_are_refused_for_tables() -> None:
    # found by the round-trip property: tables keep the latest version of each meta rule set
    from quality_py import Id, MetaRuleSet, Rule, RuleSet
    from quality_py.errors import ModelError

    suite = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0")])],
        meta_rule_sets=[MetaRuleSet(Id(7, 1), "", "x > 0"), MetaRuleSet(Id(7, 2), "", "x > 1")],
    )
    with pytest.raises(ModelError, match=r"meta rule set 7 is in suite .* versions 1 and 2"):
        suite_to_tables(suite)


def test_an_output_whose_id_means_no_output_is_refused() -> None:
    """Found by the round trip on Python 3.10: an output expression with id (0, 0) was written
    to tables and read back as no output at all."""
    out = OutputExpression(Id(0, 0), "'x'")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0", output=out)])])
    with pytest.raises(ModelError) as err:
        suite_to_tables(suite)
    assert err.value.code == "RULE_TABLE" and "no output" in err.value.message
