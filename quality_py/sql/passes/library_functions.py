"""Pass: expand library-function calls (``passed()``, ``pack_ints(...)``...) into Spark built-ins.

Calls are expanded innermost first, so ``rule_result(dq, pack_ints(1, 1), ...)`` sees the packed
literal and, on the compact layout, resolves the position at compile time.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.context import PassContext
from quality_py.sql.library import lookup


def library_functions(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace every library-function call in ``tree``.

    >>> from quality_py.sql.parse import parse_expression
    >>> library_functions(parse_expression("passed() = 100000"), ctx=PassContext()).sql()
    '100000 = 100000'
    """
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
    return tree
