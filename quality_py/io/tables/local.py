"""Rule tables read on this machine without Spark: a CSV export, a parquet file or folder, a
JSON-lines file, a Delta folder whose log is plain JSON commits.

Rule tables are small and people edit them beside the pipeline: checking five rows of
``rules.csv`` must not start a JVM. The values read are the values Spark's reader gives
(``io/rule_sources.py``): a CSV is RFC 4180 with a header, every cell text, an empty cell null;
parquet and JSON keep their types. A table somewhere else (a catalog, an object store) is read
with Spark, through the same row checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality_py.errors import InputError
from quality_py.gate import files

#: The suffixes of a rule table file this module reads.
LOCAL_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl")


@dataclass(frozen=True)
class LocalTable:
    """A table's column names and rows (``{column: value}``), with where it came from."""

    origin: str
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    #: where each row starts in a text file: ``(line, column of each cell)``, 1-based (CSV)
    starts: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def select_rows(self, columns: Sequence[str]) -> list[dict[str, Any]]:
        """Each row's values of ``columns`` (a column a row lacks is null)."""
        return [{c: row.get(c) for c in columns} for row in self.rows]


def _csv(path: Path) -> LocalTable:
    """RFC 4180 with a header row, as spreadsheets write it; an empty cell is null."""
    text = files.read_text(path)  # line ends inside a cell kept as written
    records = files.csv_records(text, str(path))
    if not records:
        raise InputError(f"{path}: the file is empty (a rule table has a header row)")
    columns = tuple(records[0][1])
    lines = text.split("\n")
    rows, starts = [], []
    for first, cells in records[1:]:
        if not cells:
            continue  # a blank line, as Spark's reader skips it
        padded = [*cells, *[""] * (len(columns) - len(cells))]
        rows.append({c: (v if v != "" else None) for c, v in zip(columns, padded, strict=False)})
        starts.append((first, _cell_columns(lines[first - 1] if first <= len(lines) else "")))
    return LocalTable(str(path), columns, tuple(rows), tuple(starts))


def _cell_columns(line: str) -> tuple[int, ...]:
    """The 1-based column where each cell of a CSV line starts (inside its quote when quoted);
    a cell that goes on to the next lines counts from its own start all the same."""
    out, quoted, start = [], False, 0
    for i, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            out.append(start)
            start = i + 1
    out.append(start)
    return tuple(s + (2 if line[s : s + 1] == '"' else 1) for s in out)


def _json_lines(path: Path) -> LocalTable:
    rows: list[dict[str, Any]] = []
    for number, value in files.json_lines(files.read_text(path), str(path)):
        if not isinstance(value, dict):
            raise InputError(f"{path}:{number}: not a JSON object")
        rows.append(value)
    columns = tuple(dict.fromkeys(k for row in rows for k in row))
    return LocalTable(str(path), columns, tuple(rows))


def _parquet(origin: str, paths: Sequence[str]) -> LocalTable:
    tables = [files.parquet_table(f) for f in paths]
    if not tables:
        raise InputError(f"{origin}: no parquet file in the folder")
    columns = tuple(dict.fromkeys(c for t in tables for c in t.column_names))
    rows = tuple(row for t in tables for row in t.to_pylist())
    return LocalTable(origin, columns, rows)


def parquet_files(folder: Path) -> list[str]:
    """The data files of a plain parquet folder (Spark's rule: names starting ``_`` or ``.``
    are not data)."""
    return sorted(
        str(p)
        for p in folder.rglob("*.parquet")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(folder).parts)
    )


def readable_here(path: Path) -> bool:
    """Whether the table at ``path`` is read here without Spark: a file of a known suffix or a
    folder of parquet files. A Delta folder is read by Spark (deletion vectors and column
    mapping make its files alone a wrong answer)."""
    if path.is_file():
        return path.suffix.lower() in LOCAL_SUFFIXES
    if not path.is_dir() or (path / "_delta_log").exists():
        return False
    return bool(parquet_files(path))


def read_local_table(path: Path) -> LocalTable:
    """The table at ``path`` (see :func:`readable_here`).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rules.csv"
    >>> _ = path.write_text('ruleId,ruleExpr\\n100,"a > 0, or ""b"" ok"\\n101,\\n')
    >>> table = read_local_table(path)
    >>> table.columns, table.select_rows(["ruleExpr"])
    (('ruleId', 'ruleExpr'), [{'ruleExpr': 'a > 0, or "b" ok'}, {'ruleExpr': None}])
    """
    suffix = path.suffix.lower()
    if path.is_file() and suffix == ".csv":
        return _csv(path)
    if path.is_file() and suffix in (".json", ".jsonl"):
        return _json_lines(path)
    if path.is_file() and suffix == ".parquet":
        return _parquet(str(path), [str(path)])
    return _parquet(str(path), parquet_files(path))


__all__ = ["LOCAL_SUFFIXES", "LocalTable", "parquet_files", "read_local_table", "readable_here"]
