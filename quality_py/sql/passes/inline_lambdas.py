"""Pass: inline user lambdas at their call sites.

A call ``name(a1, ..., an)`` to a suite lambda with ``n`` parameters is replaced by the lambda's
body with each parameter replaced by its (parenthesised) argument. Bodies are expanded once per
(name, arity) and cached: lambdas have no closures, so the expansion does not depend on the call
site. Recursion is found while expanding and reported with every lambda id on the cycle.

Lambda variables of higher-order functions inside a body are renamed to fresh names first, so an
argument that mentions a column with the same name is not captured.

Partial application (contract section 4), resolved here at compile time:

* a lambda call with placeholder arguments, ``add(_(), 5)``, is a *function value* and is not
  inlined where it stands; it may be passed to other lambdas as an argument;
* ``callFun(fv, a, ...)`` fills the placeholders of the function value ``fv`` in order and
  inlines the call (inside a lambda ``fv`` is usually a parameter, resolved once substituted);
* ``_lambda_(fv)`` becomes a Spark lambda ``(p1, ...) -> body`` over the placeholders, for
  built-in higher-order functions such as ``transform`` or ``aggregate``.

Placeholder types (``_('int')``) are accepted and ignored: Spark infers the types from use.
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
        if any(_is_placeholder(a) for a in args):
            continue  # a function value: applied later by callFun or _lambda_
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
        _reject_leftovers(tree, ctx)
        return tree
    tree = _inline(tree, ctx.lambdas, ctx, [])
    for _ in range(_MAX_APPLICATIONS):
        target = next((n for n in tree.walk() if _applicable(n, ctx.lambdas)), None)
        if target is None:
            break
        applied = _apply(target, ctx)
        if target is tree:
            tree = applied
        else:
            target.replace(applied)
        tree = _inline(tree, ctx.lambdas, ctx, [])
    else:
        raise _error(ctx, "callFun/_lambda_ applications do not terminate", tree)
    _reject_leftovers(tree, ctx)
    return tree


_MAX_APPLICATIONS = 1000
_APPLY = {"callfun": "callFun", "_lambda_": "_lambda_"}


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LambdaError:
    return LambdaError(
        message,
        item_id=ctx.item_id,
        item_kind=ctx.item_kind,
        source=ctx.source,
        span=ctx.span_of(node),
        code="LAMBDA_ARITY",
    )


def _is_placeholder(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and node.this == "_"


def _function_value(node: exp.Expr, lib: LambdaLibrary) -> exp.Anonymous | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if (
        isinstance(node, exp.Anonymous)
        and isinstance(node.this, str)
        and node.this in lib
        and any(_is_placeholder(a) for a in node.expressions)
    ):
        return node
    return None


def _applicable(node: exp.Expr, lib: LambdaLibrary) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and str(node.this).lower() in _APPLY
        and bool(node.expressions)
        and _function_value(node.expressions[0], lib) is not None
    )


def _apply(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    assert isinstance(node, exp.Anonymous)
    fv = _function_value(node.expressions[0], ctx.lambdas)
    assert fv is not None
    holes = [i for i, a in enumerate(fv.expressions) if _is_placeholder(a)]
    if str(node.this).lower() == "callfun":
        values = node.expressions[1:]
        if len(values) != len(holes):
            raise _error(
                ctx,
                f"callFun gives {len(values)} argument(s) to {fv.this}, which has "
                f"{len(holes)} placeholder(s)",
                node,
            )
    else:
        if len(node.expressions) != 1:
            raise _error(ctx, "_lambda_ takes one partially applied lambda call", node)
        names = [ctx.fresh_name("p") for _ in holes]
        values = [exp.column(n) for n in names]
    args = list(fv.expressions)
    for i, value in zip(holes, values, strict=True):
        args[i] = value.copy()
    call = exp.Anonymous(this=fv.this, expressions=[a.copy() for a in args])
    if str(node.this).lower() == "callfun":
        return call
    return exp.Lambda(this=call, expressions=[exp.to_identifier(n) for n in names])


def _reject_leftovers(tree: exp.Expr, ctx: PassContext) -> None:
    if ctx.item_kind == "lambda":  # a body alone: its parameters are bound at call sites
        return
    for node in tree.walk():
        if not isinstance(node, exp.Anonymous):
            continue
        name = str(node.this)
        if name.lower() in _APPLY:
            raise _error(
                ctx,
                f"{_APPLY[name.lower()]} needs a partially applied user lambda (a call with _() "
                "placeholders) as its first argument",
                node,
            )
        if name == "_":
            raise _error(
                ctx,
                "the placeholder _() may only be an argument of a user lambda call that is "
                "passed to callFun or _lambda_",
                node,
            )
        if _function_value(node, ctx.lambdas) is not None:
            raise _error(
                ctx,
                f"{name} is partially applied (it has _() placeholders) but never called: pass "
                "it to callFun or _lambda_",
                node,
            )
