"""Pass: rewrite operations that fail under ANSI mode to forms that give null instead.

With ``spark.sql.ansi.enabled`` (the default from Spark 4) one bad value (``'abc'`` cast to
int, a division by zero, an overflow) aborts the whole job. A rule is a verdict on one row, so
such a value should make that row's rule null (stored as Failed), not stop every other row:

* ``CAST`` -> ``TRY_CAST``; ``+ - * /`` -> ``try_add``, ``try_subtract``, ``try_multiply``,
  ``try_divide``; ``a % b`` and ``a div b`` -> null when ``b = 0``;
  ``element_at`` -> ``try_element_at``; ``to_date``, ``to_timestamp`` and ``unix_timestamp`` of
  text -> the same parse through ``try_to_timestamp`` (a value that does not match gives null).

The same rule then gives the same result with ANSI on and off (off, Spark itself gives null for
bad casts and division by zero; integer overflow, which wraps around when ANSI is off, becomes
null in both). Runs after lambda inlining (bodies are user text too) and before library
expansion (our own arithmetic cannot fail). Skipped when the policy's ``contain_errors`` is off.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.build import call, paren, parsed_cast
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
        if isinstance(node, exp.Cast):  # CAST -> TRY_CAST, built as the parser builds it
            contained = _try_cast(node.this, node.args["to"])
            if node is tree:
                tree = contained
            else:
                node.replace(contained)
            continue
        if isinstance(node, exp.Bracket):  # element_at -> try_element_at
            node.set("safe", True)
            continue
        if isinstance(node, _DATE_PARSES) or _date_parse_call(node):
            parsed = _contained_date_parse(node)
            if node is tree:
                tree = parsed
            else:
                node.replace(parsed)
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


#: Parses of text into dates and times: under ANSI a value that does not match the format
#: (``'2023-02-30'``, ``'garbage'``) aborts the job.
_DATE_PARSES = (exp.TsOrDsToDate, exp.StrToTime, exp.StrToUnix)
_UNIX_DEFAULT_FORMAT = "yyyy-MM-dd HH:mm:ss"


def _format_literal(node: exp.Expr) -> exp.Expr | None:
    """The node's format as the Spark pattern literal it was written as, if it has one."""
    if node.args.get("format") is None:
        return None
    from quality_py.sql.dialect import DIALECT

    text = DIALECT.generator().format_time(node)  # quoted, as Spark reads it
    if not text:
        return None
    return exp.Literal.string(text[1:-1].replace("''", "'"))


def _try_cast(value: exp.Expr, to: exp.Expr) -> exp.Expr:
    return parsed_cast(value, to, safe=True)


def _to_date(value: exp.Expr, *, safe: bool) -> exp.Expr:
    return parsed_cast(value, exp.DataType.build("DATE"), safe=safe)


#: The same parses written as plain calls (the dialect keeps their patterns verbatim).
_DATE_PARSE_CALLS = frozenset({"to_date", "to_timestamp", "unix_timestamp", "to_unix_timestamp"})


def _date_parse_call(node: exp.Expr) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and str(node.this).lower() in _DATE_PARSE_CALLS
        and 1 <= len(node.expressions) <= 2
    )


def _contained_date_parse(node: exp.Expr) -> exp.Expr:
    """The same parse with a null instead of an error (Spark's own definitions: ``to_date(s,
    f)`` is ``CAST(to_timestamp(s, f) AS DATE)``, ``to_date(s)`` is ``CAST(s AS DATE)``,
    ``unix_timestamp(s, f)`` is the seconds of ``to_timestamp(s, f)``)."""
    if isinstance(node, exp.Anonymous):
        name = str(node.this).lower()
        value = node.expressions[0]
        fmt = node.expressions[1] if len(node.expressions) > 1 else None
        kind = {"to_date": exp.TsOrDsToDate, "to_timestamp": exp.StrToTime}.get(name, exp.StrToUnix)
        if kind is exp.StrToTime and fmt is None:
            return _try_cast(value, exp.DataType.build("TIMESTAMP"))
        return _date_parse(kind, value, fmt)
    return _date_parse(type(node), node.this, _format_literal(node))


def _date_parse(kind: type, value: exp.Expr, fmt: exp.Expr | None) -> exp.Expr:
    if kind is exp.TsOrDsToDate:
        if fmt is None:
            return _to_date(value, safe=True)
        parsed = call("try_to_timestamp", value, fmt)
        return _to_date(parsed, safe=False)
    if kind is exp.StrToTime:
        return call("try_to_timestamp", value, fmt or exp.Literal.string(_UNIX_DEFAULT_FORMAT))
    # StrToUnix: unix_timestamp / to_unix_timestamp of text
    return call(
        "unix_seconds",
        call("try_to_timestamp", value, fmt or exp.Literal.string(_UNIX_DEFAULT_FORMAT)),
    )


def _nonzero_literal(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and float(node.this) != 0


def _rewritable(node: exp.Expr) -> bool:
    if isinstance(node, exp.Cast):
        return not node.args.get("safe")
    if isinstance(node, exp.Bracket):  # only element_at(...), which is 1-based: arr[i] is not
        return node.args.get("offset") == 1 and not node.args.get("safe")
    if isinstance(node, exp.StrToUnix) and not isinstance(node.this, exp.Expr):
        return False  # unix_timestamp() reads the clock: nothing to parse
    if isinstance(node, exp.StrToUnix) and isinstance(node.this, exp.CurrentTimestamp):
        return False
    if _date_parse_call(node):
        return True
    return type(node) in _TRY or isinstance(node, (exp.Mod, exp.IntDiv, *_DATE_PARSES))
