"""``probability_in(value, 'bloom')`` and ``bloom_contains(value, 'bloom')`` over loaded blooms.

A bloom (``quality_py.io.blooms``) is a bit array of ``bits`` bits, registered as a one-row view
``bits: array<bigint>``; a value sets ``hashes`` bits, at positions from two of Spark's own
hashes (``xxhash64`` and ``hash``, stable across Spark versions) by double hashing:
``(xxhash64(v) mod bits + i * (hash(v) mod bits)) mod bits`` for ``i`` in ``0..hashes-1``.
The test is that many bit reads of the array, read once per query through a scalar subquery:
generated code, no join, no Python. The value is cast to the type the bloom was built from
(hashes depend on the type), and a null value gives null.

``probability_in`` returns ``1 - fpp`` when the value may be in the bloom and 0.0 when it is
certainly not (the original returns the number it was registered with); ``bloom_contains`` the
same as a boolean.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.model.blooms import BloomSpec
from quality_py.sql.allowed.key_types import KEY_TYPE, compatible, mismatch_message, struct_guard
from quality_py.sql.build import paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import expand, library_error, register

#: Types a bloom may be built from (its header names one; nothing else reaches the SQL).
BLOOM_TYPES = ("tinyint", "smallint", "int", "bigint", "string", "binary", "date", "boolean")


def _error(ctx: PassContext, message: str, node: exp.Expr, code: str) -> LibraryFunctionError:
    return library_error(ctx, message, node, code)


def _spec(args: list[exp.Expr], ctx: PassContext, fn: str) -> BloomSpec:
    node = args[1]
    if not (isinstance(node, exp.Literal) and node.is_string):
        raise _error(
            ctx, f"{fn} takes the bloom's name as a string literal", node, "LIBRARY_ARGUMENTS"
        )
    spec = ctx.policy.bloom(str(node.this))
    if spec is None:
        raise _error(
            ctx,
            f"{fn}: no bloom {node.this!r} is loaded for these rules (load_bloom, then "
            "policy.with_blooms(...))",
            node,
            "POLICY",
        )
    if spec.value_type not in BLOOM_TYPES or spec.bits % 64 or spec.hashes < 1:
        raise _error(ctx, f"{fn}: bloom {spec.name!r} is malformed", node, "POLICY")
    return spec


def _typed_value(value: exp.Expr, spec: BloomSpec, ctx: PassContext, fn: str) -> exp.Expr:
    """``value`` in the bloom's type. A value of another type is refused when Spark's type is
    known (sql/allowed/key_types.py); when it is not, the SQL carries the struct guard, which Spark
    analyses only for a compatible type (its result is the same either way)."""
    kind = ctx.kind(to_sql(value))
    if kind is not None and not compatible(kind, spec.value_type):
        message = mismatch_message(fn, "bloom", spec.name, spec.value_type, value, kind)
        raise _error(ctx, message, value, KEY_TYPE)
    cast = expand(f"TRY_CAST(__a0 AS {spec.value_type})", value)
    if kind is not None:
        return cast
    typed_null = exp.Cast(this=exp.Null(), to=exp.DataType.build(spec.value_type))
    return exp.If(
        this=struct_guard(spec.name, typed_null, paren(value)), true=exp.Null(), false=cast
    )


def maybe_in(value: exp.Expr, spec: BloomSpec) -> exp.Expr:
    """SQL that is true when ``value`` may be in the bloom, false when it is not, null for null
    (``value`` already of the bloom's type)."""
    table = exp.Table(this=exp.to_identifier(spec.name, quoted=True))
    m = spec.bits
    h1 = f"pmod(xxhash64(__a0), {m})"
    h2 = f"pmod(CAST(hash(__a0) AS BIGINT), {m})"
    terms = []
    for i in range(spec.hashes):
        pos = f"pmod({h1} + {i} * {h2}, {m})"
        terms.append(
            f"shiftright(try_element_at(__a1, CAST(div({pos}, 64) AS INT) + 1), "
            f"CAST(pmod({pos}, 64) AS INT)) % 2 <> 0"
        )
    bits = exp.Subquery(this=exp.select("bits").from_(table))
    test = expand(f"IF(__a0 IS NULL, NULL, {' AND '.join(terms)})", value, bits)
    return test


@register("probability_in", 2)
def _probability_in(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """1 - fpp when the value may be in the loaded bloom, 0.0 when it is certainly not."""
    spec = _spec(args, ctx, "probability_in")
    value = _typed_value(args[0], spec, ctx, "probability_in")
    return expand(
        f"CASE WHEN __a0 THEN {1.0 - spec.fpp!r}D WHEN NOT __a0 THEN 0.0D END",
        maybe_in(value, spec),
    )


@register("bloom_contains", 2)
def _bloom_contains(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value may be in the loaded bloom (false positives at its rate)."""
    spec = _spec(args, ctx, "bloom_contains")
    value = _typed_value(args[0], spec, ctx, "bloom_contains")
    return maybe_in(value, spec)
