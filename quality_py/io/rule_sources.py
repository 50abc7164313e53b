"""Rule tables wherever analysts keep them: a CSV export, a parquet or Delta folder, a catalog
table, or a folder holding one of those per table.

A *source* names the rules table (the others are optional):

* ``rules.csv`` (a spreadsheet export with a header row) or ``rules.parquet`` / ``rules.json``:
  that file is the rules table; files named ``lambdas``, ``outputs`` and ``meta_rule_sets`` with
  the same suffix beside it are the other tables;
* a folder with a ``_delta_log``: a Delta table (read with Delta Lake when the session has it,
  else from its JSON commit log: the live parquet files are the added ones not removed since);
* a folder of plain parquet files: a parquet table;
* a folder holding ``rules`` (a parquet or Delta folder, or ``rules.csv``/``.parquet``/``.json``)
  and optionally the other tables the same way (what ``convert`` writes);
* ``table:NAME`` or a bare ``db.name`` that is no path: a catalog table; with ``--lambdas``
  and friends naming the others.

Missing ids or text in a row are reported with the table, row and column by the table reader
(:func:`quality_py.io.tables.read_rule_tables`), whatever the source.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from quality_py.errors import InputError
from quality_py.gate import files, reads
from quality_py.io.tables import read_rule_tables
from quality_py.io.tables.columns import RuleColumns, mapping
from quality_py.io.tables.local import LocalTable, read_local_table, readable_here
from quality_py.io.tables.rows import rule_row_id
from quality_py.io.text_places import TextPlace
from quality_py.model.ids import Id
from quality_py.model.types import DataFrame, SparkSession

TABLES = ("rules", "lambdas", "outputs", "meta_rule_sets")
_FILE_FORMATS = {".csv": "csv", ".parquet": "parquet", ".json": "json", ".jsonl": "json"}
_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$")


def _refuse(message: str) -> InputError:
    return InputError(message, item_kind="rule table")


def _delta_files(folder: Path) -> list[str]:
    """The live parquet files of a Delta table, replayed from its JSON commits."""
    log = folder / "_delta_log"
    commits = sorted(log.glob("*.json"))
    numbers = [int(p.stem) for p in commits if p.stem.isdigit()]
    if not numbers or numbers != list(range(len(numbers))):
        raise _refuse(
            f"{folder} is a Delta table whose log starts at a checkpoint: read it in a session "
            "with Delta Lake (delta-spark), or export it to CSV or parquet"
        )
    live: dict[str, None] = {}
    for path in commits:
        for _, action in files.json_lines(files.read_text(path), str(path)):
            if not isinstance(action, dict):
                raise _refuse(f"{path} is not a Delta log commit (a line is not an object)")
            added, removed = action.get("add"), action.get("remove")
            if isinstance(added, dict) and isinstance(added.get("path"), str):
                live[added["path"]] = None
            elif isinstance(removed, dict) and isinstance(removed.get("path"), str):
                live.pop(removed["path"], None)
    from urllib.parse import unquote

    return [str(folder / unquote(p)) for p in live]


def _read_delta(spark: SparkSession, folder: Path) -> DataFrame:
    try:
        return reads.files(spark, "delta", str(folder))
    except Exception:  # no Delta Lake in this session: replay the log
        files = _delta_files(folder)
        if not files:
            raise _refuse(
                f"{folder}: a Delta table with no data files, and this session has no Delta "
                "Lake to read its schema: add rows, or run with Delta Lake"
            ) from None
        return reads.files(spark, "parquet", files)


def _read_file(spark: SparkSession, path: Path) -> DataFrame:
    kind = _FILE_FORMATS.get(path.suffix.lower())
    if kind is None:
        raise _refuse(f"{path}: a rule table file is .csv, .parquet or .json")
    if kind == "csv":
        # every column as text: the table reader checks ids and texts, naming the row
        # RFC 4180, as spreadsheets and Python's csv write it: a quote inside a quoted cell is
        # doubled (Spark's default escape is a backslash), cells may span lines
        options: dict[str, str | bool] = {"header": True, "multiLine": True, "escape": '"'}
        return reads.files(spark, "csv", str(path), options=options)
    return reads.files(spark, kind, str(path))


def read_table(spark: SparkSession | None, source: str) -> DataFrame | LocalTable:
    """One table from a file, a folder (parquet or Delta) or a catalog name: a CSV, parquet or
    JSON file or a parquet folder on this machine is read here without Spark
    (:mod:`quality_py.io.tables.local`), anything else with ``spark``."""
    if not source.startswith("table:") and readable_here(Path(source)):
        return read_local_table(Path(source))
    if spark is None:
        raise _refuse(f"{source}: reading this rule table needs a Spark session")
    if source.startswith("table:"):
        return reads.table(spark, source[len("table:") :])
    path = Path(source)
    if path.is_file():
        return _read_file(spark, path)
    if path.is_dir():
        if (path / "_delta_log").is_dir():
            return _read_delta(spark, path)
        return reads.files(spark, "parquet", str(path))
    if _TABLE_NAME.match(source) and "/" not in source:
        return reads.table(spark, source)
    raise _refuse(f"{source}: no such file, folder or table")


def _member(folder: Path, name: str) -> Path | None:
    """The table ``name`` inside a folder of tables (a sub-folder or a file), if any."""
    if (folder / name).is_dir():
        return folder / name
    for suffix in _FILE_FORMATS:
        if (folder / f"{name}{suffix}").is_file():
            return folder / f"{name}{suffix}"
    return None


def table_places(source: str, others: dict[str, str | None] | None = None) -> dict[str, Any]:
    """Where each of the four tables of ``source`` is (None for an absent optional table);
    ``others`` names the lambdas/outputs/meta rule sets tables explicitly."""
    path = Path(source)
    places: dict[str, Any] = dict.fromkeys(TABLES)
    if path.is_dir() and not (path / "_delta_log").is_dir() and _member(path, "rules"):
        for name in TABLES:
            member = _member(path, name)
            places[name] = None if member is None else str(member)
    else:
        places["rules"] = source
        if path.is_file():  # sibling files of the same kind
            for name in TABLES[1:]:
                sibling = path.with_name(f"{name}{path.suffix}")
                if sibling.is_file() and sibling != path:
                    places[name] = str(sibling)
    places.update({k: v for k, v in (others or {}).items() if v})
    return places


def needs_spark_to_read(source: str, others: dict[str, str | None] | None = None) -> bool:
    """Whether reading the rule tables of ``source`` needs Spark (a catalog table, an object
    store, a Delta folder), rather than files read here."""
    return any(
        place is not None and (place.startswith("table:") or not readable_here(Path(place)))
        for place in table_places(source, others).values()
    )


def rule_table_frames(
    spark: SparkSession | None, source: str, others: dict[str, str | None] | None = None
) -> dict[str, Any]:
    """The tables of ``source`` (see :func:`table_places`), each a DataFrame or a table read
    here without Spark (None for an absent optional table).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "rules.csv").write_text(
    ...     "ruleSuiteId,ruleSuiteVersion,ruleSetId,ruleSetVersion,ruleId,ruleVersion,ruleExpr\\n"
    ...     "1,1,10,1,100,1,a > 0\\n")
    >>> frames = rule_table_frames(None, str(folder / "rules.csv"))
    >>> len(frames["rules"].rows), frames["lambdas"]
    (1, None)
    """
    places = table_places(source, others)
    if places["rules"] is None:
        raise _refuse(f"{source}: no rules table")
    return {k: None if v is None else read_table(spark, v) for k, v in places.items()}


def is_rule_tables(source: str) -> bool:
    """Whether ``source`` names rule tables rather than a YAML ruleset."""
    return not source.lower().endswith((".yaml", ".yml"))


def row_places(table: DataFrame | LocalTable | None) -> dict[tuple[str, Id, str], TextPlace]:
    """Where each rule's text stands in a CSV rules table read here: its row's line and the
    column of its ``ruleExpr`` / ``ruleFilter`` cell (``rules.csv:3:24``), by the rule's id and
    version as the row gives them (derived from ``ruleName`` when ``ruleId`` is blank)."""
    if not isinstance(table, LocalTable) or not table.starts:
        return {}
    wanted = mapping(RuleColumns())
    present = {c.lower(): i for i, c in enumerate(table.columns)}
    index = {f: present.get(col.lower()) for f, col in wanted.items()}
    out: dict[tuple[str, Id, str], TextPlace] = {}
    for row, (line, cells) in zip(table.rows, table.starts, strict=True):
        rule = rule_row_id({f: row[table.columns[i]] for f, i in index.items() if i is not None})
        if rule is None:
            continue  # a broken row: the table reader names it
        for field, key in (("rule_expr", "expression"), ("filter", "filter")):
            i = index.get(field)
            if i is not None and i < len(cells):
                place = TextPlace(table.origin, line, cells[i], False)
                out.setdefault(("rule", rule, key), place)
    return out


def read_suite(
    spark: SparkSession | None,
    source: str,
    suite: str | None = None,
    others: dict[str, str | None] | None = None,
) -> Any:
    """The suite of the rule tables of ``source``: ``suite`` picks one (``"1"`` its latest
    version, ``"1.2"`` that version); without it the tables must hold one suite id, whose
    latest version is read. Files on this machine need no ``spark``."""
    return read_placed_suite(spark, source, suite, others)[0]


def read_placed_suite(
    spark: SparkSession | None,
    source: str,
    suite: str | None = None,
    others: dict[str, str | None] | None = None,
) -> tuple[Any, dict[tuple[str, Id, str], TextPlace]]:
    """:func:`read_suite` and where each rule's text stands in a CSV rules table
    (:func:`row_places`; empty for other tables)."""
    frames = rule_table_frames(spark, source, others)
    places = row_places(frames["rules"])
    loaded = read_rule_tables(
        frames["rules"], frames["lambdas"], frames["outputs"], frames["meta_rule_sets"]
    )
    if suite:
        sid, _, version = suite.partition(".")
        if version:
            return loaded.suites[Id(int(sid), int(version))], places
        return loaded.latest(int(sid)), places
    ids = {i.id for i in loaded.suites}
    if len(ids) != 1:
        raise _refuse(f"{source} holds suites {sorted(ids)}: choose one with --suite")
    return loaded.latest(ids.pop()), places
