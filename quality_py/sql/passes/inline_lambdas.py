"""Pass: inline user lambdas at their call sites.

A call ``name(a1, ..., an)`` to a suite lambda with ``n`` parameters is replaced by the lambda's
body with each parameter replaced by its (parenthesised) argument. Bodies are expanded once per
(name, arity) and cached: lambdas have no closures, so the expansion does not depend on the call
site. Recursion is found while expanding and reported with every lambda id on the cycle.

Lambda variables of higher-order functions inside a body are renamed to fresh names first, so an
argument that mentions a column with the same name is not captured.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LambdaError
from quality_py.sql.build import paren
from quality_py.sql.context import LambdaLibrary, PassContext
from quality_py.sql.parse import ParsedLambda


def _rename_bound_variables(body: exp.Expr, ctx: PassContext) -> exp.Expr:
    for lam in list(body.find_all(exp.Lambda)):
        renames = {}
        for ident in lam.expressions:
            new = ctx.fresh_name("v")
            renames[ident.name.lower()] = new
            ident.set("this", new)
        for node in lam.this.walk():
            if isinstance(node, exp.Identifier) and node.name.lower() in renames:
                parent = node.parent
                if isinstance(parent, (exp.Column, exp.Dot)) and parent.args.get("table") is node:
                    continue
                node.set("this", renames[node.name.lower()])
    return body


def substitute_params(body: exp.Expr, params: tuple[str, ...], args: list[exp.Expr]) -> exp.Expr:
    """Replace parameter references (and ``param.field`` paths) in ``body`` by the arguments."""
    by_name = {p.lower(): a for p, a in zip(params, args, strict=True)}

    def swap(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Column):
            return node
        parts = node.parts
        head = parts[0].name.lower() if parts else ""
        if head not in by_name:
            return node
        out: exp.Expr = paren(by_name[head].copy())
        for part in parts[1:]:
            out = exp.Dot(this=out, expression=part.copy())
        return out

    return body.transform(swap, copy=False)


def _expand_body(
    lam: ParsedLambda, lib: LambdaLibrary, ctx: PassContext, stack: list[ParsedLambda]
) -> exp.Expr:
    key = (lam.name.lower(), lam.arity)
    cached = lib.expanded.get(key)
    if cached is not None:
        return cached
    if any(s is lam for s in stack):
        cycle = [*stack[stack.index(lam) :], lam]
        names = " -> ".join(f"{s.name}/{s.arity} {s.id!r}" for s in cycle)
        raise LambdaError(
            f"lambda recursion: {names}",
            item_id=lam.id,
            item_kind="lambda",
            source=lam.source,
            code="LAMBDA_RECURSION",
        )
    stack.append(lam)
    body = _rename_bound_variables(lam.body.copy(), ctx)
    lambda_ctx = PassContext(lam.id, "lambda", lam.source, lib, ctx.layout, ctx.fresh)
    expanded = _inline(body, lib, lambda_ctx, stack)
    ctx.fresh = lambda_ctx.fresh
    stack.pop()
    lib.expanded[key] = expanded
    return expanded


def _inline(
    tree: exp.Expr, lib: LambdaLibrary, ctx: PassContext, stack: list[ParsedLambda]
) -> exp.Expr:
    calls = [
        n
        for n in tree.walk(bfs=False)
        if isinstance(n, exp.Anonymous) and isinstance(n.this, str) and n.this in lib
    ]
    # Innermost first: arguments are inlined before the call that receives them.
    for call in reversed(calls):
        args = list(call.expressions)
        lam = lib.get(call.this, len(args))
        if lam is None:
            arities = ", ".join(map(str, lib.arities(call.this))) or "none"
            raise LambdaError(
                f"{len(args)} arguments requested for lambda {call.this} but no implementation "
                f"with this argument count exists (defined arities: {arities})",
                item_id=ctx.item_id,
                item_kind=ctx.item_kind,
                source=ctx.source,
                span=ctx.span_of(call),
                code="LAMBDA_ARITY",
            )
        body = _expand_body(lam, lib, ctx, stack).copy()
        replacement = paren(substitute_params(body, lam.params, args))
        if call is tree:
            tree = replacement
        else:
            call.replace(replacement)
    return tree


def inline_lambdas(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace every call to a suite lambda by its inlined body.

    >>> from quality_py.model import Id, LambdaFunction
    >>> from quality_py.sql.parse import parse_expression
    >>> lib = LambdaLibrary([LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))])
    >>> inline_lambdas(parse_expression("isPositive(b + 1)"), ctx=PassContext(lambdas=lib)).sql()
    '((b + 1) > 0)'
    """
    if not ctx.lambdas.all():
        return tree
    return _inline(tree, ctx.lambdas, ctx, [])
