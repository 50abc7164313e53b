"""Pass: expand library-function calls (``passed()``, ``pack_ints(...)``...) into Spark built-ins.

Calls are expanded innermost first, so ``rule_result(dq, pack_ints(1, 1), ...)`` sees the packed
literal and, on the compact layout, resolves the position at compile time.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.context import PassContext
from quality_py.sql.library import canonical, lookup


def library_functions(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace every library-function call in ``tree``.

    >>> from quality_py.sql.parse import parse_expression
    >>> library_functions(parse_expression("passed() = 100000"), ctx=PassContext()).sql()
    '100000 = 100000'
    """
    _needs_schema(tree, ctx)
    calls = [
        n
        for n in tree.walk(bfs=False)
        if isinstance(n, exp.Anonymous) and isinstance(n.this, str) and lookup(n.this)
    ]
    for node in reversed(calls):
        fn = lookup(node.this)
        assert fn is not None
        args = list(node.expressions)
        if fn.arities and len(args) not in fn.arities:
            raise LibraryFunctionError(
                f"wrong number of arguments for {node.this}: got {len(args)}, valid counts are "
                + ", ".join(map(str, fn.arities)),
                item_id=ctx.item_id,
                item_kind=ctx.item_kind,
                source=ctx.source,
                span=ctx.span_of(node),
            )
        replacement = fn.expand(args, ctx)
        if node is tree:
            tree = replacement
        else:
            node.replace(replacement)
    from quality_py.sql.library.aggregates import leftover_helpers

    leftover_helpers(tree, ctx)
    return tree


_SCHEMA_FUNCTIONS = {"coalesceifattributesmissing", "coalesceifattributesmissingdisable"}


def _needs_schema(tree: exp.Expr, ctx: PassContext) -> None:
    """``coalesce_if_attributes_missing`` is rewritten against a schema before compiling."""
    for node in tree.walk():
        if isinstance(node, exp.Anonymous) and canonical(str(node.this)) in _SCHEMA_FUNCTIONS:
            raise LibraryFunctionError(
                f"{node.this} needs the data's schema: use a DataFrame runner (add_data_quality, "
                "rule_engine_with_struct, ...) or prepare_for_schema(suite, schema) before a "
                "single-Column runner",
                item_id=ctx.item_id,
                item_kind=ctx.item_kind,
                source=ctx.source,
                span=ctx.span_of(node),
            )
