"""Pass: contain the calls that raise on a value out of their range (indexes, sizes, keys).

Found by the signature fuzzer (``tests/spark/test_function_fuzz.py``): each call below aborts
the job on some value of its arguments under ANSI mode, even in its ``try_`` form. Each
becomes a guard that gives null (the row's rule fails) exactly there; everywhere else the call
is Spark's own:

* ``a[i]`` out of the array's bounds, ``element_at(a, 0)``/``try_element_at(a, 0)``. The same
  syntax reads maps, whose keys never raise, and the pass does not know the type: the guard
  applies when ``typeof(a)`` (folded by Spark) is an array, and reads the index through
  explicit casts that cannot fail (``CAST(i AS STRING)``, then ``TRY_CAST`` to a number);
* ``ceil``/``floor`` of a double beyond a bigint (they return bigint);
* ``array_insert`` at a position past the cap (Spark pads with nulls: a position of 2^31 asks
  for more elements than an array holds);
* ``map(k, v, ...)`` with a null or repeated key, ``map_from_arrays`` with arrays of different
  lengths;
* ``timestamp_seconds``/``timestamp_millis`` past the microseconds a timestamp holds;
* searches of one text of the data for another (``instr``, ``locate``, ``position``,
  ``contains``, ``replace``, ``split_part``, ``substring_index``): Spark compares at every
  position, so the cost is the product of the two lengths; past :data:`SEARCH_STEPS` the row
  fails instead of running for minutes (``levenshtein`` is bounded the same way in
  ``contain_functions``). A literal search text keeps the cost linear and is left alone.

Runs after ``contain_functions``; skipped when the policy's ``contain_errors`` is off.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from quality_py.sql.build import call, lit, paren, rewrite_innermost
from quality_py.sql.context import PassContext

#: The largest double whose ceiling and floor fit a bigint (2^63 rounded down to a double).
_BIGINT_DOUBLE = "9.223372036854775E18"


def _when(condition: exp.Expr, value: exp.Expr) -> exp.Expr:
    return paren(exp.Case(ifs=[exp.If(this=condition, true=value)]))


def _unless(condition: exp.Expr, value: exp.Expr) -> exp.Expr:
    """``CASE WHEN condition THEN NULL ELSE value END``."""
    return paren(exp.Case(ifs=[exp.If(this=condition, true=exp.Null())], default=value))


def _is_array(value: exp.Expr) -> exp.Expr:
    """True when ``value`` is an array (``typeof`` is folded by Spark before the run)."""
    return exp.Like(
        this=call("typeof", paren(value.copy())), expression=exp.Literal.string("array<%")
    )


def _as_bigint(value: exp.Expr) -> exp.Expr:
    """``value`` as a bigint through casts that cannot fail for any type (null if no number)."""
    text = exp.Cast(this=paren(value.copy()), to=exp.DataType.build("STRING"))
    return exp.TryCast(this=text, to=exp.DataType.build("BIGINT"), safe=True)


def _false_if_null(condition: exp.Expr) -> exp.Expr:
    return call("coalesce", paren(condition), exp.false())


def _contain_bracket(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    collection, index = node.this, (node.expressions or [None])[0]
    if index is None or not isinstance(collection, exp.Expr):
        return node
    number = _as_bigint(index)
    if node.args.get("offset") == 1:  # element_at: 1-based, 0 raises even in try_element_at
        bad = _false_if_null(exp.EQ(this=number, expression=lit(0)))
    else:  # a[i]: 0-based, out of bounds raises under ANSI
        inside = exp.Between(
            this=number,
            low=lit(0),
            high=exp.Sub(this=call("size", paren(collection.copy())), expression=lit(1)),
        )
        bad = exp.Not(this=_false_if_null(inside))
    return _unless(exp.And(this=_is_array(collection), expression=bad), node)


def _contain_rounding(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    if node.args.get("decimals") is not None:
        return node  # with a scale the value stays a decimal or double
    value = node.this
    is_double = exp.In(
        this=call("typeof", paren(value.copy())),
        expressions=[exp.Literal.string("double"), exp.Literal.string("float")],
    )
    as_double = exp.TryCast(this=paren(value.copy()), to=exp.DataType.build("DOUBLE"), safe=True)
    fits = exp.Between(
        this=as_double,
        low=exp.Neg(this=exp.Literal.number(_BIGINT_DOUBLE)),
        high=exp.Literal.number(_BIGINT_DOUBLE),
    )
    present = exp.Not(this=exp.Is(this=paren(value.copy()), expression=exp.Null()))
    number = exp.Not(this=call("isnan", as_double.copy()))  # Spark gives 0 for NaN
    bad = exp.And(
        this=is_double,
        expression=exp.And(
            this=exp.And(this=present, expression=number),
            expression=exp.Not(this=_false_if_null(fits)),
        ),
    )
    return _unless(bad, node)


def _contain_array_insert(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    array, position = node.this, node.args.get("position")
    if not isinstance(position, exp.Expr):
        return node
    reach = exp.Add(
        this=exp.Cast(this=call("size", paren(array.copy())), to=exp.DataType.build("BIGINT")),
        expression=lit(ctx.policy.max_amplification),
    )
    fits = exp.Between(
        this=exp.Cast(this=paren(position.copy()), to=exp.DataType.build("BIGINT")),
        low=exp.Neg(this=paren(reach)),
        high=reach.copy(),
    )
    return _when(
        exp.And(this=exp.NEQ(this=paren(position.copy()), expression=lit(0)), expression=fits), node
    )


def _keys_ok(keys: exp.Expr) -> exp.Expr:
    """Every key present, none repeated."""
    size = call("size", keys.copy())
    return exp.EQ(
        this=call("size", call("array_compact", call("array_distinct", keys.copy()))),
        expression=size,
    )


def _contain_var_map(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    keys = node.args.get("keys")
    if not isinstance(keys, exp.Array) or all(isinstance(k, exp.Literal) for k in keys.expressions):
        return node  # literal keys: Spark checks them before the run
    return _when(_keys_ok(keys), node)


def _contain_map_from_arrays(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    keys, values = node.args.get("keys"), node.args.get("values")
    if not isinstance(keys, exp.Expr) or not isinstance(values, exp.Expr):
        return node
    same = exp.EQ(
        this=call("size", paren(keys.copy())), expression=call("size", paren(values.copy()))
    )
    return _when(exp.And(this=_keys_ok(paren(keys.copy())), expression=same), node)


def _contain_epoch(limit: str) -> Callable[[exp.Expr, PassContext], exp.Expr]:
    def contain(node: exp.Expr, ctx: PassContext) -> exp.Expr:
        value = (
            node.expressions[0] if isinstance(node, exp.Anonymous) and node.expressions else None
        )
        if value is None:
            return node
        bound = exp.Literal.number(limit)
        fits = exp.Between(this=paren(value.copy()), low=exp.Neg(this=bound), high=bound.copy())
        return _when(fits, node)

    return contain


#: The most character comparisons one search of a text of the data for another may make.
SEARCH_STEPS = 100_000_000
#: Search calls: the argument searched in and the one searched for.
_SEARCHES: dict[type, tuple[str, str]] = {
    exp.StrPosition: ("this", "substr"),
    exp.Contains: ("this", "expression"),
    exp.Replace: ("this", "expression"),
    exp.SplitPart: ("this", "delimiter"),
    exp.SubstringIndex: ("this", "delimiter"),
}


def _contain_search(node: exp.Expr, ctx: PassContext) -> exp.Expr:
    subject, needle = (node.args.get(k) for k in _SEARCHES[type(node)])
    if not isinstance(subject, exp.Expr) or not isinstance(needle, exp.Expr):
        return node
    if isinstance(subject, exp.Literal) or isinstance(needle, exp.Literal):
        return node  # a literal side: linear in the other

    def length(value: exp.Expr) -> exp.Expr:
        return exp.Cast(this=call("length", paren(value.copy())), to=exp.DataType.build("BIGINT"))

    steps = exp.Mul(this=length(subject), expression=length(needle))
    return _when(exp.LTE(this=steps, expression=lit(SEARCH_STEPS)), node)


_BY_CLASS: dict[type, Callable[[exp.Expr, PassContext], exp.Expr]] = {
    **dict.fromkeys(_SEARCHES, _contain_search),
    exp.Bracket: _contain_bracket,
    exp.Ceil: _contain_rounding,
    exp.Floor: _contain_rounding,
    exp.ArrayInsert: _contain_array_insert,
    exp.VarMap: _contain_var_map,
    exp.Map: _contain_map_from_arrays,
}
#: Seconds and milliseconds a timestamp holds (its microseconds are a bigint).
_BY_NAME: dict[str, Callable[[exp.Expr, PassContext], exp.Expr]] = {
    "timestamp_seconds": _contain_epoch("9.2E12"),
    "timestamp_millis": _contain_epoch("9.2E15"),
}


def _handler(node: exp.Expr) -> Callable[[exp.Expr, PassContext], exp.Expr] | None:
    found = _BY_CLASS.get(type(node))
    if found is None and isinstance(node, exp.Anonymous):
        found = _BY_NAME.get(str(node.this).lower())
    return found


def contain_ranges(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Guard each call that raises on a value out of its range.

    >>> from quality_py.sql.build import to_sql
    >>> from quality_py.sql.parse import parse_expression
    >>> sql = to_sql(contain_ranges(parse_expression("ceil(d) > 0"), ctx=PassContext()))
    >>> sql.startswith("CASE WHEN TYPEOF(d) IN ('double', 'float') AND NOT d IS NULL")
    True
    """
    if not ctx.policy.contain_errors:
        return tree

    return rewrite_innermost(tree, _handler, ctx)
