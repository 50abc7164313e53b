"""Turn a rule's value into its stored result int, for any value type, in Spark built-ins.

The mapping (semantics section 1.2) depends on the value's type, which is only known after
Spark analysis. The emitted expression dispatches on ``typeof(value)``: ``typeof`` is foldable, so
Spark's optimizer reduces the dispatch to the one branch for the actual type. For a boolean rule
the optimized plan is exactly ``CASE WHEN rule THEN 100000 ELSE 0 END``; every branch casts the
value with ``try_cast`` so all branches analyse whatever the type is.

Divergence from the original: the integer 100000 (what ``passed()`` returns) is Passed. The
original treats every integer other than 0/1/-1/-2 as Failed, so there ``IF(c, passed(),
failed())`` silently fails every row; we keep the one unambiguous code.

When the type is already known (:func:`code_for_type`), only that branch is emitted, which keeps
plans small for big suites.
"""

from __future__ import annotations

import re
from functools import cache

from sqlglot import exp

from quality_py.sql.build import substitute, to_sql
from quality_py.sql.dialect import DIALECT

_PLACEHOLDER = "__qp_value"
#: Stands for a column in the generated text of a result-code template (no SQL word contains it).
_COLUMN_MARK = "__qp_code_column_mark"

# Strings the original maps to results, compared lower-cased.
_PASS_STRINGS = ("true", "passed", "pass", "yes", "1", "1.0")
_FAIL_STRINGS = ("false", "failed", "fail", "no", "0", "0.0")
_SOFT_STRINGS = ("softfail", "maybe")
_DISABLED_STRINGS = ("disabledrule", "disabled")
#: Every text the original reads as a result (lower-cased); any other text is Failed.
RESULT_STRINGS = frozenset(_PASS_STRINGS + _FAIL_STRINGS + _SOFT_STRINGS + _DISABLED_STRINGS)


def _in(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{v}'" for v in values)


# Probability -> int: truncation toward zero as the original's (p * 100000).toInt, which also
# saturates at the int range and maps NaN to 0. Null stays 0 (Failed).
# least/greatest skip nulls, so null is made 0 first.
_PROB = (
    "CAST(least(greatest(nanvl(coalesce({d}, 0D), 0D) * 100000D, -2147483648D), 2147483647D)"
    " AS INT)"
)

_CODE_BRANCHES = {
    "boolean": f"CASE WHEN try_cast({_PLACEHOLDER} AS BOOLEAN) THEN 100000 ELSE 0 END",
    "integral": (
        f"CASE try_cast({_PLACEHOLDER} AS BIGINT) WHEN 1 THEN 100000 WHEN -1 THEN -1 "
        "WHEN -2 THEN -2 WHEN 100000 THEN 100000 ELSE 0 END"
    ),
    "fractional": (
        f"CASE try_cast({_PLACEHOLDER} AS DOUBLE) WHEN 0D THEN 0 WHEN 1D THEN 100000 "
        "WHEN -1D THEN -1 WHEN -2D THEN -2 ELSE "
        + _PROB.format(d=f"try_cast({_PLACEHOLDER} AS DOUBLE)")
        + " END"
    ),
    # Decimals never compare equal to 0/1/-1/-2 in the original: always a probability.
    "decimal": _PROB.format(d=f"try_cast({_PLACEHOLDER} AS DOUBLE)"),
    "string": (
        f"CASE WHEN lower(try_cast({_PLACEHOLDER} AS STRING)) IN ({_in(_PASS_STRINGS)}) "
        f"THEN 100000 WHEN lower(try_cast({_PLACEHOLDER} AS STRING)) IN ({_in(_SOFT_STRINGS)}) "
        f"THEN -1 WHEN lower(try_cast({_PLACEHOLDER} AS STRING)) IN ({_in(_DISABLED_STRINGS)}) "
        "THEN -2 ELSE 0 END"
    ),
    "void": "0",
    # A rule compiled to its code already (a filter or an inactive rule).
    "code": _PLACEHOLDER,
}

_SOFT_BRANCHES = {
    "boolean": f"IF(try_cast({_PLACEHOLDER} AS BOOLEAN), 1D, -1D)",
    "integral": (
        f"CASE try_cast({_PLACEHOLDER} AS BIGINT) WHEN 1 THEN 1D WHEN 100000 THEN 1D "
        "WHEN -2 THEN -2D ELSE -1D END"
    ),
    "fractional": (
        f"CASE try_cast({_PLACEHOLDER} AS DOUBLE) WHEN 0D THEN -1D WHEN -1D THEN -1D "
        f"WHEN 1D THEN 1D WHEN -2D THEN -2D ELSE try_cast({_PLACEHOLDER} AS DOUBLE) END"
    ),
    "decimal": f"try_cast({_PLACEHOLDER} AS DOUBLE)",
    "string": (
        f"CASE WHEN lower(try_cast({_PLACEHOLDER} AS STRING)) IN ({_in(_PASS_STRINGS)}) THEN 1D "
        f"WHEN lower(try_cast({_PLACEHOLDER} AS STRING)) IN ({_in(_DISABLED_STRINGS)}) "
        "THEN -2D ELSE -1D END"
    ),
    "void": "CAST(NULL AS DOUBLE)",
}

# typeof() names per family; the dispatch key strips '(p,s)' and ' collate ...'.
_FAMILIES = {
    "boolean": ("boolean",),
    "integral": ("tinyint", "smallint", "int", "bigint"),
    "fractional": ("float", "double"),
    "decimal": ("decimal",),
    "string": ("string", "char", "varchar"),
    "void": ("void",),
}
_TYPE_KEY = f"substring_index(substring_index(typeof({_PLACEHOLDER}), '(', 1), ' ', 1)"


def family_of(type_name: str) -> str | None:
    """The family of a Spark ``simpleString``/``typeof`` type name, or None if unsupported.

    >>> family_of("decimal(10,2)"), family_of("int"), family_of("array<int>")
    ('decimal', 'integral', None)
    """
    key = type_name.split("(", 1)[0].split(" ", 1)[0].lower()
    for family, names in _FAMILIES.items():
        if key in names:
            return family
    return None


#: Expressions whose Spark type is BOOLEAN whatever their operands: comparisons, logic, tests.
_BOOLEAN_NODES: tuple[type[exp.Expr], ...] = (
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Like, exp.ILike, exp.Between, exp.Exists,
    exp.Boolean, exp.RegexpLike,
)  # fmt: skip
#: The ``meta`` key of a generated value whose family the generator knows (``soft_fail``).
_FAMILY_META = "qp_family"
_LONG_MAX = 2**63 - 1


def static_family(value: exp.Expr) -> str | None:
    """The family of ``value`` when its syntax alone fixes its Spark type, else None.

    Without a frame the coding dispatches on ``typeof``, repeating the value in every branch (a
    ``soft_fail`` inside a rule repeats it again in each). Where the syntax fixes the type (a
    comparison, a cast, a literal, a ``soft_fail``) the one branch ``typeof`` would choose is
    emitted instead: the same code, at a fraction of the text Spark analyses.

    >>> from quality_py.sql.parse import parse_expression
    >>> texts = ("a > 0", "CAST(a AS DOUBLE)", "-1", "'x'", "a")
    >>> [static_family(parse_expression(t)) for t in texts]
    ['boolean', 'fractional', 'integral', 'string', None]
    """
    node = value
    while isinstance(node, exp.Paren):
        node = node.this
    known = node.meta_get(_FAMILY_META)
    if isinstance(known, str):
        return known
    if isinstance(node, _BOOLEAN_NODES):
        return "boolean"
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return family_of(to_sql(node.to))
    if isinstance(node, exp.Null):
        return "void"
    if isinstance(node, exp.Neg):
        inner = static_family(node.this)
        return inner if inner in ("integral", "fractional") else None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "string"
        # an integer Spark reads as INT or BIGINT (a longer one is a DECIMAL)
        return "integral" if node.this.isdigit() and int(node.this) <= _LONG_MAX else None
    return None


def _dispatch(branches: dict[str, str], otherwise: str) -> str:
    whens = " ".join(
        f"WHEN {_TYPE_KEY} IN ({_in(_FAMILIES[fam])}) THEN {body}"
        for fam, body in branches.items()
        if fam in _FAMILIES  # "code" is never a value's type: it is chosen by the compiler
    )
    return f"CASE {whens} ELSE {otherwise} END"


@cache
def _template(kind: str, family: str | None) -> exp.Expr:
    branches = _CODE_BRANCHES if kind == "code" else _SOFT_BRANCHES
    text = branches[family] if family else _dispatch(branches, "0" if kind == "code" else "NULL")
    if kind == "soft" and family is None:
        text = f"CASE WHEN {_PLACEHOLDER} IS NULL THEN CAST(NULL AS DOUBLE) ELSE {text} END"
    if kind == "soft" and family not in (None, "void"):
        text = f"IF({_PLACEHOLDER} IS NULL, CAST(NULL AS DOUBLE), {text})"
    tree = DIALECT.parse(text)[0]
    assert tree is not None
    return tree


def result_code(value: exp.Expr, family: str | None = None) -> exp.Expr:
    """The INT result code of a rule value (null -> 0, Failed).

    ``family`` (from :func:`family_of`) selects one branch when the value's type is known;
    without it, the branch its syntax fixes (:func:`static_family`), else a ``typeof`` dispatch.

    >>> from quality_py.sql.build import to_sql
    >>> to_sql(result_code(exp.column("ok"), "boolean"))
    'CASE WHEN TRY_CAST(ok AS BOOLEAN) THEN 100000 ELSE 0 END'
    """
    return substitute(_template("code", family or static_family(value)), _PLACEHOLDER, value)


_COLUMN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def _code_sql_template(family: str | None) -> str:
    return to_sql(result_code(exp.column(_COLUMN_MARK), family))


def result_code_sql(column: str, family: str | None = None) -> str:
    """:func:`result_code` of a plain column, as SQL text (one generation per family, not per
    rule: a suite of 5000 rules stages its codes without 5000 generations).

    >>> result_code_sql("__qp_v0", "boolean")
    'CASE WHEN TRY_CAST(__qp_v0 AS BOOLEAN) THEN 100000 ELSE 0 END'
    """
    if not _COLUMN_NAME.fullmatch(column) or _COLUMN_MARK in column:
        raise ValueError(f"not a plain column name: {column!r}")
    return _code_sql_template(family).replace(_COLUMN_MARK, column)


def soft_fail(value: exp.Expr, family: str | None = None) -> exp.Expr:
    """``soft_fail(value)``: DOUBLE -1.0 Failed/SoftFailed, 1.0 Passed, -2.0 Disabled, else p.

    >>> static_family(soft_fail(exp.column("ok")))  # every branch is a DOUBLE
    'fractional'
    """
    tree = substitute(_template("soft", family or static_family(value)), _PLACEHOLDER, value)
    tree.meta[_FAMILY_META] = "fractional"
    return tree


def result_words(node: object) -> set[str] | None:
    """The words a rule can yield when every branch is a string literal (or null), else None."""
    if isinstance(node, exp.Paren):
        return result_words(node.this)
    if isinstance(node, exp.Null):
        return set()
    if isinstance(node, exp.Literal) and node.is_string:
        return {node.this.lower()}
    branches: list[object] = []
    if isinstance(node, exp.Case) and node.args.get("this") is None:
        branches = [i.args.get("true") for i in node.args.get("ifs") or []]
        branches.append(node.args.get("default") or exp.Null())
    elif isinstance(node, exp.If):
        branches = [node.args.get("true"), node.args.get("false") or exp.Null()]
    else:
        return None
    words: set[str] = set()
    for branch in branches:
        found = result_words(branch)
        if found is None:
            return None
        words |= found
    return words
