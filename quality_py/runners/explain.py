"""Show what a rule becomes: its compiled Spark SQL and Spark's plan for it.

The original prints a rule's expression tree (``print_expr``) or generated Java (``print_code``)
from inside a running job. A SQL-compiling library has something more useful to show, before
any job: the SQL each rule compiles to (after lambda inlining, library-function expansion and
containment) and, given the data, the plan Spark makes of it (no job runs). In rule text,
``print_expr(...)`` and ``print_code(...)`` are kept as the identity so ported rules still run.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quality_py.model.ids import Id
from quality_py.model.labels import resolve_rules
from quality_py.model.rules import RuleSuite

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class RuleExplanation:
    """One rule as written, as compiled, and (given data) as Spark plans it."""

    rule_set_id: Id
    rule_id: Id
    source: str
    compiled_sql: str
    plan: str | None = None
    #: what the rule costs beyond its own row (a shuffle on a key set, a join with a view)
    costs: tuple[str, ...] = ()
    #: the rule's name, when it has one
    name: str | None = None

    def format(self) -> str:
        """A readable block: ids, the text, the SQL and the plan.

        >>> print(RuleExplanation(Id(1, 1), Id(2, 1), "a > 0", "a > 0").format())
        rule 2.1 (rule set 1.1)
          written:  a > 0
          compiled: a > 0
        >>> print(RuleExplanation(Id(1, 1), Id(2, 1), "a > 0", "a > 0", name="a_positive").format())
        rule 'a_positive' (2.1, rule set 1.1)
          written:  a > 0
          compiled: a > 0
        """
        ids = f"{self.rule_id.id}.{self.rule_id.version}"
        within = f"rule set {self.rule_set_id.id}.{self.rule_set_id.version}"
        lines = [
            f"rule {self.name!r} ({ids}, {within})" if self.name else f"rule {ids} ({within})",
            f"  written:  {self.source}",
            f"  compiled: {self.compiled_sql}",
        ]
        lines += [f"  costs:    {cost}" for cost in self.costs]
        if self.plan:
            lines.append("  plan:")
            lines += [f"    {line}" for line in self.plan.rstrip().splitlines()]
        return "\n".join(lines)


def explain_rules(
    suite: RuleSuite,
    df: DataFrame | None = None,
    rule_id: Id | int | str | None = None,
    *,
    mode: str = "simple",
) -> list[RuleExplanation]:
    """Every rule of ``suite`` (or the one ``rule_id`` names: its name, an Id, ``"ID.VERSION"``,
    or an int or ``"ID"`` for any version; an unknown one is refused with a did-you-mean),
    compiled; with ``df``, also Spark's plan of each rule over it (``mode`` as in
    ``DataFrame.explain``: simple, extended, codegen, cost, formatted). No Spark job runs.

    >>> from quality_py.model import Rule, RuleSet
    >>> rule = Rule(Id(7, 1), "print_expr(a < passed())")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [rule])])
    >>> explain_rules(suite)[0].compiled_sql
    'a < 100000'
    >>> df = spark.createDataFrame([(1,)], "a int")
    >>> "Project" in explain_rules(suite, df, 7)[0].plan
    True
    """
    from quality_py.sql.compiler import compile_suite
    from quality_py.sql.windows import costs

    if df is not None:
        from quality_py.prepare import prepare_for_schema
        from quality_py.runners.staging import over_rows, type_oracle

        suite = prepare_for_schema(suite, df.schema)
        compiled = over_rows(df, compile_suite(suite, type_of=type_oracle(df)))
    else:
        compiled = compile_suite(suite)
    wanted = None if rule_id is None else set(resolve_rules(suite, rule_id, who="explain"))
    chosen = [r for r in compiled.rules if wanted is None or r.rule_id in wanted]
    out = []
    for rule in chosen:
        plan = _plan(df, rule.sql, mode) if df is not None else None
        out.append(
            RuleExplanation(
                rule.rule_set_id,
                rule.rule_id,
                rule.source,
                rule.sql,
                plan,
                costs(rule.tree),
                rule.name,
            )
        )
    return out


def _plan(df: DataFrame, sql: str, mode: str) -> str:
    """Spark's plan of one rule over ``df`` (classic and Connect both print it)."""
    from quality_py.runners.staging import input_frame

    frame = input_frame(df, [sql]).selectExpr(sql)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        frame.explain(mode=mode)
    return buffer.getvalue()
