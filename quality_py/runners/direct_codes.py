"""Result codes straight from the input, where the rules' text fixes their type.

Staging (:mod:`quality_py.runners.staging`) asks Spark to analyse each rule's value in a
hidden column first: that analysis tells each rule's type, which decides how its value is coded
(a boolean, a probability, a word, ...); the codes are a second projection over the values, and
Spark analyses that one too. Where the text alone fixes the type (a comparison, ``AND``,
``IN``, ``LIKE``, ``IS NULL``...: Spark gives a boolean whatever the operands are, see
:func:`quality_py.sql.coding.static_family`), the first analysis tells nothing the compile does
not know, so the codes are selected from the input directly: one analysis instead of two
(5000 rules, a build in a fresh process: about 1.8 s less; benchmarks/README.md).

The plan Spark runs is the same: where each value is used by one code only, Spark's optimizer
merges the values' projection into the codes' (``CollapseProject``), which is this projection.
So the form is taken only where that holds by construction: every rule boolean by its syntax
(or already coded), no two rules of the same text (those share one value column in the staged
form), a deterministic policy, no subquery, window, lambda or Python function (planned apart
from the projection), no hidden columns joined for rules over rows, no implicit cast to contain
(that rewrite needs the analysed types), and no caller reading the value columns (a quality
run's top values do). Errors are the staged form's: a suite that does not analyse here is
staged as before, which names every failing rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quality_py.runners.frames import select_exprs
from quality_py.runners.one_projection import code_over, kept_apart
from quality_py.runners.rule_gates import analysis_errors, require_deterministic, value_sqls
from quality_py.sql.coding import static_family

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from quality_py.sql.compiler import CompiledSuite


def direct_families(compiled: CompiledSuite, slots: Sequence[int]) -> list[str] | None:
    """Each rule's family where its text fixes it and the codes can come straight from the
    input (see the module's text), else None. ``slots``: :func:`~staging.rule_slots`.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> def fams(*texts):
    ...     rules = [Rule(Id(i, 1), t) for i, t in enumerate(texts)]
    ...     compiled = compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(1, 1), rules)]))
    ...     return direct_families(compiled, range(len(texts)))
    >>> fams("a > 1", "b IS NULL AND c LIKE 'x%'"), fams("a > 1", "a + 1")
    (['boolean', 'boolean'], None)
    """
    rules = compiled.rules
    if not rules or compiled.policy.random_allowed or len(set(slots)) != len(rules):
        return None
    policy = compiled.policy
    if policy.allow_implicit_casts and policy.contain_errors:  # containment reads the types
        return None
    families = ["code" if r.coded else static_family(r.tree) for r in rules]
    if any(f not in ("boolean", "code") for f in families):
        return None
    if kept_apart(rules):
        return None
    return [f for f in families if f is not None]


def code_sqls(compiled: CompiledSuite, families: Sequence[str]) -> list[str]:
    """``<code over the rule's SQL> AS __qp_c<i>`` for every rule: the staged code of its
    value column, with the value written in place (each template names its value once).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1")])])
    >>> code_sqls(compile_suite(suite), ["boolean"])
    ['CASE WHEN TRY_CAST((a > 1) AS BOOLEAN) THEN 100000 ELSE 0 END AS __qp_c0']
    """
    out = []
    for i, (rule, family) in enumerate(zip(compiled.rules, families, strict=True)):
        out.append(f"{code_over(rule.sql, family)} AS __qp_c{i}")
    return out


def direct_codes(
    base: DataFrame, compiled: CompiledSuite, families: Sequence[str], extra: Sequence[str]
) -> DataFrame | None:
    """``base`` (the input aliased ``main``) with every rule's code in a hidden column
    ``__qp_c<i>``, analysed once; None when it does not analyse (with ``extra``, SQL that
    decides the input's naming with the rules): then staging's own path names the failing
    rules. The policy's determinism gate runs here as in staging.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1")])])
    >>> df = spark.createDataFrame([(2,), (1,)], "a int").alias("main")
    >>> [r["__qp_c0"] for r in direct_codes(df, compile_suite(suite), ["boolean"], []).collect()]
    [100000, 0]
    >>> direct_codes(df, compile_suite(suite), ["boolean"], ["nope"]) is None
    True
    """
    try:
        codes = select_exprs(base, ["*", *code_sqls(compiled, families)])
        codes.schema  # noqa: B018 - analysis only
        if extra:
            base.selectExpr(*extra).schema  # noqa: B018 - analysis only
    except analysis_errors():
        return None
    require_deterministic(base, codes, compiled, value_sqls(compiled))
    return codes
