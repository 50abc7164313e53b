"""The core library functions: result constants (``passed()`` ...), ``probability``,
``soft_fail``, id packing, ``rule_result``, the flattening of results and struct updates."""

from __future__ import annotations

from sqlglot import exp

from quality_py.model.ids import INT_MAX, INT_MIN, pack_id
from quality_py.model.layout import CompactLayout
from quality_py.model.results import DISABLED_RULE, FAILED, PASSED, SOFT_FAILED
from quality_py.sql import coding
from quality_py.sql.build import bigint, call, cast, field, if_, lit, named_struct, paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import library_error, register
from quality_py.sql.shapes import Shape, literal_shape, shape_of_ddl


def _error(ctx: PassContext, message: str, node: exp.Expr | None = None) -> Exception:
    return library_error(ctx, message, node)


def _int_literal(node: exp.Expr) -> int | None:
    """The value of an integer literal (optionally negated or cast to an integral type)."""
    if isinstance(node, exp.Paren):
        return _int_literal(node.this)
    if isinstance(node, exp.Neg):
        inner = _int_literal(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Cast) and node.to.this in {
        exp.DataType.Type.BIGINT,
        exp.DataType.Type.INT,
    }:
        return _int_literal(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def _non_integral_literal(node: exp.Expr) -> str | None:
    """The kind of a literal that is certainly not an int/bigint, else None."""
    if isinstance(node, exp.Paren):
        return _non_integral_literal(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "string"
        return None if _int_literal(node) is not None else "decimal"
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, exp.Cast) and not node.to.is_type(*exp.DataType.INTEGER_TYPES):
        return node.to.sql()
    return None


def _require_integral(node: exp.Expr, fn: str, ctx: PassContext) -> exp.Expr:
    """Reject non-integral literals now; make Spark analysis reject non-integral columns.

    ``IF(false, ~x, x)`` folds to ``x`` but ``~`` only analyses for integral types, so a string or
    double argument fails analysis, as in the original.
    """
    if _int_literal(node) is not None:
        return node
    kind = _non_integral_literal(node)
    if kind is not None:
        raise _error(ctx, f"{fn} requires (int or bigint) type, got a {kind}", node)
    return if_(lit(False), exp.BitwiseNot(this=paren(node.copy())), node)


def _int_or_null(node: exp.Expr) -> exp.Expr:
    """``node`` as an INT, null when it is outside the int range (``try_cast`` never wraps,
    with ANSI on or off)."""
    return exp.TryCast(this=paren(node), to=exp.DataType.build("INT"), safe=True)


# --- result constants -------------------------------------------------------------------------


@register("passed", 0)
def _passed(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The Passed result int, 100000."""
    return lit(PASSED)


@register("failed", 0)
def _failed(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The Failed result int, 0."""
    return lit(FAILED)


@register("soft_failed", 0)
def _soft_failed(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The SoftFailed result int, -1."""
    return lit(SOFT_FAILED)


@register("disabled_rule", 0)
def _disabled_rule(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The DisabledRule result int, -2."""
    return lit(DISABLED_RULE)


@register("probability", 1)
def _probability(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """DOUBLE probability of a stored result int: ``probability(1000)`` = 0.01."""
    value = _require_integral(args[0], "probability", ctx)
    return exp.Div(this=cast(value, "DOUBLE"), expression=lit(100000.0))


@register("print_expr", 1, 2)
def _print_expr(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``print_expr([msg], expr)``: ``expr`` itself; see ``explain_rules`` for what it shows."""
    return args[-1]


@register("print_code", 1, 2)
def _print_code(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``print_code([msg], expr)``: ``expr`` itself (no generated code is ours to print)."""
    return args[-1]


@register("soft_fail", 1)
def _soft_fail(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Make a rule's failure soft: DOUBLE -1.0 for failed, 1.0 passed, -2.0 disabled, p else."""
    return coding.soft_fail(args[0])


# --- ids ----------------------------------------------------------------------------------------


def _low_int(node: exp.Expr) -> exp.Expr:
    # Low 32 bits as a signed int without an overflowing cast (ANSI-safe).
    shifted = call("shiftright", call("shiftleft", paren(node.copy()), lit(32)), lit(32))
    return cast(shifted, "INT")


def _high_int(node: exp.Expr) -> exp.Expr:
    return cast(call("shiftright", paren(node.copy()), lit(32)), "INT")


@register("pack_ints", 2)
def _pack_ints(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """BIGINT with ``id`` in the high and ``version`` in the low 32 bits."""
    high_value, low_value = (_int_literal(a) for a in args)
    if high_value is not None and low_value is not None:
        for v, a in zip((high_value, low_value), args, strict=True):
            if not INT_MIN <= v <= INT_MAX:
                raise _error(ctx, f"pack_ints requires int arguments, {v} is out of range", a)
        return bigint(pack_id(high_value, low_value))
    # an id and a version are ints: a BIGINT outside the int range packs to null (with a cast
    # it would wrap, and 2^31 would pack like -2^31: two ids, one packed value)
    high = cast(_int_or_null(_require_integral(args[0], "pack_ints", ctx)), "BIGINT")
    low = cast(_int_or_null(_require_integral(args[1], "pack_ints", ctx)), "BIGINT")
    return exp.BitwiseOr(
        this=call("shiftleft", high, lit(32)),
        expression=exp.Paren(this=exp.BitwiseAnd(this=low, expression=bigint(0xFFFFFFFF))),
    )


@register("unpack", 1)
def _unpack(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<id: int, version: int>`` of a packed BIGINT."""
    x = args[0]
    body = named_struct(("id", _high_int(x)), ("version", _low_int(x)))
    return if_(exp.Is(this=paren(x.copy()), expression=exp.Null()), exp.Null(), body)


@register("unpack_id_triple", 1)
def _unpack_id_triple(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Six ints from ``struct<ruleSuiteId, ruleSetId, ruleId>`` of packed ids."""
    x = args[0]
    pairs: list[tuple[str, exp.Expr]] = []
    for name in ("ruleSuite", "ruleSet", "rule"):
        packed = field(x, f"{name}Id")
        pairs += [(f"{name}Id", _high_int(packed)), (f"{name}Version", _low_int(packed))]
    return if_(
        exp.Is(this=paren(x.copy()), expression=exp.Null()), exp.Null(), named_struct(*pairs)
    )


# --- result structs -----------------------------------------------------------------------------


@register("rule_suite_result_details", 1)
def _details(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The DataQuality struct without its overall result: ``struct<id, ruleSetResults>``."""
    x = args[0]
    body = named_struct(("id", field(x, "id")), ("ruleSetResults", field(x, "ruleSetResults")))
    return if_(exp.Is(this=paren(x.copy()), expression=exp.Null()), exp.Null(), body)


@register("rule_result", 4)
def _rule_result(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The result of one rule, by packed suite, rule-set and rule ids; null when absent."""
    results, suite, rule_set, rule = args
    same_suite = exp.EQ(this=field(results, "id"), expression=paren(suite.copy()))
    kind = ctx.kind(to_sql(results))
    if kind is not None and "rulesetresults:map<bigint,map<" in kind.lower().replace(" ", ""):
        # an expression runner's results: map<set, map<rule, value>>, of any value type
        sets = call("try_element_at", field(results, "ruleSetResults"), paren(rule_set.copy()))
        value = call("try_element_at", sets, paren(rule.copy()))
        return if_(same_suite, value, exp.Null())
    if isinstance(ctx.layout, CompactLayout):
        value = _compact_rule_result(results, rule_set, rule, ctx.layout)
    else:
        sets = call("try_element_at", field(results, "ruleSetResults"), paren(rule_set.copy()))
        value = call("try_element_at", field(sets, "ruleResults"), paren(rule.copy()))
    return if_(same_suite, value, cast(exp.Null(), "INT"))


def _compact_rule(results: exp.Expr, flat: int) -> exp.Expr:
    return call("element_at", field(results, "ruleResults"), lit(flat + 1))


def _compact_rule_result(
    results: exp.Expr, rule_set: exp.Expr, rule: exp.Expr, lay: CompactLayout
) -> exp.Expr:
    set_id, rule_id = _int_literal(rule_set), _int_literal(rule)
    if set_id is not None and rule_id is not None:
        pos = lay.position(set_id, rule_id)
        return cast(exp.Null(), "INT") if pos is None else _compact_rule(results, pos[1])
    ifs = []
    for _, flat, sid, rid in lay.entries():
        cond = exp.And(
            this=exp.EQ(this=paren(rule_set.copy()), expression=bigint(sid)),
            expression=exp.EQ(this=paren(rule.copy()), expression=bigint(rid)),
        )
        ifs.append(exp.If(this=cond, true=_compact_rule(results, flat)))
    return exp.Case(ifs=ifs, default=cast(exp.Null(), "INT"))


def _flat_struct(
    suite: exp.Expr,
    suite_result: exp.Expr,
    set_result: exp.Expr,
    set_id: exp.Expr,
    rule_id: exp.Expr,
    rule_result: exp.Expr,
) -> exp.Expr:
    return named_struct(
        ("ruleSuiteId", _high_int(suite)),
        ("ruleSuiteVersion", _low_int(suite)),
        ("ruleSuiteResult", suite_result),
        ("ruleSetResult", set_result),
        ("ruleSetId", _high_int(set_id)),
        ("ruleSetVersion", _low_int(set_id)),
        ("ruleId", _high_int(rule_id)),
        ("ruleVersion", _low_int(rule_id)),
        ("ruleResult", rule_result),
    )


@register("flatten_results", 1)
def _flatten_results(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """One struct per rule: suite, rule-set and rule ids/versions with their results."""
    x = args[0]
    if isinstance(ctx.layout, CompactLayout):
        items = [
            _flat_struct(
                field(x, "id"),
                field(x, "overallResult"),
                call("element_at", field(x, "ruleSetResults"), lit(i + 1)),
                bigint(sid),
                bigint(rid),
                _compact_rule(x, flat),
            )
            for i, flat, sid, rid in ctx.layout.entries()
        ]
        body = call("array", *items) if items else cast(call("array"), _flat_array_ddl())
    else:
        s, r = ctx.fresh_name("s"), ctx.fresh_name("r")
        s_val, r_val = exp.column(s), exp.column(r)
        inner = _flat_struct(
            field(x, "id"),
            field(x, "overallResult"),
            field(s_val, "value", "overallResult"),
            field(s_val, "key"),
            field(r_val, "key"),
            field(r_val, "value"),
        )
        per_rule = exp.Lambda(this=inner, expressions=[exp.to_identifier(r)])
        rules = call("map_entries", field(s_val, "value", "ruleResults"))
        per_set = exp.Lambda(
            this=call("transform", rules, per_rule), expressions=[exp.to_identifier(s)]
        )
        sets = call("map_entries", field(x, "ruleSetResults"))
        body = call("flatten", call("transform", sets, per_set))
    return if_(exp.Is(this=paren(x.copy()), expression=exp.Null()), exp.Null(), body)


def _flatten_runner(x: exp.Expr, ctx: PassContext, extra: tuple[str, ...]) -> exp.Expr:
    from quality_py.model.results import FLAT_RESULT_FIELDS

    flat = _flatten_results([field(x, "ruleSuiteResults")], ctx)
    var = ctx.fresh_name("f")
    ref = exp.column(var)
    item = named_struct(
        *[(name, field(ref, name)) for name in FLAT_RESULT_FIELDS],
        *[(name, field(x, name)) for name in extra],
    )
    body = call("transform", flat, exp.Lambda(this=item, expressions=[exp.to_identifier(var)]))
    return if_(exp.Is(this=paren(x.copy()), expression=exp.Null()), exp.Null(), body)


@register("flatten_rule_results", 1)
def _flatten_rule_results(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``flatten_results`` of a rule-engine struct, each element with its salientRule and result."""
    return _flatten_runner(args[0], ctx, ("salientRule", "result"))


@register("flatten_folder_results", 1)
def _flatten_folder_results(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``flatten_results`` of a rule-folder struct, each element with the folded result."""
    return _flatten_runner(args[0], ctx, ("result",))


# --- struct updates -----------------------------------------------------------------------------


def _target_shape(target: exp.Expr, ctx: PassContext, fn: str) -> Shape:
    """The fields of ``target``: a name with a known shape (the folder's current result), a
    struct built in the text, else Spark's analysis of the expression against the input."""
    shape = None
    if isinstance(target, exp.Column) and not target.table:
        shape = ctx.shapes.get(target.name.lower())
    if shape is None:
        shape = literal_shape(target)
    if shape is None:
        shape = shape_of_ddl(ctx.kind(to_sql(target)))
    if shape is None:
        raise _error(
            ctx,
            f"{fn} needs a struct whose fields are known when compiling: the folder's current "
            "result, a struct built with named_struct/struct (directly or by a lambda), a cast "
            "to a struct type, or, when the rules run against a DataFrame, any struct "
            "expression over its columns",
            target,
        )
    return shape


def _struct_paths(
    args: list[exp.Expr], ctx: PassContext, fn: str, with_values: bool
) -> tuple[exp.Expr, Shape, list[tuple[tuple[str, ...], exp.Expr | None]]]:
    if not args:
        raise _error(
            ctx, f"{fn} takes a struct then {'path, value pairs' if with_values else 'paths'}"
        )
    target = args[0]
    shape = _target_shape(target, ctx, fn)
    step = 2 if with_values else 1
    rest = args[1:]
    if not rest or len(rest) % step:
        raise _error(
            ctx, f"{fn} takes a struct then {'path, value pairs' if with_values else 'paths'}"
        )
    changes: list[tuple[tuple[str, ...], exp.Expr | None]] = []
    for i in range(0, len(rest), step):
        path = rest[i]
        if not (isinstance(path, exp.Literal) and path.is_string and path.this):
            raise _error(ctx, f"{fn} field paths must be string literals", path)
        changes.append((tuple(path.this.split(".")), rest[i + 1] if with_values else None))
    return target, shape, changes


def _rebuild(
    base: exp.Expr | None,
    shape: Shape,
    changes: list[tuple[tuple[str, ...], exp.Expr | None]],
    drop: bool,
    ctx: PassContext,
    fn: str,
) -> exp.Expr:
    """``named_struct`` of ``base`` (None: a new struct) with the changes applied."""
    names = [n for n, _ in shape]
    subshapes = dict(shape)
    for path, _ in changes:  # updates may add fields, appended in order of first mention
        if not drop and path[0] not in subshapes:
            names.append(path[0])
            subshapes[path[0]] = None
    pairs: list[tuple[str, exp.Expr]] = []
    for name in names:
        here = [(p, v) for p, v in changes if p[0] == name]
        current = field(base, name) if base is not None and name in dict(shape) else None
        whole = [v for p, v in here if len(p) == 1]
        nested = [(p[1:], v) for p, v in here if len(p) > 1]
        if drop and whole:
            continue
        if not drop and whole:
            value: exp.Expr = whole[-1].copy()  # type: ignore[union-attr]
        elif nested:
            inner_shape = subshapes.get(name)
            if inner_shape is None and current is not None:
                # an existing field of unknown type: rebuilding it from nothing would lose its
                # other fields, so learn its type or refuse
                inner_shape = _target_shape(current, ctx, fn)
            inner = _rebuild(current, inner_shape or (), nested, drop, ctx, fn)
            value = (
                inner
                if current is None
                else if_(exp.Is(this=paren(current), expression=exp.Null()), exp.Null(), inner)
            )
        elif current is not None:
            value = current
        else:
            continue
        pairs.append((name, value))
    return named_struct(*pairs)


@register("update_field")
def _update_field(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The struct with fields set (``withField`` semantics, nested paths, missing ones added)."""
    target, shape, changes = _struct_paths(args, ctx, "update_field", with_values=True)
    body = _rebuild(target, shape, changes, False, ctx, "update_field")
    return if_(exp.Is(this=target.copy(), expression=exp.Null()), exp.Null(), body)


@register("drop_field")
def _drop_field(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The struct without the named fields (parents are kept, even when left empty)."""
    target, shape, changes = _struct_paths(args, ctx, "drop_field", with_values=False)
    body = _rebuild(target, shape, changes, True, ctx, "drop_field")
    if not body.expressions:
        raise _error(ctx, "drop_field cannot drop every field of a struct", target)
    return if_(exp.Is(this=target.copy(), expression=exp.Null()), exp.Null(), body)


def _flat_array_ddl() -> str:
    from quality_py.model.results import FLAT_RESULT_DDL

    return f"array<{FLAT_RESULT_DDL}>"
