"""Compile a suite's rule texts through the passes into Spark-ready ASTs.

This is the part of the pipeline that does not need Spark: parsing, lambda inlining and
library-function expansion for every rule, with errors that name the rule. Runners build their
output struct from the compiled rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from quality_py.errors import PolicyError
from quality_py.model.ids import Id
from quality_py.model.layout import ResultLayout
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.policy.enforce import enforce
from quality_py.policy.limits import check_limits
from quality_py.policy.policy import DEFAULT_POLICY, RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.context import LambdaLibrary, PassContext
from quality_py.sql.parse import parse_expression
from quality_py.sql.passes import run_passes

#: Spark's type (DDL) of a SQL expression over the input, None when it does not analyse.
TypeOracle = Callable[[str], "str | None"]


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
    policy: RulePolicy = DEFAULT_POLICY


def policy_of(suite: RuleSuite) -> RulePolicy:
    """The suite's policy, or the safe default."""
    return suite.policy or DEFAULT_POLICY


def check_text(text: str, policy: RulePolicy, item_id: Id | None, kind: str) -> None:
    """The policy's size and nesting limits, on raw text, before any parser runs."""
    problem = check_limits(text, policy.limits)
    if problem is not None:
        raise PolicyError(problem, item_id=item_id, item_kind=kind, source=text[:200])


def checked_tree(text: str, ctx: PassContext, *, item_id: Id | None, kind: str) -> exp.Expr:
    """Limits, parse, then the policy's allowlist: the tree of untrusted text, or an error."""
    check_text(text, ctx.policy, item_id, kind)
    tree = parse_expression(text, item_id=item_id, kind=kind)
    enforce(tree, ctx.policy, ctx)
    return tree


def compile_expression(
    text: str,
    *,
    item_id: Id | None = None,
    kind: str = "rule",
    lambdas: LambdaLibrary | None = None,
    layout: ResultLayout = Layout.MAP,
    policy: RulePolicy = DEFAULT_POLICY,
    type_of: TypeOracle | None = None,
) -> exp.Expr:
    """Check one expression against ``policy``, parse it and run every pass over it.

    ``type_of`` (from a runner holding a DataFrame) gives Spark's type of a SQL expression over
    the input, so ``update_field`` works on any struct expression.

    >>> compile_expression("pack_ints(1, 2) > 0").sql("spark")
    'CAST(4294967298 AS BIGINT) > 0'
    """
    ctx = PassContext(
        item_id, kind, text, lambdas or LambdaLibrary(), layout, policy=policy, type_of=type_of
    )
    tree = checked_tree(text, ctx, item_id=item_id, kind=kind)
    return run_passes(tree, ctx)


def check_lambdas(lambdas: LambdaLibrary, policy: RulePolicy) -> None:
    """Every lambda body under the policy's allowlist (the caller checked the limits on the
    texts before the library parsed them)."""
    for lam in lambdas.all():
        ctx = PassContext(lam.id, "lambda", lam.source, lambdas, policy=policy)
        enforce(lam.body, policy, ctx)


def compile_suite(
    suite: RuleSuite,
    *,
    layout: ResultLayout = Layout.MAP,
    policy: RulePolicy | None = None,
    type_of: TypeOracle | None = None,
) -> CompiledSuite:
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
    policy = policy or policy_of(suite)
    for fn in suite.lambdas:  # limits before the lambda texts are parsed
        check_text(fn.expression, policy, fn.id, "lambda")
    lambdas = LambdaLibrary(suite.lambdas)
    check_lambdas(lambdas, policy)
    compiled = []
    for rule_set, rule in suite.iter_rules():
        tree = compile_expression(
            rule.expression,
            item_id=rule.id,
            lambdas=lambdas,
            layout=layout,
            policy=policy,
            type_of=type_of,
        )
        compiled.append(CompiledRule(rule_set.id, rule.id, rule.expression, tree))
    return CompiledSuite(suite, tuple(compiled), lambdas, policy)
