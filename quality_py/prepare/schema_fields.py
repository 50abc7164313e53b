"""The facts about a schema that rule preparation and validation need, without a JVM."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quality_py.model.types import SchemaLike

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """A top-level column as a meta rule set's filter sees it."""

    name: str
    datatype: str  # upper-case Spark SQL type name: 'STRING', 'BIGINT', 'STRUCT<A:INT>'
    nullable: bool


def as_struct(schema: SchemaLike) -> StructType:
    """A StructType from a StructType or DataFrame (``.schema``)."""
    from pyspark.sql.types import StructType

    if isinstance(schema, StructType):
        return schema
    found = getattr(schema, "schema", None)
    if isinstance(found, StructType):
        return found
    raise TypeError(f"expected a StructType or DataFrame, got {type(schema).__name__}")


def columns_of(schema: SchemaLike) -> list[ColumnInfo]:
    """Top-level columns with their SQL type name and nullability."""
    return [
        ColumnInfo(f.name, f.dataType.simpleString().upper(), f.nullable)
        for f in as_struct(schema).fields
    ]


def _paths(prefix: str, dtype: DataType, out: set[str]) -> None:
    from pyspark.sql.types import StructType

    if isinstance(dtype, StructType):
        for f in dtype.fields:
            path = f"{prefix}.{f.name.lower()}" if prefix else f.name.lower()
            out.add(path)
            _paths(path, f.dataType, out)


def field_paths(schema: SchemaLike) -> frozenset[str]:
    """Every column name and nested struct path, lower-cased: ``a``, ``a.b``, ``a.b.c``.

    >>> from pyspark.sql.types import IntegerType, StructField, StructType
    >>> inner = StructType([StructField("B", IntegerType())])
    >>> sorted(field_paths(StructType([StructField("a", inner)])))
    ['a', 'a.b']
    """
    out: set[str] = set()
    _paths("", as_struct(schema), out)
    return frozenset(out)
