"""Foreign keys into the table itself (issue 55): a rule's ``in_reference`` over the view that
names the table the batch belongs to.

``in_reference('orders', 'order_id', parent_id)`` compiles to an ``EXISTS`` over the view
(:mod:`quality_py.sql.library.rows`): ``SELECT `order_id` AS __qp_r0 FROM `orders```. With a
table state naming its view ``orders``, the run answers that subquery from the table's keys (the
other partitions' key indexes and the batch), so the subquery must read nothing but key columns
of the view: :func:`own_references` finds each read of the view with its key set, or None for a
read that is not a membership test (a lookup of another column), which the run refuses;
:func:`read_keys_from` points each read at the view holding that key set's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from quality_py.sql.library.rows import probed
from quality_py.sql.snippets import quoted
from quality_py.sql.table_counts import KeySet

#: the alias prefix of a membership subquery's key columns (``sql/library/rows.py``)
_REF = "__qp_r"
#: the prefix of the temporary views a run reads the table's keys from
KEYS_VIEW = "qp_table_keys_"


def _is_own(table: exp.Table, view: str) -> bool:
    """A read of the table itself: its view, or the keys view a run pointed the read at."""
    name = table.name.lower()
    return name == view.lower() or name.startswith(KEYS_VIEW)


def input_types(
    type_of: Callable[[str], str | None], view: str, columns: Sequence[str]
) -> Callable[[str], str | None]:
    """A type oracle that answers the type of ``view``'s column (a key compared with the table's
    column) with the input's column of that name: the table's columns are the batch's, and the
    view need not exist when the rules compile.

    >>> types = input_types(lambda sql: "int" if sql == "`K`" else None, "orders", ["K"])
    >>> types("(SELECT first(`k`) FROM `orders`)"), types("(SELECT first(`x`) FROM `orders`)")
    ('int', None)
    """
    names = {c.lower(): c for c in columns}

    def typed(sql: str) -> str | None:
        found = probed(sql)
        if found is None or found[0].lower() != view.lower():
            return type_of(sql)
        column = names.get(found[1].lower())
        return None if column is None else type_of(quoted(column))

    return typed


def _key_set(table: exp.Table, names: dict[str, str]) -> KeySet | None:
    """The input columns a membership subquery over ``table`` reads, or None when the read is
    not one (or names a column the input lacks)."""
    select = table.find_ancestor(exp.Select)
    if select is None or table.find_ancestor(exp.Exists) is None:
        return None
    columns = []
    for i, item in enumerate(select.expressions):
        plain = isinstance(item, exp.Alias) and isinstance(item.this, exp.Column)
        if not plain or item.alias != f"{_REF}{i}" or item.this.table:
            return None
        column = names.get(item.this.name.lower())
        if column is None:
            return None
        columns.append(column)
    return tuple(columns) if columns else None


def own_references(
    tree: exp.Expr, view: str, names: dict[str, str]
) -> list[tuple[KeySet | None, str]]:
    """Each read of ``view`` in ``tree``: the input columns it tests membership in (``names``:
    the input's columns by their lower case), or None for any other read; with its SQL.

    >>> from quality_py.model.policy import RulePolicy
    >>> from quality_py.sql.compiler import compile_expression
    >>> policy = RulePolicy().with_views("orders")
    >>> tree = compile_expression("in_reference('orders', 'ID', parent)", policy=policy)
    >>> [keys for keys, _ in own_references(tree, "orders", {"id": "id", "parent": "parent"})]
    [('id',)]
    >>> [keys for keys, _ in own_references(tree, "orders", {"parent": "parent"})]
    [None]
    """
    out = []
    for table in tree.find_all(exp.Table):
        if _is_own(table, view):
            shown = table.find_ancestor(exp.Select) or table
            out.append((_key_set(table, names), shown.sql("spark")))
    return out


def read_keys_from(
    tree: exp.Expr, view: str, names: dict[str, str], at: dict[KeySet, str]
) -> exp.Expr:
    """A copy of ``tree`` whose membership reads of ``view`` read the view ``at[keys]`` of
    their key set instead.

    >>> from quality_py.model.policy import RulePolicy
    >>> from quality_py.sql.compiler import compile_expression
    >>> policy = RulePolicy().with_views("orders")
    >>> tree = compile_expression("in_reference('orders', 'id', parent)", policy=policy)
    >>> sql = read_keys_from(tree, "orders", {"id": "id"}, {("id",): "k0"}).sql("spark")
    >>> "FROM `k0`" in sql and "orders" not in sql
    True
    """
    out = tree.copy()
    for table in list(out.find_all(exp.Table)):
        if table.name.lower() != view.lower():
            continue
        keys = _key_set(table, names)
        if keys is not None and keys in at:
            table.set("this", exp.to_identifier(at[keys], quoted=True))
    return out


__all__ = ["KEYS_VIEW", "input_types", "own_references", "read_keys_from"]
