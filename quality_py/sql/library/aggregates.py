"""``agg_expr``: a filtered aggregate with a sum lambda and a result lambda, as Spark aggregates.

``agg_expr([ddl], filter, sum, result)`` sums over the rows where ``filter`` holds and gives
``result`` of that sum and the number of those rows. The original folds the sum lambda row by row
and merges partial sums by addition, so a sum must be additive; here it is compiled into Spark's
own ``try_sum`` and ``count_if`` (generated code, partial aggregation, no lambda per row; an
overflowing sum is null instead of aborting the job):

* ``sum_with([ddl], entry -> entry + x)`` (or ``x + entry``) sums ``x``; ``inc()`` sums 1 and
  ``inc(x)`` sums ``x``;
* ``results_with([sum ddl], [result ddl], (sum, count) -> expression)`` computes the result;
  ``return_sum([ddl])`` is the sum and ``meanF()`` is ``sum / count`` (a DOUBLE, null when no
  row matched);
* a suite's own lambda, partially applied, serves as either, as the original documents it:
  ``agg_expr('DECIMAL(38,18)', dec IS NOT NULL, myinc(_()), myretsum(_(), _()))`` with
  ``myinc = entry -> entry + dec`` and ``myretsum = (sum, count) -> sum``.

The sum starts at zero of ``ddl`` (BIGINT unless given), as in the original. A sum lambda that
is not ``entry + x`` is refused (it cannot be merged across partitions); these helpers are
refused outside ``agg_expr``.

``agg_expr('MAP<K, V>', filter, map_with(key, entry -> entry + x), result)`` sums ``x`` per
``key`` into a ``map<K, V>``. Spark has no aggregate that sums into a map, and folding rows into
a map one by one would hold every matching row on one executor; so it is compiled into a
grouped aggregation over the expression runner's input (an uncorrelated scalar subquery,
``SELECT map_from_entries(collect_list(...)) FROM (SELECT key, try_sum(x) ... GROUP BY key)``):
partial aggregation per key, one extra Spark job, memory per distinct key. Rows whose key is
null are left out (a map cannot hold a null key); ``count`` in ``results_with`` is still the
number of matching rows. It needs the runner's input (``expression_runner`` registers it as a
view), so it is refused elsewhere.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, cast, paren
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library.registry import canonical, expand, library_error, register

#: Helpers that only mean something as an argument of agg_expr: agg_expr reads them itself, so
#: they are not library functions, and a suite's own lambda of the same name (``inc`` is a
#: common one) shadows them.
HELPERS = ("sum_with", "inc", "results_with", "return_sum", "meanf", "map_with")


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_ARGUMENTS")


def _ddl(node: exp.Expr, ctx: PassContext, fn: str) -> str:
    if not (isinstance(node, exp.Literal) and node.is_string):
        raise _error(ctx, f"{fn} takes the type as a DDL string literal, e.g. 'BIGINT'", node)
    try:
        return exp.DataType.build(str(node.this), dialect=DIALECT).sql(dialect=DIALECT)
    except Exception:
        raise _error(ctx, f"{fn}: {node.this!r} is not a Spark type", node) from None


def _helper(node: exp.Expr) -> str | None:
    if isinstance(node, exp.Anonymous) and canonical(str(node.this)) in {
        canonical(h) for h in HELPERS
    }:
        return canonical(str(node.this))
    return None


def _is_variable(node: exp.Expr, name: str) -> bool:
    """A reference to the lambda variable ``name`` (sqlglot parses ``sum`` as a bare identifier)."""
    if isinstance(node, exp.Column):
        return not node.table and node.name == name
    return (
        isinstance(node, exp.Identifier)
        and node.name == name
        and not isinstance(node.parent, (exp.Column, exp.Lambda, exp.Dot, exp.Table, exp.Alias))
    )


def _summand(node: exp.Expr, ctx: PassContext) -> tuple[exp.Expr, str | None]:
    """What a sum adds per matching row, and the sum's type if the helper names one."""
    if isinstance(node, exp.Lambda):  # a user lambda given as the sum: myinc(_())
        return _added(node, "agg_expr's sum", ctx), None
    kind = _helper(node)
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
    if kind == "inc":
        if len(args) > 1:
            raise _error(ctx, "inc takes at most one expression", node)
        return (args[0] if args else exp.Literal.number(1)), None
    if kind != "sumwith" or not args or len(args) > 2:
        raise _error(ctx, "agg_expr's sum is sum_with([ddl], entry -> entry + x) or inc([x])", node)
    ddl = _ddl(args[0], ctx, "sum_with") if len(args) == 2 else None
    return _added(args[-1], "sum_with", ctx), ddl


def _added(lam: exp.Expr, fn: str, ctx: PassContext) -> exp.Expr:
    """``x`` of the sum lambda ``entry -> entry + x`` (or ``x + entry``)."""
    if not isinstance(lam, exp.Lambda) or len(lam.expressions) != 1:
        raise _error(ctx, f"{fn} takes a one-parameter lambda: entry -> entry + x", lam)
    entry = lam.expressions[0].name
    body = lam.this
    while isinstance(body, exp.Paren):
        body = body.this
    # contain_errors has made ``entry + x`` a try_add(entry, x) by now
    pair: tuple[exp.Expr, exp.Expr] | None = None
    if isinstance(body, exp.Add):
        pair = (body.this, body.expression)
    elif (
        isinstance(body, exp.Anonymous)
        and str(body.this).lower() == "try_add"
        and len(body.expressions) == 2
    ):
        pair = (body.expressions[0], body.expressions[1])
    if pair is not None:
        for mine, other in (pair, pair[::-1]):
            if _is_variable(mine, entry) and not any(_is_variable(n, entry) for n in other.walk()):
                return other
    raise _error(
        ctx,
        "a sum must add to the entry (entry -> entry + x): partial sums are merged by addition",
        lam,
    )


def _result(
    node: exp.Expr, total: exp.Expr, count: exp.Expr, ctx: PassContext, grouped: bool = False
) -> exp.Expr:
    kind = _helper(node)
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
    if isinstance(node, exp.Lambda):  # a user lambda given as the result: myretsum(_(), _())
        kind, args = "resultswith", [node]
    if kind == "returnsum":
        return total
    if kind == "meanf":
        if grouped:
            raise _error(ctx, "meanF() needs a number: a map_with sum is a map", node)
        return call("try_divide", cast(total, "DOUBLE"), count)
    if kind != "resultswith" or not args or len(args) > 3:
        raise _error(
            ctx,
            "agg_expr's result is results_with((sum, count) -> ...), return_sum() or meanF()",
            node,
        )
    lam = args[-1]
    if not isinstance(lam, exp.Lambda) or len(lam.expressions) != 2:
        raise _error(ctx, "results_with takes a lambda (sum, count) -> expression", lam)
    names = {e.name: value for e, value in zip(lam.expressions, (total, count), strict=True)}

    def swap(node: exp.Expr) -> exp.Expr:
        for name, value in names.items():
            if _is_variable(node, name):
                return paren(value.copy())
        return node

    body: exp.Expr = lam.this.copy().transform(swap, copy=False)
    if len(args) == 3:
        return cast(body, _ddl(args[1], ctx, "results_with"))
    return body


@register("agg_expr", 3, 4)
def _agg_expr(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``agg_expr([ddl], filter, sum, result)``: the result of a filtered additive sum."""
    ddl = _ddl(args[0], ctx, "agg_expr") if len(args) == 4 else "BIGINT"
    condition, summing, result = args[-3:]
    count = exp.CountIf(this=paren(condition.copy()))
    if _helper(summing) == "mapwith":
        total = _grouped_sum(summing, ddl, condition, ctx)
        return _result(result, total, count, ctx, grouped=True)
    summand, sum_ddl = _summand(summing, ctx)
    kind = sum_ddl or ddl
    matched = exp.If(
        this=paren(condition.copy()),
        true=exp.TryCast(
            this=paren(summand.copy()), to=exp.DataType.build(kind, dialect=DIALECT), safe=True
        ),
        false=exp.Null(),
    )
    total = call(
        "coalesce",
        cast(call("try_sum", matched), kind),
        cast(exp.Literal.number(0), kind),
    )
    return _result(result, total, count, ctx)


def _grouped_sum(node: exp.Expr, ddl: str, condition: exp.Expr, ctx: PassContext) -> exp.Expr:
    """``map_with(key, entry -> entry + x)``: the per-key sums as a grouped scalar subquery."""
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
    if len(args) != 2:
        raise _error(ctx, "map_with takes a key and a lambda (entry -> entry + x)", node)
    kind = exp.DataType.build(ddl, dialect=DIALECT)
    if kind.this != exp.DataType.Type.MAP or len(kind.expressions) != 2:
        raise _error(ctx, "agg_expr with map_with takes the map's type first: 'MAP<K, V>'", node)
    if ctx.input_view is None:
        raise _error(
            ctx,
            "map_with groups the input by its key: it runs in expression_runner, which gives it "
            "the input",
            node,
        )
    key_type, value_type = (t.sql(dialect=DIALECT) for t in kind.expressions)
    added = _added(args[1], "map_with", ctx)
    template = (
        "(SELECT map_from_entries(collect_list(named_struct('k', __qp_k, 'v', __qp_s))) FROM "
        f"(SELECT CAST(__a0 AS {key_type}) AS __qp_k, coalesce(try_sum(TRY_CAST(__a1 AS "
        f"{value_type})), CAST(0 AS {value_type})) AS __qp_s FROM __qp_input "
        f"WHERE coalesce(__a2, false) AND __a0 IS NOT NULL GROUP BY CAST(__a0 AS {key_type})))"
    )
    out = expand(template, paren(args[0].copy()), paren(added.copy()), paren(condition.copy()))
    for table in list(out.find_all(exp.Table)):
        if table.name == "__qp_input":
            table.replace(exp.Table(this=exp.to_identifier(ctx.input_view, quoted=True)))
    # The rule must aggregate the input like any agg_expr (one result, not one per row), but
    # an aggregate *of* the map (any_value) runs as a sort aggregate over every row: 5x slower.
    # A count beside it makes the select an aggregate and leaves the once-computed map as is.
    counted = exp.Not(this=exp.Is(this=exp.Count(this=exp.Star()), expression=exp.Null()))
    return exp.If(this=counted, true=out, false=exp.Null())


def leftover_helpers(tree: exp.Expr, ctx: PassContext) -> None:
    """Refuse ``sum_with`` and friends left outside an ``agg_expr``."""
    for node in tree.walk():
        if _helper(node) is not None:
            raise _error(ctx, f"{node.this} is only meaningful as an argument of agg_expr", node)
