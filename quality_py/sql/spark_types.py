"""Spark's type strings (``simpleString`` and DDL) as sqlglot types, every type included.

sqlglot reads Spark's type syntax except ``void`` (the type of a bare ``NULL``), which it knows
as ``NULL``; :func:`parse_type` and :func:`type_sql` translate, so a rule whose value is a null
literal, or a struct with a null field, has a type like any other.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.errors import SqlglotError

from quality_py.sql.dialect import DIALECT

_VOID_IN = re.compile(r"(?<![\w`])void(?=\s*[,>]|\s*$)", re.IGNORECASE)
_NULL_OUT = re.compile(r"(?<![\w`])NULL(?=\s*[,>]|\s*$)")


def parse_type(text: str) -> exp.DataType:
    """A Spark type string (``simpleString`` or DDL) as a sqlglot type; a text that is no type
    raises ``ValueError`` (whatever sqlglot raised), so every caller handles one exception.

    >>> parse_type("struct<a:void,b:array<int>>").sql(dialect="spark")
    'STRUCT<a: NULL, b: ARRAY<INT>>'
    >>> parse_type("serial")
    Traceback (most recent call last):
    ValueError: not a Spark type: 'serial'
    """
    try:
        return exp.DataType.build(_VOID_IN.sub("null", text.strip()), dialect=DIALECT)
    except (SqlglotError, ValueError, TypeError, RecursionError):
        raise ValueError(f"not a Spark type: {text.strip()[:200]!r}") from None


def type_sql(kind: exp.DataType) -> str:
    """The type as Spark writes it in SQL (``DECIMAL(20,2)``, ``VOID``).

    >>> type_sql(parse_type("map<void,decimal(20,2)>"))
    'MAP<VOID, DECIMAL(20,2)>'
    """
    sql = kind.sql(dialect=DIALECT)
    sql = re.sub(r"\((\d+), (\d+)\)", r"(\1,\2)", sql)
    return _NULL_OUT.sub("VOID", sql)


def sql_type(simple: str) -> str:
    """Spark's ``simpleString`` of a type as its SQL form.

    >>> sql_type("decimal(38,18)"), sql_type("struct<a:int>"), sql_type("void")
    ('DECIMAL(38,18)', 'STRUCT<a: INT>', 'VOID')
    """
    return type_sql(parse_type(simple))


def is_text(kind: exp.DataType) -> bool:
    """Whether values of ``kind`` are text (``STRING``, ``VARCHAR(n)``, ``CHAR(n)``)."""
    return kind.this in (exp.DType.TEXT, exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.NCHAR,
                         exp.DType.NVARCHAR)  # fmt: skip


#: the kinds of type DQX's ``has_valid_schema`` lets stand for one another (check_funcs.py,
#: ``_is_compatible_atomic_type``): numbers, texts, dates and times
_FAMILIES = (
    frozenset({exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT,
               exp.DType.DECIMAL, exp.DType.FLOAT, exp.DType.DOUBLE}),
    frozenset({exp.DType.TEXT, exp.DType.VARCHAR, exp.DType.CHAR}),
    frozenset({exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ,
               exp.DType.TIMESTAMPLTZ, exp.DType.TIMESTAMPNTZ}),
)  # fmt: skip


def compatible_types(actual: str, expected: str) -> bool:
    """Whether a column of the ``actual`` type stands for the ``expected`` one: the same type,
    or two of one kind (numbers, texts, dates and times); arrays and maps by their parts;
    structs with the same field names in the same order, field by field; a ``variant`` stands
    for any type.

    >>> compatible_types("bigint", "int"), compatible_types("varchar(3)", "string")
    (True, True)
    >>> compatible_types("array<timestamp>", "array<date>"), compatible_types("int", "string")
    (True, False)
    >>> compatible_types("struct<a:int>", "struct<b:int>"), compatible_types("variant", "int")
    (False, True)
    """
    return _compatible(parse_type(actual), parse_type(expected))


def _compatible(actual: exp.DataType, expected: exp.DataType) -> bool:
    if type_sql(actual) == type_sql(expected) or actual.this == exp.DType.VARIANT:
        return True
    if any(actual.this in f and expected.this in f for f in _FAMILIES):
        return True
    if actual.this != expected.this or actual.this not in (
        exp.DType.ARRAY,
        exp.DType.MAP,
        exp.DType.STRUCT,
    ):
        return False
    parts, wanted = actual.expressions, expected.expressions
    if len(parts) != len(wanted):
        return False
    if actual.this == exp.DType.STRUCT:
        return all(
            a.name == e.name and _compatible(a.args["kind"], e.args["kind"])
            for a, e in zip(parts, wanted, strict=True)
        )
    return all(_compatible(a, e) for a, e in zip(parts, wanted, strict=True))
