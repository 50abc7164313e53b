"""Small SQL texts built from syntax trees, for the modules that do not speak sqlglot
(dataset checks, quality runs, session helpers): quoted names, IN lists, regex tests, structs,
and the rewrite that takes ``FILTER`` clauses out of aggregates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp, parse_one

from quality_py.errors import InputError
from quality_py.sql.build import call, cast, lit, named_struct, to_sql
from quality_py.sql.dialect import DIALECT


def quoted(name: str) -> str:
    """A column name as a quoted identifier (any name works: dots, spaces, backticks).

    >>> quoted("note.text")
    '`note.text`'
    """
    return to_sql(exp.column(name, quoted=True))


def table_name(name: str) -> str:
    """A table name (``catalog.schema.table``; parts may be back-quoted) as SQL text with every
    part quoted, so that nothing of it reads as SQL; anything but a name is refused.

    >>> table_name("main.dq.valid"), table_name("`my db`.t")
    ('`main`.`dq`.`valid`', '`my db`.`t`')
    """
    try:
        table = exp.to_table(name.removeprefix("table:"), dialect="spark")
    except Exception:
        table = None
    parts = [] if table is None else [p for p in table.parts if isinstance(p, exp.Identifier)]
    if table is None or not parts or len(parts) != len(table.parts) or len(parts) > 3:
        raise InputError(f"{name!r} is not a table name (catalog.schema.table)", item_kind="table")
    return ".".join(to_sql(exp.to_identifier(p.name, quoted=True)) for p in parts)


def string_literal(value: str) -> str:
    """``value`` as a SQL string literal (escaped, immune to Spark's ``${}`` substitution).

    >>> string_literal("it's"), string_literal("a${b}")
    ("'it\\\\'s'", "CONCAT('a$', '{b}')")
    """
    return to_sql(lit(value))


def in_list(column: str, values: Sequence[Any]) -> str:
    """``column IN (values...)`` with the values as literals.

    >>> in_list("origin", ["EWR", "JFK"])
    "`origin` IN ('EWR', 'JFK')"
    """
    node = exp.In(this=exp.column(column, quoted=True), expressions=[lit(v) for v in values])
    return to_sql(node)


def regexp_like(column: str, pattern: str) -> str:
    """``column RLIKE 'pattern'`` with the pattern as a literal.

    >>> regexp_like("s", "^a+$")
    "`s` RLIKE '^a+$'"
    """
    node = exp.RegexpLike(
        this=exp.column(column, quoted=True), expression=exp.Literal.string(pattern)
    )
    return to_sql(node)


def struct_of_literals(fields: Sequence[tuple[str, Any, str]]) -> str:
    """``named_struct`` of ``(name, value, type)`` literals, each cast to its type.

    >>> struct_of_literals([("id", 5, "INT"), ("note", None, "STRING")])
    "NAMED_STRUCT('id', CAST(5 AS INT), 'note', CAST(NULL AS STRING))"
    """
    return to_sql(named_struct(*[(n, cast(lit(v), t)) for n, v, t in fields]))


def library_call_sql(name: str, *params: str) -> str:
    """A library function called on parameters given by name, expanded by the passes.

    >>> library_call_sql("passed")
    '100000'
    """
    from quality_py.sql.context import PassContext
    from quality_py.sql.passes import run_passes

    return to_sql(run_passes(call(name, *[exp.column(p) for p in params]), PassContext()))


def without_filter(sql: str) -> str:
    """``agg(x) FILTER (WHERE p)`` as ``agg(IF(p, x, NULL))`` (literal arguments stay).

    >>> without_filter("count(1) FILTER (WHERE a > 0)")
    'COUNT(IF(a > 0, 1, NULL))'
    >>> without_filter("hll_sketch_agg(s, 12) FILTER (WHERE b)")
    'HLL_SKETCH_AGG(IF(b, s, NULL), 12)'
    """
    tree = parse_one(sql, dialect=DIALECT)

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Filter):
            return node
        agg, predicate = node.this, node.expression.this
        first = True
        for key, value in list(agg.args.items()):
            values = value if isinstance(value, list) else [value]
            wrapped = []
            for v in values:
                keep = not isinstance(v, exp.Expr) or (isinstance(v, exp.Literal) and not first)
                wrapped.append(
                    v if keep else exp.If(this=predicate.copy(), true=v, false=exp.Null())
                )
                first = False if isinstance(v, exp.Expr) else first
            agg.set(key, wrapped if isinstance(value, list) else wrapped[0])
        result: exp.Expr = agg
        return result

    return to_sql(tree.transform(rewrite))
