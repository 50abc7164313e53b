"""Functions over the expression runners' results: ``to_yaml``, ``from_yaml``,
``strip_result_ddl`` (see quality_py/runners/expressions.py).

The original writes values as YAML; here ``to_yaml`` writes JSON (which is YAML) with Spark's
``to_json`` and ``from_yaml(text, 'ddl')`` reads it back with ``from_json``, so both are built-in
SQL. ``from_yaml(to_yaml(x), type)`` equals ``x`` for every Spark type (a property test generates
nested types and values): timestamps are written with microseconds and their offset, and a map
whose keys are not text (numbers, structs, arrays, decimals, dates) is written as the list of its
entries, ``[{"key": ..., "value": ...}]``, since JSON object keys are text and Spark writes a
struct key as lossy text. That needs the value's type, which every runner holding a DataFrame
gives the compiler; without it (a Column built with no DataFrame) such maps are written as Spark
writes them, and ``from_yaml`` refuses to read them back rather than guess.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, field, if_, lit, named_struct, paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import library_error, register
from quality_py.sql.spark_types import is_text, parse_type, type_sql


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_ARGUMENTS")


#: ``to_json``/``from_json`` options: timestamps with microseconds (Spark's default stops at
#: milliseconds) and, for TIMESTAMP, the offset, so the instant is exact in any time zone.
_JSON_OPTIONS = (
    ("timestampFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"),
    ("timestampNTZFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSSSS"),
)


def _options() -> exp.Expr:
    return call("map", *[lit(x) for pair in _JSON_OPTIONS for x in pair])


def _entries_form(kind: exp.DataType) -> bool:
    """A map whose keys JSON cannot write as object keys exactly (anything but text)."""
    return kind.this == exp.DType.MAP and not is_text(kind.expressions[0])


def wire_type(kind: exp.DataType) -> exp.DataType:
    """The type ``to_yaml`` writes a value of ``kind`` as (see the module docs); text types
    become STRING (``from_json`` reads no CHAR/VARCHAR)."""
    if is_text(kind):
        return exp.DataType.build("STRING")
    if kind.this == exp.DType.ARRAY:
        return exp.DataType(this=exp.DType.ARRAY, expressions=[wire_type(kind.expressions[0])],
                            nested=True)  # fmt: skip
    if kind.this == exp.DType.MAP:
        key, value = (wire_type(k) for k in kind.expressions)
        if _entries_form(kind):
            entry = exp.DataType(
                this=exp.DType.STRUCT,
                expressions=[_field_def("key", key), _field_def("value", value)],
                nested=True,
            )
            return exp.DataType(this=exp.DType.ARRAY, expressions=[entry], nested=True)
        return exp.DataType(this=exp.DType.MAP, expressions=[key, value], nested=True)
    if kind.this == exp.DType.STRUCT:
        fields = [_field_def(f.name, wire_type(f.args["kind"])) for f in kind.expressions]
        return exp.DataType(this=exp.DType.STRUCT, expressions=fields, nested=True)
    return kind.copy()


def _field_def(name: str, kind: exp.DataType) -> exp.ColumnDef:
    return exp.ColumnDef(this=exp.to_identifier(name), kind=kind)


def _fields(kind: exp.DataType) -> list[tuple[str, exp.DataType]]:
    return [(f.name, f.args["kind"]) for f in kind.expressions]


def _same(kind: exp.DataType) -> bool:
    """Whether ``kind`` is written as it is (no entries form and no CHAR/VARCHAR inside)."""
    if is_text(kind):
        return bool(kind.this == exp.DType.TEXT)
    if _entries_form(kind):
        return False
    if kind.this == exp.DType.STRUCT:
        return all(_same(t) for _, t in _fields(kind))
    if kind.this in (exp.DType.ARRAY, exp.DType.MAP):
        return all(_same(t) for t in kind.expressions)
    return True


def _lambda(body: exp.Expr, *names: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(n) for n in names])


def _struct_of(value: exp.Expr, parts: list[tuple[str, exp.Expr]]) -> exp.Expr:
    """``named_struct`` of ``parts``, null when ``value`` is null (as a null struct stays)."""
    built = named_struct(*parts)
    return if_(exp.Is(this=paren(value.copy()), expression=exp.Null()), exp.Null(), built)


def encode(value: exp.Expr, kind: exp.DataType, ctx: PassContext) -> exp.Expr:
    """``value`` (of ``kind``) as its :func:`wire_type`."""
    return _convert(value, kind, ctx, writing=True)


def decode(value: exp.Expr, kind: exp.DataType, ctx: PassContext) -> exp.Expr:
    """A value of ``wire_type(kind)`` back as ``kind``."""
    return _convert(value, kind, ctx, writing=False)


def _convert(value: exp.Expr, kind: exp.DataType, ctx: PassContext, writing: bool) -> exp.Expr:
    """:func:`encode` (``writing``) or :func:`decode`: the same walk over the type, each map
    whose keys are not text turned into its entries or back."""

    def inner(v: exp.Expr, k: exp.DataType) -> exp.Expr:
        return _convert(v, k, ctx, writing)

    if _same(kind):
        return value
    if kind.this == exp.DType.ARRAY:
        x = ctx.fresh_name("y")
        return call("transform", value, _lambda(inner(exp.column(x), kind.expressions[0]), x))
    if kind.this == exp.DType.MAP:
        key, item = kind.expressions
        if _entries_form(kind):
            entries = call("map_entries", value) if writing else value
            if not (_same(key) and _same(item)):
                e = ctx.fresh_name("e")
                entry = named_struct(
                    ("key", inner(field(exp.column(e), "key"), key)),
                    ("value", inner(field(exp.column(e), "value"), item)),
                )
                entries = call("transform", entries, _lambda(entry, e))
            return entries if writing else call("map_from_entries", entries)
        k, v = ctx.fresh_name("k"), ctx.fresh_name("v")
        return call("transform_values", value, _lambda(inner(exp.column(v), item), k, v))
    if kind.this == exp.DType.STRUCT:
        parts = [(n, inner(field(paren(value.copy()), n), t)) for n, t in _fields(kind)]
        return _struct_of(value, parts)
    if is_text(kind) and not writing:
        return exp.Cast(this=value, to=kind.copy())
    return value


def to_yaml_sql(
    value: exp.Expr, kind: exp.DataType | None = None, ctx: PassContext | None = None
) -> exp.Expr:
    """The JSON text of any value: ``to_json`` of a one-element array, brackets removed; with
    the value's type, maps with keys that are not text are written as their entries."""
    if kind is not None:
        value = encode(value, kind, ctx or PassContext())
    wrapped = call("to_json", call("array", value), _options())
    return call("regexp_extract", wrapped, lit(r"^\[(.*)\]$"), lit(1))


@register("to_yaml", 1, 2)
def _to_yaml(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value as JSON text (JSON is YAML); a second argument (render options) is ignored."""
    known = ctx.kind(to_sql(args[0]))
    return to_yaml_sql(args[0], parse_type(known) if known else None, ctx)


@register("from_yaml", 2)
def _from_yaml(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The value of ``to_yaml`` text, of the type given as a DDL string literal."""
    ddl = args[1]
    if not (isinstance(ddl, exp.Literal) and ddl.is_string):
        raise _error(ctx, "from_yaml takes the type as a DDL string literal, e.g. 'BIGINT'", ddl)
    try:
        kind = parse_type(str(ddl.this))
        wire = type_sql(wire_type(kind))
    except Exception:
        raise _error(ctx, f"from_yaml: {ddl.this!r} is not a Spark type", ddl) from None
    text = call("concat", lit("["), args[0], lit("]"))
    parsed = call("element_at", call("from_json", text, lit(f"ARRAY<{wire}>"), _options()), lit(1))
    return decode(parsed, kind, ctx)


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
