"""How the digests and hashes feed a field: its bytes as hex, by the field's Spark type.

INT, SMALLINT, TINYINT, DATE (days) and BOOLEAN (1/0) as 4 bytes, BIGINT and TIMESTAMP
(microseconds) as 8, a DECIMAL of up to 18 digits as its unscaled BIGINT, FLOAT and DOUBLE as
Java's ``floatToIntBits`` / ``doubleToLongBits``, STRING as its UTF-8 bytes and BINARY as is;
big-endian for the original's ``MessageDigest`` feeding (``digests.py``), little-endian for
Guava's hashers and Zero-Allocation-Hashing (``digests.py``, ``za.py``). A helper of the
families, not one: it registers nothing.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, lit, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.ieee_bits import ieee_bits
from quality_py.sql.library.registry import expand, library_error

_FOUR_BYTES = {"int", "smallint", "tinyint"}
# hex() of a BIGINT is its two's complement: masking to 32 bits gives an int's 4 bytes
HEX_INT = "lpad(hex(CAST(__a0 AS BIGINT) & 4294967295), 8, '0')"
HEX_LONG = "lpad(hex(CAST(__a0 AS BIGINT)), 16, '0')"
_HEX_OF = {
    **dict.fromkeys(_FOUR_BYTES, HEX_INT),
    "boolean": "CASE WHEN __a0 THEN '00000001' WHEN NOT __a0 THEN '00000000' END",
    "date": "lpad(hex(CAST(unix_date(__a0) AS BIGINT) & 4294967295), 8, '0')",
    "bigint": HEX_LONG,
    "timestamp": "lpad(hex(unix_micros(__a0)), 16, '0')",
    "string": "hex(__a0)",
    "binary": "hex(__a0)",
}


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_TYPE")


def little_endian(template: str, size: int) -> str:
    """``template`` (the big-endian hex of ``size`` bytes) with its bytes in reverse order."""
    parts = [f"substr({template}, {1 + 2 * (size - 1 - i)}, 2)" for i in range(size)]
    return "concat(" + ", ".join(parts) + ")"


#: Guava's hashers (behind the original's ``hash_with``) take ints and longs little-endian.
_HEX_OF_LITTLE_ENDIAN = {
    **{k: little_endian(_HEX_OF[k], 4) for k in (*_FOUR_BYTES, "date")},
    "boolean": "CASE WHEN __a0 THEN '01000000' WHEN NOT __a0 THEN '00000000' END",
    **{k: little_endian(_HEX_OF[k], 8) for k in ("bigint", "timestamp")},
    "string": "hex(__a0)",
    "binary": "hex(__a0)",
}


def field_hex(
    arg: exp.Expr,
    fn: str,
    ctx: PassContext,
    little_endian: bool = False,
    keep_null: bool = False,
) -> exp.Expr:
    """The hex of the bytes one field feeds to the digest ('' for null, or null with
    ``keep_null``)."""
    if not ctx.knows_types:
        raise _error(
            ctx,
            f"{fn} needs the data's types to feed each field as the original does: use a "
            "DataFrame runner (add_data_quality, ...) or functions.expr(..., over=df)",
            arg,
        )
    kind = ctx.kind(to_sql(arg))
    if kind is None:
        raise _error(ctx, f"{fn}: {to_sql(arg)} does not analyse against the data", arg)
    table = _HEX_OF_LITTLE_ENDIAN if little_endian else _HEX_OF
    template = table.get(kind.split("(")[0])
    if kind.startswith("decimal(") and _decimal_digits(kind)[0] <= 18:
        # the original feeds a decimal of up to 18 digits as its unscaled long
        arg = _unscaled(arg, _decimal_digits(kind)[1])
        template = table["bigint"]
    elif kind in ("double", "float"):
        # ... and floating point as Java's doubleToLongBits / floatToIntBits (-0.0 as 0)
        arg = ieee_bits(arg, single=kind == "float")
        template = table["bigint" if kind == "double" else "int"]
    elif template is None or kind.startswith("decimal("):
        raise _error(
            ctx,
            f"{fn}: {to_sql(arg)} is {kind}; digests take int, bigint, boolean, date, timestamp, "
            "float, double, decimal (up to 18 digits), string and binary fields (cast or "
            "format the others)",
            arg,
        )
    fed = expand(template, arg)
    return fed if keep_null else call("coalesce", fed, lit(""))


def _decimal_digits(kind: str) -> tuple[int, int]:
    """``decimal(p,s)`` -> ``(p, s)``."""
    precision, scale = kind[len("decimal(") : -1].split(",")
    return int(precision), int(scale)


def _unscaled(arg: exp.Expr, scale: int) -> exp.Expr:
    """A decimal's unscaled value as a BIGINT: the value times 10^scale, exactly (decimal
    arithmetic; the product of an up-to-18-digit decimal fits a long)."""
    if scale == 0:
        return expand("CAST(__a0 AS BIGINT)", arg)
    return expand(f"CAST(__a0 * CAST('1{'0' * scale}' AS DECIMAL(19, 0)) AS BIGINT)", arg)
