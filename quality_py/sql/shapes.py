"""Struct shapes (field names and nesting) read from DDL, for expansions that rebuild structs.

Spark SQL has no ``withField``/``dropFields`` function, so ``update_field`` and ``drop_field``
are expanded into ``named_struct`` rebuilds, which needs the struct's fields at compile time.

A shape is a tuple of ``(field name, sub-shape or None)``; None marks a non-struct field.

>>> parse_shape("struct<a: int, b: struct<c: string, d: int>>")
(('a', None), ('b', (('c', None), ('d', None))))
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.dialect import DIALECT

Shape = tuple[tuple[str, "Shape | None"], ...]


def _shape_of(dtype: exp.DataType) -> Shape | None:
    if not dtype.is_type(exp.DataType.Type.STRUCT):
        return None
    fields: list[tuple[str, Shape | None]] = []
    for col in dtype.expressions:
        kind = col.args.get("kind")
        fields.append((col.name, _shape_of(kind) if isinstance(kind, exp.DataType) else None))
    return tuple(fields)


def parse_shape(ddl: str) -> Shape:
    """The shape of a struct DDL (``struct<...>``); raises ValueError for other types."""
    shape = _shape_of(exp.DataType.build(ddl, dialect=DIALECT))
    if shape is None:
        raise ValueError(f"not a struct type: {ddl}")
    return shape
