from __future__ import annotations

import dataclasses

import pytest

from quality_py import Id, LambdaFunction, ModelError, Rule, RuleSet, RuleSuite


def test_lists_become_tuples_and_models_are_frozen() -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])])
    assert isinstance(suite.rule_sets, tuple)
    assert isinstance(suite.rule_sets[0].rules, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        suite.probable_pass = 0.5  # type: ignore[misc]
    changed = dataclasses.replace(suite, probable_pass=0.5)
    assert changed.probable_pass == 0.5 and suite.probable_pass == 0.8


def test_duplicate_rule_ids_in_a_rule_set_name_the_id() -> None:
    with pytest.raises(ModelError) as err:
        RuleSet(Id(50, 1), [Rule(Id(100, 1), "a"), Rule(Id(101, 1), "b"), Rule(Id(100, 1), "c")])
    assert err.value.code == "DUPLICATE_ID"
    assert err.value.item_id == Id(100, 1)
    assert "Id(100, 1)" in str(err.value)


def test_same_rule_id_with_other_version_is_allowed() -> None:
    rs = RuleSet(Id(50, 1), [Rule(Id(100, 1), "a"), Rule(Id(100, 2), "b")])
    assert [r.id for r in rs.rules] == [Id(100, 1), Id(100, 2)]


def test_duplicate_rule_set_ids_name_the_id() -> None:
    with pytest.raises(ModelError) as err:
        RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), []), RuleSet(Id(50, 1), [])])
    assert err.value.code == "DUPLICATE_ID"
    assert err.value.item_id == Id(50, 1)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Rule((100, 1), "a"),  # type: ignore[arg-type]
        lambda: Rule(Id(100, 1), ""),
        lambda: Rule(Id(100, 1), "a", salience="high"),  # type: ignore[arg-type]
        lambda: RuleSet(Id(1, 1), ["a > 0"]),  # type: ignore[list-item]
        lambda: LambdaFunction("not an identifier", "x -> x", Id(1, 1)),
        lambda: RuleSuite(Id(1, 1), [], probable_pass="high"),  # type: ignore[arg-type]
    ],
)
def test_malformed_models_raise_model_errors(make: object) -> None:
    with pytest.raises(ModelError):
        make()  # type: ignore[operator]


def test_iter_rules_is_declaration_order() -> None:
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(Id(2, 1), [Rule(Id(9, 1), "a"), Rule(Id(3, 1), "b")]),
            RuleSet(Id(1, 1), [Rule(Id(5, 1), "c")]),
        ],
    )
    assert [r.id.id for _, r in suite.iter_rules()] == [9, 3, 5]
    assert suite.rule_count == 3
