"""The original's ``za_*`` ids and hashes: 64- and 128-bit hashes of fields as longs.

The original computes these with a "zero allocation" Java hashing library, hashing each field
on its own with the previous field's hash as the seed (its ``ZeroAllocation.scala``; the chain
is spelled out in :mod:`quality_py.runners.zero_allocation`). Here each field's bytes are built
in SQL as the original's field feeding makes them (ints 4 bytes and longs 8 bytes
little-endian, strings as UTF-8, decimals of up to 18 digits as their unscaled long, floating
point as Java's bits; a null field is a null element, which hashes nothing: see
:mod:`quality_py.sql.library.digests`), and one Arrow function per hash runs the chain over the
row's array of field bytes:

* 64 bits (``za_hash_with(_struct)``, ``za_field_based_id``): ``XX`` (XXH64, the original's
  default) and ``MURMUR3_64`` (the first half of MurmurHash3 x64 128);
* 128 bits (``za_hash_longs_with(_struct)``, ``za_longs_field_based_id``): ``XXH3`` (XXH3's
  128-bit hash, the original's default) and ``MURMUR3_128``.

Spark has none of them with a seed (its ``xxhash64`` is XXH64 fixed at seed 42), so these are
Arrow functions; a struct reading several longs evaluates the function once per row. The
original's other 64-bit hashes (CITY_1_1, FARMNA, FARMOU, METRO, WY_V3) are refused by name:
nothing here implements them, and a hash we could not check against its reference would be a
guess. Unknown names are refused too (the original quietly falls back to its default hash).
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, lit, named_struct
from quality_py.sql.context import PassContext
from quality_py.sql.library.field_bytes import field_hex
from quality_py.sql.library.registry import library_error, register

#: Hash name -> the Arrow function running its chain over ``array<binary>``, giving
#: ``array<bigint>`` (quality_py/runners/arrow_functions.py).
ZA_FUNCTIONS = {
    "XX": "qp_za_xx",
    "MURMUR3_64": "qp_za_murmur3_64",
    "XXH3": "qp_za_xxh3",
    "MURMUR3_128": "qp_za_murmur3_128",
}
HASHES_64 = ("XX", "MURMUR3_64")
HASHES_128 = ("XXH3", "MURMUR3_128")
#: The original's hashes that nothing here implements.
UNAVAILABLE = ("CITY_1_1", "FARMNA", "FARMOU", "METRO", "WY_V3")


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


def _chain(
    args: list[exp.Expr], fn: str, allowed: tuple[str, ...], ctx: PassContext
) -> tuple[exp.Expr, int]:
    """``array<bigint>``: the chain of the hash named by ``args[0]`` over the bytes of the fields
    ``args[1:]`` (one element per field, null for a null field), and its number of longs."""
    if len(args) < 2:
        raise _error(ctx, f"{fn} takes a hash name and at least one field", args[0])
    name = _hash_name(args[0], fn, allowed, ctx)
    fed = [call("unhex", field_hex(f, fn, ctx, True, keep_null=True)) for f in args[1:]]
    return call(ZA_FUNCTIONS[name], call("array", *fed)), 1 if name in HASHES_64 else 2


def _hash(
    args: list[exp.Expr], fn: str, allowed: tuple[str, ...], ctx: PassContext
) -> list[exp.Expr]:
    """The hash's longs, each an element of one Arrow call (Spark evaluates it once a row)."""
    hashed, count = _chain(args, fn, allowed, ctx)
    return [call("element_at", hashed.copy(), lit(i + 1)) for i in range(count)]


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
    return _chain(args, "za_hash_with", HASHES_64, ctx)[0]


@register("za_hash_with_struct")
def _za_hash_with_struct(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<i0: bigint>`` of :func:`za_hash_with`."""
    return named_struct(("i0", _hash(args, "za_hash_with_struct", HASHES_64, ctx)[0]))


@register("za_hash_longs_with")
def _za_hash_longs_with(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``array<bigint>`` of a 128-bit hash ('XXH3', 'MURMUR3_128') of the fields: its low and
    high longs."""
    return _chain(args, "za_hash_longs_with", HASHES_128, ctx)[0]


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
    """``struct<p_base: int, p_i0: bigint, p_i1: bigint>``: an id from a 128-bit hash ('XXH3',
    'MURMUR3_128') of the fields."""
    return _id(args, "za_longs_field_based_id", HASHES_128, ctx)
