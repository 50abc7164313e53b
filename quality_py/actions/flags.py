"""SQL for what a quality run needs per row: which rules failed, and the row's fate.

A rule *fails* a row exactly when it makes the row's overall result Failed (the core's rule,
``docs`` and the semantics contract): result ``Failed`` (0, also what a null value or a contained
runtime error becomes), or a probability below the suite's ``probable_pass``. Soft-failed and
disabled rules do not fail a row. All expressions read rule codes from the data-quality column
through the ``rule_result`` library function, so they work for both layouts.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from quality_py.model.ids import Id
from quality_py.model.layout import ResultLayout
from quality_py.model.results import DISABLED_RULE, FAILED, PASSED, SOFT_FAILED
from quality_py.model.rules import Rule, RuleSet, RuleSuite
from quality_py.sql.build import bigint, call, lit, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.passes import run_passes

FAILED_RULE_FIELDS = (
    "ruleSetId: INT, ruleSetVersion: INT, ruleId: INT, ruleVersion: INT, action: STRING, "
    "description: STRING"
)


@dataclass(frozen=True)
class RuleRef:
    """One rule of a (prepared) suite with what a run needs to know of it."""

    rule_set: Id
    rule: Id
    action: str
    description: str | None
    owner: str | None
    tags: tuple[str, ...]


def rule_refs(suite: RuleSuite) -> tuple[RuleRef, ...]:
    """Every rule of ``suite`` in declaration order."""
    return tuple(
        RuleRef(rs.id, r.id, r.action_if_failed, r.description, r.owner, tuple(r.tags))
        for rs, r in suite.iter_rules()
    )


def _code(
    suite: RuleSuite, rule_set: RuleSet | Id, rule: Rule | Id, column: str, layout: ResultLayout
) -> exp.Expr:
    set_id = rule_set if isinstance(rule_set, Id) else rule_set.id
    rule_id = rule if isinstance(rule, Id) else rule.id
    code = call(
        "rule_result",
        exp.column(column, quoted=True),
        bigint(suite.id.packed),
        bigint(set_id.packed),
        bigint(rule_id.packed),
    )
    return run_passes(code, PassContext(item_kind="run", layout=layout))


def fails_sql(suite: RuleSuite, ref: RuleRef, column: str, layout: ResultLayout) -> str:
    """True when ``ref`` fails the row (null codes count as failures, as in the core)."""
    code = to_sql(_code(suite, ref.rule_set, ref.rule, column, layout))
    keep = ", ".join(str(v) for v in (PASSED, SOFT_FAILED, DISABLED_RULE))
    threshold = repr(float(suite.probable_pass) * PASSED)
    return (
        f"coalesce({code} = {FAILED} OR ({code} NOT IN ({keep}) AND {code} < {threshold}D), true)"
    )


def any_of(sqls: list[str]) -> str:
    """OR of predicates (false when there are none)."""
    return " OR ".join(f"({s})" for s in sqls) if sqls else "false"


def failed_rules_sql(
    suite: RuleSuite, refs: tuple[RuleRef, ...], column: str, layout: ResultLayout
) -> str:
    """``array<struct<...>>`` of the rules failing the row, with their metadata."""
    items = []
    for ref in refs:
        meta = exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.to_identifier(name), expression=value)
                for name, value in (
                    ("ruleSetId", lit(ref.rule_set.id)),
                    ("ruleSetVersion", lit(ref.rule_set.version)),
                    ("ruleId", lit(ref.rule.id)),
                    ("ruleVersion", lit(ref.rule.version)),
                    ("action", lit(ref.action)),
                    ("description", exp.cast(lit(ref.description), "STRING")),
                )
            ]
        )
        items.append(f"IF({fails_sql(suite, ref, column, layout)}, {to_sql(meta)}, NULL)")
    if not items:
        return f"CAST(array() AS ARRAY<STRUCT<{FAILED_RULE_FIELDS}>>)"
    return f"filter(array({', '.join(items)}), x -> x IS NOT NULL)"
