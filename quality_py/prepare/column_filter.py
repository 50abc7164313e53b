"""Evaluate a meta rule set's column filter without Spark, allowing only simple predicates.

The filter is SQL over ``name``, ``datatype`` and ``nullable`` (e.g. ``datatype = 'STRING' AND
nullable``). Rule text is untrusted, so instead of running it through an engine we interpret an
allowlist: comparisons, ``AND``/``OR``/``NOT``, ``IN``, ``LIKE``/``ILIKE``, ``IS [NOT] NULL``,
``lower``/``upper``, literals and parentheses. Anything else is an error naming the rule set.
String comparison is exact, as in Spark.
"""

from __future__ import annotations

import operator
import re
from typing import Any

from sqlglot import exp

from quality_py.errors import ModelError
from quality_py.model.ids import Id
from quality_py.prepare.schema_fields import ColumnInfo
from quality_py.sql.parse import parse_expression


def _like(value: str, pattern: str, flags: int = 0) -> bool:
    regex = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern)
    return re.fullmatch(regex, value, flags | re.DOTALL) is not None


#: The comparisons a column filter may use, with their Python operators.
_COMPARISONS: dict[type[exp.Expr], Any] = {
    exp.EQ: operator.eq,
    exp.NEQ: operator.ne,
    exp.GT: operator.gt,
    exp.GTE: operator.ge,
    exp.LT: operator.lt,
    exp.LTE: operator.le,
}


def _compare(node: exp.Expr, col: ColumnInfo, owner: Id) -> Any:
    """A comparison of two values of one type (numbers of either kind count as one), three-valued
    as SQL's: a null side gives null."""
    left, right = _eval(node.this, col, owner), _eval(node.expression, col, owner)
    if left is None or right is None:
        return None
    numeric = (int, float)
    same = type(left) is type(right) or (
        isinstance(left, numeric)
        and isinstance(right, numeric)
        and not isinstance(left, bool)
        and not isinstance(right, bool)
    )
    if not same:
        raise ModelError(
            f"column filter compares values of different types: {node.sql()}",
            item_id=owner,
            item_kind="meta rule set",
            code="META_RULE_SET",
        )
    return _COMPARISONS[type(node)](left, right)


def _eval(node: exp.Expr, col: ColumnInfo, owner: Id) -> Any:
    if isinstance(node, exp.Paren):
        return _eval(node.this, col, owner)
    if isinstance(node, exp.Column) and not node.table:
        name = node.name.lower()
        if name in ("name", "datatype", "nullable"):
            return getattr(col, name)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else float(node.this)
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Not):
        inner = _eval(node.this, col, owner)
        return None if inner is None else not inner
    if isinstance(node, (exp.And, exp.Or)):
        left, right = _eval(node.this, col, owner), _eval(node.expression, col, owner)
        if isinstance(node, exp.And):
            return (
                False
                if left is False or right is False
                else (None if left is None or right is None else True)
            )
        return (
            True
            if left is True or right is True
            else (None if left is None or right is None else False)
        )
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return _eval(node.this, col, owner) is None
    if isinstance(node, (exp.Lower, exp.Upper)):
        value = _eval(node.this, col, owner)
        if value is None:
            return None
        return str(value).lower() if isinstance(node, exp.Lower) else str(value).upper()
    if isinstance(node, (exp.Like, exp.ILike)):
        value, pattern = _eval(node.this, col, owner), _eval(node.expression, col, owner)
        if value is None or pattern is None:
            return None
        return _like(str(value), str(pattern), re.IGNORECASE if isinstance(node, exp.ILike) else 0)
    if isinstance(node, exp.In) and not node.args.get("query"):
        value = _eval(node.this, col, owner)
        options = [_eval(e, col, owner) for e in node.expressions]
        return None if value is None else value in options
    if type(node) in _COMPARISONS:
        return _compare(node, col, owner)
    raise ModelError(
        f"column filters may use name, datatype, nullable, literals, comparisons, AND/OR/NOT, "
        f"IN, LIKE, IS NULL, lower/upper; not {node.sql()!r}",
        item_id=owner,
        item_kind="meta rule set",
        code="META_RULE_SET",
    )


def select_columns(column_filter: str, columns: list[ColumnInfo], owner: Id) -> list[ColumnInfo]:
    """The columns the filter keeps (all of them for a blank filter), in schema order.

    >>> cols = [ColumnInfo("name", "STRING", False), ColumnInfo("age", "BIGINT", False),
    ...         ColumnInfo("fren", "STRING", True)]
    >>> [c.name for c in select_columns("datatype = 'STRING' and nullable", cols, Id(1, 1))]
    ['fren']
    """
    if not column_filter.strip():
        return list(columns)
    tree = parse_expression(column_filter, item_id=owner, kind="meta rule set")
    return [c for c in columns if _eval(tree, c, owner) is True]
