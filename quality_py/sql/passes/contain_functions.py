"""Pass: contain the allowlisted functions that raise under ANSI mode on a bad value.

Each such call becomes a form that gives null instead (the row's rule is then Failed), never an
error that aborts the job: Spark's ``try_`` twin where it has one, else a guard on the argument
that makes it fail. Spark's own definitions are kept exactly; only the failing inputs change
their outcome. Calls that cannot be contained this way are refused by the policy instead
(``sql/allowed/enforce.py``). Runs after ``contain_errors`` (user text only; library expansions
cannot fail) and is skipped when the policy's ``contain_errors`` is off.

``tests/spark/test_function_containment.py`` holds one failing input per function of the
allowlist that can raise, and checks that the job completes and exactly the bad rows fail.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from quality_py.sql.allowed.aggregates import spark_major
from quality_py.sql.allowed.enforce import policy_error
from quality_py.sql.build import call, int_value, lit, paren, parsed_cast, rewrite_innermost
from quality_py.sql.context import PassContext

#: Functions with a ``try_`` twin of the same arguments (Spark 3.5 has the first two).
_TRY_TWINS: dict[str, str] = {
    "to_number": "try_to_number",
    "to_binary": "try_to_binary",
    "url_decode": "try_url_decode",
    "parse_url": "try_parse_url",
    "make_timestamp": "try_make_timestamp",
    "make_timestamp_ltz": "try_make_timestamp_ltz",
    "make_timestamp_ntz": "try_make_timestamp_ntz",
    "make_date": "try_make_timestamp",  # see _twin
}
#: The twins Spark gained in 4.0: before that the function is refused.
SPARK4_TWINS = frozenset(
    {"try_url_decode", "try_parse_url", "try_make_timestamp", "try_make_timestamp_ltz"}
    | {"try_make_timestamp_ntz"}
)
_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_DAY_NAMES = [
    *_DAYS,
    *("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"),
    *("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"),
]


def _name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    if isinstance(node, exp.TimestampFromParts):
        return "make_timestamp"
    return node.sql_name().lower() if isinstance(node, exp.Func) else ""


def _args(node: exp.Expr) -> list[exp.Expr]:
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out = [v for k, v in node.args.items() if isinstance(v, exp.Expr) and k != "expressions"]
    return out + list(node.args.get("expressions") or [])


def _when(condition: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``CASE WHEN condition THEN value END``: null when the input would raise."""
    return paren(exp.Case(ifs=[exp.If(this=condition, true=value)]))


def _not_zero(value: exp.Expr) -> exp.Expr:
    return exp.NEQ(this=paren(value.copy()), expression=lit(0))


def _negation_fits(value: exp.Expr) -> exp.Expr:
    """True unless negating ``value`` overflows (the smallest integer of its type)."""
    negated = call("try_multiply", value.copy(), lit(-1))
    return exp.Not(
        this=paren(
            exp.And(
                this=exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null())),
                expression=exp.Is(this=negated, expression=exp.Null()),
            )
        )
    )


def _regex_groups(pattern: exp.Expr) -> int | None:
    if isinstance(pattern, exp.Literal) and pattern.is_string:
        try:
            return re.compile(pattern.this).groups
        except re.error:
            return None
    return None


def _contain_regexp_extract(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    group = node.args.get("group")
    if group is None:
        return node
    groups = _regex_groups(node.expression)
    if groups is None:
        return node  # the policy requires literal patterns; nothing to guard against here
    if isinstance(group, exp.Literal) and not group.is_string:
        if not str(group.this).isdigit():
            message = f"{_name(node)} takes a whole number as its group, not {group.this}"
            raise policy_error(ctx, message, group)
        if not 0 <= int(group.this) <= groups:
            message = (
                f"{_name(node)} asks for group {group.this} of a pattern with {groups} group(s)"
            )
            raise policy_error(ctx, message, group)
        return node
    # Spark checks the group only when the pattern matches: no match is '' (or no matches)
    fits = exp.Between(this=paren(group.copy()), low=lit(0), high=lit(groups))
    no_match = exp.And(  # a null group is null, match or not
        this=exp.Not(this=exp.Is(this=paren(group.copy()), expression=exp.Null())),
        expression=exp.Not(
            this=exp.RegexpLike(this=node.this.copy(), expression=node.expression.copy())
        ),
    )
    unmatched = node.copy()
    unmatched.set("group", lit(0))
    return paren(
        exp.Case(ifs=[exp.If(this=fits, true=node), exp.If(this=no_match, true=unmatched)])
    )


def _contain_split_part(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    index = node.args.get("part_index")
    if index is None or (isinstance(index, exp.Literal) and index.this not in ("0",)):
        return node
    return _when(_not_zero(index), node)


def _contain_elt(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    index = node.this
    choices = len(node.expressions)
    return _when(exp.Between(this=paren(index.copy()), low=lit(1), high=lit(choices)), node)


def _contain_slice(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    args = _args(node)
    if len(args) < 3:
        return node
    start, length = args[1], args[2]
    ok = exp.And(
        this=_not_zero(start),
        expression=exp.GTE(this=paren(length.copy()), expression=lit(0)),
    )
    return _when(ok, node)


def _contain_pmod(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    args = _args(node)
    return _when(_not_zero(args[1]), node) if len(args) == 2 else node


def _contain_abs(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    return _when(_negation_fits(node.this), node)


def _contain_negative(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    if isinstance(node.this, exp.Literal):
        return node  # a negative number literal
    return _when(_negation_fits(node.this), node)


def _contain_next_day(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    day = node.expression
    names = [lit(n) for n in _DAY_NAMES]
    return _when(exp.In(this=call("upper", day.copy()), expressions=names), node)


def _contain_add_months(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    # months of a date stay in Spark's date range (years 1 to 9999: under 120,000 months)
    months = node.expression
    return _when(exp.Between(this=paren(months.copy()), low=lit(-120000), high=lit(120000)), node)


def _contain_map_concat(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    keys = call("concat", *[call("map_keys", m.copy()) for m in _args(node)])
    distinct = exp.EQ(
        this=call("size", call("array_distinct", keys)), expression=call("size", keys.copy())
    )
    return _when(distinct, node)


def _contain_date_format(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    args = _args(node)
    if len(args) != 2:
        return node
    # Spark casts a text argument to a timestamp itself; a date or timestamp casts exactly
    value = try_cast(args[0].copy(), exp.DataType.build("TIMESTAMP"))
    return call("date_format", value, args[1].copy())


def try_cast(value: exp.Expr, to: exp.DataType) -> exp.Expr:
    """``TRY_CAST(value AS to)``."""
    return parsed_cast(value, to, safe=True)


def _contain_size(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """``size(NULL)`` is -1 with ANSI off (Spark's legacy sizeOfNull) and null with it on: null
    under both, so a rule's result never depends on the session's ANSI setting."""
    args = _args(node)
    if len(args) != 1:
        return node
    return _when(exp.Not(this=exp.Is(this=paren(args[0].copy()), expression=exp.Null())), node)


#: Longest text ``levenshtein`` compares: its cost is the product of the two lengths (a
#: million steps here; ``levenshtein(repeat(s, 3000), repeat(t, 3000))`` ran for minutes).
LEVENSHTEIN_MAX = 1000


def _contain_levenshtein(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """Null (the row fails) when either text is longer than :data:`LEVENSHTEIN_MAX`."""
    args = [a for a in (node.this, node.args.get("expression")) if isinstance(a, exp.Expr)]
    guards = [
        exp.LTE(this=call("length", paren(a.copy())), expression=lit(LEVENSHTEIN_MAX)) for a in args
    ]
    condition: exp.Expr = guards[0]
    for guard in guards[1:]:
        condition = exp.And(this=condition, expression=guard)
    return _when(condition, node)


#: The largest scale ``round``/``bround`` take: more digits than a double or decimal has.
MAX_SCALE = 400


def _contain_round(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """``round``/``bround`` of an integer to a negative scale overflows near the type's largest
    value (``round(2147483647, -1)``) and aborts the job: null there instead. The type's bound
    comes from ``typeof`` (folded by Spark); other types need no guard."""
    args = _args(node)
    if len(args) != 2:
        return node
    scale = int_value(args[1])
    if scale is None:
        raise policy_error(ctx, f"{_name(node)} needs a literal scale", node)
    if abs(scale) > MAX_SCALE:  # 10^scale overflows Java's BigInteger and aborts the job
        raise policy_error(
            ctx, f"{_name(node)} takes a scale from -{MAX_SCALE} to {MAX_SCALE}, not {scale}", node
        )
    if scale >= 0:
        return node
    value = args[0]
    largest = _by_integral_type(value, [_decimal(str(2 ** (b - 1) - 1)) for b in _WIDTHS])
    step = _decimal("1" + "0" * min(-scale, 37))
    wide = exp.DataType.build("DECIMAL(38,0)")
    magnitude = call("abs", exp.TryCast(this=paren(value.copy()), to=wide, safe=True))
    rounded_up = exp.Add(this=magnitude, expression=step)
    fits = exp.Or(
        this=exp.Is(this=largest, expression=exp.Null()),
        expression=exp.LTE(this=rounded_up, expression=largest.copy()),
    )
    return _when(fits, node)


#: Bits of tinyint, smallint, int and bigint.
_WIDTHS = (8, 16, 32, 64)


def _by_integral_type(
    value: exp.Expr, per_type: list[exp.Expr], default: exp.Expr | None = None
) -> exp.Expr:
    """``CASE typeof(value) WHEN 'tinyint' THEN .. WHEN 'bigint' THEN .. END``: Spark folds
    ``typeof``, so only the branch of the value's type remains."""
    names = ("tinyint", "smallint", "int", "bigint")
    return exp.Case(
        this=call("typeof", paren(value.copy())),
        ifs=[
            exp.If(this=exp.Literal.string(n), true=e) for n, e in zip(names, per_type, strict=True)
        ],
        default=default if default is not None else exp.Null(),
    )


def _decimal(digits: str) -> exp.Expr:
    return exp.Cast(this=exp.Literal.number(digits), to=exp.DataType.build("DECIMAL(38,0)"))


def _contain_getbit(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """Null unless the bit position is within the value's width (``typeof`` is folded by Spark:
    8, 16, 32 or 64 bits)."""
    value, position = node.this, node.args.get("expression")
    if not isinstance(position, exp.Expr):
        return node
    width = _by_integral_type(value, [lit(b) for b in _WIDTHS], default=lit(64))
    inside = exp.And(
        this=exp.GTE(this=paren(position.copy()), expression=lit(0)),
        expression=exp.LT(this=paren(position.copy()), expression=width),
    )
    return _when(inside, node)


def _contain_conv(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """Null for a number with more digits than 64 bits hold in its base (``conv`` overflows and
    aborts the job); the base must be a literal to know that."""
    import math

    args = _args(node)
    if len(args) != 3:
        return node
    base = int_value(args[1])
    if base is None or not 2 <= abs(base) <= 36:
        raise policy_error(ctx, "conv needs literal bases from 2 to 36", node)
    digits = math.floor(64 * math.log(2) / math.log(abs(base)))
    text = call("trim", exp.Cast(this=paren(args[0].copy()), to=exp.DataType.build("STRING")))
    return _when(exp.LTE(this=call("length", text), expression=lit(digits)), node)


def _contain_transform_keys(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    """Null when the new keys repeat (Spark aborts on a duplicate map key): the keys are
    computed once more, as an array, and must all be distinct."""
    args = _args(node)
    if len(args) != 2 or not isinstance(args[1], exp.Lambda) or len(args[1].expressions) != 2:
        return node
    fn = args[1]
    entry = ctx.fresh_name("e")
    k, v = (p.name for p in fn.expressions)
    parts = {k: "key", v: "value"}

    def swap(n: exp.Expr) -> exp.Expr:
        # lambda bodies name parameters as columns or as bare identifiers
        named = n.name if isinstance(n, (exp.Column, exp.Identifier)) else None
        bare = isinstance(n, exp.Identifier) and not isinstance(n.parent, (exp.Column, exp.Dot))
        if named in parts and ((isinstance(n, exp.Column) and not n.table) or bare):
            return exp.Dot(this=exp.column(entry), expression=exp.to_identifier(parts[named]))
        return n

    body = fn.this.copy().transform(swap, copy=False)
    keys = call("transform", call("map_entries", paren(args[0].copy())),
                exp.Lambda(this=body, expressions=[exp.to_identifier(entry)]))  # fmt: skip
    distinct = exp.EQ(  # and present: a null key aborts the job too
        this=call("size", call("array_compact", call("array_distinct", keys))),
        expression=call("size", paren(args[0].copy())),
    )
    return _when(distinct, node)


_BY_CLASS: dict[type, Callable[[exp.Expr, PassContext], exp.Expr]] = {
    exp.Getbit: _contain_getbit,
    exp.Round: _contain_round,
    exp.Levenshtein: _contain_levenshtein,
    exp.ArraySize: _contain_size,
    exp.RegexpExtract: _contain_regexp_extract,
    exp.RegexpExtractAll: _contain_regexp_extract,
    exp.SplitPart: _contain_split_part,
    exp.Elt: _contain_elt,
    exp.ArraySlice: _contain_slice,
    exp.Abs: _contain_abs,
    exp.Negative: _contain_negative,
    exp.Neg: _contain_negative,
    exp.NextDay: _contain_next_day,
    exp.AddMonths: _contain_add_months,
}
#: Casts written as functions that sqlglot keeps as calls (``decimal(s)``, ``bigint(s)``).
_CAST_FUNCTIONS = ("decimal", "bigint", "smallint", "tinyint", "float", "binary", "timestamp_ntz")


def _contain_cast_function(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    args = _args(node)
    if len(args) != 1:
        return node
    return try_cast(args[0].copy(), exp.DataType.build(_name(node)))


def _contain_format_number(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    args = _args(node)
    if len(args) != 2 or (isinstance(args[1], exp.Literal) and args[1].is_string):
        return node  # a pattern, not a number of decimals
    decimals = args[1]
    return _when(exp.Between(this=paren(decimals.copy()), low=lit(0), high=lit(1000)), node)


def _contain_timestamp_text(to: str) -> Callable[[exp.Expr, PassContext], exp.Expr]:
    def contain(node: exp.Expr, ctx: PassContext) -> exp.Expr:
        args = _args(node)
        if len(args) == 1:
            return try_cast(args[0].copy(), exp.DataType.build(to))
        if len(args) == 2 and to == "TIMESTAMP":
            return call("try_to_timestamp", args[0].copy(), args[1].copy())
        message = (
            f"{_name(node)} with a format cannot be contained (a value that does not match "
            "aborts the job); use to_timestamp"
        )
        raise policy_error(ctx, message, node)

    return contain


_BY_NAME: dict[str, Callable[[exp.Expr, PassContext], exp.Expr]] = {
    "format_number": _contain_format_number,
    "date_format": _contain_date_format,
    "to_timestamp_ltz": _contain_timestamp_text("TIMESTAMP"),
    "to_timestamp_ntz": _contain_timestamp_text("TIMESTAMP_NTZ"),
    **dict.fromkeys(_CAST_FUNCTIONS, _contain_cast_function),
    "pmod": _contain_pmod,
    "conv": _contain_conv,
    "bround": _contain_round,
    "transform_keys": _contain_transform_keys,
    "cardinality": _contain_size,
    "map_concat": _contain_map_concat,
}


def _twin(node: exp.Expr) -> exp.Expr | None:
    name = _name(node)
    if name == "make_date":  # Spark: the date of make_timestamp(y, m, d, 0, 0, 0)
        if len(_args(node)) != 3:
            return None  # Spark's analysis reports the arity
        y, m, d = (a.copy() for a in _args(node))
        parts = call("try_make_timestamp", y, m, d, lit(0), lit(0), lit(0))
        return call("to_date", parts)
    twin = _TRY_TWINS.get(name)
    if twin is None:
        return None
    return call(twin, *[a.copy() for a in _args(node)])


def _contain_by_twin(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    twin = _TRY_TWINS[_name(node)]
    if twin in SPARK4_TWINS and spark_major() < 4:
        message = (
            f"{_name(node)} raises on a bad value and its contained form ({twin}) needs Spark "
            "4.0 or newer; it is refused on this Spark"
        )
        raise policy_error(ctx, message, node)
    return _twin(node) or node


def _handler(node: exp.Expr) -> Callable[[exp.Expr, PassContext], exp.Expr] | None:
    handler = _BY_CLASS.get(type(node))
    if handler is None and isinstance(node, exp.Anonymous):
        handler = _BY_NAME.get(_name(node))
    if handler is None and _name(node) in _TRY_TWINS:
        return _contain_by_twin
    return handler


def contain_functions(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Replace each call that can raise on a bad value by its null-on-error form.

    >>> from quality_py.sql.build import to_sql
    >>> from quality_py.sql.parse import parse_expression
    >>> to_sql(contain_functions(parse_expression("to_number(s, '999') > 0"), ctx=PassContext()))
    "TRY_TO_NUMBER(s, '999') > 0"
    >>> to_sql(contain_functions(parse_expression("pmod(a, b) = 1"), ctx=PassContext()))
    'CASE WHEN b <> 0 THEN PMOD(a, b) END = 1'
    """
    if not ctx.policy.contain_errors:
        return tree

    return rewrite_innermost(tree, _handler, ctx)
