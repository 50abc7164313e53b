"""Java's ``doubleToLongBits`` / ``floatToIntBits`` in Spark built-in SQL, for digest feeding.

The original feeds a DOUBLE field to its hashes as ``doubleToLongBits`` and a FLOAT as
``floatToIntBits`` (both zeros as 0, every NaN as the canonical NaN). Spark has no function for
a number's bits, so they are computed from the value: the exponent is ``floor(log2(|x|))``,
corrected by comparing with powers of two (``log2`` may round across one), and the mantissa is
``|x| / 2^e - 1`` scaled to an integer, which is exact in double arithmetic (dividing by a power
of two and subtracting 1 from a number in [1, 2) lose nothing). Subnormal values have exponent
field 0 and the mantissa ``|x| * 2^(bias + mantissa bits - 1)``. FLOAT values are widened to
DOUBLE first, which is exact. The result is a BIGINT: the long's bits for DOUBLE, the int's
bits as a non-negative BIGINT (below 2^32) for FLOAT, so no cast can overflow under ANSI.
``tests/spark/test_digest_functions.py`` compares it with Python's ``struct`` over random,
subnormal and special values.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.library.registry import expand

__all__ = ["ieee_bits"]

# (mantissa bits, bias, least normal exponent, subnormal scale, NaN, +inf, -inf, sign bit)
_DOUBLE = (
    52,
    1023,
    -1022,
    "power(2, 537) * power(2, 537)",  # 2^1074 is not a double: two exact steps
    "9221120237041090560",  # 0x7ff8000000000000
    "9218868437227405312",  # 0x7ff0000000000000
    "-4503599627370496",  # 0xfff0000000000000 as a signed long
    "shiftleft(CAST(1 AS BIGINT), 63)",
)
_FLOAT = (
    23,
    127,
    -126,
    "power(2, 149)",
    "2143289344",  # 0x7fc00000
    "2139095040",  # 0x7f800000
    "4286578688",  # 0xff800000 (the int's bits, unsigned)
    "CAST(2147483648 AS BIGINT)",
)


def _template(single: bool) -> str:
    mbits, bias, emin, sub_scale, nan, pinf, ninf, sign = _FLOAT if single else _DOUBLE
    a = "abs(CAST(__a0 AS DOUBLE))"
    e0 = f"CAST(floor(log2({a})) AS INT)"
    e = (
        f"({e0} - CASE WHEN {a} < power(2, {e0}) THEN 1 ELSE 0 END "
        f"+ CASE WHEN {a} >= power(2, {e0} + 1) THEN 1 ELSE 0 END)"
    )
    normal = (
        f"(shiftleft(CAST({e} + {bias} AS BIGINT), {mbits}) "
        f"| CAST(({a} / power(2, {e}) - 1) * power(2, {mbits}) AS BIGINT))"
    )
    # below the least normal power of two: exponent field 0, the mantissa scaled to an integer
    subnormal = f"{a} < power(2, {emin})"
    magnitude = f"CASE WHEN {subnormal} THEN CAST({a} * {sub_scale} AS BIGINT) ELSE {normal} END"
    return (
        f"CASE WHEN isnan(__a0) THEN CAST({nan} AS BIGINT) "
        "WHEN __a0 = 0 THEN CAST(0 AS BIGINT) "
        f"WHEN __a0 = CAST('Infinity' AS DOUBLE) THEN CAST({pinf} AS BIGINT) "
        f"WHEN __a0 = CAST('-Infinity' AS DOUBLE) THEN CAST({ninf} AS BIGINT) "
        f"ELSE (CASE WHEN __a0 < 0 THEN {sign} ELSE CAST(0 AS BIGINT) END) | ({magnitude}) END"
    )


_TEMPLATES = {False: _template(False), True: _template(True)}


def ieee_bits(arg: exp.Expr, single: bool) -> exp.Expr:
    """The BIGINT bits of ``arg`` (a DOUBLE, or a FLOAT when ``single``) as Java gives them.

    >>> from quality_py.sql.build import to_sql
    >>> to_sql(ieee_bits(exp.column("d"), False)).startswith("CASE WHEN ISNAN(d)")
    True
    """
    return expand(_TEMPLATES[single], arg)
