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
from quality_py.jobs.reference import ReferenceData
from quality_py.model.types import DataFrame, SparkSession
from quality_py.spark.samples import SAMPLE_VIEWS, sample_columns

#: The sample each tuple of sample views belongs to.
SAMPLE_OF_VIEWS: dict[tuple[str, ...], str] = {v: k for k, v in SAMPLE_VIEWS.items()}
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
    if text.startswith("sample:"):  # a sample's schema, known without reading it
        return ddl_paths(_sample(text.split(":", 1)[1], f"--schema {text}")[0])
    if not names_a_file(text):
        return ddl_paths(text)
    path = Path(text)
    if not path.exists():
        raise InputError(f"--schema {text}: no such sample file")
    return _file_paths(path)


def _sample(name: str, what: str) -> tuple[str, dict[str, Path]]:
    """A sample's schema and views' files, or one paragraph naming what asked for them."""
    try:
        return sample_columns(name)
    except (ModuleNotFoundError, ValueError) as err:
        raise InputError(f"{what}: {err}", item_kind="schema") from None


def _view_paths(name: str, text: str) -> dict[str, bool] | None:
    """A view's columns from its ``--view NAME=...`` text without Spark: a sample file (its
    header or schema) or a DDL schema; a table (a name with no space) is read by Spark alone."""
    if names_a_file(text):
        if not Path(text).exists():
            raise InputError(f"--view {name}={text}: no such file", item_kind="view")
        return _file_paths(Path(text))
    if any(ch.isspace() for ch in text.strip()):
        return ddl_paths(text)
    return None


def static_views(
    reference: ReferenceData, input_paths: dict[str, bool] | None
) -> dict[str, dict[str, bool] | None]:
    """``{view name: its columns}`` of every view ``reference`` names, read without Spark (a
    static check of names): ``--view NAME=FILE`` or ``NAME=DDL``, a views file's file sources,
    a sample's views; the table's own view has the input's columns. None: columns only Spark
    can read (a catalog table, a view of SQL, a format read by Spark alone).

    >>> from quality_py.jobs.reference import ReferenceData
    >>> data = ReferenceData.read({"codes": "code STRING, label STRING", "t": "main.orders"})
    >>> static_views(data, None)
    {'codes': {'code': False, 'label': False}, 't': None}
    """
    out: dict[str, dict[str, bool] | None] = {}
    for name, text in reference.paths:
        out[name.lower()] = _view_paths(name, text)
    for view in reference.views:
        source = Path(str(view.source))
        # read here only where the file's suffix says what its format says (a folder: parquet)
        kind = "parquet" if source.is_dir() else source.suffix.lower().lstrip(".")
        readable = view.source is not None and source.exists() and kind == view.format
        out[view.name.lower()] = _file_paths(source) if readable else None
    if reference.sample_views:
        sample = reference.sample_views
        name = SAMPLE_OF_VIEWS[sample]
        _, files = _sample(name, f"the sample {name}'s views")
        for name in sample:
            out[name] = _file_paths(files[name])
    if reference.table_view:
        out[reference.table_view.lower()] = input_paths
    return out


def schema_frame(spark: SparkSession, text: str) -> DataFrame:
    """An empty frame of the columns ``--schema`` gives (a sample file read as an input)."""
    if names_a_file(text) or text.startswith("sample:"):
        from quality_py.jobs.inputs import read_input

        return read_input(spark, text, None).limit(0)
    return spark.createDataFrame([], text)


__all__ = ["SAMPLE_SUFFIXES", "names_a_file", "schema_frame", "static_paths", "static_views"]
