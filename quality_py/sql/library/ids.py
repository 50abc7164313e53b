"""Library functions over ids, long pairs, uuids and maps, expanded into Spark built-ins.

The original implements these as JVM expressions; here each is a fixed SQL template whose
placeholders (``__a0``, ``__a1`` ...) are replaced by the call's argument trees, so no rule text
is ever pasted into SQL. The results are the original's, value for value (tests check them
against Python's ``uuid`` module):

* ``long_pair(lower, higher)``: ``struct<lower: bigint, higher: bigint>``;
* ``as_uuid(lower, higher)``: the string of ``java.util.UUID(higher, lower)``: ``higher`` gives
  the first 16 hex digits, ``lower`` the last 16;
* ``long_pair_from_uuid(uuid)``: the reverse (null for anything but the canonical 36-character
  form, where Java would throw or accept shortened groups);
* ``long_pair_equal('l', 'r')`` / ``id_equal('l', 'r')``: the join condition over prefixed fields
  (``l_lower = r_lower AND l_higher = r_higher``; ``l_base = r_base AND l_i0 = r_i0 AND
  l_i1 = r_i1``);
* ``prefixed_to_long_pair(id, 'p')``: ``long_pair(id.p_i0, id.p_i1)`` of a 128-bit prefixed id;
* ``comparable_maps(m)`` / ``reverse_comparable_maps(a)``: a map as the array of its entries
  sorted by key (so it can be grouped, sorted, compared) and back.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import field, named_struct
from quality_py.sql.context import PassContext
from quality_py.sql.dialect import DIALECT
from quality_py.sql.library.registry import expand, library_error, register


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_TYPE")


def _name_literal(node: exp.Expr, fn: str, what: str, ctx: PassContext) -> list[str]:
    """A string literal naming a field (``'a'`` or a nested ``'s.a'``), as its parts."""
    if not (isinstance(node, exp.Literal) and node.is_string) or not node.this.strip():
        raise _error(ctx, f"{fn} takes the {what} as a string literal, e.g. 'id'", node)
    parts: list[str] = str(node.this).split(".")
    if any(not p for p in parts):
        raise _error(ctx, f"{fn}: {node.this!r} is not a field name", node)
    return parts


def _prefixed(parts: list[str], suffix: str) -> exp.Expr:
    """The field ``parts`` with ``_<suffix>`` appended to its last name."""
    *path, last = parts
    name = f"{last}_{suffix}"
    if not path:
        return exp.column(exp.to_identifier(name))
    return field(exp.column(exp.to_identifier(path[0])), *path[1:], name)


# try_cast: an argument that is not a number gives null instead of aborting the job under ANSI
_LONG_PAIR = "named_struct('lower', TRY_CAST(__a0 AS BIGINT), 'higher', TRY_CAST(__a1 AS BIGINT))"
# Spark's hex() of a BIGINT is its two's complement, unpadded and upper case.
_AS_UUID = (
    "lower(regexp_replace(concat(lpad(hex(TRY_CAST(__a1 AS BIGINT)), 16, '0'), "
    "lpad(hex(TRY_CAST(__a0 AS BIGINT)), 16, '0')), "
    "'^(.{8})(.{4})(.{4})(.{4})(.{12})$', '$1-$2-$3-$4-$5'))"
)
# conv(x, 16, -10) reads 16 hex digits as a signed 64-bit number. The argument is repeated rather
# than bound by a lambda: Spark interprets lambdas row by row, and a uuid is usually a column.
_FROM_UUID = (
    "IF(CAST(__a0 AS STRING) RLIKE "
    "'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', "
    "named_struct("
    "'lower', CAST(conv(substr(replace(CAST(__a0 AS STRING), '-', ''), 17, 16), 16, -10) "
    "AS BIGINT), "
    "'higher', CAST(conv(substr(replace(CAST(__a0 AS STRING), '-', ''), 1, 16), 16, -10) "
    "AS BIGINT)), "
    "CAST(NULL AS STRUCT<lower: BIGINT, higher: BIGINT>))"
)


@register("long_pair", 2)
def _long_pair(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<lower, higher>`` of two longs."""
    return expand(_LONG_PAIR, *args)


@register("as_uuid", 2)
def _as_uuid(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The uuid string of a lower and a higher long (``java.util.UUID(higher, lower)``)."""
    return expand(_AS_UUID, *args)


@register("long_pair_from_uuid", 1)
def _long_pair_from_uuid(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The lower and higher longs of a uuid string (null unless it has the canonical form)."""
    return expand(_FROM_UUID, *args)


def _is_text(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


@register("prefixed_to_long_pair", 2)
def _prefixed_to_long_pair(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``long_pair(id.<p>_i0, id.<p>_i1)`` of a 128-bit id whose fields carry prefix ``p``;
    ``(id, 'p')`` or, as the original registers it, ``('p', id)``."""
    first_text, second_text = (_is_text(a) for a in args)
    if first_text and second_text:
        raise _error(
            ctx,
            "prefixed_to_long_pair takes an id and a prefix: with two string literals it cannot "
            "tell which is the id",
            args[0],
        )
    value, prefix = (args[1], args[0]) if first_text else (args[0], args[1])
    parts = _name_literal(prefix, "prefixed_to_long_pair", "prefix", ctx)
    if len(parts) != 1:
        raise _error(ctx, "prefixed_to_long_pair takes a prefix, not a path", prefix)
    lower = field(value, f"{parts[0]}_i0")
    higher = field(value, f"{parts[0]}_i1")
    return expand(_LONG_PAIR, lower, higher)


def _equal_fields(
    args: list[exp.Expr], ctx: PassContext, fn: str, suffixes: tuple[str, ...]
) -> exp.Expr:
    left = _name_literal(args[0], fn, "left prefix", ctx)
    right = _name_literal(args[1], fn, "right prefix", ctx)
    terms = [exp.EQ(this=_prefixed(left, s), expression=_prefixed(right, s)) for s in suffixes]
    out: exp.Expr = terms[0]
    for term in terms[1:]:
        out = exp.And(this=out, expression=term)
    return exp.Paren(this=out)


@register("long_pair_equal", 2)
def _long_pair_equal(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``l_lower = r_lower AND l_higher = r_higher`` for prefixes ``'l'`` and ``'r'``."""
    return _equal_fields(args, ctx, "long_pair_equal", ("lower", "higher"))


@register("id_equal", 2)
def _id_equal(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``l_base = r_base AND l_i0 = r_i0 AND l_i1 = r_i1`` for prefixes ``'l'`` and ``'r'``."""
    return _equal_fields(args, ctx, "id_equal", ("base", "i0", "i1"))


@register("comparable_maps", 1)
def _comparable_maps(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """A map as the array of its ``struct<key, value>`` entries sorted by key."""
    return expand("array_sort(map_entries(__a0))", *args)


@register("reverse_comparable_maps", 1)
def _reverse_comparable_maps(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The map of an array made by ``comparable_maps``."""
    return expand("map_from_entries(__a0)", *args)


# rng_uuid: java.util.UUID(most, least) with the version-4 and IETF-variant bits set, as Spark's
# own uuid() does; a struct gives most = higher and least = lower, 16 bytes give two
# little-endian longs (most from bytes 0-7).
_VERSIONED = (
    "named_struct("
    "'lower', (TRY_CAST(__a0 AS BIGINT) | shiftleft(CAST(1 AS BIGINT), 63)) "
    "& ~shiftleft(CAST(1 AS BIGINT), 62), "
    "'higher', (TRY_CAST(__a1 AS BIGINT) & ~CAST(61440 AS BIGINT)) | CAST(16384 AS BIGINT))"
)


def _little_endian_long(hexed: exp.Expr, start: int) -> exp.Expr:
    """The signed long of 8 bytes read little-endian from hex ``hexed`` at byte ``start``."""
    pairs = ", ".join(f"substr(__a0, {1 + 2 * (start + 7 - i)}, 2)" for i in range(8))
    return expand(f"CAST(conv(concat({pairs}), 16, -10) AS BIGINT)", hexed)


@register("rng_uuid", 1)
def _rng_uuid(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """A version-4 uuid string of a lower/higher long pair or of 16 bytes (the original's)."""
    arg = args[0]
    kind = ctx.kind(arg.sql(dialect=DIALECT))
    if kind == "binary":
        hexed = expand("IF(length(__a0) = 16, hex(__a0), NULL)", arg)
        most, least = _little_endian_long(hexed, 0), _little_endian_long(hexed, 8)
    else:
        most, least = field(arg, "higher"), field(arg, "lower")
    pair = expand(_VERSIONED, least, most)
    return expand(_AS_UUID, field(pair, "lower"), field(pair, "higher"))


@register("provided_id", 2)
def _provided_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base, p_i0, ...>`` of an id provided as a struct of longs (its field count is
    the base, as in the original)."""
    prefix = _name_literal(args[0], "provided_id", "prefix", ctx)
    if len(prefix) != 1:
        raise _error(ctx, "provided_id takes a prefix, not a path", args[0])
    kind = ctx.kind(args[1].sql(dialect=DIALECT))
    fields = [
        part.split(":", 1) for part in (kind or "")[len("struct<") : -1].split(",") if ":" in part
    ]
    if not (kind or "").startswith("struct<") or any(t.strip() != "bigint" for _, t in fields):
        raise _error(
            ctx, "provided_id takes a struct of BIGINT fields (e.g. long_pair(lo, hi))", args[1]
        )
    names = [n.strip() for n, _ in fields]
    pairs: list[tuple[str, exp.Expr]] = [(f"{prefix[0]}_base", exp.Literal.number(len(names)))]
    pairs += [(f"{prefix[0]}_i{i}", field(args[1], n)) for i, n in enumerate(names)]
    return named_struct(*pairs)
