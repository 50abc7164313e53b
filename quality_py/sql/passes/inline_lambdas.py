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
from quality_py.sql.allowed.enforce import policy_error
from quality_py.sql.build import paren
from quality_py.sql.context import Lambdas, PassContext
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


#: Qualifier of the input row inside correlated subqueries (the runners alias the input so).
OUTER_QUALIFIER = "main"


def substitute_params(
    body: exp.Expr,
    params: tuple[str, ...],
    args: list[exp.Expr],
    *,
    bound: frozenset[str] = frozenset(),
) -> exp.Expr:
    """Replace parameter references (and ``param.field`` paths) in ``body`` by the arguments.

    Where a parameter is used inside a subquery of the body, an unqualified column of its
    argument means the *outer* row, so it is qualified ``main.`` (inside the subquery a bare
    ``i`` would resolve to the subquery's own table). ``bound`` names the lambda variables in
    scope at the call site, which are not columns and stay unqualified.

    >>> from quality_py.sql.parse import parse_expression
    >>> body = parse_expression("(select max(i) from t where t.i > x) + x")
    >>> substitute_params(body, ("x",), [parse_expression("i")]).sql()
    '(SELECT MAX(i) FROM t WHERE t.i > main.i) + i'
    """
    by_name = {p.lower(): a for p, a in zip(params, args, strict=True)}
    targets = []
    for node in body.walk():
        if isinstance(node, exp.Column):
            parts = node.parts
            if parts and parts[0].name.lower() in by_name:
                targets.append(node)
    for node in targets:
        parts = node.parts
        arg = by_name[parts[0].name.lower()].copy()
        if node.find_ancestor(exp.Select) is not None:
            arg = _as_outer_reference(arg, bound)
        out: exp.Expr = paren(arg)
        for part in parts[1:]:
            out = exp.Dot(this=out, expression=part.copy())
        if node is body:
            body = out
        else:
            node.replace(out)
    return body


def _as_outer_reference(arg: exp.Expr, bound: frozenset[str]) -> exp.Expr:
    """Qualify the argument's own unqualified columns with the outer row's alias."""
    for col in list(arg.find_all(exp.Column)):
        if col.table or col.find_ancestor(exp.Select) is not None:
            continue  # already qualified, or a column of the argument's own subquery
        name = col.name.lower()
        if name in bound or name.startswith("__qp_"):
            continue  # a lambda variable or an enclosing lambda's parameter, not a column
        col.set("table", exp.to_identifier(OUTER_QUALIFIER))
    return arg


def _bound_at(node: exp.Expr) -> frozenset[str]:
    """Names of the higher-order-function lambda variables in scope at ``node``."""
    names: set[str] = set()
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Lambda):
            names.update(i.name.lower() for i in parent.expressions)
        parent = parent.parent
    return frozenset(names)


def _rename_params(lam: ParsedLambda, body: exp.Expr, ctx: PassContext) -> tuple[str, ...]:
    """Give the lambda's parameters fresh names in ``body`` (hygienic inlining).

    A name that is free in a body always means the row's column. Renaming the parameters before
    nested calls are inlined keeps a callee's free column ``y`` from being captured by a caller
    whose parameter is also called ``y``.
    """
    fresh = tuple(ctx.fresh_name("a") for _ in lam.params)
    by_name = {p.lower(): f for p, f in zip(lam.params, fresh, strict=True)}
    for node in body.walk():
        if isinstance(node, exp.Column):
            head = node.parts[0] if node.parts else None
            if head is not None and head.name.lower() in by_name:
                head.set("this", by_name[head.name.lower()])
                head.set("quoted", False)
    return fresh


def _expand_body(
    lam: ParsedLambda, lib: Lambdas, ctx: PassContext, stack: list[ParsedLambda]
) -> tuple[tuple[str, ...], exp.Expr]:
    """The lambda's body with every nested call inlined, over fresh parameter names."""
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
    params = _rename_params(lam, body, ctx)
    lambda_ctx = PassContext(
        lam.id, "lambda", lam.source, lib, ctx.layout, ctx.fresh, policy=ctx.policy
    )
    expanded = _inline(body, lib, lambda_ctx, stack)
    ctx.fresh = lambda_ctx.fresh
    stack.pop()
    lib.expanded[key] = (params, expanded)
    return params, expanded


def _size(node: exp.Expr) -> int:
    return sum(1 for _ in node.walk())


def _growth(
    lam: ParsedLambda,
    params: tuple[str, ...],
    body: exp.Expr,
    args: list[exp.Expr],
    lib: Lambdas,
) -> int:
    """Nodes one inlined call adds, computed before it is built: the body, plus each argument
    copied once per use of its parameter."""
    key = (lam.name.lower(), lam.arity)
    if key not in lib.sizes:
        uses = {p.lower(): 0 for p in params}
        for col in body.find_all(exp.Column):
            head = col.parts[0].name.lower() if col.parts else ""
            if head in uses:
                uses[head] += 1
        lib.sizes[key] = (_size(body), tuple(uses[p.lower()] for p in params))
    size, uses_per_param = lib.sizes[key]
    return size + sum(n * _size(a) for n, a in zip(uses_per_param, args, strict=True))


def _inline(tree: exp.Expr, lib: Lambdas, ctx: PassContext, stack: list[ParsedLambda]) -> exp.Expr:
    calls = [
        n
        for n in tree.walk(bfs=False)
        if isinstance(n, exp.Anonymous) and isinstance(n.this, str) and n.this in lib
    ]
    # Innermost first: arguments are inlined before the call that receives them.
    grown = _size(tree)
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
        params, body = _expand_body(lam, lib, ctx, stack)
        grown += _growth(lam, params, body, args, lib)
        if grown > ctx.policy.limits.max_expanded_nodes:
            message = (
                f"inlining lambda {lam.name} here grows the {ctx.item_kind} past "
                f"{ctx.policy.limits.max_expanded_nodes} syntax nodes (lambdas that call others "
                "several times grow exponentially); simplify the lambdas"
            )
            raise policy_error(ctx, message, call)
        bound = _bound_at(call)
        replacement = paren(substitute_params(body.copy(), params, args, bound=bound))
        if call is tree:
            tree = replacement
        else:
            call.replace(replacement)
    return tree


def inline_lambdas(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace every call to a suite lambda by its inlined body.

    >>> from quality_py.model import Id, LambdaFunction
    >>> from quality_py.sql.parse import parse_expression
    >>> from quality_py.sql.lambdas import LambdaLibrary
    >>> lib = LambdaLibrary([LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))])
    >>> inline_lambdas(parse_expression("isPositive(b + 1)"), ctx=PassContext(lambdas=lib)).sql()
    '((b + 1) > 0)'
    """
    if not ctx.lambdas.all():
        _reject_leftovers(tree, ctx)
        return tree
    tree = _inline(tree, ctx.lambdas, ctx, [])
    _extract_aggregate_lambdas(tree, ctx.lambdas)
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


def _function_value(node: exp.Expr, lib: Lambdas) -> exp.Anonymous | None:
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


def _applicable(node: exp.Expr, lib: Lambdas) -> bool:
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


def _canonical(node: exp.Anonymous) -> str:
    """The call's name as library functions are matched (``aggExpr`` = ``agg_expr``)."""
    return str(node.this).lower().replace("_", "")


def _extract_aggregate_lambdas(tree: exp.Expr, lib: Lambdas) -> None:
    """``agg_expr(ddl, filter, myinc(_()), myretsum(_(), _()))``, as the original documents it:
    a function value given as agg_expr's sum or result is that lambda (``_lambda_`` of it)."""
    for node in list(tree.walk()):
        if not (isinstance(node, exp.Anonymous) and _canonical(node) == "aggexpr"):
            continue
        for arg in node.expressions[-2:]:
            if _function_value(arg, lib) is not None:
                arg.replace(exp.Anonymous(this="_lambda_", expressions=[arg.copy()]))


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
