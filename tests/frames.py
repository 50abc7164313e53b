"""The tests' own frames through Arrow, not through a Python worker (issue 54).

On classic Spark, ``spark.createDataFrame(rows, ddl)`` pickles the rows into an RDD, and every
query over the frame runs a Python worker to read them back; building the frame costs about as
much as the query. Arrow hands the same rows to the JVM as one batch. :func:`arrow_frames`
routes the calls **the tests make** (a caller in ``tests.``) through Arrow; the library's own
calls keep the path production takes.

The values a test reads are the same either way: every row is checked by PySpark's own type
verifier first (the same ``TypeError`` for a wrong value), and anything this module does not
convert exactly goes the usual way: Row objects and dicts (matched by name), schema
inference, intervals, nested values, timestamps and NaN on pyspark 3.5 (whose pandas path reads
NaN as null), an Arrow error or warning. On pyspark 4 a timestamp is handed over as the
microseconds PySpark's own ``toInternal`` computes for it on the list's way.

The frame is a local relation: ``ConvertToLocalRelation`` would fold a projection over it on the
driver, with interpreted evaluation, where the list's frame ran in tasks with generated code.
The tests' session excludes that rule (as Spark's own test sessions do), so a rule meets its
rows in tasks, as it meets a table's.
"""

from __future__ import annotations

import functools
import math
import sys
import warnings
from typing import Any

#: Spark's optimizer rule that evaluates a projection over a local relation on the driver
FOLD_ON_DRIVER = "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation"
#: The tests' calls by the way they went (``arrow``, ``list``): tests/spark/test_frames.py
WAYS: dict[str, int] = {"arrow": 0, "list": 0}


def arrow_frames(session: Any) -> None:
    """Route the tests' ``createDataFrame(list, schema)`` through Arrow on ``session``."""
    original = session.createDataFrame
    spark4 = int(__import__("pyspark").__version__.split(".")[0]) >= 4

    @functools.wraps(original)
    def create(
        data: Any, schema: Any = None, samplingRatio: Any = None, verifySchema: bool = True
    ) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if (
            caller.startswith("tests.")
            and type(data) is list
            and schema is not None
            and samplingRatio is None
            and verifySchema
        ):
            frame = _through_arrow(session, data, schema, spark4)
            WAYS["arrow" if frame is not None else "list"] += 1
            if frame is not None:
                return frame
        return original(data, schema, samplingRatio, verifySchema)

    session.createDataFrame = create


@functools.lru_cache(maxsize=512)
def _struct_of(ddl: str) -> Any:
    from pyspark.sql.types import StructType, _parse_datatype_string

    parsed = _parse_datatype_string(ddl)
    return parsed if isinstance(parsed, StructType) else None


def _through_arrow(session: Any, rows: list[Any], schema: Any, spark4: bool) -> Any:
    from pyspark.sql.types import StructType, _make_type_verifier

    struct = _struct_of(schema) if isinstance(schema, str) else schema
    if not isinstance(struct, StructType) or not _convertible(struct, spark4):
        return None
    if not all(type(r) in (tuple, list) and len(r) == len(struct.fields) for r in rows):
        return None
    verify = _make_type_verifier(struct)
    for row in rows:
        verify(row)  # the list path's own check, its own error
    try:
        columns = [[_plain(f.dataType, r[i]) for r in rows] for i, f in enumerate(struct.fields)]
    except _NotPlain:
        return None
    if not spark4 and any(isinstance(v, float) and math.isnan(v) for c in columns for v in c):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # pyspark 3.5 on pandas 2 deprecates as it goes; a changed value would not be one
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", ResourceWarning)
            return _frame(session, struct, columns, spark4)
    except Exception:
        return None


def _frame(session: Any, struct: Any, columns: list[list[Any]], spark4: bool) -> Any:
    import pyarrow as pa

    create = type(session).createDataFrame  # PySpark's own, not the routing on the session
    if spark4:
        from pyspark.sql.pandas.types import to_arrow_type

        arrays = [
            pa.array(c, type=to_arrow_type(f.dataType, timezone="UTC"))
            for c, f in zip(columns, struct.fields, strict=True)
        ]
        table = pa.Table.from_arrays(arrays, names=[f.name for f in struct.fields])
        return create(session, table, struct)
    import pandas as pd

    names = [f"c{i}" for i in range(len(columns))]  # the schema names the columns
    data = pd.DataFrame(
        {n: pd.Series(c, dtype=object) for n, c in zip(names, columns, strict=True)}
    )
    conf = session.conf
    before = conf.get("spark.sql.execution.arrow.pyspark.enabled")
    fallback = conf.get("spark.sql.execution.arrow.pyspark.fallback.enabled")
    conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    conf.set("spark.sql.execution.arrow.pyspark.fallback.enabled", "false")
    try:
        return create(session, data, struct)
    finally:
        conf.set("spark.sql.execution.arrow.pyspark.enabled", before)
        conf.set("spark.sql.execution.arrow.pyspark.fallback.enabled", fallback)


def _convertible(dtype: Any, spark4: bool) -> bool:
    """Whether ``dtype``'s values go through Arrow exactly (no name matching; on pyspark 3.5's
    pandas path flat values only, no timestamps)."""
    from pyspark.sql import types as t

    plain = (
        t.BooleanType, t.ByteType, t.ShortType, t.IntegerType, t.LongType, t.FloatType,
        t.DoubleType, t.DecimalType, t.StringType, t.BinaryType, t.DateType,
    )  # fmt: skip
    if isinstance(dtype, t.StructType):
        names = [f.name for f in dtype.fields]
        return len(set(names)) == len(names) and all(
            _convertible(f.dataType, spark4) for f in dtype.fields
        )
    if type(dtype) in plain:
        return True
    if not spark4:
        return False  # nested values and timestamps on 3.5's pandas path: the list's way
    if type(dtype) in (t.TimestampType, t.TimestampNTZType):
        return True  # as PySpark's own toInternal reads the value (_plain)
    if isinstance(dtype, t.ArrayType):
        return _convertible(dtype.elementType, spark4)
    if isinstance(dtype, t.MapType):
        return _convertible(dtype.keyType, spark4) and _convertible(dtype.valueType, spark4)
    return False


def _plain(dtype: Any, value: Any) -> Any:
    """``value`` as pyarrow reads it for ``dtype`` (a map's items, a struct by its names)."""
    from pyspark.sql import types as t

    if value is None:
        return None
    if type(dtype) in (t.TimestampType, t.TimestampNTZType):
        return dtype.toInternal(value)  # microseconds, as the list's way computes them
    if isinstance(dtype, t.ArrayType):
        return [_plain(dtype.elementType, v) for v in value]
    if isinstance(dtype, t.MapType):
        return [(_plain(dtype.keyType, k), _plain(dtype.valueType, v)) for k, v in value.items()]
    if isinstance(dtype, t.StructType):
        if type(value) not in (tuple, list) or len(value) != len(dtype.fields):
            raise _NotPlain
        return {f.name: _plain(f.dataType, v) for f, v in zip(dtype.fields, value, strict=True)}
    return value


class _NotPlain(Exception):
    """A value matched by name: the list's way."""
