"""The bounds of a whole suite (not of one rule): how many subqueries and how many window key
sets its rules may hold together. Each subquery is a join in the suite's one plan (too many
overflow an executor's stack and end the JVM); each key set is a shuffle and sort of the input.
The rule by which a suite passes a bound is the one refused, naming the bound."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from sqlglot import exp

from quality_py.errors import PolicyError
from quality_py.model.ids import Id
from quality_py.model.policy import RulePolicy
from quality_py.sql.windows import key_sets


class Compiled(Protocol):
    """What a bound reads of a compiled rule (``sql.compiler.CompiledRule``)."""

    @property
    def rule_id(self) -> Id: ...

    @property
    def source(self) -> str: ...

    @property
    def tree(self) -> exp.Expr: ...


R = TypeVar("R", bound=Compiled)


def past_bounds(rules: Sequence[R], policy: RulePolicy) -> list[tuple[R, PolicyError]]:
    """The rule by which ``rules`` pass each suite bound of ``policy``, with its refusal.

    >>> from types import SimpleNamespace
    >>> from quality_py.sql.parse import parse_expression
    >>> rule = SimpleNamespace(rule_id=Id(3, 1), source="t", tree=parse_expression(
    ...     "count(*) OVER (PARTITION BY a) + count(*) OVER (PARTITION BY b) > 1"))
    >>> [err.code for _, err in past_bounds([rule], RulePolicy(max_window_keys=1))]
    ['POLICY']
    """
    found = [_first_past(rules, past, message) for past, message in _bounds(policy)]
    return [f for f in found if f is not None]


def _bounds(policy: RulePolicy) -> list[tuple[Callable[[Compiled], bool], str]]:
    subqueries = [0]
    seen: set[tuple[str, ...]] = set()

    def many_subqueries(rule: Compiled) -> bool:
        subqueries[0] += sum(1 for _ in rule.tree.find_all(exp.Select))
        return subqueries[0] > policy.max_subqueries

    def many_key_sets(rule: Compiled) -> bool:
        seen.update(key_sets(rule.tree))
        return len(seen) > policy.max_window_keys

    return [
        (
            many_subqueries,
            f"the suite's rules hold more than {policy.max_subqueries} subqueries (lookups, "
            "maps, IN and EXISTS over views) by this rule: Spark joins each into the suite's one "
            "plan, and too many overflow an executor's stack and end the JVM; join the reference "
            "data into the input first, or split the suite",
        ),
        (
            many_key_sets,
            f"the suite's rules partition the input by more than {policy.max_window_keys} "
            "different key sets by this rule (OVER (PARTITION BY ...), is_unique): each is a "
            "shuffle and sort of the whole input; share key sets between rules, or split the "
            "suite",
        ),
    ]


def _first_past(
    rules: Sequence[R], past: Callable[[Compiled], bool], message: str
) -> tuple[R, PolicyError] | None:
    for rule in rules:
        if past(rule):
            return rule, PolicyError(message, item_id=rule.rule_id, source=rule.source)
    return None
