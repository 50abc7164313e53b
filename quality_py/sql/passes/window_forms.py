"""Pass: write every window in the one form Spark computes once per key set.

* **Keys in one order.** ``PARTITION BY b, a`` and ``PARTITION BY a, b`` are the same
  partitioning, but Spark shuffles the input once per *written* key list. The keys of every
  window are sorted (by their SQL) and repeated keys dropped, so rules over the same key set
  share one shuffle whatever order their authors wrote the keys in.
* **count(DISTINCT x) over a window** has no Spark form (``DISTINCT_WINDOW_FUNCTION_UNSUPPORTED``):
  it becomes ``size(collect_set(x) OVER (...))``, the number of distinct non-null values of the
  partition, which is what ``count(DISTINCT x)`` counts (the set is held once per partition).

Runs after every other pass, so windows written by library functions (``is_unique``) take the
same form, and are held to the same placement as windows in rule text: only in a rule's own
value, never inside a subquery, an aggregate, a lambda or another window (where Spark would
refuse them with its own words, or a lambda would run them per element). The total order
that makes ``row_number`` deterministic needs the input's columns and is added by the runner
(``sql/windows.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from quality_py.sql.allowed.enforce import policy_error
from quality_py.sql.allowed.windows import partition_keys, placement_problem, window_function
from quality_py.sql.build import rewrite_innermost, to_sql
from quality_py.sql.context import PassContext

Handler = Callable[[exp.Expr, PassContext], exp.Expr]


def _sorted_keys(window: exp.Window) -> None:
    keys = partition_keys(window)
    unique: dict[str, exp.Expr] = {}
    for key in keys:
        unique.setdefault(to_sql(key), key)
    window.set("partition_by", [unique[k] for k in sorted(unique)])


def _distinct_count(window: exp.Expr, ctx: PassContext) -> exp.Expr:
    """``size(collect_set(x) OVER (...))`` for (a copy of) ``count(DISTINCT x) OVER (...)``."""
    assert isinstance(window, exp.Window)
    function = window_function(window)
    value = function.this.expressions[0].copy()
    window.set("this", exp.Anonymous(this="collect_set", expressions=[value]))
    return exp.Anonymous(this="size", expressions=[window])


def _counts_distinct(node: exp.Expr) -> Handler | None:
    if not isinstance(node, exp.Window):
        return None
    function = window_function(node)
    counts = isinstance(function, exp.Count) and isinstance(function.this, exp.Distinct)
    return _distinct_count if counts else None


def window_forms(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Sort every window's keys and give ``count(DISTINCT x)`` its window form.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("count(DISTINCT x) OVER (PARTITION BY b, a, b) <= 2")
    >>> window_forms(tree, ctx=PassContext()).sql("spark")
    'SIZE(COLLECT_SET(x) OVER (PARTITION BY a, b)) <= 2'
    """
    for window in tree.find_all(exp.Window):
        problem = placement_problem(window, ctx.item_kind, ctx.policy.allow_aggregates)
        if problem is not None:
            raise policy_error(ctx, problem, window)
        _sorted_keys(window)
    return rewrite_innermost(tree, _counts_distinct, ctx)
