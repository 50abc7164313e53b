"""Type aliases for public signatures: the Spark types our functions take and return.

PySpark is imported only for type checking, so importing quality_py starts no JVM and needs no
session. At run time the aliases are ``Any``: classic and Spark Connect DataFrames (two classes)
are both accepted.

>>> from quality_py.model.types import DataFrame
>>> DataFrame is not None
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, Row, SparkSession
    from pyspark.sql.types import DataType, StructType
else:
    Column = DataFrame = Row = SparkSession = DataType = StructType = Any

#: A schema given as a StructType or taken from a DataFrame.
SchemaLike = Any  # StructType | DataFrame; kept loose for Spark Connect's DataFrame class

__all__ = ["Column", "DataFrame", "DataType", "Row", "SchemaLike", "SparkSession", "StructType"]
