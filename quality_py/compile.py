"""Compile a suite's rule texts through the passes into Spark-ready ASTs.

This is the part of the pipeline that does not need Spark: parsing, lambda inlining and
library-function expansion for every rule, with errors that name the rule. Runners build their
output struct from the compiled rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from quality_py.model.ids import Id
from quality_py.model.layout import ResultLayout
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.sql.build import to_sql
from quality_py.sql.context import LambdaLibrary, PassContext
from quality_py.sql.parse import parse_expression
from quality_py.sql.passes import run_passes


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """One rule after the passes: its ids, original text and rewritten AST."""

    rule_set_id: Id
    rule_id: Id
    source: str
    tree: exp.Expr

    @property
    def sql(self) -> str:
        """The rule's Spark SQL after the passes."""
        return to_sql(self.tree)


@dataclass(frozen=True, slots=True)
class CompiledSuite:
    """Every rule of a suite compiled, in declaration order."""

    suite: RuleSuite
    rules: tuple[CompiledRule, ...]
    lambdas: LambdaLibrary


def compile_expression(
    text: str,
    *,
    item_id: Id | None = None,
    kind: str = "rule",
    lambdas: LambdaLibrary | None = None,
    layout: ResultLayout = Layout.MAP,
) -> exp.Expr:
    """Parse one expression and run every pass over it.

    >>> compile_expression("pack_ints(1, 2) > 0").sql("spark")
    'CAST(4294967298 AS BIGINT) > 0'
    """
    tree = parse_expression(text, item_id=item_id, kind=kind)
    ctx = PassContext(item_id, kind, text, lambdas or LambdaLibrary(), layout)
    return run_passes(tree, ctx)


def compile_suite(suite: RuleSuite, *, layout: ResultLayout = Layout.MAP) -> CompiledSuite:
    """Compile every rule of ``suite`` (lambda errors surface here, naming the lambda)."""
    if suite.meta_rule_sets:
        from quality_py.errors import ModelError

        raise ModelError(
            f"suite {suite.id!r} has meta rule sets, which need the data's schema: use a "
            "DataFrame runner or prepare_for_schema(suite, schema) first",
            item_id=suite.meta_rule_sets[0].id,
            item_kind="meta rule set",
            code="META_RULE_SET",
        )
    lambdas = LambdaLibrary(suite.lambdas)
    compiled = []
    for rule_set, rule in suite.iter_rules():
        tree = compile_expression(rule.expression, item_id=rule.id, lambdas=lambdas, layout=layout)
        compiled.append(CompiledRule(rule_set.id, rule.id, rule.expression, tree))
    return CompiledSuite(suite, tuple(compiled), lambdas)
