"""Trigger order shared by the rule engine and the rule folder."""

from __future__ import annotations

from quality_py.errors import ModelError
from quality_py.model.rules import Rule, RuleSet, RuleSuite


def salience_order(suite: RuleSuite, runner: str) -> list[tuple[int, RuleSet, Rule]]:
    """Every rule with its flat index, sorted by salience, ties by the rule set's then the
    rule's id and version.

    Ties are decided by ids, not by declaration order: rule tables have no order (they are
    read back sorted by id), so declaration order would pick one winner from YAML and another
    from the same rules in tables. Ids are the same from every source.

    Raises ``MISSING_OUTPUT`` naming the first rule without an output expression.

    >>> from quality_py import Id, OutputExpression
    >>> out = OutputExpression(Id(9, 1), "'x'")
    >>> rules = [Rule(Id(3, 1), "a", salience=5, output=out),
    ...          Rule(Id(4, 1), "b", salience=1, output=out)]
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])
    >>> [(flat, rule.id.id) for flat, _, rule in salience_order(suite, "engine")]
    [(1, 4), (0, 3)]
    """
    out = []
    for flat, (rule_set, rule) in enumerate(suite.iter_rules()):
        if rule.output is None:
            raise ModelError(
                f"rule {rule.id!r} has no output expression; every rule of a {runner} suite "
                "needs one",
                item_id=rule.id,
                code="MISSING_OUTPUT",
            )
        out.append((flat, rule_set, rule))
    return sorted(
        out,
        key=lambda t: (
            t[2].salience,
            t[1].id.id,
            t[1].id.version,
            t[2].id.id,
            t[2].id.version,
            t[0],
        ),
    )
