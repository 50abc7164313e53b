"""``map_lookup('name', key)`` and ``map_contains('name', key)`` over loaded lookup maps.

A map is a view of ``__qp_key`` and ``__qp_value`` columns registered by
:func:`quality_py.io.views.load_views` (keys checked unique there); the rule policy must list it
(``policy.with_views(*loaded.names)``), as it must every view a rule reads. A lookup expands into
a correlated subquery, ``(SELECT max_by(__qp_value, __qp_key) FROM name WHERE __qp_key = key)``,
which Spark turns into one broadcast join with the map: on 1M rows it costs what a hand-written
broadcast join costs, where reading the whole map as one value and looking keys up in it cost
3.3x at 10k entries and did not finish at 1M (``benchmarks/bench_lookups.py``). The map's
columns carry the reserved ``__qp_`` prefix so that a rule's own column called ``key`` or
``value`` can never bind to the map's; ``max_by`` gives the one matching value of any type (keys
are unique). ``map_contains`` is an ``EXISTS`` over the same view.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.allowed.key_types import KEY_TYPE, compatible, mismatch_message, struct_guard
from quality_py.sql.build import paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import expand, library_error, register

#: The columns of a loaded map's view (reserved names: see the module docs).
KEY, VALUE = "__qp_key", "__qp_value"


def _map_table(args: list[exp.Expr], ctx: PassContext, fn: str) -> tuple[exp.Table, exp.Expr, bool]:
    """The view of the map named by ``args[0]``, the key expression, and whether the key's type
    was checked against the map's (otherwise the SQL must carry a guard:
    sql/allowed/key_types.py)."""
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
    table = exp.Table(this=exp.to_identifier(name, quoted=True))
    key = paren(args[1])
    return table, key, _checked_key(ctx, fn, name, key)


def _checked_key(ctx: PassContext, fn: str, name: str, key: exp.Expr) -> bool:
    """True when Spark's types of the key and of the map's keys are known and compatible;
    refuses the rule when they are known and differ."""
    quoted = "`" + name.replace("`", "``") + "`"
    map_type = ctx.kind(f"(SELECT first({KEY}) FROM {quoted})")
    key_type = ctx.kind(to_sql(key))
    if map_type is None or key_type is None:
        return False
    if not compatible(key_type, map_type):
        raise _error(
            ctx, mismatch_message(fn, "map", name, map_type, key, key_type), key, code=KEY_TYPE
        )
    return True


def _error(
    ctx: PassContext, message: str, node: exp.Expr, code: str = "LIBRARY_ARGUMENTS"
) -> LibraryFunctionError:
    return library_error(ctx, message, node, code)


# The map is broadcast, as the original keeps its maps in memory: without the hint Spark joins a
# 1M-entry map by sort-merge (1.6x a broadcast join on 1M rows); large reference data that
# should not be broadcast belongs in a view read by an ordinary subquery.
_LOOKUP = (
    "(SELECT /*+ BROADCAST(`__qp_map`) */ max_by(__qp_value, __qp_key) FROM `__qp_map` "
    "WHERE __qp_key = __a0)"
)
_CONTAINS = "EXISTS(SELECT /*+ BROADCAST(`__qp_map`) */ 1 FROM `__qp_map` WHERE __qp_key = __a0)"


def _over_map(template: str, table: exp.Table, key: exp.Expr, checked: bool) -> exp.Expr:
    """``template`` with the map's view in place of ``__qp_map`` and the key of ``__a0``; when
    the key's type was not checked, the match also needs the struct guard of its type."""
    out = expand(template, key)
    for node in list(out.find_all(exp.Table)):
        if node.name == "__qp_map":
            node.replace(table.copy())
    if not checked:
        where = out.find(exp.Where)
        assert where is not None
        guard = struct_guard(table.name, exp.column(KEY), key)
        where.set("this", exp.and_(where.this, guard))
    return out


@register("map_lookup", 2)
def _map_lookup(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value a loaded map holds for the key (null when the key is absent or null)."""
    table, key, checked = _map_table(args, ctx, "map_lookup")
    return _over_map(_LOOKUP, table, key, checked)


@register("map_contains", 2)
def _map_contains(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether a loaded map has the key (false for a null key)."""
    table, key, checked = _map_table(args, ctx, "map_contains")
    return _over_map(_CONTAINS, table, key, checked)
