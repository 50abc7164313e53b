"""``--schema``: the data's columns given without the data, as a Spark DDL schema or a sample
file (``.csv`` header, ``.parquet`` schema, ``.json`` lines).

Read here without Spark for a static check of names (:func:`static_paths`), or with Spark as an
empty frame to analyse rules against (:func:`schema_frame`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quality_py.errors import InputError
from quality_py.gate import files
from quality_py.gate.ddl import ddl_paths
from quality_py.io.tables.local import parquet_files
from quality_py.model.types import DataFrame, SparkSession

#: The suffixes of a sample file ``--schema`` may name.
SAMPLE_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl", ".ndjson")
#: JSON lines read for their keys: enough for a sample, bounded for a big file.
JSON_LINES_READ = 1000


def names_a_file(text: str) -> bool:
    """Whether ``--schema`` names a sample file rather than holding a DDL schema.

    >>> names_a_file("data/orders.csv"), names_a_file("id INT, amount DOUBLE")
    (True, False)
    """
    return text.strip().lower().endswith(SAMPLE_SUFFIXES) or _exists(text)


def _exists(text: str) -> bool:
    """Whether ``text`` names something on this machine (a DDL schema of hundreds of
    characters is no file name: the file system's refusal means "no")."""
    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def _arrow_paths(schema: Any, prefix: str, out: dict[str, bool]) -> None:
    import pyarrow as pa

    for field in schema:
        path = f"{prefix}.{field.name.lower()}" if prefix else field.name.lower()
        out[path] = pa.types.is_struct(field.type)
        if out[path]:
            _arrow_paths(list(field.type), path, out)


def _json_paths(value: dict[str, Any], prefix: str, out: dict[str, bool]) -> None:
    for key, item in value.items():
        path = f"{prefix}.{key.lower()}" if prefix else key.lower()
        out[path] = out.get(path, False) or isinstance(item, dict)
        if isinstance(item, dict):
            _json_paths(item, path, out)


def _file_paths(path: Path) -> dict[str, bool]:
    suffix = path.suffix.lower()
    shown = f"--schema {path}"
    out: dict[str, bool] = {}
    if suffix == ".csv":
        head = files.read_head(path, what="--schema", size=1024 * 1024)
        header = next(iter(files.csv_rows(head.split("\n", 1)[0], shown)), None)
        if not header:
            raise InputError(f"{shown}: the file has no header row")
        return {name.lower(): False for name in header}
    if suffix == ".parquet" or path.is_dir():
        found = [str(path)] if path.is_file() else parquet_files(path)
        if not found:
            raise InputError(f"{shown}: no parquet file in the folder")
        _arrow_paths(files.parquet_schema(found[0], what="--schema"), "", out)
        return out
    head = files.read_head(path, what="--schema")
    lines = head.split("\n")[: JSON_LINES_READ if len(head) < 16 * 1024 * 1024 else -1]
    for _, value in files.json_lines("\n".join(lines), shown, limit=JSON_LINES_READ):
        # Spark reads a line holding an array of objects as one row per object
        for row in value if isinstance(value, list) else [value]:
            if isinstance(row, dict):
                _json_paths(row, "", out)
    return out


def static_paths(text: str) -> dict[str, bool]:
    """``{lower-cased dotted path: is a struct}`` of the columns ``--schema`` gives, read here
    without Spark.

    >>> static_paths("id INT, trip STRUCT<fare: DOUBLE>")
    {'id': False, 'trip': True, 'trip.fare': False}
    """
    if not names_a_file(text):
        return ddl_paths(text)
    path = Path(text)
    if not path.exists():
        raise InputError(f"--schema {text}: no such sample file")
    return _file_paths(path)


def schema_frame(spark: SparkSession, text: str) -> DataFrame:
    """An empty frame of the columns ``--schema`` gives (a sample file read as an input)."""
    if names_a_file(text):
        from quality_py.jobs.inputs import read_input

        return read_input(spark, text, None).limit(0)
    return spark.createDataFrame([], text)


__all__ = ["SAMPLE_SUFFIXES", "names_a_file", "schema_frame", "static_paths"]
