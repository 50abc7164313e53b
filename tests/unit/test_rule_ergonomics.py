"""Names, derived ids, filters, active flags and ${NAME} variables in rulesets (no JVM).

Expected ids are recomputed here from the documented formula with hashlib; error positions are
counted by hand in the YAML text.
"""

from __future__ import annotations

import hashlib

import pytest

from quality_py.errors import ModelError, PolicyError, QualityError, RulesetFormatError
from quality_py.io.variables import ENV_PREFIX, parse_assignments
from quality_py.io.yaml_rulesets import loads_ruleset, loads_ruleset_and_checks
from quality_py.model import Id, Rule, RuleSet, RuleSuite
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import compile_suite, rule_code


def documented_id(name: str) -> int:
    """docs/rulesets.md: 1,000,000 + first 4 bytes of SHA-256(name) mod (2**31 - 1 - 1,000,000)."""
    head = hashlib.sha256(name.encode()).digest()[:4]
    return 1_000_000 + int.from_bytes(head, "big") % (2**31 - 1 - 1_000_000)


NAMED = """\
suite: {name: orders}
lambdas:
  - {name: positive, expression: "x -> x > 0"}
rule_sets:
  - name: basics
    rules:
      - {name: amount_positive, expression: "positive(amount)", filter: "country = 'DE'"}
      - {name: old_rule, version: 3, expression: "amount < 10", active: false}
      - {id: 7, name: kept_id, expression: "amount IS NOT NULL"}
"""


def test_ids_are_derived_from_names_when_omitted() -> None:
    suite = loads_ruleset(NAMED)
    assert suite.id == Id(documented_id("orders"), 1)
    assert suite.name == "orders"
    rs = suite.rule_sets[0]
    assert (rs.id, rs.name) == (Id(documented_id("basics"), 1), "basics")
    assert [(r.id, r.name) for r in rs.rules] == [
        (Id(documented_id("amount_positive"), 1), "amount_positive"),
        (Id(documented_id("old_rule"), 3), "old_rule"),
        (Id(7, 1), "kept_id"),
    ]
    assert suite.lambdas[0].id == Id(documented_id("positive"), 1)
    assert rs.rules[0].filter == "country = 'DE'" and rs.rules[0].active
    assert not rs.rules[1].active
    assert all(1_000_000 <= documented_id(n) <= 2**31 - 1 for n in ("a", "orders", "x" * 100))


def test_a_repeated_name_is_refused_at_its_second_use() -> None:
    text = NAMED.replace("name: kept_id", "name: amount_positive")
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text, "orders.yaml")
    # line 9 is the kept_id rule; its name value starts at column 23
    assert "orders.yaml:9:23:" in err.value.message
    assert "'amount_positive' is used twice" in err.value.message
    two_sets = NAMED + "  - name: basics\n    rules: [{id: 1, expression: 'true'}]\n"
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(two_sets, "orders.yaml")
    assert (
        "orders.yaml:10:11:" in err.value.message and "rule set name 'basics'" in err.value.message
    )


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        ("name: amount_positive,", "name: 'has space',"),
        ("active: false", "active: sometimes"),
        ("filter: \"country = 'DE'\"", "filter: ''"),
    ],
)
def test_bad_names_flags_and_filters_point_at_the_value(bad: str, needle: str) -> None:
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(NAMED.replace(bad, needle), "f.yaml")
    assert err.value.message.startswith("f.yaml:")


def test_an_item_needs_an_id_or_a_name() -> None:
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset("suite: {id: 1}\nrule_sets: [{rules: []}]", "f.yaml")
    assert "needs 'id'" in err.value.message


def test_names_are_unique_in_the_model_too() -> None:
    rules = [Rule(Id(1, 1), "true", name="n"), Rule(Id(2, 1), "true", name="n")]
    with pytest.raises(ModelError) as err:
        RuleSet(Id(1, 1), rules)
    assert err.value.code == "DUPLICATE_NAME"
    sets = [RuleSet(Id(1, 1), rules[:1]), RuleSet(Id(2, 1), rules[1:])]
    with pytest.raises(ModelError):
        RuleSuite(Id(1, 1), sets)


def test_variables_come_from_the_caller_then_the_prefixed_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = """\
suite:
  id: 1
  probable_pass: ${PP}
rule_sets:
  - id: 2
    rules:
      - {id: 3, expression: "amount <= ${LIMIT}", description: "at most $${LIMIT}"}
checks:
  - level: error
    constraints:
      - has_size: ">= ${MIN_ROWS}"
"""
    monkeypatch.setenv(ENV_PREFIX + "MIN_ROWS", "5")
    monkeypatch.setenv(ENV_PREFIX + "LIMIT", "99")  # the caller's value wins
    suite, checks = loads_ruleset_and_checks(text, "v.yaml", {"LIMIT": "10", "PP": "0.5"})
    rule = suite.rule_sets[0].rules[0]
    assert rule.expression == "amount <= 10"
    assert rule.description == "at most ${LIMIT}"
    assert suite.probable_pass == 0.5
    assert checks[0].constraints[0].description == "size >= 5"


def test_an_unset_variable_names_file_line_and_column(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "suite: {id: 1}\nrule_sets:\n  - id: 2\n    rules: [{id: 3, expression: 'a > ${X}'}]\n"
    monkeypatch.delenv(ENV_PREFIX + "X", raising=False)
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text, "v.yaml")
    assert err.value.code == "VARIABLE"
    # the value starts at its opening quote, column 33 of line 4
    assert err.value.message.startswith("v.yaml:4:33: the variable ${X} is not set")
    assert "--var X=VALUE" in err.value.message and ENV_PREFIX + "X" in err.value.message


def test_a_ruleset_cannot_read_other_environment_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    text = "suite: {id: 1}\nrule_sets: [{id: 2, rules: [{id: 3, expression: \"'${SECRET_TOKEN}' = a\"}]}]"
    with pytest.raises(RulesetFormatError) as err:
        loads_ruleset(text)
    assert "hunter2" not in str(err.value)
    with pytest.raises(RulesetFormatError):
        loads_ruleset(text.replace("SECRET_TOKEN", "bad name"))


def test_var_assignments_are_checked() -> None:
    assert parse_assignments(["a=1", "b="]) == {"a": "1", "b": ""}
    for bad in ("novalue", "=1", "a b=1"):
        with pytest.raises(RulesetFormatError):
            parse_assignments([bad])


def test_a_substituted_value_still_passes_the_policy() -> None:
    text = "suite: {id: 1}\nrule_sets: [{id: 2, rules: [{id: 3, expression: '${E}'}]}]"
    suite = loads_ruleset(text, variables={"E": "reflect('java.lang.System', 'exit', 0) IS NULL"})
    with pytest.raises(PolicyError):
        compile_suite(suite)


def test_filters_are_checked_like_rules_and_errors_name_the_filter() -> None:
    def suite(rule: Rule) -> RuleSuite:
        return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [rule])])

    with pytest.raises(PolicyError) as err:
        compile_suite(suite(Rule(Id(3, 1), "a > 0", filter="java_method('x', 'y') = 1")))
    assert err.value.item_kind == "rule filter" and err.value.item_id == Id(3, 1)
    report = compile_suite(suite(Rule(Id(3, 1), "a > 0", filter="b >")), collect=True)
    assert [(i.item_id, i.error.code, i.source) for i in report.issues] == [
        (Id(3, 1), "RULE_SYNTAX", "b >")
    ]
    # an inactive rule is still checked, but compiles to DisabledRule alone
    with pytest.raises(QualityError):
        compile_suite(suite(Rule(Id(3, 1), "nope(a)", active=False)))
    done = compile_suite(suite(Rule(Id(3, 1), "a > 0", active=False))).rules[0]
    assert to_sql(rule_code(done)) == "-2"
    gated = to_sql(
        rule_code(compile_suite(suite(Rule(Id(3, 1), "a > 0", filter="b = 1"))).rules[0])
    )
    assert gated.startswith("IF(COALESCE((b = 1), FALSE), ") and gated.endswith(", -2)")


def test_text_that_looks_like_a_variable_round_trips() -> None:
    """Found by the tables round-trip property: dumped model text is escaped, not substituted."""
    from quality_py.io.yaml_rulesets import dumps_ruleset

    rule = Rule(Id(3, 1), "'${x}' = a OR b = '$${'", filter="c <> '${'", description="$${N}")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [rule])])
    assert loads_ruleset(dumps_ruleset(suite), variables={}) == suite


def test_errors_name_a_named_rule() -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a >", name="amount_ok")])])
    with pytest.raises(QualityError) as err:
        compile_suite(suite)
    assert "(rule 'amount_ok' (3.1), line 1, col 3)" in str(err.value)
    report = compile_suite(suite, collect=True)
    assert "'amount_ok'" in str(report.issues[0].error)


def test_validating_a_yaml_ruleset_without_data_starts_no_spark(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule errors come first: no JVM is started to read a YAML file (``starting a local Spark``
    is what the session helper prints before it starts one)."""
    from pathlib import Path

    from quality_py.cli import main

    path = Path(str(tmp_path)) / "r.yaml"
    path.write_text(NAMED.replace("positive(amount)", "positive(amount"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "starting a local Spark" not in err
    assert "SyntaxError in rule 'amount_positive' (" in out
