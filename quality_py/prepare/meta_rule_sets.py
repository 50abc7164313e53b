"""Meta rule sets: one generated rule per column the filter selects (contract section 8.1).

The expression is a one-argument lambda; each rule is its body with the parameter replaced by the
column (on the AST, so ``argument`` or a string ``'arg'`` is never touched, unlike a text
substitution). Rule ids are ``Id(rule_set.id + position(column), rule_set.version)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import mmh3
from sqlglot import exp

from quality_py.errors import ModelError, QualityError
from quality_py.model.ids import INT_MAX, Id
from quality_py.model.rules import LambdaFunction, MetaRuleSet, Rule, RuleSet, RuleSuite
from quality_py.model.types import SchemaLike
from quality_py.prepare.column_filter import select_columns
from quality_py.prepare.schema_fields import columns_of
from quality_py.sql.build import to_sql
from quality_py.sql.parse import parse_lambda
from quality_py.sql.passes.inline_lambdas import substitute_params

Position = Mapping[str, int] | Callable[[str], int]


def name_position(column: str) -> int:
    """The default position: a hash of the lower-cased name in ``[1, 1_000_000)``.

    It depends on the name only, so adding, dropping or reordering other columns never changes a
    rule's id. Collisions are detected; pass your own positions if one happens.

    >>> name_position("fren") == name_position("FREN")
    True
    """
    return mmh3.hash(column.lower(), 42, signed=False) % 999_999 + 1


def _position(position: Position, column: str, meta: MetaRuleSet) -> int:
    if callable(position):
        return int(position(column))
    lowered = {k.lower(): v for k, v in position.items()}
    if column.lower() not in lowered:
        raise ModelError(
            f"meta rule set selects column {column!r}, which has no stable position",
            item_id=meta.id,
            item_kind="meta rule set",
            code="META_RULE_SET",
        )
    return int(lowered[column.lower()])


def expand_meta_rule_set(
    meta: MetaRuleSet, schema: SchemaLike, position: Position = name_position
) -> RuleSet:
    """The rule set ``meta`` generates for ``schema``.

    >>> from pyspark.sql.types import LongType, StringType, StructField, StructType
    >>> schema = StructType([StructField("name", StringType(), False),
    ...     StructField("age", LongType(), False), StructField("fren", StringType(), True)])
    >>> meta = MetaRuleSet(Id(3, 4), "nullable = true", "col -> isNull(col)")
    >>> [(r.id, r.expression) for r in expand_meta_rule_set(meta, schema, {"fren": 5}).rules]
    [(Id(8, 4), 'ISNULL(fren)')]
    """
    parsed = parse_lambda(LambdaFunction("meta", meta.expression, meta.id))
    if parsed.arity != 1:
        raise QualityError(
            "a meta rule set's expression must be a one-argument lambda (col -> ...)",
            item_id=meta.id,
            item_kind="meta rule set",
            source=meta.expression,
            code="META_RULE_SET",
        )
    rules = []
    for col in select_columns(meta.column_filter, columns_of(schema), meta.id):
        rule_id = meta.id.id + _position(position, col.name, meta)
        if not rule_id <= INT_MAX:
            raise ModelError(
                f"meta rule set id {meta.id.id} + position of {col.name!r} exceeds 32 bits",
                item_id=meta.id,
                item_kind="meta rule set",
                code="META_RULE_SET",
            )
        column = exp.column(col.name.lower(), quoted=not col.name.isidentifier())
        body = substitute_params(parsed.body.copy(), parsed.params, [column])
        rules.append(Rule(Id(rule_id, meta.id.version), to_sql(body)))
    try:
        return RuleSet(meta.id, rules, meta.description)
    except QualityError as err:
        raise ModelError(
            f"meta rule set {meta.id!r}: two columns got the same position ({err.message}); "
            "pass stable positions",
            item_id=meta.id,
            item_kind="meta rule set",
            code="META_RULE_SET",
        ) from None


def expand_meta_rule_sets(
    suite: RuleSuite, schema: SchemaLike, position: Position = name_position
) -> RuleSuite:
    """``suite`` with each meta rule set replaced by the rules it generates for ``schema``."""
    if not suite.meta_rule_sets:
        return suite
    generated = [expand_meta_rule_set(m, schema, position) for m in suite.meta_rule_sets]
    # replace() keeps every other field of the suite, its policy included
    return replace(suite, rule_sets=[*suite.rule_sets, *generated], meta_rule_sets=())
