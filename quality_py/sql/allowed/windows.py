"""The window functions a rule may call, and the shape of window the policy proves bounded.

A rule that sees more than one row (``count(*) OVER (PARTITION BY k) = 1``, ``row_number() OVER
(PARTITION BY k ORDER BY t DESC) = 1``) still gives one value per row, and Spark computes each
window once per distinct partitioning for the whole suite (one shuffle of the input). What the
policy allows is what stays bounded and deterministic:

* **partition-only aggregates** (no ``ORDER BY``, no frame): ``count``, ``count(DISTINCT x)``,
  ``sum``, ``avg``/``mean``, ``min``, ``max``, ``count_if``, ``bool_and``/``bool_or``; each holds
  one number per partition (``count(DISTINCT x)``, which Spark has no window form of, becomes
  the size of the partition's set of distinct values, ``sql/passes/window_forms.py``; ``sum``
  and ``avg`` become ``try_sum``/``try_avg`` like every aggregate, so an overflow fails the
  row, never the job);
* **ranking functions** with an ``ORDER BY`` and no frame: ``row_number``, ``rank``,
  ``dense_rank``, ``percent_rank``, ``cume_dist``, ``ntile(n)`` with a literal ``n``. Ties in
  the stated order would make ``row_number`` and ``ntile`` pick rows at random, and the valid
  and quarantine outputs (two Spark jobs) could then disagree and lose or double a row; the
  runner breaks ties by the row's own values (``sql/windows.py``: a total order), so the answer
  is the same on every run;
* a window **partitions by at least one key** (one partition of a whole table runs on one
  core), keys and order terms are ordinary rule expressions, and a suite has at most
  ``RulePolicy.max_window_keys`` distinct partitionings (each costs a shuffle of the input).

Refused, with the reason: frames (``ROWS BETWEEN ...``: running values depend on the order of
ties), ``lag``/``lead``/``first_value``/``last_value``/``nth_value`` (the neighbour of a row among
ties is arbitrary), collecting aggregates (``collect_list`` grows with the partition: every row
of a million-row key would hold a million values), a window inside a subquery, an aggregate, a
lambda or another window, and named windows.

>>> from sqlglot import parse_one
>>> window_problem(parse_one("lag(x) OVER (PARTITION BY k ORDER BY t)", read="spark"))[:18]
'lag is not allowed'
>>> window_problem(parse_one("count(*) OVER (PARTITION BY k)", read="spark")) is None
True
"""

from __future__ import annotations

from sqlglot import exp

#: Aggregates a window may hold, by the name the policy sees (sqlglot's canonical name).
WINDOW_AGGREGATES: frozenset[str] = frozenset(
    {"count", "count_if", "sum", "avg", "mean", "min", "max", "try_sum", "try_avg",
     "logical_and", "logical_or", "every", "some"}
)  # fmt: skip
#: Ranking functions (they need an ORDER BY); each gives one number per row.
RANKING: dict[type[exp.Expr], str] = {
    exp.RowNumber: "row_number",
    exp.Rank: "rank",
    exp.DenseRank: "dense_rank",
    exp.PercentRank: "percent_rank",
    exp.CumeDist: "cume_dist",
    exp.Ntile: "ntile",
}
#: Ranking functions whose value for tied rows depends on the order they arrive in: the runner
#: appends a total order to their ORDER BY (``sql/windows.py``).
ORDER_SENSITIVE: tuple[type[exp.Expr], ...] = (exp.RowNumber, exp.Ntile)
#: The largest literal ``ntile`` may take (its buckets are numbers; a bound keeps it a literal).
MAX_NTILE = 1_000_000

#: Window functions the policy refuses, with the reason.
REFUSED_WINDOW_FUNCTIONS: dict[str, str] = {
    "lag": "the row before a row among ties in the order is arbitrary, so a rerun may answer "
    "otherwise; compare with min or max over the partition instead",
    "lead": "the row after a row among ties in the order is arbitrary; compare with min or max "
    "over the partition instead",
    "first_value": "the first row among ties is arbitrary; use min or max over the partition",
    "last_value": "the last row among ties is arbitrary; use min or max over the partition",
    "first": "the first row among ties is arbitrary; use min or max over the partition",
    "last": "the last row among ties is arbitrary; use min or max over the partition",
    "nth_value": "the n-th row among ties is arbitrary; use row_number() = n",
    "array_agg": "it gives every row the whole partition's values (a million-row key is a "
    "million values on each of its rows); count them instead",
    "array_unique_agg": "it gives every row the partition's distinct values; use "
    "count(DISTINCT x) OVER (...) to count them",
    "group_concat": "it gives every row the whole partition's text",
}

#: How Spark SQL writes the refused names sqlglot canonicalises (for messages).
_SPARK_NAMES = {
    "array_agg": "collect_list",
    "array_unique_agg": "collect_set",
    "group_concat": "string_agg",
}


def _name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    if type(node) in RANKING:
        return RANKING[type(node)]
    return node.sql_name().lower() if isinstance(node, exp.Func) else type(node).__name__


def window_function(window: exp.Window) -> exp.Expr:
    """The function a window computes (``count(*)`` of ``count(*) OVER (...)``)."""
    inner: exp.Expr = window.this
    while isinstance(inner, exp.Paren):
        inner = inner.this
    return inner


def partition_keys(window: exp.Window) -> list[exp.Expr]:
    """The window's ``PARTITION BY`` expressions."""
    return list(window.args.get("partition_by") or [])


def window_problem(window: exp.Window) -> str | None:
    """Why the policy refuses ``window`` (its shape and function; its arguments and keys are
    checked as rule text by the caller), or None when it may run.

    >>> from sqlglot import parse_one
    >>> window_problem(parse_one("row_number() OVER (PARTITION BY k)", read="spark"))
    'row_number needs an ORDER BY in its window (which row is first?)'
    >>> window_problem(parse_one("sum(x) OVER (PARTITION BY k ORDER BY t)", read="spark"))[:40]
    'sum over an ordered window is a running '
    """
    if window.args.get("alias") is not None:
        return "a named window (OVER w) is not allowed: write the window's PARTITION BY in the rule"
    if not partition_keys(window):
        return (
            "a window must PARTITION BY at least one key: one partition of the whole input runs "
            "on one core (count the rows with a dataset check instead)"
        )
    if window.args.get("spec") is not None:
        return (
            "a window frame (ROWS/RANGE BETWEEN ...) is not allowed: running values depend on "
            "the order of tied rows; use a partition-only aggregate or a ranking function"
        )
    function = window_function(window)
    name = _name(function)
    ordered = window.args.get("order") is not None
    if type(function) in RANKING:
        if not ordered:
            return f"{name} needs an ORDER BY in its window (which row is first?)"
        if isinstance(function, exp.Ntile):
            return _ntile_problem(function)
        return None
    if name in REFUSED_WINDOW_FUNCTIONS:
        shown = _SPARK_NAMES.get(name, name)
        return f"{shown} is not allowed over a window: {REFUSED_WINDOW_FUNCTIONS[name]}"
    if name not in WINDOW_AGGREGATES:
        allowed = ", ".join(sorted({*WINDOW_AGGREGATES, *RANKING.values()}))
        return f"{name} is not a window function the policy knows (allowed: {allowed})"
    if ordered:
        return (
            f"{name} over an ordered window is a running value (it depends on the order of tied "
            "rows): drop the ORDER BY to aggregate the whole partition"
        )
    distinct = function.this if isinstance(function, exp.Count) else None
    if isinstance(distinct, exp.Distinct) and len(distinct.expressions) != 1:
        return "count(DISTINCT ...) over a window counts one expression"
    return None


def _ntile_problem(function: exp.Ntile) -> str | None:
    value = function.this
    if not (isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit()):
        return "ntile takes a literal number of buckets"
    if not 1 <= int(value.this) <= MAX_NTILE:
        return f"ntile takes between 1 and {MAX_NTILE} buckets"
    return None


def placement_problem(window: exp.Window, item_kind: str, allow_aggregates: bool) -> str | None:
    """Why a window may not stand where it stands, or None: only in a rule's own text, outside
    subqueries, aggregates, lambdas and other windows.

    >>> from sqlglot import parse_one
    >>> tree = parse_one("sum(count(*) OVER (PARTITION BY k))", read="spark")
    >>> placement_problem(tree.find(exp.Window), "rule", False)[:40]
    'a window inside an aggregate is not allo'
    """
    if item_kind != "rule":
        return f"a window (OVER ...) may only be written in a rule's own text, not in a {item_kind}"
    if allow_aggregates:
        return (
            "a window (OVER ...) cannot run where rules aggregate the whole input (the "
            "expression runners)"
        )
    parent = window.parent
    while parent is not None:
        if isinstance(parent, exp.Window):
            return "a window inside another window is not allowed"
        if isinstance(parent, (exp.Select, exp.Subquery)):
            return "a window inside a subquery is not allowed"
        if isinstance(parent, exp.Lambda):
            return (
                "a window inside a lambda (x -> ...) runs per element, not per row: write it "
                "outside the lambda"
            )
        if isinstance(parent, exp.AggFunc):
            return "a window inside an aggregate is not allowed"
        parent = parent.parent
    return None


def in_window(node: exp.Expr) -> bool:
    """Whether ``node`` is the function a window computes (checked by :func:`window_problem`)."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return isinstance(parent, exp.Window) and window_function(parent) is node


def window_refusal(window: exp.Window, item_kind: str, allow_aggregates: bool) -> str | None:
    """Why the policy refuses ``window`` where it stands (:func:`placement_problem`) or as it
    is written (:func:`window_problem`), or None."""
    return placement_problem(window, item_kind, allow_aggregates) or window_problem(window)


def window_syntax(node: exp.Expr) -> bool:
    """Whether ``node`` is part of a window's own syntax, checked with the window: the function
    it computes, its ORDER BY, or the ``*`` of ``count(*)`` (the arguments, keys and order
    terms below them are rule text, checked as such).

    >>> from sqlglot import parse_one
    >>> tree = parse_one("count(*) OVER (PARTITION BY k ORDER BY t)", read="spark")
    >>> [type(n).__name__ for n in tree.walk() if window_syntax(n)]
    ['Count', 'Order', 'Star', 'Ordered']
    """
    if in_window(node):
        return True
    if isinstance(node, (exp.Order, exp.Ordered)):
        return isinstance(node.find_ancestor(exp.Window, exp.Select), exp.Window)
    return (
        isinstance(node, exp.Star) and isinstance(node.parent, exp.Count) and in_window(node.parent)
    )
