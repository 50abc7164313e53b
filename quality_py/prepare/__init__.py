"""Fit a suite to a schema before compiling: meta rule sets and missing-attribute fallbacks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from quality_py.model.rules import LambdaFunction, OutputExpression, Rule, RuleSuite
from quality_py.model.types import SchemaLike
from quality_py.prepare.meta_rule_sets import (
    Position,
    expand_meta_rule_set,
    expand_meta_rule_sets,
    name_position,
)
from quality_py.prepare.missing_attributes import rewrite_missing_attributes
from quality_py.prepare.schema_fields import field_paths
from quality_py.sql.build import to_sql
from quality_py.sql.parse import parse_expression, parse_lambda

__all__ = [
    "Position",
    "expand_meta_rule_set",
    "expand_meta_rule_sets",
    "name_position",
    "prepare_for_schema",
    "process_if_attributes_missing",
]


def _mentions(text: str) -> bool:
    return "attributesmissing" in text.lower().replace("_", "")


def process_if_attributes_missing(suite: RuleSuite, schema: SchemaLike) -> RuleSuite:
    """Rewrite every ``coalesce_if_attributes_missing[_disable]`` call for ``schema``.

    Rules, output expressions and lambda bodies are rewritten; items without such a call keep
    their text.

    >>> from pyspark.sql.types import IntegerType, StructField, StructType
    >>> from quality_py import Id, Rule, RuleSet
    >>> schema = StructType([StructField("fielda", IntegerType())])
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
    ...     Rule(Id(3, 1), "coalesceIfAttributesMissing(fieldb > 1, 42)")])])
    >>> process_if_attributes_missing(suite, schema).rule_sets[0].rules[0].expression
    '42'
    """
    texts = [fn.expression for fn in suite.lambdas] + [
        t
        for _, r in suite.iter_rules()
        for t in (r.expression, r.output and r.output.expression)
        if t
    ]
    if not any(_mentions(t) for t in texts):
        return suite  # nothing to rewrite: the same suite (a compiled form of it stays valid)
    known = field_paths(schema)

    def text_of(text: str, item: Any, kind: str) -> str:
        if not _mentions(text):
            return text
        return to_sql(
            rewrite_missing_attributes(parse_expression(text, item_id=item, kind=kind), known)
        )

    outputs: dict[Any, OutputExpression] = {}

    def output(out: OutputExpression | None) -> OutputExpression | None:
        if out is None or not _mentions(out.expression):
            return out
        if out.id not in outputs:
            outputs[out.id] = replace(out, expression=text_of(out.expression, out.id, "output"))
        return outputs[out.id]

    def rule(r: Rule) -> Rule:
        return replace(r, expression=text_of(r.expression, r.id, "rule"), output=output(r.output))

    def lam(fn: LambdaFunction) -> LambdaFunction:
        if not _mentions(fn.expression):
            return fn
        parsed = parse_lambda(fn)
        body = to_sql(rewrite_missing_attributes(parsed.body, known))
        if not parsed.params:
            return replace(fn, expression=body)
        head = parsed.params[0] if len(parsed.params) == 1 else f"({', '.join(parsed.params)})"
        return replace(fn, expression=f"{head} -> {body}")

    return replace(
        suite,
        rule_sets=[replace(rs, rules=[rule(r) for r in rs.rules]) for rs in suite.rule_sets],
        lambdas=[lam(fn) for fn in suite.lambdas],
    )


def prepare_for_schema(
    suite: RuleSuite, schema: SchemaLike, position: Position = name_position
) -> RuleSuite:
    """Expand meta rule sets, then rewrite missing-attribute fallbacks, for ``schema``.

    The DataFrame runners call this themselves; call it before :func:`quality_py.rule_runner`
    and the other single-Column runners, which cannot see the schema.

    >>> from pyspark.sql.types import IntegerType, StructField, StructType
    >>> from quality_py.model import Id, MetaRuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [], meta_rule_sets=[
    ...     MetaRuleSet(Id(10, 1), "true", "c -> c IS NOT NULL")])
    >>> schema = StructType([StructField("a", IntegerType())])
    >>> [r.expression for _, r in prepare_for_schema(suite, schema).iter_rules()]
    ['NOT a IS NULL']
    """
    return process_if_attributes_missing(expand_meta_rule_sets(suite, schema, position), schema)
