"""Digests of fields as longs, field-based ids and their base64 form, in Spark built-in SQL.

**Digests** (``digest_to_longs('MD5', a, b)``): the fields are fed to the digest one after
another as the original feeds its ``MessageDigest`` (its ``HashLongsExpression``, a copy of
Spark's hash-function feeding): INT, SMALLINT, TINYINT, DATE (days) and BOOLEAN (1/0) as 4 bytes
big-endian, BIGINT and TIMESTAMP (microseconds) as 8 bytes big-endian, a DECIMAL of up to 18
digits as its unscaled BIGINT, FLOAT and DOUBLE as Java's ``floatToIntBits`` /
``doubleToLongBits`` (:mod:`quality_py.sql.ieee_bits`), STRING as its UTF-8 bytes, and a null
field feeds nothing.
BINARY is fed as is (the original passes the JVM's array offset as the start index there and
fails). The digest's bytes are read as big-endian longs, the last one padded with zero bytes
(SHA-1's 20 bytes give 3 longs). Other field types (longer decimals, nested types) are
refused when compiling, naming the field: hash their string form or cast them.
Spark's ``md5``, ``sha1`` and ``sha2`` compute the digests, so the whole expansion is generated
code; each field's type comes from the data (the DataFrame runners and
``functions.expr(..., over=df)`` know it).

**Ids** (``field_based_id('p', 'MD5', a, b)``): ``struct<p_base: int, p_i0: bigint, ...>`` with
the digest's longs and ``p_base`` = the number of longs, the original's base for generic
long-based ids. ``id_base64`` writes an id as the original does (the base as 4 bytes, then each
long as 8, big-endian, standard base64); ``id_from_base64`` and ``id_size`` read it back
(null when the text is not such an id); ``id_raw_type`` drops an id's field prefixes.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, field, lit, named_struct, paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.field_bytes import HEX_INT, HEX_LONG, field_hex, little_endian
from quality_py.sql.library.registry import expand, library_error, register

#: Digest name -> (Spark template over the binary ``__a0``, digest length in bytes).
DIGESTS: dict[str, tuple[str, int]] = {
    "MD5": ("md5(__a0)", 16),
    "SHA-1": ("sha1(__a0)", 20),
    "SHA-224": ("sha2(__a0, 224)", 28),
    "SHA-256": ("sha2(__a0, 256)", 32),
    "SHA-384": ("sha2(__a0, 384)", 48),
    "SHA-512": ("sha2(__a0, 512)", 64),
}


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_TYPE")


def _string_literal(node: exp.Expr, fn: str, what: str, ctx: PassContext) -> str:
    if not (isinstance(node, exp.Literal) and node.is_string):
        raise _error(ctx, f"{fn} takes the {what} as a string literal", node)
    return str(node.this)


def _digest(name_node: exp.Expr, fn: str, ctx: PassContext) -> tuple[str, int]:
    name = _string_literal(name_node, fn, "digest name", ctx).upper().replace("SHA1", "SHA-1")
    name = name.replace("SHA256", "SHA-256").replace("SHA512", "SHA-512")
    if name not in DIGESTS:
        raise _error(
            ctx, f"{fn}: no digest {name_node.this!r}; use one of {', '.join(DIGESTS)}", name_node
        )
    return DIGESTS[name]


def _digest_hex(
    args: list[exp.Expr], fn: str, ctx: PassContext, little_endian: bool = False
) -> tuple[exp.Expr, int]:
    """The digest of the fields as hex, and the number of longs it makes."""
    if len(args) < 2:
        raise _error(ctx, f"{fn} takes a digest name and at least one field", args[0])
    template, size = _digest(args[0], fn, ctx)
    hexes = [field_hex(a, fn, ctx, little_endian) for a in args[1:]]
    fed = call("unhex", call("concat", *hexes))
    longs = (size + 7) // 8
    padded = expand(f"rpad({template}, {longs * 16}, '0')", fed)
    return padded, longs


def _longs(hex_digest: exp.Expr, count: int) -> list[exp.Expr]:
    return [
        expand(f"CAST(conv(substr(__a0, {1 + 16 * i}, 16), 16, -10) AS BIGINT)", hex_digest)
        for i in range(count)
    ]


@register("digest_to_longs")
def _digest_to_longs(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``array<bigint>`` of a digest ('MD5', 'SHA-256', ...) of the fields."""
    digest, count = _digest_hex(args, "digest_to_longs", ctx)
    return call("array", *_longs(digest, count))


@register("digest_to_longs_struct")
def _digest_to_longs_struct(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<i0: bigint, ...>`` of a digest of the fields."""
    digest, count = _digest_hex(args, "digest_to_longs_struct", ctx)
    return named_struct(*[(f"i{i}", e) for i, e in enumerate(_longs(digest, count))])


@register("field_based_id")
def _field_based_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base: int, p_i0: bigint, ...>``: an id from a digest of the fields."""
    if len(args) < 3:
        raise _error(ctx, "field_based_id takes a prefix, a digest name and fields", args[0])
    prefix = _string_literal(args[0], "field_based_id", "prefix", ctx)
    digest, count = _digest_hex(args[1:], "field_based_id", ctx)
    pairs = [(f"{prefix}_base", lit(count))]
    pairs += [(f"{prefix}_i{i}", e) for i, e in enumerate(_longs(digest, count))]
    return named_struct(*pairs)


def _id_fields(ctx: PassContext, node: exp.Expr, fn: str) -> list[str]:
    """The field names of an id struct (``<p>_base``, ``<p>_i0`` ...), from the data's type."""
    kind = ctx.kind(to_sql(node))
    if kind is None or not kind.startswith("struct<"):
        raise _error(ctx, f"{fn} takes an id struct (<p>_base INT, <p>_i0 BIGINT, ...)", node)
    names = [part.split(":")[0].strip() for part in kind[len("struct<") : -1].split(",")]
    if len(names) < 2 or not names[0].endswith("base"):
        raise _error(ctx, f"{fn}: {to_sql(node)} is {kind}, not an id struct", node)
    return names


@register("id_base64")
def _id_base64(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Base64 of an id (a struct, or its base and longs): the original's string form."""
    if len(args) == 1:
        names = _id_fields(ctx, args[0], "id_base64")
        parts = [field(args[0], n) for n in names]
    elif len(args) >= 3:
        parts = list(args)
    else:
        raise _error(ctx, "id_base64 takes an id struct, or a base and at least two longs", args[0])
    hexes = [expand(HEX_INT, parts[0])] + [expand(HEX_LONG, p) for p in parts[1:]]
    return call("base64", call("unhex", call("concat", *hexes)))


def _size_literal(node: exp.Expr, ctx: PassContext) -> int:
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    raise _error(ctx, "id_from_base64 takes the number of longs as an integer literal", node)


@register("id_from_base64", 1, 2)
def _id_from_base64(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<base: int, i0: bigint, ...>`` of an id's base64 (2 longs unless given); null
    when the text is not a generic id of that many longs."""
    size = _size_literal(args[1], ctx) if len(args) == 2 else 2
    if not 1 <= size <= 64:
        raise _error(ctx, "id_from_base64: the number of longs must be 1 to 64", args[1])
    hexed = expand("hex(try_to_binary(CAST(__a0 AS STRING), 'base64'))", args[0])
    pairs = [("base", expand("CAST(conv(substr(__a0, 1, 8), 16, -10) AS INT)", hexed))]
    pairs += [
        (f"i{i}", expand(f"CAST(conv(substr(__a0, {9 + 16 * i}, 16), 16, -10) AS BIGINT)", hexed))
        for i in range(size)
    ]
    ddl = ", ".join(["base: INT", *[f"i{i}: BIGINT" for i in range(size)]])
    # a generic id: even header byte, the length in bytes 2-3, and exactly that many bytes
    valid = expand(
        f"length(__a0) = {8 + 16 * size} AND CAST(conv(substr(__a0, 1, 2), 16, 10) AS INT) % 2 = 0 "
        f"AND CAST(conv(substr(__a0, 5, 4), 16, 10) AS INT) = {size}",
        hexed,
    )
    return exp.If(
        this=call("coalesce", paren(valid), exp.false()),
        true=named_struct(*pairs),
        false=exp.Cast(this=exp.Null(), to=exp.DataType.build(f"STRUCT<{ddl}>")),
    )


@register("id_size", 1)
def _id_size(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """The number of longs of an id's base64 (null when it is not one)."""
    return expand(
        "CAST(conv(substr(hex(try_to_binary(CAST(__a0 AS STRING), 'base64')), 5, 4), 16, 10) "
        "AS INT)",
        args[0],
    )


@register("id_raw_type", 1)
def _id_raw_type(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """An id struct without its field prefixes: ``struct<base, i0, i1, ...>``."""
    names = _id_fields(ctx, args[0], "id_raw_type")
    pairs = [("base", field(args[0], names[0]))]
    pairs += [(f"i{i}", field(args[0], n)) for i, n in enumerate(names[1:])]
    return named_struct(*pairs)


# --- hash_with: the original's Guava hashers ----------------------------------------------

#: The Arrow function computing MurmurHash3 x64 128 (quality_py/runners/arrow_functions.py).
MURMUR3_X64_128 = "qp_murmur3_x64_128"
#: Guava's hashers Spark has no function for -> (the Arrow function over the fed bytes giving
#: ``array<bigint>``, its number of longs): quality_py/runners/guava_hashes.py.
PYTHON_HASHERS = {
    "MURMUR3_128": (MURMUR3_X64_128, 2),
    "MURMUR3_32": ("qp_guava_murmur3_32", 1),
    "ADLER32": ("qp_guava_adler32", 1),
    "SIPHASH24": ("qp_guava_siphash24", 1),
}
#: Every hasher of the original's ``hash_with`` (Guava's ``Hashing`` functions).
_HASHERS = ("MD5", "SHA-1", "SHA-256", "SHA-512", "CRC32", *PYTHON_HASHERS)


def _hash_longs(
    args: list[exp.Expr], fn: str, ctx: PassContext
) -> tuple[list[exp.Expr], exp.Expr | None]:
    """The longs of a ``hash_with``-style hash of ``args[1:]`` named by ``args[0]``; for the
    hashers computed in Python also the one Arrow-function call they read (the caller keeps it
    to one evaluation)."""
    name = str(args[0].this).upper()
    if name == "CRC32":
        # Guava's crc32 is a 4-byte hash code written little-endian; as one long, padded
        if len(args) < 2:
            raise _error(ctx, f"{fn} takes a hash name and at least one field", args[0])
        hexes = [field_hex(a, fn, ctx, little_endian=True) for a in args[1:]]
        crc = call("crc32", call("unhex", call("concat", *hexes)))
        code = expand(f"rpad({little_endian(HEX_INT, 4)}, 16, '0')", crc)
        return _longs(code, 1), None
    if name not in PYTHON_HASHERS:
        digest, count = _digest_hex(args, fn, ctx, little_endian=True)
        return _longs(digest, count), None
    if len(args) < 2:
        raise _error(ctx, f"{fn} takes a hash name and at least one field", args[0])
    function, count = PYTHON_HASHERS[name]
    hexes = [field_hex(a, fn, ctx, little_endian=True) for a in args[1:]]
    hashed = call(function, call("unhex", call("concat", *hexes)))
    return [call("element_at", hashed.copy(), lit(i + 1)) for i in range(count)], hashed


def _hasher_args(args: list[exp.Expr], ctx: PassContext, fn: str) -> list[exp.Expr]:
    """Refuse names that are not Guava hashers of the original (it falls back to MURMUR3_128
    for unknown names: a typo would silently change the algorithm)."""
    name = _string_literal(args[0], fn, "hash name", ctx).upper()
    if name not in _HASHERS:
        raise _error(
            ctx,
            f"{fn}: {args[0].this!r} is not one of the original's hashers; use one of "
            f"{', '.join(_HASHERS)}",
            args[0],
        )
    return args


@register("hash_with")
def _hash_with(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``array<bigint>`` of a hash ('MD5', 'SHA-256', ...) of the fields, fed little-endian as
    the original's Guava hashers are."""
    args = _hasher_args(args, ctx, "hash_with")
    longs, hashed = _hash_longs(args, "hash_with", ctx)
    return hashed if hashed is not None else call("array", *longs)


@register("hash_with_struct")
def _hash_with_struct(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<i0: bigint, ...>`` of :func:`hash_with`."""
    args = _hasher_args(args, ctx, "hash_with_struct")
    longs, _ = _hash_longs(args, "hash_with_struct", ctx)
    return named_struct(*[(f"i{i}", e) for i, e in enumerate(longs)])


@register("hash_field_based_id")
def _hash_field_based_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base, p_i0, ...>``: an id from a :func:`hash_with` hash of the fields."""
    if len(args) < 3:
        raise _error(ctx, "hash_field_based_id takes a prefix, a hash name and fields", args[0])
    prefix = _string_literal(args[0], "hash_field_based_id", "prefix", ctx)
    rest = _hasher_args(args[1:], ctx, "hash_field_based_id")
    longs, _ = _hash_longs(rest, "hash_field_based_id", ctx)
    pairs = [(f"{prefix}_base", lit(len(longs)))]
    pairs += [(f"{prefix}_i{i}", e) for i, e in enumerate(longs)]
    return named_struct(*pairs)


@register("murmur3_id")
def _murmur3_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base, p_i0, p_i1>``: a 160-bit id from MurmurHash3 x64 128 of the fields."""
    if len(args) < 2:
        raise _error(ctx, "murmur3_id takes a prefix and at least one field", args[0])
    prefix = _string_literal(args[0], "murmur3_id", "prefix", ctx)
    longs, _ = _hash_longs([lit("MURMUR3_128"), *args[1:]], "murmur3_id", ctx)
    pairs = [(f"{prefix}_base", lit(2))]
    pairs += [(f"{prefix}_i{i}", e) for i, e in enumerate(longs)]
    return named_struct(*pairs)
