"""``map_lookup('name', key)`` and ``map_contains('name', key)`` over loaded lookup maps.

A map is a view of ``key`` and ``value`` columns registered by
:func:`quality_py.io.views.load_views` (keys checked unique there); the rule policy must list it
(``policy.with_views(*loaded.names)``), as it must every view a rule reads. The lookup is
expanded into a subquery that reads the whole map as one Spark map value, computed once per
query, and a hash lookup per row: no join, and no correlation through which a rule's column
named ``key`` or ``value`` could bind to the map's own columns. ``benchmarks/bench_lookups.py``
measured it against a hand-written broadcast join and a correlated subquery.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import paren
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library import register


def _map_value(args: list[exp.Expr], ctx: PassContext, fn: str) -> tuple[exp.Expr, exp.Expr]:
    """The subquery giving the whole map named by ``args[0]``, and the key expression."""
    name_node = args[0]
    if not (isinstance(name_node, exp.Literal) and name_node.is_string):
        raise _error(ctx, f"{fn} takes the map's name as a string literal", name_node)
    name = str(name_node.this)
    if name.lower() not in ctx.policy.allowed_views:
        raise _error(
            ctx,
            f"{fn}: no map {name!r} is loaded for these rules (load it with load_views and "
            "allow it in the policy: policy.with_views(...))",
            name_node,
            code="POLICY",
        )
    query = DIALECT.parse(
        "(SELECT map_from_entries(collect_list(struct(key, value))) FROM __qp_map)"
    )[0]
    assert query is not None
    table = next(iter(query.find_all(exp.Table)))
    table.replace(exp.Table(this=exp.to_identifier(name, quoted=True)))
    return query, paren(args[1])


def _error(
    ctx: PassContext, message: str, node: exp.Expr, code: str = "LIBRARY_ARGUMENTS"
) -> LibraryFunctionError:
    return LibraryFunctionError(
        message,
        item_id=ctx.item_id,
        item_kind=ctx.item_kind,
        source=ctx.source,
        span=ctx.span_of(node),
        code=code,
    )


@register("map_lookup", 2)
def _map_lookup(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value a loaded map holds for the key (null when the key is absent or null)."""
    whole, key = _map_value(args, ctx, "map_lookup")
    return exp.Anonymous(this="try_element_at", expressions=[whole, key])


@register("map_contains", 2)
def _map_contains(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether a loaded map has the key (false for a null key)."""
    whole, key = _map_value(args, ctx, "map_contains")
    test = exp.Anonymous(this="map_contains_key", expressions=[whole, key])
    return exp.Anonymous(this="coalesce", expressions=[test, exp.false()])
