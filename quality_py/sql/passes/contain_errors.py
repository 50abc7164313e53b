"""Pass: rewrite operations that fail under ANSI mode to forms that give null instead.

With ``spark.sql.ansi.enabled`` (the default from Spark 4) one bad value (``'abc'`` cast to
int, a division by zero, an overflow) aborts the whole job. A rule is a verdict on one row, so
such a value should make that row's rule null (stored as Failed), not stop every other row:

* ``CAST`` -> ``TRY_CAST``; ``+ - * /`` -> ``try_add``, ``try_subtract``, ``try_multiply``,
  ``try_divide``; ``a % b`` and ``a div b`` -> null when ``b = 0``;
  ``element_at`` -> ``try_element_at``.

The same rule then gives the same result with ANSI on and off (off, Spark itself gives null for
bad casts and division by zero; integer overflow, which wraps around when ANSI is off, becomes
null in both). Runs after lambda inlining (bodies are user text too) and before library
expansion (our own arithmetic cannot fail). Skipped when the policy's ``contain_errors`` is off.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.build import call, paren
from quality_py.sql.context import PassContext

_TRY: dict[type[exp.Expr], str] = {
    exp.Add: "try_add",
    exp.Sub: "try_subtract",
    exp.Mul: "try_multiply",
    exp.Div: "try_divide",
}


def _zero_guard(node: exp.Binary) -> exp.Expr:
    divisor = node.expression
    guard = exp.EQ(this=paren(divisor.copy()), expression=exp.Literal.number(0))
    return exp.Case(ifs=[exp.If(this=guard, true=exp.Null())], default=node)


def contain_errors(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace each failing operation by its null-on-error form.

    >>> from quality_py.sql.parse import parse_expression
    >>> contain_errors(parse_expression("CAST(s AS INT) / n > 1"), ctx=PassContext()).sql("spark")
    'TRY_DIVIDE(TRY_CAST(s AS INT), n) > 1'
    """
    if not ctx.policy.contain_errors:
        return tree
    nodes = [n for n in tree.walk(bfs=False) if _rewritable(n)]
    for node in reversed(nodes):  # innermost first
        if isinstance(node, (exp.Cast, exp.Bracket)):  # CAST -> TRY_CAST, element_at -> try_
            node.set("safe", True)
            continue
        assert isinstance(node, exp.Binary)
        name = _TRY.get(type(node))
        if name is not None:
            new: exp.Expr = call(name, node.this, node.expression)
        elif _nonzero_literal(node.expression):
            continue  # a % 7 cannot fail
        else:
            new = paren(_zero_guard(node.copy()))
        if node is tree:
            tree = new
        else:
            node.replace(new)
    return tree


def _nonzero_literal(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and float(node.this) != 0


def _rewritable(node: exp.Expr) -> bool:
    if isinstance(node, exp.Cast):
        return not node.args.get("safe")
    if isinstance(node, exp.Bracket):  # only element_at(...), which is 1-based: arr[i] is not
        return node.args.get("offset") == 1 and not node.args.get("safe")
    return type(node) in _TRY or isinstance(node, (exp.Mod, exp.IntDiv))
