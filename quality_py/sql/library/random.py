"""Random and unique ids: ``rng``, ``rng_bytes``, ``rng_id``, ``unique_id``.

They are nondeterministic by nature, so the default rule policy refuses them (Spark finds the
rule nondeterministic; see ``RulePolicy.allow_random``). Where a policy allows them, each row's
value is computed once (the runners evaluate every rule and output once into a column).

The original draws from commons-rng (XO_RO_SHI_RO_128_PP) and builds unique ids from the
driver's MAC address; neither is available to built-in SQL, so the algorithms here are ours:

* a random long is ``shiftleft(r1, 32) | r2`` with ``r1``, ``r2`` 32-bit integers from two of
  Spark's ``rand()`` streams (each a double with 53 random bits: all 64 bits are random);
  ``rng([impl], [seed])`` is two of them as ``struct<lower, higher>`` (an implementation name is
  accepted and ignored; a seed makes the streams reproducible per partition, as ``rand(seed)``);
* ``rng_bytes([n])``: ``n`` random bytes (16 unless given, at most 1024);
* ``rng_id('p')``: ``struct<p_base: 2, p_i0, p_i1>`` of two random longs;
* ``unique_id('p')``: ``struct<p_base, p_i0, p_i1>`` with ``p_i0`` the query's start time in
  microseconds (``current_timestamp()``, fixed per query) and ``p_i1`` Spark's
  ``monotonically_increasing_id()`` (unique within a query): unique across queries that do not
  start in the same microsecond. ``p_base`` is ``(1 << 24) | 2``: the original's header byte of a
  guaranteed-unique id and two longs.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.errors import LibraryFunctionError
from quality_py.sql.build import call, lit, named_struct
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import expand, library_error, register

MAX_RANDOM_BYTES = 1024
UNIQUE_BASE = (1 << 24) | 2


def _error(ctx: PassContext, message: str, node: exp.Expr) -> LibraryFunctionError:
    return library_error(ctx, message, node, "LIBRARY_ARGUMENTS")


def _allowed(ctx: PassContext, fn: str, node: exp.Expr | None) -> None:
    """Random ids only where the policy allows them (checked when compiling, so on Spark Connect
    too, where Spark's own determinism flag cannot be read)."""
    if ctx.policy.random_allowed:
        return
    raise library_error(
        ctx,
        f"{fn} gives other values on every run; the rule policy refuses random ids unless it "
        "allows them (RulePolicy(allow_random=True))",
        node,
        "POLICY",
    )


def _seed(args: list[exp.Expr], ctx: PassContext, fn: str) -> int | None:
    """The optional integer seed (the last argument when it is a number literal)."""
    for arg in args:
        if isinstance(arg, exp.Literal) and not arg.is_string:
            if not str(arg.this).lstrip("-").isdigit():
                raise _error(ctx, f"{fn}: a seed is an integer literal", arg)
            return int(arg.this)
        if not (isinstance(arg, exp.Literal) and arg.is_string):
            raise _error(ctx, f"{fn} takes literals: an implementation name and a seed", arg)
    return None


def _word(seed: int | None, stream: int) -> str:
    """32 random bits as a BIGINT from one ``rand()`` stream."""
    rand = "rand()" if seed is None else f"rand({seed * 1_000_003 + stream})"
    return f"CAST(floor({rand} * 4294967296D) AS BIGINT)"


def _random_long(seed: int | None, stream: int) -> exp.Expr:
    return expand(f"shiftleft({_word(seed, 2 * stream)}, 32) | {_word(seed, 2 * stream + 1)}")


@register("rng")
def _rng(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<lower, higher>`` of two random longs (see the module docs)."""
    _allowed(ctx, "rng", args[0] if args else None)
    seed = _seed(args, ctx, "rng")
    return named_struct(("lower", _random_long(seed, 0)), ("higher", _random_long(seed, 1)))


@register("rng_bytes")
def _rng_bytes(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``n`` random bytes (16 unless the first argument is a number of bytes)."""
    _allowed(ctx, "rng_bytes", args[0] if args else None)
    size = 16
    rest = list(args)
    if rest and isinstance(rest[0], exp.Literal) and not rest[0].is_string:
        size = int(rest[0].this) if str(rest[0].this).isdigit() else -1
        if not 1 <= size <= MAX_RANDOM_BYTES:
            raise _error(ctx, f"rng_bytes makes 1 to {MAX_RANDOM_BYTES} bytes", rest[0])
        rest = rest[1:]
    seed = _seed(rest, ctx, "rng_bytes")
    words = [expand(f"lpad(hex({_word(seed, i)}), 8, '0')") for i in range((size + 3) // 4)]
    return call("substr", call("unhex", call("concat", *words)), lit(1), lit(size))


@register("rng_id", 1)
def _rng_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base: 2, p_i0, p_i1>`` of two random longs."""
    _allowed(ctx, "rng_id", args[0])
    prefix = _prefix(args[0], ctx, "rng_id")
    return named_struct(
        (f"{prefix}_base", lit(2)),
        (f"{prefix}_i0", _random_long(None, 0)),
        (f"{prefix}_i1", _random_long(None, 1)),
    )


@register("unique_id", 1)
def _unique_id(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``struct<p_base, p_i0, p_i1>``: the query's start time and a per-query unique number."""
    _allowed(ctx, "unique_id", args[0])
    prefix = _prefix(args[0], ctx, "unique_id")
    return named_struct(
        (f"{prefix}_base", lit(UNIQUE_BASE)),
        (f"{prefix}_i0", expand("unix_micros(current_timestamp())")),
        (f"{prefix}_i1", expand("monotonically_increasing_id()")),
    )


def _prefix(node: exp.Expr, ctx: PassContext, fn: str) -> str:
    if not (isinstance(node, exp.Literal) and node.is_string and str(node.this).strip()):
        raise _error(ctx, f"{fn} takes the prefix as a string literal", node)
    return str(node.this)
