"""Small constructors for the sqlglot nodes the compiler emits (never text concatenation)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlglot import exp

from quality_py.sql.dialect import DIALECT


def lit(value: int | float | str | bool | None) -> exp.Expr:
    """A literal; ints outside the 32-bit range become BIGINT literals."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, str):
        return exp.Literal.string(value)
    if isinstance(value, int) and not -(2**31) <= value < 2**31:
        return exp.Cast(this=exp.Literal.number(value), to=exp.DataType.build("BIGINT"))
    if isinstance(value, float):
        return exp.Cast(this=exp.Literal.number(repr(value)), to=exp.DataType.build("DOUBLE"))
    return exp.Literal.number(value)


def int_value(node: exp.Expr | None) -> int | None:
    """The value of an integer literal (through parentheses, casts and a minus sign), else None.

    >>> int_value(exp.Neg(this=exp.Literal.number(3))), int_value(exp.column("n"))
    (-3, None)
    """
    while isinstance(node, (exp.Paren, exp.Cast)):
        node = node.this
    if isinstance(node, exp.Neg):
        inner = int_value(node.this)
        return None if inner is None else -inner
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    return None


def bigint(value: int) -> exp.Expr:
    """A BIGINT literal whatever the value's size."""
    return exp.Cast(this=exp.Literal.number(value), to=exp.DataType.build("BIGINT"))


def call(name: str, *args: exp.Expr) -> exp.Expr:
    """A call to a Spark function by name, kept as written."""
    return exp.Anonymous(this=name, expressions=list(args))


_ATOMIC = (exp.Column, exp.Literal, exp.Paren, exp.Identifier, exp.Null, exp.Boolean)
# sqlglot classes And/Or (and some operators) as Func too; only call-like nodes are atomic.
_OPERATORS = (exp.Binary, exp.Unary, exp.Connector, exp.Predicate)


def is_atomic(node: exp.Expr) -> bool:
    """True when ``node`` generates self-delimited SQL (a name, literal, call or bracket)."""
    if isinstance(node, _ATOMIC):
        return True
    return isinstance(node, exp.Func) and not isinstance(node, _OPERATORS)


def paren(node: exp.Expr) -> exp.Expr:
    """Wrap in parentheses unless the node is self-delimited, so precedence cannot change.

    >>> from sqlglot import parse_one
    >>> paren(parse_one("a OR b")).sql()
    '(a OR b)'
    """
    return node if is_atomic(node) else exp.Paren(this=node)


def field(node: exp.Expr, *names: str) -> exp.Expr:
    """``node.name1.name2`` struct field access (on a copy: a node has one parent)."""
    out = paren(node.copy())
    for name in names:
        out = exp.Dot(this=out, expression=exp.to_identifier(name))
    return out


def named_struct(*pairs: tuple[str, exp.Expr]) -> exp.Expr:
    """``named_struct('a', x, ...)``."""
    args: list[exp.Expr] = []
    for name, value in pairs:
        args.extend((lit(name), value))
    return call("named_struct", *args)


def if_(cond: exp.Expr, then: exp.Expr, other: exp.Expr) -> exp.Expr:
    """``IF(cond, then, other)``."""
    return exp.If(this=cond, true=then, false=other)


def cast(node: exp.Expr, ddl: str) -> exp.Expr:
    """``CAST(node AS ddl)``."""
    return exp.Cast(this=node, to=exp.DataType.build(ddl, dialect=DIALECT))


def parsed_cast(value: exp.Expr, to: exp.Expr, *, safe: bool) -> exp.Expr:
    """``[TRY_]CAST(value AS to)`` built as the parser builds it: a cast node sqlglot made from
    ``int(s)`` generates as a plain CAST even when marked safe.

    >>> to_sql(parsed_cast(exp.column("s"), exp.DataType.build("INT"), safe=True))
    'TRY_CAST(s AS INT)'
    """
    node = DIALECT.parse(f"{'TRY_' if safe else ''}CAST(NULL AS INT)")[0]
    assert node is not None
    node.set("this", value)
    node.set("to", to)
    return node


def least(nodes: Sequence[exp.Expr]) -> exp.Expr:
    """``least(...)``, or the node itself when there is one (least needs two arguments)."""
    if len(nodes) == 1:
        return nodes[0]
    return call("least", *nodes)


#: What Spark's variable substitution replaces in any SQL text it parses, string literals
#: included (``${env:NAME}``, ``${system:prop}``, ``${any.spark.conf}``).
SUBSTITUTION = "${"


def to_sql(node: exp.Expr) -> str:
    """Generate Spark SQL for a node, immune to Spark's variable substitution.

    Every SQL text we hand Spark is generated here. A string literal holding ``${`` is written
    as a ``concat`` of pieces split between ``$`` and ``{`` (same value, nothing for Spark to
    substitute, whatever the session's settings), comments holding it are dropped, and any
    ``${`` left (a quoted identifier: the policy refuses those in rule text) is an error: no
    ``${`` ever reaches Spark's parser from here.

    >>> to_sql(exp.EQ(this=exp.column("s"), expression=exp.Literal.string("a${env:HOME}")))
    "s = CONCAT('a$', '{env:HOME}')"
    """
    sql = node.sql(dialect=DIALECT)
    if SUBSTITUTION not in sql:
        return sql
    sql = _immune(node).sql(dialect=DIALECT)
    if SUBSTITUTION in sql:
        from quality_py.errors import PolicyError

        raise PolicyError(
            "the SQL would hold '${' outside a string literal (a quoted name): Spark would "
            "substitute an environment variable or a setting there, so it is refused"
        )
    return sql


def _immune(node: exp.Expr) -> exp.Expr:
    """A copy of ``node`` whose string literals and comments hold no ``${``."""

    def split(n: exp.Expr) -> exp.Expr:
        if n.comments and any(SUBSTITUTION in c for c in n.comments):
            n.comments = [c for c in n.comments if SUBSTITUTION not in c]
        if isinstance(n, exp.Literal) and n.is_string and SUBSTITUTION in n.this:
            pieces = str(n.this).split(SUBSTITUTION)
            parts = [pieces[0] + "$"]
            parts += ["{" + p + "$" for p in pieces[1:-1]]
            parts.append("{" + pieces[-1])
            return exp.Anonymous(this="concat", expressions=[exp.Literal.string(p) for p in parts])
        return n

    return node.copy().transform(split, copy=False)


def substitute(template: exp.Expr, name: str, value: exp.Expr) -> exp.Expr:
    """Copy ``template`` and replace every column reference ``name`` by a copy of ``value``."""

    def swap(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table and node.name == name:
            return paren(value.copy())
        return node

    return template.copy().transform(swap, copy=False)


#: What a rewrite handler is given besides its node (a pass's context).
Context = TypeVar("Context")


def rewrite_innermost(
    tree: exp.Expr,
    handler_of: Callable[[exp.Expr], Callable[[exp.Expr, Context], exp.Expr] | None],
    ctx: Context,
) -> exp.Expr:
    """``tree`` with every node ``handler_of`` has a handler for replaced by
    ``handler(copy_of_node, ctx)``, innermost first (a guard then holds its already rewritten
    arguments). The handler may embed the detached copy (``CASE WHEN ok THEN call END``) or
    return it unchanged.

    >>> from quality_py.sql.parse import parse_expression
    >>> def neg(n):
    ...     return (lambda c, _: exp.Neg(this=c)) if isinstance(n, exp.Column) else None
    >>> to_sql(rewrite_innermost(parse_expression("a + b"), neg, None))
    '-a + -b'
    """
    nodes = [n for n in tree.walk(bfs=False) if handler_of(n) is not None]
    for node in reversed(nodes):
        handler = handler_of(node)
        assert handler is not None
        original = node.copy()
        replacement = handler(original, ctx)
        if replacement is original:
            continue
        if node is tree:
            tree = replacement
        else:
            node.replace(replacement)
    return tree
