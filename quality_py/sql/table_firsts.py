"""Keep-one over a growing table (issue 55): which ``row_number() ... = 1`` windows of a compiled
rule a table's **first-row index** answers, and the rule reading it beside the batch.

``row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1`` keeps the first row of each key. For
the table, a batch row is first when it is first in the batch and no row of another partition
comes before it, and the row of another partition that comes first is that partition's own first
row of the key. So each partition keeps, per key, its first row's **order values**: the window's
ORDER BY terms, which in a compiled run end with the row's own values (``sql/windows.py``: the
total order that breaks ties), and a run compares the batch row's terms with the first of the
other partitions' kept values. A batch row equal in every term to a kept row (the same row again)
is that row's duplicate and fails: the row kept first stays the key's.

Only ``row_number() OVER (PARTITION BY c1, ..., cn ORDER BY ...)`` over plain input columns,
compared ``= 1``, with no frame and order terms that read the row alone, is answered; any other
use of ``row_number`` (``<= 2``, a value read) is reported as unanswerable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlglot import exp

from quality_py.sql.allowed.windows import partition_keys, window_function
from quality_py.sql.build import to_sql
from quality_py.sql.table_counts import KeySet

#: The name of the kept column holding order term ``j`` of a first-row index
ORDER_COLUMN = "__qp_order_{}"


@dataclass(frozen=True, order=True)
class FirstRows:
    """A first-row index: ``keys`` (input column names) and the window's order terms, each its
    SQL, whether descending and whether nulls come first.

    >>> FirstRows(("k",), (("t", True, False),)).marker
    'first row by ORDER BY t DESC NULLS LAST'
    """

    keys: KeySet
    order: tuple[tuple[str, bool, bool], ...]

    @property
    def marker(self) -> str:
        """The index's name where it is kept (it changes with any term: a new column of the
        input is a new tie-breaking term, so an index kept before it is not this one)."""
        terms = [
            f"{sql} {'DESC' if desc else 'ASC'} NULLS {'FIRST' if first else 'LAST'}"
            for sql, desc, first in self.order
        ]
        return "first row by ORDER BY " + ", ".join(terms)

    @property
    def columns(self) -> tuple[str, ...]:
        """The kept columns of the order terms' values."""
        return tuple(ORDER_COLUMN.format(j) for j in range(len(self.order)))


def _test_of(window: exp.Window) -> exp.Expr | None:
    """The ``= 1`` comparison ``window`` is a side of (parentheses aside), or None."""
    side: exp.Expr = window
    while isinstance(side.parent, exp.Paren):
        side = side.parent
    test = side.parent
    if not isinstance(test, exp.EQ):
        return None
    other = test.expression if test.this is side else test.this
    one = isinstance(other, exp.Literal) and not other.is_string and other.this == "1"
    return test if one else None


def _terms(window: exp.Window) -> list[exp.Ordered]:
    """The window's order terms that can tell two rows of one key apart: a key column is the
    same in both, and a term repeated is equal in both once its first occurrence is."""
    order = window.args.get("order")
    seen = {_term_name(k) for k in partition_keys(window)}
    out = []
    for term in order.expressions if order is not None else []:
        name = _term_name(term.this)
        if name not in seen:
            seen.add(name)
            out.append(term)
    return out


def _term_name(node: exp.Expr) -> str:
    node = node.this if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.Column) and not node.table:
        return "column " + node.name.lower()
    return to_sql(node)


def _first(window: exp.Window, names: Mapping[str, str]) -> FirstRows | None:
    columns = [k.this if isinstance(k, exp.Paren) else k for k in partition_keys(window)]
    plain = bool(columns) and all(
        isinstance(c, exp.Column) and not c.table and c.name.lower() in names for c in columns
    )
    order = window.args.get("order")
    terms = _terms(window)
    row_only = order is not None and all(
        t.find(exp.Window, exp.Subquery, exp.Select, exp.AggFunc) is None for t in terms
    )
    if not (
        isinstance(window_function(window), exp.RowNumber)
        and plain
        and row_only
        and window.args.get("spec") is None
        and _test_of(window) is not None
    ):
        return None
    shaped = tuple(
        (to_sql(t.this), bool(t.args.get("desc")), bool(t.args.get("nulls_first"))) for t in terms
    )
    return FirstRows(tuple(names[c.name.lower()] for c in columns), shaped)


def first_rows(tree: exp.Expr, names: Mapping[str, str]) -> list[tuple[FirstRows | None, str]]:
    """Each ``row_number`` window of ``tree``: its first-row index, or None when it is not
    compared ``= 1`` over plain input columns (``names``: the input's column names by their
    lower case); with its SQL.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("row_number() OVER (PARTITION BY K ORDER BY t DESC) = 1 "
    ...     "AND row_number() OVER (PARTITION BY k ORDER BY t) <= 2")
    >>> [(f.keys, f.order) if f else None for f, _ in first_rows(tree, {"k": "k", "t": "t"})]
    [(('k',), (('t', True, False),)), None]
    """
    out = []
    for window in tree.find_all(exp.Window):
        if isinstance(window_function(window), exp.RowNumber):
            out.append((_first(window, names), window.sql("spark")))
    return out


Term = tuple[exp.Expr, bool, bool]  # a term's value, descending, nulls first


def _groups(terms: list[Term], kept: list[exp.Expr]) -> list[tuple[exp.Expr, exp.Expr, bool, bool]]:
    """Consecutive terms ordered ascending with nulls first (or descending with nulls last) as
    one comparison of structs, which Spark orders field by field ascending with nulls first
    (the tie-breaking terms of a total order are such a run, however many columns the input
    has); every other term alone. Each: the row's value, the kept value, direction, nulls."""
    out: list[tuple[list[exp.Expr], list[exp.Expr], bool, bool]] = []
    for (mine, desc, first), other in zip(terms, kept, strict=True):
        if out and (desc, first) == out[-1][2:] and desc != first:
            out[-1][0].append(mine)
            out[-1][1].append(other)
        else:
            out.append(([mine], [other], desc, first))

    def struct(values: list[exp.Expr]) -> exp.Expr:
        fields: list[exp.Expr] = []
        for i, v in enumerate(values):
            fields += [exp.Literal.string(f"f{i}"), v]
        return exp.Anonymous(this="named_struct", expressions=fields)

    return [
        (mine[0], other[0], desc, first)
        if len(mine) == 1
        else (struct(mine), struct(other), desc, first)
        for mine, other, desc, first in out
    ]


def _is_struct(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and str(node.this) == "named_struct"


def _before(mine: exp.Expr, kept: exp.Expr, desc: bool, nulls_first: bool) -> exp.Expr:
    """``mine`` comes strictly before ``kept`` in one order term (a struct is never null)."""
    compared = (exp.GT if desc else exp.LT)(this=mine.copy(), expression=kept.copy())
    known = exp.Coalesce(this=compared, expressions=[exp.false()])
    if _is_struct(mine):
        return known
    empty, full = (mine, kept) if nulls_first else (kept, mine)
    null_side = exp.And(
        this=exp.Is(this=empty.copy(), expression=exp.Null()),
        expression=exp.Not(this=exp.Is(this=full.copy(), expression=exp.Null())),
    )
    return exp.Paren(this=exp.Or(this=exp.Paren(this=null_side), expression=known))


def precedes(terms: list[Term], kept: list[str]) -> exp.Expr:
    """The row's order ``terms`` come strictly before the values in the columns ``kept``
    (lexicographically, each term in its direction and null order).

    >>> from quality_py.sql.build import to_sql
    >>> to_sql(precedes([(exp.column("t"), True, False)], ["c0"]))
    '((`c0` IS NULL AND NOT t IS NULL) OR COALESCE(t > `c0`, FALSE))'
    >>> to_sql(precedes([(exp.column("a"), False, True), (exp.column("b"), False, True)],
    ...     ["c0", "c1"]))
    "COALESCE(NAMED_STRUCT('f0', a, 'f1', b) < NAMED_STRUCT('f0', `c0`, 'f1', `c1`), FALSE)"
    """
    columns: list[exp.Expr] = [exp.column(exp.to_identifier(c, quoted=True)) for c in kept]
    groups = _groups(terms, columns)
    if not groups:  # the rows of a key are all equal in the order: the kept one comes first
        return exp.false()
    mine, other, desc, first = groups[-1]
    out = _before(mine, other, desc, first)
    for mine, other, desc, first in reversed(groups[:-1]):
        same = exp.NullSafeEQ(this=mine.copy(), expression=other.copy())
        out = exp.Paren(this=exp.Or(
            this=_before(mine, other, desc, first),
            expression=exp.Paren(this=exp.And(this=same, expression=out)),
        ))  # fmt: skip
    return out


def add_first_rows(
    tree: exp.Expr, names: Mapping[str, str], at: Mapping[FirstRows, tuple[str, tuple[str, ...]]]
) -> exp.Expr:
    """A copy of ``tree`` whose ``row_number() ... = 1`` over an index in ``at`` also needs the
    row to come before the other partitions' first row of its key: ``at[index]`` is the column
    telling that such a row exists (null: none) and the columns of its order values.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("row_number() OVER (PARTITION BY k ORDER BY t) = 1")
    >>> index = FirstRows(("k",), (("t", False, True),))
    >>> out = add_first_rows(tree, {"k": "k", "t": "t"}, {index: ("n", ("c0",))}).sql("spark")
    >>> out.split(" AND (", 1)[0]
    '(ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) = 1'
    >>> out.split(" AND (", 1)[1]
    '`n` IS NULL OR ((t IS NULL AND NOT `c0` IS NULL) OR COALESCE(t < `c0`, FALSE))))'
    """
    out = tree.copy()
    for window in list(out.find_all(exp.Window)):
        found = _first(window, names) if isinstance(window, exp.Window) else None
        if found is None or found not in at:
            continue
        present, kept = at[found]
        test = _test_of(window)
        assert test is not None
        terms = [(t.this, bool(t.args.get("desc")), bool(t.args.get("nulls_first")))
                 for t in _terms(window)]  # fmt: skip
        absent = exp.Is(
            this=exp.column(exp.to_identifier(present, quoted=True)), expression=exp.Null()
        )
        alone = exp.Paren(this=exp.Or(this=absent, expression=precedes(terms, list(kept))))
        both = exp.Paren(this=exp.And(this=test.copy(), expression=alone))
        out = both if test is out else out
        test.replace(both)
    return out
