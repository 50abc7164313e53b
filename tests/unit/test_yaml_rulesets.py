from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py import (
    Id,
    LambdaFunction,
    OutputExpression,
    Rule,
    RuleSet,
    RulesetFormatError,
    RuleSuite,
)
from quality_py.io.yaml_rulesets import dumps_ruleset, load_ruleset, loads_ruleset
from quality_py.model.ids import NAME_PATTERN
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_suite

RULESETS = sorted((Path(__file__).resolve().parents[2] / "rulesets").glob("*.yaml"))


def test_there_are_rulesets() -> None:
    assert RULESETS


@pytest.mark.parametrize("path", RULESETS, ids=[p.name for p in RULESETS])
def test_every_shipped_ruleset_loads_and_compiles(path: Path) -> None:
    suite = load_ruleset(path)
    # the safe default policy; the sample's lookup views are the only tables rules may read
    compiled = compile_suite(
        suite, policy=RulePolicy().with_views("airlines", "airports", "planes")
    )
    assert len(compiled.rules) == suite.rule_count > 0
    assert loads_ruleset(dumps_ruleset(suite)) == suite


def test_flights_ruleset_has_at_least_15_rules_and_reuses_lambdas() -> None:
    suite = load_ruleset(next(p for p in RULESETS if p.name == "flights.yaml"))
    assert suite.rule_count >= 15
    uses = {lam.name: 0 for lam in suite.lambdas}
    texts = [r.expression for _, r in suite.iter_rules()] + [
        lam.expression for lam in suite.lambdas
    ]
    for name in uses:
        uses[name] = sum(t.count(f"{name}(") for t in texts)
    assert uses["inRange"] >= 3


@pytest.mark.parametrize(
    ("text", "line", "col", "needle"),
    [
        ("suite: {id: 1}\nrule_sets:\n  - id: x\n", 3, 9, "integer"),
        (
            "suite: {id: 1}\nrule_sets:\n  - id: 5\n    rules:\n      - {id: 1}\n",
            5,
            9,
            "expression",
        ),
        ("suite: {id: 1}\nrulesets: []\n", 2, 11, "unknown key"),
        ("suite: {id: 1}\nrule_sets: [\n", 3, 1, ""),
        ("rule_sets: []\n", 1, 1, "suite"),
        (
            "suite: {id: 1}\nrule_sets:\n  - id: 5\n    rules:\n      - {id: 1, expression: a, output: {id: 9}}\n",
            5,
            40,
            "not defined",
        ),
        (
            "suite: {id: 1}\nrule_sets:\n  - id: 5\n    rules:\n      - {id: 1, expression: a}\n"
            "      - {id: 1, expression: b}\n",
            3,
            5,
            "duplicate rule ids",
        ),
    ],
)
def test_errors_point_at_file_line_and_column(text: str, line: int, col: int, needle: str) -> None:
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text, "rules.yaml")
    e = err.value
    assert e.code == "RULESET_FORMAT"
    assert e.span is not None and (e.span.line, e.span.col) == (line, col)
    assert e.message.startswith(f"rules.yaml:{line}:{col}: ")
    assert needle.lower() in e.message.lower()


def test_expressions_are_raw_text_not_yaml_values() -> None:
    suite = loads_ruleset(
        "suite: {id: 1}\nrule_sets:\n  - id: 5\n    rules:\n      - {id: 1, expression: true}\n"
    )
    assert suite.rule_sets[0].rules[0].expression == "true"


TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20
).filter(lambda s: s.strip() == s and s.strip())
INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@st.composite
def suites(draw: st.DrawFn) -> RuleSuite:
    n_sets = draw(st.integers(min_value=0, max_value=3))
    set_ids = draw(st.lists(INT32, min_size=n_sets, max_size=n_sets, unique=True))
    sets = []
    outputs = [
        OutputExpression(Id(i, draw(INT32)), draw(TEXT)) for i in range(draw(st.integers(0, 2)))
    ]
    for sid in set_ids:
        rule_ids = draw(st.lists(INT32, max_size=3, unique=True))
        rules = [
            Rule(
                Id(rid, draw(INT32)),
                draw(TEXT),
                salience=draw(INT32),
                output=draw(st.none() | st.sampled_from(outputs)) if outputs else None,
                description=draw(st.none() | TEXT),
                tags=tuple(draw(st.lists(TEXT, max_size=2))),
                name=draw(st.none() | st.just(f"r{sid}.{rid}")),  # unique per suite
                filter=draw(st.none() | TEXT),
                active=draw(st.booleans()),
            )
            for rid in rule_ids
        ]
        sets.append(RuleSet(Id(sid, draw(INT32)), rules, name=draw(st.none() | st.just(f"s{sid}"))))
    lambdas = [
        LambdaFunction(f"f{i}", draw(TEXT), Id(i, draw(INT32)))
        for i in range(draw(st.integers(min_value=0, max_value=2)))
    ]
    return RuleSuite(
        Id(draw(INT32), draw(INT32)),
        sets,
        lambdas=lambdas,
        probable_pass=draw(st.sampled_from([0.8, 0.5, 0.95])),
        description=draw(st.none() | TEXT),
        name=draw(st.none() | st.from_regex(NAME_PATTERN, fullmatch=True)),
    )


@settings(max_examples=150)
@given(suites())
def test_yaml_round_trip_is_exact(suite: RuleSuite) -> None:
    assert loads_ruleset(dumps_ruleset(suite)) == suite


def test_rule_actions_load_and_dump() -> None:
    from quality_py.io.yaml_rulesets import dumps_ruleset, loads_ruleset

    text = """
suite: {id: 1, version: 1}
rule_sets:
  - id: 5
    rules:
      - {id: 10, expression: "a > 0", action_if_failed: drop}
      - {id: 11, expression: "a < 9"}
"""
    suite = loads_ruleset(text)
    actions = [r.action_if_failed for r in suite.rule_sets[0].rules]
    assert actions == ["drop", "ignore"]
    assert loads_ruleset(dumps_ruleset(suite)) == suite
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text.replace("drop", "explode"))
    assert "action_if_failed" in str(err.value) and err.value.span is not None


def test_checks_in_yaml_are_validated_with_positions() -> None:
    from quality_py.io.yaml_checks import CONSTRAINTS, loads_checks

    assert {"is_complete", "has_histogram_values", "has_mutual_information"} <= CONSTRAINTS
    assert "_add" not in CONSTRAINTS
    base = "suite: {id: 1}\nchecks:\n  - level: error\n    constraints:\n"
    (check,) = loads_checks(base + "      - is_in_range: {column: m, low: 1, high: 12}\n")
    assert check.action == "fail" and check.constraints[0].description == "m in [1, 12]"
    with pytest.raises(RulesetFormatError) as err:
        loads_checks(base + "      - drop_table: x\n")
    assert "unknown constraint 'drop_table'" in str(err.value) and err.value.span.line == 5
    with pytest.raises(RulesetFormatError) as err:
        loads_checks(base + "      - has_completeness: {column: m, bogus: 1}\n")
    assert "check 1, constraint 1" in str(err.value)
    with pytest.raises(RulesetFormatError):
        loads_checks("checks:\n  - level: fatal\n")
    with pytest.raises(RulesetFormatError):
        loads_checks("checks:\n  - level: error\n    action_if_failed: drop\n")
    assert loads_checks("suite: {id: 1}\n") == ()


def test_every_documented_description_is_kept_and_dumped() -> None:
    from quality_py.io.yaml_rulesets import dumps_ruleset, loads_ruleset

    text = """
suite: {id: 1, version: 1, description: the suite}
lambdas:
  - {name: pos, id: 200, expression: "x -> x > 0", description: positive}
outputs:
  - {id: 1000, expression: "'big'", description: the big label}
rule_sets:
  - id: 50
    description: amounts
    rules:
      - {id: 100, expression: "pos(a)", salience: 1, output: {id: 1000, version: 1}}
meta_rule_sets:
  - {id: 60, column_filter: "nullable", expression: "c -> c IS NOT NULL", description: no nulls}
"""
    suite = loads_ruleset(text)
    assert suite.description == "the suite"
    assert suite.lambdas[0].description == "positive"
    assert suite.rule_sets[0].description == "amounts"
    assert suite.rule_sets[0].rules[0].output is not None
    assert suite.rule_sets[0].rules[0].output.description == "the big label"
    assert suite.meta_rule_sets[0].description == "no nulls"
    assert loads_ruleset(dumps_ruleset(suite)) == suite


def test_an_unknown_key_is_refused_with_line_and_column() -> None:
    from quality_py.errors import RulesetFormatError
    from quality_py.io.yaml_rulesets import loads_ruleset

    text = "suite: {id: 1}\nrule_sets:\n  - id: 50\n    descripton: typo\n    rules: []\n"
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text, "r.yaml")
    assert "descripton" in err.value.message and "r.yaml:4:" in err.value.message


def test_yaml_aliases_are_refused_before_they_expand() -> None:
    import tracemalloc

    from quality_py.errors import RulesetFormatError

    laughs = ["suite: {id: 1}", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    laughs += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    tracemalloc.start()  # bounded in bytes, not wall time: 10**9 expanded items never exist
    try:
        with pytest.raises(RulesetFormatError) as err:
            loads_ruleset("\n".join(laughs), "laughs.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000
    assert "laughs.yaml:3:" in err.value.message and "aliases" in err.value.message
