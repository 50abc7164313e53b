"""Rules that see more than one row: uniqueness of a key and membership in reference data.

Each call expands into Spark built-ins that the suite computes once per key set:

* ``is_unique(k1, ..., kn)``: false on every row whose key appears on another row too. Nulls
  are distinct (as in DQX, Soda and SQL's ``UNIQUE``): a key with any null part is nobody's
  duplicate, so such a row passes. ``is_unique_nulls_equal(...)`` compares nulls as equal (a
  key written ``(1, null)`` twice is a duplicate). NaN equals NaN and ``-0.0`` equals ``0.0``,
  as in Spark's grouping. It is ``count(*) OVER (PARTITION BY k1, ..., kn) = 1``: one shuffle
  of the input on the key, shared with every other rule over the same key set.
* ``in_reference('view', 'col', key, ...)``: true when the row's key is in the reference view
  (a view the rule policy allows, as for every lookup), matched column by column (pairs of the
  view's column name and the row's expression). A key with any null part passes (it references
  nothing, as a SQL foreign key). ``in_reference_null_safe`` matches a null part with a null in
  the reference (and fails a null key the reference lacks); ``not_in_reference`` and
  ``not_in_reference_null_safe`` are the negations (the key must *not* be in the view; a null
  part still passes the first). It is an ``EXISTS`` over the view: Spark joins the view's keys
  once (broadcast when small, which adaptive execution decides from its size) and never
  multiplies rows, whatever duplicates the view holds.

>>> from quality_py.sql.parse import parse_expression
>>> from quality_py.sql.passes import run_passes
>>> run_passes(parse_expression("is_unique(a, b)"), PassContext()).sql("spark")
'(a IS NULL OR b IS NULL OR COUNT(*) OVER (PARTITION BY a, b) = 1)'
"""

from __future__ import annotations

import re

from sqlglot import exp

from quality_py.errors import did_you_mean
from quality_py.sql.allowed.key_types import KEY_TYPE, compatible
from quality_py.sql.build import paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import library_error, register

#: The reference's key columns inside the subquery: reserved names, so that a column of the
#: input can never bind to the view's column of the same name.
_REF = "__qp_r"


def _keys(args: list[exp.Expr], ctx: PassContext, fn: str) -> list[exp.Expr]:
    if not args:
        raise library_error(ctx, f"{fn} takes at least one key column", None, "LIBRARY_ARGUMENTS")
    return [paren(a.copy()) for a in args]


def _any_null(keys: list[exp.Expr]) -> exp.Expr:
    out: exp.Expr = exp.Is(this=keys[0].copy(), expression=exp.Null())
    for key in keys[1:]:
        out = exp.Or(this=out, expression=exp.Is(this=key.copy(), expression=exp.Null()))
    return out


def _count_once(keys: list[exp.Expr]) -> exp.Expr:
    window = exp.Window(
        this=exp.Count(this=exp.Star(), big_int=True),
        partition_by=[k.copy() for k in keys],
        over="OVER",
    )
    return exp.EQ(this=window, expression=exp.Literal.number(1))


@register("is_unique")
def _is_unique(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether no other row has this row's key (a key with a null part is never a duplicate)."""
    keys = _keys(args, ctx, "is_unique")
    return exp.Paren(this=exp.Or(this=_any_null(keys), expression=_count_once(keys)))


@register("is_unique_nulls_equal")
def _is_unique_nulls_equal(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether no other row has this row's key, nulls comparing equal."""
    return exp.Paren(this=_count_once(_keys(args, ctx, "is_unique_nulls_equal")))


def _reference(
    args: list[exp.Expr], ctx: PassContext, fn: str
) -> tuple[str, list[str], list[exp.Expr]]:
    """The view, its key columns and the row's key expressions of a membership call."""
    usage = f"{fn}('view', 'view_column', key, ...): the view, then pairs of a column and a key"
    if len(args) < 3 or len(args) % 2 == 0:
        raise library_error(ctx, f"{fn} takes {usage}", args[0] if args else None,
                            "LIBRARY_ARGUMENTS")  # fmt: skip
    names = [args[0], *args[1::2]]
    for node in names:
        if not (isinstance(node, exp.Literal) and node.is_string and str(node.this)):
            raise library_error(ctx, f"{fn} takes {usage} (names as string literals)", node,
                                "LIBRARY_ARGUMENTS")  # fmt: skip
    view = str(args[0].this)
    if view.lower() not in ctx.policy.allowed_views:
        raise library_error(
            ctx,
            f"{fn}: no view {view!r} is allowed for these rules"
            f"{did_you_mean(view.lower(), ctx.policy.allowed_views)} (register it as reference "
            "data and allow it in the policy: policy.with_views(...))",
            args[0],
            "POLICY",
        )
    columns = [str(n.this) for n in args[1::2]]
    keys = [paren(k.copy()) for k in args[2::2]]
    _check_types(ctx, fn, view, columns, keys)
    return view, columns, keys


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


_PROBE = re.compile(r"^\(SELECT first\(`((?:[^`]|``)+)`\) FROM `((?:[^`]|``)+)`\)$")


def view_probe(view: str, column: str) -> str:
    """The SQL whose type is a view column's (what a key is compared with).

    >>> view_probe("planes", "tail`no")
    '(SELECT first(`tail``no`) FROM `planes`)'
    """
    return f"(SELECT first({_quoted(column)}) FROM {_quoted(view)})"


def probed(sql: str) -> tuple[str, str] | None:
    """The view and column of a :func:`view_probe` (None for any other SQL).

    >>> probed(view_probe("planes", "tail`no")), probed("a + 1")
    (('planes', 'tail`no'), None)
    """
    m = _PROBE.match(sql)
    return None if m is None else (m[2].replace("``", "`"), m[1].replace("``", "`"))


def _check_types(
    ctx: PassContext, fn: str, view: str, columns: list[str], keys: list[exp.Expr]
) -> None:
    """Refuse a key whose type differs from the view column's, when both are known (Spark
    would convert text to a number, and one bad value would abort the job under ANSI)."""
    for column, key in zip(columns, keys, strict=True):
        ref_type = ctx.kind(view_probe(view, column))
        key_type = ctx.kind(to_sql(key))
        if ref_type is None or key_type is None or compatible(key_type, ref_type):
            continue
        raise library_error(
            ctx,
            f"{fn} compares keys of different types: the view {view!r} holds {column} as "
            f"{ref_type}, the key {to_sql(key)} is {key_type}; cast the key "
            f"(CAST({to_sql(key)} AS {ref_type.upper()}))",
            key,
            KEY_TYPE,
        )


def _exists(view: str, columns: list[str], keys: list[exp.Expr]) -> exp.Expr:
    """``EXISTS`` of the row's key among the view's: structs compare field by field, a null
    part equal to a null part (callers skip null keys where nulls must not match), and Spark
    analyses the comparison only when each pair of types has a lossless common type."""
    inner = exp.select(
        *(
            exp.alias_(exp.column(exp.to_identifier(c, quoted=True)), f"{_REF}{i}")
            for i, c in enumerate(columns)
        )
    ).from_(exp.Table(this=exp.to_identifier(view, quoted=True)))

    def struct(values: list[exp.Expr]) -> exp.Expr:
        fields: list[exp.Expr] = []
        for i, value in enumerate(values):
            fields += [exp.Literal.string(f"k{i}"), value]
        return exp.Anonymous(this="named_struct", expressions=fields)

    ref = struct([exp.column(f"{_REF}{i}") for i in range(len(columns))])
    match = exp.EQ(this=ref, expression=struct([k.copy() for k in keys]))
    query = (
        exp.select(exp.Literal.number(1))
        .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("__qp_ref"))))
        .where(match)
    )
    return exp.Exists(this=query)


@register("in_reference")
def _in_reference(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether the row's key is in the reference view (a key with a null part passes)."""
    view, columns, keys = _reference(args, ctx, "in_reference")
    return exp.Paren(this=exp.Or(this=_any_null(keys), expression=_exists(view, columns, keys)))


@register("in_reference_null_safe")
def _in_reference_null_safe(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether the row's key is in the reference view, a null part matching a null."""
    view, columns, keys = _reference(args, ctx, "in_reference_null_safe")
    return exp.Paren(this=_exists(view, columns, keys))


@register("not_in_reference")
def _not_in_reference(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether the row's key is absent from the reference view (a key with a null part passes)."""
    view, columns, keys = _reference(args, ctx, "not_in_reference")
    missing = exp.Not(this=_exists(view, columns, keys))
    return exp.Paren(this=exp.Or(this=_any_null(keys), expression=missing))


@register("not_in_reference_null_safe")
def _not_in_reference_null_safe(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """Whether the row's key is absent from the reference view, a null part matching a null."""
    view, columns, keys = _reference(args, ctx, "not_in_reference_null_safe")
    return exp.Paren(this=exp.Not(this=_exists(view, columns, keys)))
