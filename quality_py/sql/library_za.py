"""The original's ``za_*`` ids and hashes: 64- and 128-bit hashes of fields as longs.

The original computes these with a "zero allocation" Java hashing library that Spark does not
ship. Here the fields are fed to the hash as ``hash_with`` feeds them (ints and longs
little-endian, strings as UTF-8, a null field feeds nothing: see
:mod:`quality_py.sql.library_digests`) and the hashes are:

* ``XX`` (64 bits): Spark's built-in ``xxhash64`` of those bytes, that is XXH64 with Spark's
  seed 42 (the original's library seeds it with 0, so the values differ from the original's);
* ``MURMUR3_64`` (64 bits): the first half ``h1`` of MurmurHash3 x64 128 (seed 0) of those
  bytes, the value the zero-allocation murmur3 returns;
* ``MURMUR3_128`` (128 bits): both halves ``h1, h2``.

The 64-bit ones serve ``za_hash_with(_struct)`` and ``za_field_based_id``; the 128-bit one
``za_hash_longs_with(_struct)`` and ``za_longs_field_based_id``. The murmur hashes run in an
Arrow function over ``mmh3`` (Spark has no 128-bit murmur3), evaluated once per row however
many of its longs a struct reads. The original's other hashes (CITY_1_1, FARMNA, FARMOU, METRO,
WY_V3, XXH3) have no implementation in Spark or in our dependencies and are refused by name, as
is any unknown name (the original would quietly fall back to a default hash).
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, lit, named_struct
from quality_py.sql.context import PassContext
from quality_py.sql.library import library_error, register

#: The Arrow function giving MurmurHash3 x64 128's halves ``[h1, h2]`` of a binary
#: (quality_py/runners/arrow_functions.py).
MURMUR3_LONGS = "qp_murmur3_longs"

HASHES_64 = ("XX", "MURMUR3_64")
HASHES_128 = ("MURMUR3_128",)
#: The original's hashes that nothing here implements.
UNAVAILABLE = ("CITY_1_1", "FARMNA", "FARMOU", "METRO", "WY_V3", "XXH3")


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_ARGUMENTS")


def _hash_name(node: exp.Expr, fn: str, allowed: tuple[str, ...], ctx: PassContext) -> str:
    if not (isinstance(node, exp.Literal) and node.is_string):
        raise _error(ctx, f"{fn} takes the hash name as a string literal", node)
    name = str(node.this).upper()
    if name in allowed:
        return name
    why = (
        "has no implementation in Spark or quality_py's dependencies"
        if name in UNAVAILABLE
        else "is not one of its hashes"
    )
    raise _error(ctx, f"{fn}: {node.this!r} {why}; use one of {', '.join(allowed)}", node)


def _fed_bytes(fields: list[exp.Expr], fn: str, ctx: PassContext) -> exp.Expr:
    from quality_py.sql.library_digests import _field_hex

    return call("unhex", call("concat", *[_field_hex(f, fn, ctx, True) for f in fields]))


def _longs(name: str, fields: list[exp.Expr], fn: str, ctx: PassContext) -> list[exp.Expr]:
    """The hash's longs; the murmur ones read one Arrow call (Spark evaluates it once)."""
    fed = _fed_bytes(fields, fn, ctx)
    if name == "XX":
        return [call("xxhash64", fed)]
    halves = call(MURMUR3_LONGS, fed)
    count = 1 if name == "MURMUR3_64" else 2
    return [call("element_at", halves.copy(), lit(i + 1)) for i in range(count)]


def _hash(
    args: list[exp.Expr], fn: str, allowed: tuple[str, ...], ctx: PassContext
) -> list[exp.Expr]:
    if len(args) < 2:
        raise _error(ctx, f"{fn} takes a hash name and at least one field", args[0])
    return _longs(_hash_name(args[0], fn, allowed, ctx), args[1:], fn, ctx)


def _id(args: list[exp.Expr], fn: str, allowed: tuple[str, ...], ctx: PassContext) -> exp.Expr:
    if len(args) < 3:
        raise _error(ctx, f"{fn} takes a prefix, a hash name and at least one field", args[0])
    if not (isinstance(args[0], exp.Literal) and args[0].is_string):
        raise _error(ctx, f"{fn} takes the prefix as a string literal", args[0])
    prefix = str(args[0].this)
    longs = _hash(args[1:], fn, allowed, ctx)
    pairs = [(f"{prefix}_base", lit(len(longs)))]
    pairs += [(f"{prefix}_i{i}", e) for i, e in enumerate(longs)]
    return named_struct(*pairs)


@register("za_hash_with")
def _za_hash_with(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``array<bigint>`` of one 64-bit hash ('XX', 'MURMUR3_64') of the fields."""
    return call("array", *_hash(args, "za_hash_with", HASHES_64, ctx))


@register("za_hash_with_struct")
def _za_hash_with_struct(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<i0: bigint>`` of :func:`za_hash_with`."""
    return named_struct(("i0", _hash(args, "za_hash_with_struct", HASHES_64, ctx)[0]))


@register("za_hash_longs_with")
def _za_hash_longs_with(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``array<bigint>`` of a 128-bit hash ('MURMUR3_128') of the fields: ``[h1, h2]``."""
    if len(args) < 2:
        raise _error(ctx, "za_hash_longs_with takes a hash name and at least one field", args[0])
    _hash_name(args[0], "za_hash_longs_with", HASHES_128, ctx)
    return call(MURMUR3_LONGS, _fed_bytes(args[1:], "za_hash_longs_with", ctx))


@register("za_hash_longs_with_struct")
def _za_hash_longs_with_struct(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<i0: bigint, i1: bigint>`` of :func:`za_hash_longs_with`."""
    longs = _hash(args, "za_hash_longs_with_struct", HASHES_128, ctx)
    return named_struct(*[(f"i{i}", e) for i, e in enumerate(longs)])


@register("za_field_based_id")
def _za_field_based_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base: int, p_i0: bigint>``: an id from a 64-bit hash of the fields."""
    return _id(args, "za_field_based_id", HASHES_64, ctx)


@register("za_longs_field_based_id")
def _za_longs_field_based_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base: int, p_i0: bigint, p_i1: bigint>``: an id from MURMUR3_128 of the
    fields."""
    return _id(args, "za_longs_field_based_id", HASHES_128, ctx)
