"""The columns that tell why a rule fails a row, most telling first: what a run's top failing
values count (:mod:`quality_py.actions.top_values`).

Read from the rule as written (before the passes), each entry a tuple of input columns counted
as one value:

1. the **keys** of rules over rows: a window's ``PARTITION BY`` (a uniqueness, keep-one or
   group rule fails every row of a key, so the key is the value that explains it), and the key
   arguments of ``is_unique``, ``is_unique_nulls_equal`` and the reference lookups
   (``in_reference('planes', 'tailnum', tailnum)`` tests ``tailnum``);
2. the outer row's columns a subquery reads (``main.carrier`` in ``exists(SELECT ... WHERE
   a.carrier = main.carrier)``);
3. columns compared with a constant or tested for null (``dep_delay < 120``, ``x IS NULL``,
   ``x IN (1, 2)``, ``x LIKE 'a%'``), in order of appearance;
4. every other column the rule reads, in order of appearance.

A column already named by an earlier entry is not named again. A rule's filter is not read: it
says where the rule applies, not why it fails.

>>> from quality_py.sql.parse import parse_expression
>>> cols = ["year", "month", "day", "tailnum", "dep_delay"]
>>> telling_columns(parse_expression(
...     "tailnum IS NULL OR count(*) OVER (PARTITION BY tailnum, year, month, day) <= 4"), cols)
(('tailnum', 'year', 'month', 'day'),)
>>> telling_columns(parse_expression("year = 2013 AND dep_delay < month"), cols)
(('year',), ('dep_delay',), ('month',))
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

#: library functions over rows whose arguments from the third (lookups) or first are the key
_KEY_FROM = {
    "is_unique": 0,
    "is_unique_nulls_equal": 0,
    "in_reference": 2,
    "in_reference_null_safe": 2,
    "not_in_reference": 2,
    "not_in_reference_null_safe": 2,
}
_COMPARED = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ,
             exp.NullSafeNEQ, exp.Like, exp.ILike, exp.RegexpLike)  # fmt: skip


def _name(node: exp.Expr, columns: dict[str, str]) -> str | None:
    """The input column a node is (a plain column reference), else None."""
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        return columns.get(node.name.lower())
    return None


def _key(nodes: Sequence[exp.Expr], columns: dict[str, str]) -> tuple[str, ...]:
    """The input columns among ``nodes``, in order (a key of expressions keeps its columns)."""
    out: list[str] = []
    for node in nodes:
        found = [node] if isinstance(node, exp.Column) else node.find_all(exp.Column, bfs=False)
        for col in found:
            name = _name(col, columns)
            if name is not None and name not in out:
                out.append(name)
    return tuple(out)


def _keys(tree: exp.Expr, columns: dict[str, str]) -> list[tuple[str, ...]]:
    found = []
    for node in tree.walk(bfs=False):
        if isinstance(node, exp.Window):
            found.append(_key(node.args.get("partition_by") or [], columns))
        elif isinstance(node, exp.Anonymous) and node.name.lower() in _KEY_FROM:
            found.append(_key(node.expressions[_KEY_FROM[node.name.lower()] :], columns))
    return [k for k in found if k]


def _outer(tree: exp.Expr, columns: dict[str, str]) -> list[tuple[str, ...]]:
    """The outer row's columns read inside subqueries (qualified by ``main``)."""
    out: list[tuple[str, ...]] = []
    for select in tree.find_all(exp.Select, bfs=False):
        for col in select.find_all(exp.Column, bfs=False):
            if col.table.lower() == "main" and (name := columns.get(col.name.lower())):
                out.append((name,))
    return out


def _compared(tree: exp.Expr, columns: dict[str, str]) -> list[tuple[str, ...]]:
    """Columns compared with a constant or tested for null, in order of appearance."""
    out: list[tuple[str, ...]] = []
    for node in tree.walk(bfs=False):
        sides: list[exp.Expr] = []
        if isinstance(node, _COMPARED):
            left, right = node.this, node.expression
            if isinstance(right, exp.Literal | exp.Null | exp.Neg | exp.Boolean):
                sides = [left]
            elif isinstance(left, exp.Literal | exp.Null | exp.Neg | exp.Boolean):
                sides = [right]
        elif isinstance(node, exp.Is | exp.In | exp.Between):
            sides = [node.this]
        for side in sides:
            name = _name(side, columns)
            if name is not None and side.find_ancestor(exp.Select) is None:
                out.append((name,))
    return out


def telling_columns(tree: exp.Expr, columns: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The rule's telling columns (see the module), each entry counted as one value."""
    by_lower = {c.lower(): c for c in columns}
    entries = [*_keys(tree, by_lower), *_outer(tree, by_lower), *_compared(tree, by_lower)]
    rest = [
        (name,)
        for col in tree.find_all(exp.Column, bfs=False)
        if col.find_ancestor(exp.Select) is None and (name := _name(col, by_lower)) is not None
    ]
    out: list[tuple[str, ...]] = []
    named: set[str] = set()
    for entry in [*entries, *rest]:
        if entry in out or (len(entry) == 1 and entry[0] in named):
            continue
        out.append(entry)
        named.update(entry)
    return tuple(out)


def sole_column(tree: exp.Expr, columns: Sequence[str]) -> str | None:
    """The one input column a rule reads outside its subqueries, or None (none, or several).

    >>> import sqlglot
    >>> sole_column(sqlglot.parse_one("Amount > 0 AND amount < 9"), ["amount", "id"])
    'amount'
    >>> sole_column(sqlglot.parse_one("amount > id"), ["amount", "id"]) is None
    True
    """
    by_lower = {c.lower(): c for c in columns}
    found = {
        name
        for col in tree.find_all(exp.Column, bfs=False)
        if col.find_ancestor(exp.Select) is None and (name := _name(col, by_lower)) is not None
    }
    return found.pop() if len(found) == 1 else None


__all__ = ["sole_column", "telling_columns"]
