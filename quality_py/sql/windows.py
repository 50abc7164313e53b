"""What a compiled rule that sees more than one row costs, and the total order that makes its
ranking deterministic.

A window (``OVER (PARTITION BY ...)``) is one shuffle and sort of the input per distinct key set,
shared by every rule over that key set; a subquery over a view (``in_reference``, lookups) is one
join with the view, which Spark broadcasts when the view is small. :func:`costs` says so in the
words ``validate`` and ``explain`` print.

``row_number()`` and ``ntile(n)`` give tied rows (equal in the stated order) their numbers in
the order the rows arrive, which differs between two jobs over the same data. A quality run
writes its valid and quarantine outputs in two jobs: a tie broken one way in one and the other
way in the other would put one row in both outputs, or in neither. :func:`with_total_order`
appends the row's own values to such a window's ORDER BY, so that only rows equal in every
column can tie, and those are interchangeable.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from quality_py.errors import QualityError
from quality_py.sql.allowed.windows import ORDER_SENSITIVE, partition_keys, window_function
from quality_py.sql.build import to_sql
from quality_py.sql.parse import parse_expression


def key_sets(tree: exp.Expr) -> set[tuple[str, ...]]:
    """The key sets the windows of ``tree`` partition by (each key's SQL, in order).

    >>> from quality_py.sql.parse import parse_expression
    >>> sorted(key_sets(parse_expression("count(*) OVER (PARTITION BY a) + rank() OVER "
    ...     "(PARTITION BY a ORDER BY t) + count(*) OVER (PARTITION BY b, c)")))
    [('a',), ('b', 'c')]
    """
    return {tuple(to_sql(k) for k in partition_keys(w)) for w in tree.find_all(exp.Window)}


def views_read(tree: exp.Expr) -> list[str]:
    """The views the subqueries of ``tree`` read, in order of first appearance."""
    names: dict[str, None] = {}
    for table in tree.find_all(exp.Table):
        if table.find_ancestor(exp.Select) is not None and table.name:
            names.setdefault(table.name, None)
    return list(names)


def needs_total_order(tree: exp.Expr) -> bool:
    """Whether ``tree`` ranks rows with a function that numbers ties by arrival order.

    >>> from quality_py.sql.parse import parse_expression
    >>> needs_total_order(parse_expression("row_number() OVER (PARTITION BY a ORDER BY t) = 1"))
    True
    >>> needs_total_order(parse_expression("rank() OVER (PARTITION BY a ORDER BY t) = 1"))
    False
    """
    return any(isinstance(window_function(w), ORDER_SENSITIVE) for w in tree.find_all(exp.Window))


#: Window aggregates whose floating-point value depends on the order rows are added in.
_SUMS = frozenset({"sum", "avg", "mean", "try_sum", "try_avg"})


def sums_over_windows(tree: exp.Expr) -> bool:
    """Whether ``tree`` sums or averages over a window: in floating point the last bits depend
    on the order the partition's rows arrive in, which two jobs over the same data may not share.

    >>> from quality_py.sql.parse import parse_expression
    >>> sums_over_windows(parse_expression("sum(x) OVER (PARTITION BY k) <= 10"))
    True
    >>> sums_over_windows(parse_expression("max(x) OVER (PARTITION BY k) <= 10"))
    False
    """
    for window in tree.find_all(exp.Window):
        function = window_function(window)
        name = str(function.this) if isinstance(function, exp.Anonymous) else function.key
        if name.lower() in _SUMS or isinstance(function, (exp.Sum, exp.Avg)):
            return True
    return False


def with_total_order(tree: exp.Expr, columns: Sequence[tuple[str, bool]]) -> exp.Expr:
    """A copy of ``tree`` whose ``row_number``/``ntile`` windows also order by the row's
    values: ``columns`` are the input's column names, each with whether Spark can order it
    (maps and variants cannot: they are ordered by their JSON text, together).

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1")
    >>> with_total_order(tree, [("k", True), ("t", True), ("m", False)]).sql("spark")
    'ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC, `k`, `t`, TO_JSON(STRUCT(`m`))) = 1'
    """
    out = tree.copy()
    terms: list[exp.Expr] = [
        exp.column(exp.to_identifier(name, quoted=True)) for name, ok in columns if ok
    ]
    others = [exp.column(exp.to_identifier(name, quoted=True)) for name, ok in columns if not ok]
    if others:
        terms.append(
            exp.Anonymous(
                this="to_json", expressions=[exp.Anonymous(this="struct", expressions=others)]
            )
        )
    for window in out.find_all(exp.Window):
        if not isinstance(window_function(window), ORDER_SENSITIVE):
            continue
        order = window.args.get("order")
        stated = list(order.expressions) if order is not None else []
        added = [exp.Ordered(this=t.copy(), nulls_first=True) for t in terms]
        window.set("order", exp.Order(expressions=[*stated, *added]))
    return out


def costs(tree: exp.Expr) -> tuple[str, ...]:
    """What a compiled rule costs beyond reading its own row, in a reader's words.

    >>> from quality_py.sql.parse import parse_expression
    >>> costs(parse_expression("count(*) OVER (PARTITION BY a, b) = 1"))
    ('a shuffle and sort of the input on (a, b), shared with every rule over the same keys',)
    """
    out = [
        f"a shuffle and sort of the input on ({', '.join(keys)}), shared with every rule over "
        "the same keys"
        for keys in sorted(key_sets(tree))
    ]
    out += [
        f"a join with the view {name} (broadcast when it is small, else a shuffle on the key)"
        for name in views_read(tree)
    ]
    return tuple(out)


#: Window functions whose value depends on the order (an ORDER BY of a constant keeps them
#: arbitrary, so it is kept for them: our run breaks the ties by the row's values).
_RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile)


def peer_windows(text: str) -> str:
    """``text`` with ``ORDER BY <constant>`` removed from aggregate windows without a frame.

    Spark-Expectations' documented rules write ``count(*) over(partition by k order by 1)``
    (``docs/configurations/rules.md``): with an ORDER BY and no frame, Spark's frame is from
    the partition's start to the current row *and its peers*, and under a constant order every
    row is a peer, so the frame is the whole partition: exactly ``count(*) OVER (PARTITION BY
    k)``, the form the rule policy allows.

    >>> peer_windows("count(*) over(partition by a, b order by 1)=1")
    'COUNT(*) OVER (PARTITION BY a, b) = 1'
    >>> peer_windows("sum(x) over(partition by c order by y) > 1")
    'sum(x) over(partition by c order by y) > 1'
    """
    try:
        tree = parse_expression(text)
    except QualityError:
        return text  # validate names the problem with the rule
    changed = False
    for window in tree.find_all(exp.Window):
        order = window.args.get("order")
        if order is None or window.args.get("spec") is not None:
            continue
        constant = all(isinstance(o.this, exp.Literal) for o in order.expressions)
        if constant and not isinstance(window.this, _RANKING):
            window.set("order", None)
            changed = True
    return to_sql(tree) if changed else text
