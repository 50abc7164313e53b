"""SQL generated once and reused must be the SQL a fresh generation writes.

A suite of thousands of rules is staged without a sqlglot generation per rule and code
(``CompiledRule.sql`` is kept from the compile, result codes come from one template per type
family); these tests hold the shortcuts to the long way round.
"""

from __future__ import annotations

import dataclasses

import pytest
from sqlglot import exp

from quality_py.model import Id, Rule, RuleSet, RuleSuite
from quality_py.sql.build import to_sql
from quality_py.sql.coding import result_code, result_code_sql
from quality_py.sql.compiler import compile_suite
from quality_py.sql.parse import parse_expression

FAMILIES = [None, "boolean", "integral", "fractional", "decimal", "string", "void"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_result_code_from_the_template_is_the_generated_one(family: str | None) -> None:
    for name in ("__qp_v0", "__qp_v4999", "x"):
        assert result_code_sql(name, family) == to_sql(result_code(exp.column(name), family))


@pytest.mark.parametrize("name", ["a b", "a`b", "1a", "", "`x`", "__qp_code_column_mark"])
def test_a_result_code_template_takes_plain_names_only(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain column name"):
        result_code_sql(name, "boolean")


def test_a_compiled_rule_keeps_the_sql_its_tree_generates() -> None:
    texts = ["a > 0", "s = '${env:HOME}'", "concat(s, 'x') = 'ax'", "a / b > 1", "a IN (1, 2)"]
    rules = [Rule(Id(10 + i, 1), t) for i, t in enumerate(texts)]
    compiled = compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)]))
    for rule in compiled.rules:
        assert rule.sql == to_sql(rule.tree)
        assert "${" not in rule.sql  # Spark's variable substitution finds nothing to replace


def test_a_compiled_rule_with_a_new_tree_generates_afresh() -> None:
    compiled = compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])]))
    rule = compiled.rules[0]
    assert rule.sql == "a > 0"
    other = dataclasses.replace(rule, tree=parse_expression("b < 1"))
    assert other.sql == "b < 1" and rule.sql == "a > 0"
