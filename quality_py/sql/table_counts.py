"""Counts of rows per key read for a whole table (``quality_py.actions.table_rows``): which
windows of a compiled rule a growing table's key index answers, and the rule reading the
table's counts beside the batch's.

Only ``COUNT(*) OVER (PARTITION BY c1, ..., cn)`` over plain input columns, with no order and
no frame, is a count of rows per key; every other window is reported as unanswerable.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.allowed.windows import partition_keys, window_function

KeySet = tuple[str, ...]


def _key_columns(window: exp.Window) -> list[exp.Expr]:
    return [k.this if isinstance(k, exp.Paren) else k for k in partition_keys(window)]


def _counted(window: exp.Window, names: dict[str, str]) -> KeySet | None:
    function = window_function(window)
    counts_rows = isinstance(function, exp.Count) and isinstance(
        function.this, (exp.Star, exp.Literal)
    )
    columns = _key_columns(window)
    plain = bool(columns) and all(
        isinstance(c, exp.Column) and not c.table and c.name.lower() in names for c in columns
    )
    bare = window.args.get("order") is None and window.args.get("spec") is None
    if not (counts_rows and plain and bare):
        return None
    return tuple(names[c.name.lower()] for c in columns)


def counted_keys(tree: exp.Expr, names: dict[str, str]) -> list[tuple[KeySet | None, str]]:
    """Each window of ``tree``: the input columns it counts rows by (``names``: the input's
    column names by their lower case), or None when it is not a count of rows per key; with its
    SQL.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("count(*) OVER (PARTITION BY K) = 1 AND "
    ...     "row_number() OVER (PARTITION BY k ORDER BY t) = 1")
    >>> [keys for keys, _ in counted_keys(tree, {"k": "k", "t": "t"})]
    [('k',), None]
    """
    return [(_counted(w, names), w.sql("spark")) for w in tree.find_all(exp.Window)]


def add_table_counts(tree: exp.Expr, names: dict[str, str], at: dict[KeySet, str]) -> exp.Expr:
    """A copy of ``tree`` whose counts of rows per key set in ``at`` add the table's count
    (the column ``at[keys]``, null: none).

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("COUNT(*) OVER (PARTITION BY k) = 1")
    >>> add_table_counts(tree, {"k": "k"}, {("k",): "t0"}).sql("spark")
    '(COUNT(*) OVER (PARTITION BY k) + COALESCE(`t0`, 0)) = 1'
    """
    out = tree.copy()
    for window in list(out.find_all(exp.Window)):
        keys = _counted(window, names)
        if keys is None or keys not in at:
            continue
        table = exp.Coalesce(
            this=exp.column(exp.to_identifier(at[keys], quoted=True)),
            expressions=[exp.Literal.number(0)],
        )
        window.replace(exp.Paren(this=exp.Add(this=window.copy(), expression=table)))
    return out
