"""Keys of reference data compare in the reference data's own type, or the rule is refused.

Spark compares a string with a number by converting one of them: on a map keyed by the string
``'01'`` the int key ``1`` finds ``'01'`` (the string becomes the number 1), and one key that is
not a number aborts the whole job under ANSI. A lookup that converts its key answers another
question than the one written, so every reference-data function (``map_lookup``,
``map_contains``, ``probability_in``, ``bloom_contains``) checks its key's type against the
reference data's key type in two ways:

* when the compiler knows both types (a runner holding a DataFrame gives it Spark's types), the
  rule is refused with :data:`KEY_TYPE` naming the rule, the map and both types unless they are
  :func:`compatible`;
* otherwise (a lambda-bound key, or a Column built without a DataFrame) the emitted SQL carries a
  guard Spark can only analyse when the two types have a lossless common type: the two sides are
  compared as one-field structs, and Spark does not convert text to numbers or dates inside a
  struct. The struct field is named after the map, so Spark's own error names it
  (:func:`explain_guard_error` turns that error into ours).

Compatible means the same type, both integral (``int`` against ``bigint`` compares numbers
exactly) or both text (``string``/``varchar``/``char``). A rule that means another comparison
writes the cast itself: ``map_lookup('zips', CAST(zip AS STRING))``.
"""

from __future__ import annotations

import re

from sqlglot import exp

from quality_py.sql.build import to_sql

#: The error code of a key whose type differs from the reference data's.
KEY_TYPE = "KEY_TYPE"

_INTEGRAL = frozenset({"tinyint", "smallint", "int", "bigint"})
_GUARD_PREFIX = "key of "


def normalised(kind: str) -> str:
    """``kind`` with text types made ``string`` and spaces removed.

    >>> normalised("varchar(3)"), normalised("decimal(10, 2)")
    ('string', 'decimal(10,2)')
    """
    kind = kind.strip().lower().replace(" ", "")
    if kind.startswith(("varchar(", "char(")) or kind == "string":
        return "string"
    return kind


def compatible(key_type: str, reference_type: str) -> bool:
    """Whether a key of ``key_type`` compares exactly with reference keys of
    ``reference_type``: equal types, both integral, or a null literal.

    >>> compatible("int", "bigint"), compatible("int", "string"), compatible("varchar(2)", "string")
    (True, False, True)
    >>> compatible("bigint", "double"), compatible("void", "string")
    (False, True)
    """
    a, b = normalised(key_type), normalised(reference_type)
    return a == b or "void" in (a, b) or (a in _INTEGRAL and b in _INTEGRAL)


def mismatch_message(
    fn: str, what: str, name: str, reference_type: str, key: exp.Expr, key_type: str
) -> str:
    """The sentence refusing a key of another type, with the cast to write instead.

    >>> from sqlglot import exp
    >>> mismatch_message("map_lookup", "map", "zips", "string", exp.column("zip"), "int")[-39:]
    "map_lookup('zips', CAST(zip AS STRING))"
    """
    cast = f"CAST({to_sql(key)} AS {reference_type.upper()})"
    call = f"{fn}({cast}, '{name}')" if fn in _VALUE_FIRST else f"{fn}('{name}', {cast})"
    return (
        f"{fn} compares keys of different types: the {what} {name!r} holds {reference_type} "
        f"and the key {to_sql(key)} is {key_type}. Spark would convert one side to the other "
        "and compare other values (the text '01' and the number 1 meet as 1), so the rule is "
        f"refused; compare in the {what}'s type: {call}"
    )


#: Functions that take the value first and the reference data's name second.
_VALUE_FIRST = frozenset({"probability_in", "bloom_contains"})


def guard_field(name: str) -> str:
    """The struct field name of a guard for reference data ``name`` (Spark's error shows it)."""
    return _GUARD_PREFIX + re.sub(r"[^A-Za-z0-9_.]", "_", name)


def struct_guard(name: str, reference: exp.Expr, key: exp.Expr) -> exp.Expr:
    """``named_struct(f, reference) = named_struct(f, key)``: Spark analyses it only when the
    two types have a lossless common type (no text-to-number conversion inside structs)."""
    field = exp.Literal.string(guard_field(name))

    def wrap(value: exp.Expr) -> exp.Expr:
        return exp.Anonymous(this="named_struct", expressions=[field.copy(), value.copy()])

    return exp.EQ(this=wrap(reference), expression=wrap(key))


_GUARD_ERROR = re.compile(
    r"STRUCT<`?" + _GUARD_PREFIX + r"([^:`]+)`?: ([^>]+?)(?: NOT NULL)?>\"? and \"?STRUCT<`?"
    + _GUARD_PREFIX + r"[^:`]+`?: ([^>]+?)(?: NOT NULL)?>"
)  # fmt: skip


def explain_guard_error(message: str) -> str | None:
    """Our sentence for Spark's analysis error of a failed :func:`struct_guard`, else None.

    >>> text = 'types ("STRUCT<`key of zips`: STRING>" and "STRUCT<`key of zips`: INT>")'
    >>> explain_guard_error(text)[:60]
    'a lookup compares keys of different types: the reference dat'
    """
    found = _GUARD_ERROR.search(message)
    if found is None:
        return None
    name, reference_type, key_type = found.groups()
    return (
        f"a lookup compares keys of different types: the reference data {name!r} holds "
        f"{reference_type.lower()} and the key is {key_type.lower()}. Spark would convert one "
        "side to the other and compare other values, so the rule is refused; cast the key to "
        f"the reference data's type: CAST(key AS {reference_type.upper()})"
    )
