"""Functions over the expression runners' results: ``to_yaml``, ``from_yaml``,
``strip_result_ddl`` (see quality_py/runners/expressions.py).

The original writes values as YAML; here ``to_yaml`` writes JSON (which is YAML) with Spark's
``to_json`` and ``from_yaml(text, 'ddl')`` reads it back with ``from_json``, so both are built-in
SQL and round-trip every type ``to_json`` writes.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, field, lit, named_struct
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library import library_error, register


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_ARGUMENTS")


def to_yaml_sql(value: exp.Expr) -> exp.Expr:
    """The JSON text of any value: ``to_json`` of a one-element array, brackets removed."""
    wrapped = call("to_json", call("array", value))
    return call("regexp_extract", wrapped, lit(r"^\[(.*)\]$"), lit(1))


@register("to_yaml", 1, 2)
def _to_yaml(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value as JSON text (JSON is YAML); a second argument (render options) is ignored."""
    return to_yaml_sql(args[0])


@register("from_yaml", 2)
def _from_yaml(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value of ``to_yaml`` text, of the type given as a DDL string literal."""
    ddl = args[1]
    if not (isinstance(ddl, exp.Literal) and ddl.is_string):
        raise _error(ctx, "from_yaml takes the type as a DDL string literal, e.g. 'BIGINT'", ddl)
    try:
        kind = exp.DataType.build(str(ddl.this), dialect=DIALECT).sql(dialect=DIALECT)
    except Exception:
        raise _error(ctx, f"from_yaml: {ddl.this!r} is not a Spark type", ddl) from None
    text = call("concat", lit("["), args[0], lit("]"))
    return call("element_at", call("from_json", text, lit(f"ARRAY<{kind}>")), lit(1))


@register("strip_result_ddl", 1)
def _strip_result_ddl(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Expression results with only each value's text (the ``resultDDL`` dropped)."""
    results = args[0]
    k1, m, k2, v = (ctx.fresh_name(n) for n in ("k", "m", "k", "v"))
    inner = exp.Lambda(
        this=field(exp.column(v), "result"),
        expressions=[exp.to_identifier(k2), exp.to_identifier(v)],
    )
    outer = exp.Lambda(
        this=call("transform_values", exp.column(m), inner),
        expressions=[exp.to_identifier(k1), exp.to_identifier(m)],
    )
    return named_struct(
        ("id", field(results, "id")),
        ("ruleSetResults", call("transform_values", field(results, "ruleSetResults"), outer)),
    )
