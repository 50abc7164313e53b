"""Rule text for the rules that see more than one row, built from names (for suites written in
Python; YAML and rule tables write the same text): every function returns the expression of a
:class:`~quality_py.Rule`, which compiles through the policy like any rule text.

* :func:`unique_rule`: every row of a duplicated key fails (nulls distinct or equal, stated);
* :func:`keep_one_rule`: the first row of each key by a stated order passes, the others fail;
* :func:`reference_rule`: the row's key must be (or, negated, must not be) in a reference view;
* :func:`group_limit_rule`: an aggregate over the rows sharing a key within a limit, failing
  every row of a group that breaks it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from sqlglot import exp

from quality_py.errors import ModelError
from quality_py.sql.build import to_sql
from quality_py.sql.dialect import DIALECT

#: The aggregates a group limit may compare, by their name in :func:`group_limit_rule`.
GROUP_AGGREGATES = ("count", "count_distinct", "sum", "avg", "min", "max")


def _name(column: str) -> str:
    if not isinstance(column, str) or not column:
        raise ModelError(f"a key column is named by a non-empty string, not {column!r}")
    return to_sql(exp.column(exp.to_identifier(column, quoted=True)))


def _names(columns: Sequence[str], what: str) -> list[str]:
    if isinstance(columns, str) or not columns:
        raise ModelError(f"{what} takes one or more column names")
    return [_name(c) for c in columns]


def _nulls(nulls: str) -> bool:
    if nulls not in ("distinct", "equal"):
        raise ModelError(f"nulls is 'distinct' or 'equal', not {nulls!r}")
    return nulls == "distinct"


def _any_null(keys: list[str]) -> str:
    return " OR ".join(f"{k} IS NULL" for k in keys)


def unique_rule(*columns: str, nulls: str = "distinct") -> str:
    """A rule failing every row whose key (``columns``) appears on another row too.

    ``nulls="distinct"`` (the default, as DQX, Soda and SQL's UNIQUE): a key with a null part
    is nobody's duplicate. ``nulls="equal"``: null parts compare equal.

    >>> unique_rule("carrier", "flight"), unique_rule("tailnum", nulls="equal")
    ('is_unique(`carrier`, `flight`)', 'is_unique_nulls_equal(`tailnum`)')
    """
    keys = _names(columns, "unique_rule")
    name = "is_unique" if _nulls(nulls) else "is_unique_nulls_equal"
    return f"{name}({', '.join(keys)})"


def keep_one_rule(*columns: str, order_by: str, nulls: str = "distinct") -> str:
    """A rule passing the first row of each key (``columns``) by ``order_by`` (SQL order terms,
    ``"updated_at DESC"``) and failing the others; rows equal in the stated order are ordered
    by their own values, so the same row is kept on every run. ``nulls="distinct"``: a row
    whose key has a null part is alone in its key and passes.

    >>> keep_one_rule("id", order_by="updated_at DESC")
    '(`id` IS NULL OR ROW_NUMBER() OVER (PARTITION BY `id` ORDER BY updated_at DESC) = 1)'
    >>> keep_one_rule("order_id", order_by="updated_at DESC", nulls="equal")
    'ROW_NUMBER() OVER (PARTITION BY `order_id` ORDER BY updated_at DESC) = 1'
    """
    keys = _names(columns, "keep_one_rule")
    distinct = _nulls(nulls)
    try:
        statements = DIALECT.parse(f"SELECT 1 ORDER BY {order_by}")
    except Exception:
        statements = []
    parsed = statements[0] if len(statements) == 1 else None
    order = parsed.args.get("order") if parsed is not None else None
    if order is None or not isinstance(parsed, exp.Select) or parsed.args.get("limit"):
        raise ModelError(f"order_by {order_by!r} is not a list of SQL order terms")
    terms = ", ".join(to_sql(t) for t in order.expressions)
    ranked = f"ROW_NUMBER() OVER (PARTITION BY {', '.join(keys)} ORDER BY {terms}) = 1"
    return f"({_any_null(keys)} OR {ranked})" if distinct else ranked


def _literal(value: str) -> str:
    return to_sql(exp.Literal.string(value))


def reference_rule(
    view: str,
    keys: Mapping[str, str] | Sequence[str],
    *,
    negate: bool = False,
    null_safe: bool = False,
) -> str:
    """A rule failing each row whose key is not in the reference ``view`` (``negate``: each row
    whose key *is* in it). ``keys`` maps the view's columns to the input's (a list: the same
    names on both sides). A key with a null part passes, as a SQL foreign key references
    nothing; ``null_safe`` matches a null part with a null in the view instead.

    >>> reference_rule("airlines", ["carrier"])
    "in_reference('airlines', 'carrier', `carrier`)"
    >>> reference_rule("planes", {"tailnum": "tail"}, negate=True, null_safe=True)
    "not_in_reference_null_safe('planes', 'tailnum', `tail`)"
    """
    if not isinstance(view, str) or not view:
        raise ModelError(f"reference_rule takes the view's name, not {view!r}")
    pairs = list(keys.items()) if isinstance(keys, Mapping) else [(k, k) for k in keys]
    if isinstance(keys, str) or not pairs:
        raise ModelError("reference_rule takes one or more key columns")
    name = ("not_in_reference" if negate else "in_reference") + ("_null_safe" if null_safe else "")
    args = [_literal(view), *(f"{_literal(ref)}, {_name(col)}" for ref, col in pairs)]
    return f"{name}({', '.join(args)})"


def _limit(value: float | int | None, what: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ModelError(f"{what} is a finite number, not {value!r}")
    return repr(value) if isinstance(value, float) else str(value)


def group_limit_rule(
    by: Sequence[str],
    aggregate: str = "count",
    column: str | None = None,
    *,
    at_most: float | None = None,
    at_least: float | None = None,
) -> str:
    """A rule failing every row of a group (the rows sharing ``by``) whose ``aggregate`` of
    ``column`` breaks a limit (``at_most``, ``at_least``, or both). A group whose aggregate has
    no value (every ``column`` null) breaks no limit; rows with null keys form one group, as in
    Spark's grouping.

    >>> group_limit_rule(["tailnum", "day"], at_most=10)
    'COALESCE(COUNT(*) OVER (PARTITION BY `tailnum`, `day`) <= 10, TRUE)'
    >>> group_limit_rule(["customer"], "count_distinct", "card", at_most=3)
    'COALESCE(COUNT(DISTINCT `card`) OVER (PARTITION BY `customer`) <= 3, TRUE)'
    """
    keys = _names(by, "group_limit_rule")
    if aggregate not in GROUP_AGGREGATES:
        raise ModelError(f"aggregate is one of {', '.join(GROUP_AGGREGATES)}, not {aggregate!r}")
    if column is None and aggregate != "count":
        raise ModelError(f"{aggregate} needs the column it aggregates")
    value = "*" if column is None else _name(column)
    call = f"COUNT(DISTINCT {value})" if aggregate == "count_distinct" else (
        f"{aggregate.upper()}({value})"
    )  # fmt: skip
    most, least = _limit(at_most, "at_most"), _limit(at_least, "at_least")
    if most is None and least is None:
        raise ModelError("group_limit_rule needs at_most, at_least or both")
    over = f"{call} OVER (PARTITION BY {', '.join(keys)})"
    tests = [t for t in (least and f"{over} >= {least}", most and f"{over} <= {most}") if t]
    return f"COALESCE({' AND '.join(tests)}, TRUE)"
