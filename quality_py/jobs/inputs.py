"""Reading a job's input: a sample (``sample:NAME``), a table (``table:NAME`` or
``catalog.schema.table``) or files (by suffix or ``format``), each through the data gate, with a
missing or unreadable input as one :class:`~quality_py.errors.InputError` before any rule runs.
"""

from __future__ import annotations

import re
from pathlib import Path

from quality_py.errors import InputError
from quality_py.gate import reads
from quality_py.gate.locations import has_scheme, local_path
from quality_py.model.types import DataFrame, SparkSession
from quality_py.progress import watching
from quality_py.runners.spark_messages import plain_spark_message
from quality_py.spark.capabilities import has_delta
from quality_py.spark.samples import SAMPLES, load_sample

#: Input formats by file suffix; anything else (a folder, ``.parquet``) is parquet.
_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".csv.gz": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json.gz": "json",
}


FORMATS = ("parquet", "csv", "json", "delta", "orc")
#: A table named without ``table:``: two or three dotted parts (``schema.table``,
#: ``catalog.schema.table``), no path separators, no file suffix.
_TABLE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*){1,2}$")
_FILE_SUFFIXES = (".parquet", ".csv", ".json", ".jsonl", ".ndjson", ".gz", ".orc", ".txt", ".yaml")


def input_table(source: str) -> str | None:
    """The table ``source`` names (``table:NAME``, or ``catalog.schema.table`` that is no
    existing path), or None for a path.

    >>> input_table("main.sales.orders"), input_table("table:orders"), input_table("data/x")
    ('main.sales.orders', 'orders', None)
    >>> input_table("flights.parquet") is None
    True
    """
    if source.startswith("table:"):
        return source[len("table:") :]
    looks_like_table = _TABLE.match(source) and not source.lower().endswith(_FILE_SUFFIXES)
    return source if looks_like_table and not Path(source).exists() else None


def input_format(source: str, fmt: str | None) -> str:
    """The format of ``source``: ``fmt`` when given, else by its suffix (parquet otherwise).

    >>> input_format("a/b.csv.gz", None), input_format("a/b", None), input_format("x", "orc")
    ('csv', 'parquet', 'orc')
    """
    if fmt:
        return fmt
    lowered = source.lower()
    return next((f for s, f in _SUFFIX_FORMATS.items() if lowered.endswith(s)), "parquet")


def read_input(spark: SparkSession, source: str, fmt: str | None) -> DataFrame:
    """Read an input; a missing path or an unreadable format is an :class:`InputError`. A read
    that runs jobs (a CSV's schema is inferred from its rows, a Delta log is read) shows their
    tasks as they finish."""
    with watching(spark, f"reading {source}"):
        return _read_input(spark, source, fmt)


def _read_input(spark: SparkSession, source: str, fmt: str | None) -> DataFrame:
    if source.startswith("sample:"):
        name = source.split(":", 1)[1]
        if name not in SAMPLES:
            raise InputError(
                f"unknown sample {name!r}; known: {', '.join(SAMPLES)}", item_kind="input"
            )
        return load_sample(spark, name)
    table = input_table(source)
    if table is not None:
        return _read_table(spark, table)
    if not has_scheme(source) and not Path(source).exists():
        raise InputError(
            f"input {source} does not exist (a table is named catalog.schema.table or table:NAME)",
            item_kind="input",
        )
    kind = input_format(source, fmt)
    if fmt is None and kind == "parquet" and _is_delta(spark, source):
        kind = "delta"  # read as parquet, a Delta folder would also give its removed rows
    options = {"header": True, "inferSchema": True} if kind == "csv" else None
    try:
        frame = reads.files(spark, kind, source, options=options)
        frame.schema  # noqa: B018 - a wrong format fails here, before any rule runs
    except Exception as err:
        if spark_error(err) is None:
            raise
        raise InputError(
            f"cannot read {source} as {kind}: {spark_error(err)}; give --format "
            f"{'|'.join(FORMATS)} when the file name's suffix does not say what it holds",
            item_kind="input",
        ) from None
    if not frame.columns:
        raise InputError(f"input {source} has no columns (read as {kind})", item_kind="input")
    return frame


def _is_delta(spark: SparkSession, source: str) -> bool:
    """Whether the folder ``source`` holds a Delta table: its log, on this machine; elsewhere,
    asked of a server that has Delta."""
    local = local_path(source)
    if local is not None:
        return (local / "_delta_log").is_dir()
    if not has_delta(spark):
        return False
    try:
        reads.files(spark, "delta", source).schema  # noqa: B018 - analysed on the server
    except Exception:
        return False
    return True


def _read_table(spark: SparkSession, name: str) -> DataFrame:
    try:
        frame = reads.table(spark, name)
        frame.schema  # noqa: B018 - a missing table fails here, before any rule runs
    except Exception as err:
        if spark_error(err) is None:
            raise
        raise InputError(
            f"cannot read the table {name}: {spark_error(err)}", item_kind="input"
        ) from None
    return frame


def spark_error(err: BaseException) -> str | None:
    """The message of a Spark or Py4J error in one line, or None for any other exception."""

    kinds = {k.__name__ for k in type(err).__mro__}
    spark_kinds = {"PySparkException", "Py4JJavaError", "Py4JError", "CapturedException"}
    if not kinds & spark_kinds:
        return None
    lines = [ln.strip() for ln in str(err).strip().splitlines() if ln.strip()]
    if lines and lines[0].startswith("An error occurred while calling") and len(lines) > 1:
        lines = lines[1:]  # Py4J's own first line names a JVM object, not the problem
    first = lines[0].lstrip(": ") if lines else type(err).__name__
    first = re.sub(r"^([\w.$]+(Exception|Error)): ", "", first)  # the Java class name
    return plain_spark_message(first)[0][:400]  # without the error class and SQL state
