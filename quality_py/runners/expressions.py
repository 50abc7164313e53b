"""The expression runners: each rule is an expression whose value is kept, per rule id.

Rules may be aggregates (``sum(amount)``, ``count_if(x > 0)``...): a suite of aggregates gives one
row over the whole input (``df.select(column)``), a suite of plain expressions one result per row;
a suite mixing both is refused, naming the rules of each kind. The result column is the
original's ``struct<id: bigint, ruleSetResults: map<bigint, map<bigint, T>>>`` keyed by packed
rule-set and rule ids, where ``T`` is

* for :func:`expression_runner`: ``struct<result: string, resultDDL: string>``, the value as text
  and its Spark type (``BIGINT``, ``DECIMAL(38,18)``...). The original writes YAML; here the text
  is JSON, which every YAML reader reads and ``from_yaml(result, resultDDL)`` turns back into the
  value (``to_yaml``/``from_yaml`` are JSON underneath: documented in docs/functions.md);
* for :func:`typed_expression_runner`: the value itself, every rule having to yield the given
  type (a rule of another type is refused with its id; nulls stay null).

``strip_result_ddl(results)`` keeps only the text; ``rule_result(results, suite, set, rule)``
reads one rule's value from any of these shapes.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from quality_py.errors import RuleAnalysisError
from quality_py.model.rules import RuleSuite
from quality_py.sql.build import bigint, call, lit, named_struct, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.expressions import to_yaml_sql
from quality_py.sql.spark_types import parse_type, sql_type

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from quality_py.sql.compiler import CompiledSuite


def _sql_type(simple: str) -> str:
    """Spark's ``simpleString`` of a type as its SQL form (``decimal(38,18)`` ->
    ``DECIMAL(38,18)``, ``struct<a:int>`` -> ``STRUCT<a: INT>``, ``void`` -> ``VOID``)."""
    return sql_type(simple)


_GROUPS_INPUT = re.compile(r"map_?with\s*\(", re.IGNORECASE)


def _input_view(df: DataFrame, suite: RuleSuite) -> str | None:
    """A temporary view of ``df`` when a rule groups the input (``map_with``), else None.

    The view lives as long as the session (as loaded reference data does); its name is unique
    per call, so concurrent runners never read each other's input.
    """
    texts = [rule.expression for _, rule in suite.iter_rules()]
    texts += [lam.expression for lam in suite.lambdas]
    if not any(_GROUPS_INPUT.search(text) for text in texts):
        return None
    name = f"__qp_input_{uuid.uuid4().hex}"
    df.createOrReplaceTempView(name)
    return name


def _aggregates(tree: exp.Expr) -> bool:
    """Whether the rule aggregates the input: an aggregate function outside any subquery (a
    subquery's own aggregates are over what it reads)."""
    queries = (exp.Subquery, exp.Select, exp.Exists)
    from quality_py.sql.allowed.enforce import is_aggregate

    return any(
        is_aggregate(node)
        for node in tree.walk(prune=lambda n: n is not tree and isinstance(n, queries))
    )


def _compiled(df: DataFrame, suite: RuleSuite) -> tuple[CompiledSuite, list[str]]:
    """The suite compiled for ``df`` (aggregates allowed) and each rule's Spark type."""
    from quality_py.prepare import prepare_for_schema
    from quality_py.runners.rule_gates import analysis_errors, rule_errors, value_sqls
    from quality_py.runners.staging import input_frame, type_oracle, type_string
    from quality_py.sql.compiler import compile_suite

    prepared = prepare_for_schema(suite, df.schema)
    prepared = prepared.with_policy(replace(prepared.policy, allow_aggregates=True))
    compiled = compile_suite(prepared, type_of=type_oracle(df), input_view=_input_view(df, suite))
    sqls = [r.sql for r in compiled.rules]
    from quality_py.runners.arrow_functions import register_arrow_functions

    register_arrow_functions(df.sparkSession, sqls)
    base = input_frame(df, sqls)
    aggregates = [r for r in compiled.rules if _aggregates(r.tree)]
    if aggregates and len(aggregates) != len(compiled.rules):
        plain = [r for r in compiled.rules if not _aggregates(r.tree)]
        raise RuleAnalysisError(
            "a suite's expressions are all aggregates (one result for the input) or none (one "
            f"per row): aggregates {[r.rule_id for r in aggregates]}, per row "
            f"{[r.rule_id for r in plain]}",
            item_id=plain[0].rule_id,
        )
    # one analysis types every rule; only when it fails is each rule analysed to name the culprits
    try:
        fields = base.selectExpr(*value_sqls(compiled)).schema.fields
        return compiled, [type_string(f.dataType) for f in fields]
    except analysis_errors():
        pass
    problems = []
    for rule, sql in zip(compiled.rules, sqls, strict=True):
        try:
            base.selectExpr(sql).schema  # noqa: B018 - analysis only
        except analysis_errors() as err:
            problems.append((rule, str(err).strip().split("\n", 1)[0][:500]))
    raise rule_errors(problems or [(compiled.rules[0], "the suite does not analyse")])


def _results(compiled: CompiledSuite, values: list[exp.Expr]) -> exp.Expr:
    """``named_struct('id', suite, 'ruleSetResults', map(set, map(rule, value, ...), ...))``."""
    suite = compiled.suite
    by_set: dict[int, list[tuple[int, exp.Expr]]] = {}
    for rule, value in zip(compiled.rules, values, strict=True):
        by_set.setdefault(rule.rule_set_id.packed, []).append((rule.rule_id.packed, value))
    sets = []
    for set_id, rules in by_set.items():
        inner = []
        for rule_id, value in rules:
            inner += [bigint(rule_id), value]
        sets += [bigint(set_id), call("map", *inner)]
    return named_struct(("id", bigint(suite.id.packed)), ("ruleSetResults", call("map", *sets)))


def expression_runner(df: DataFrame, suite: RuleSuite, name: str = "expressionResults") -> Column:
    """Every rule's value as text with its type, per rule id (see the module docs).

    >>> from quality_py.model import Id, Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
    ...     Rule(Id(10, 1), "sum(a)"), Rule(Id(11, 1), "avg(a)")])])
    >>> df = spark.createDataFrame([(1,), (2,)], "a int")
    >>> row = df.select(expression_runner(df, suite)).first().expressionResults
    >>> sorted((v.result, v.resultDDL) for m in row.ruleSetResults.values() for v in m.values())
    [('1.5', 'DOUBLE'), ('3', 'BIGINT')]
    """
    from pyspark.sql import functions as F

    compiled, types = _compiled(df, suite)
    values = [
        named_struct(
            ("result", to_yaml_sql(r.tree.copy(), parse_type(t), PassContext())),
            ("resultDDL", lit(_sql_type(t))),
        )
        for r, t in zip(compiled.rules, types, strict=True)
    ]
    return F.expr(to_sql(_results(compiled, values))).alias(name)


def typed_expression_runner(
    df: DataFrame, suite: RuleSuite, ddl: str, name: str = "expressionResults"
) -> Column:
    """Every rule's value, all of type ``ddl``, per rule id (see the module docs).

    >>> from quality_py.model import Id, Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(10, 1), "count_if(a > 1)")])])
    >>> df = spark.createDataFrame([(1,), (2,), (3,)], "a int")
    >>> row = df.select(typed_expression_runner(df, suite, "bigint")).first()
    >>> [list(m.values()) for m in row.expressionResults.ruleSetResults.values()]
    [[2]]
    """
    from pyspark.sql import functions as F

    compiled, types = _compiled(df, suite)
    wanted = _sql_type(ddl)
    wrong = [
        (r, f"yields {_sql_type(t)}, not {wanted}")
        for r, t in zip(compiled.rules, types, strict=True)
        if _sql_type(t) != wanted
    ]
    if wrong:
        from quality_py.runners.rule_gates import rule_errors

        raise rule_errors(wrong)
    values = [r.tree.copy() for r in compiled.rules]
    return F.expr(to_sql(_results(compiled, values))).alias(name)
