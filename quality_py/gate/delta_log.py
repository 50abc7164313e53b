"""A Delta table's last commit time, read from its transaction log with Spark alone (no Delta
library: the log is JSON files under the table's ``_delta_log`` folder, which Spark lists and
reads as files, on a classic session or over Connect, on any storage the session reaches).

The Delta protocol's timestamp of a commit is its in-commit timestamp when the table records
one (``commitInfo.inCommitTimestamp``, milliseconds, then the commit's first action), else the
modification time of its commit file ``<version>.json``. The last commit is the one of the
highest version. A commit that only removes rows, compacts files or changes properties is a
commit too, which the data files' own times do not show.

The log is found from the files the data was read from: a table's files lie in its root or in
its partition folders (``name=value``), so the root is the file's own folder or one above it
with only partition folders between (at most :data:`MAX_LEVELS` up), the nearest holding a
``_delta_log`` with commit files. A folder of another name is no partition of a table above it
(``table/backup/x.parquet`` is not the table's). Both the first and the last of the data's file
paths (in text order; every other sorts between them, under the same root) must be under that
root this way, else the data reads more than one table's files. Whenever no log is found so,
or one cannot be listed, the data files' times stand: they are never later than the commit that
added them, so a check falling back on them is stricter, never looser.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from urllib.parse import unquote

from quality_py.errors import InputError
from quality_py.gate.files import json_value
from quality_py.gate.reads import files
from quality_py.model.types import DataFrame, SparkSession

#: how many folders up from a data file the table's root may be (its partition folders)
MAX_LEVELS = 8
_COMMIT = re.compile(r"^(\d{20})\.json$")
_PARTITION = re.compile(r"^[^=]+=")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:(?://[^/]*)?)(.*)$")
#: the first line of a commit longer than this is not read for an in-commit timestamp
_FIRST_LINE_LIMIT = 1 << 20
#: 9999-12-31 23:59:59.999 UTC in milliseconds: a later in-commit timestamp is no time
_LAST_MILLI = 253_402_300_799_999


def folders_up(path: str, levels: int = MAX_LEVELS) -> list[str]:
    """The folders holding ``path`` (a file's URI or path), nearest first, at most ``levels``.

    >>> folders_up("s3://bucket/t/day=1/part-0.parquet")
    ['s3://bucket/t/day=1', 's3://bucket/t', 's3://bucket']
    >>> folders_up("file:///tmp/t/part-0.parquet", 1)
    ['file:///tmp/t']
    """
    found = _SCHEME.match(path)
    prefix, rest = (found.group(1), found.group(2)) if found else ("", path)
    parts = rest.split("/")
    out = []
    for end in range(len(parts) - 1, 0, -1):
        head = "/".join(parts[:end])
        if head or prefix:  # a bucket's root is a folder, a local disk's is not probed
            out.append(prefix + head)
    return out[:levels]


def table_roots(path: str) -> list[str]:
    """The folders that may be the root of a table holding the file ``path``: its own, then each
    one above while the folder just passed is a partition folder (``name=value``).

    >>> table_roots("s3://bucket/t/day=1/h=2/part-0.parquet")
    ['s3://bucket/t/day=1/h=2', 's3://bucket/t/day=1', 's3://bucket/t']
    >>> table_roots("file:///data/t/backup/part-0.parquet")
    ['file:///data/t/backup']
    """
    out = []
    for folder in folders_up(path):
        out.append(folder)
        if not _PARTITION.match(folder.rsplit("/", 1)[-1]):
            break
    return out


def commit_micros(first_line: str | None, modified_micros: int) -> int:
    """A commit's time in microseconds since the epoch: its in-commit timestamp when its first
    line (``first_line``) records one, else its file's modification time.

    >>> commit_micros('{"commitInfo":{"inCommitTimestamp":1700000000123,"timestamp":1}}', 5)
    1700000000123000
    >>> commit_micros('{"commitInfo":{"timestamp":1700000000123}}', 5)
    5
    >>> huge = '{"commitInfo":{"inCommitTimestamp":99999999999999999999}}'
    >>> commit_micros("[" * 10_000, 5), commit_micros(huge, 5)
    (5, 5)
    """
    if first_line is None or len(first_line) > _FIRST_LINE_LIMIT:
        return modified_micros
    try:
        action = json_value(first_line, "the Delta log's newest commit")
    except InputError:  # not the protocol's JSON: the file's time stands
        return modified_micros
    info = action.get("commitInfo") if isinstance(action, dict) else None
    stamp = info.get("inCommitTimestamp") if isinstance(info, dict) else None
    if isinstance(stamp, int) and not isinstance(stamp, bool) and 0 <= stamp <= _LAST_MILLI:
        return stamp * 1000
    return modified_micros


def _commits(spark: SparkSession, folder: str) -> list[tuple[int, str, int]]:
    """The commit files of the table at ``folder`` (version, path, modification time in
    microseconds); empty when it has no log or the log cannot be listed."""
    try:
        listing = files(
            spark, "binaryFile", f"{folder}/_delta_log", options={"pathGlobFilter": "*.json"}
        ).selectExpr("path", "unix_micros(modificationTime) AS micros")
        rows = listing.collect()
    except Exception:  # no such folder, or one this session may not list: no log here
        return []
    out = []
    for row in rows:
        found = _COMMIT.match(str(row["path"]).rsplit("/", 1)[-1])
        if found is not None:
            out.append((int(found.group(1)), str(row["path"]), int(row["micros"])))
    return out


def _all_under(df: DataFrame, root: str) -> bool:
    """Whether the files ``df`` reads lie in ``root`` or its partition folders, as far as the
    first and the last of their paths in text order show: every other path sorts between them,
    so it lies under ``root`` too (its folders between are not checked: a folder read alone
    never mixes partition folders with others, Spark refuses that layout). One job, run only
    where a Delta log was found."""
    ends = df.selectExpr("min(_metadata.file_path) AS lo", "max(_metadata.file_path) AS hi")
    lo, hi = ends.collect()[0]
    return all(root in table_roots(unquote(str(p))) for p in (lo, hi))


def last_commit(df: DataFrame) -> datetime | None:
    """The last commit time of the Delta table ``df`` reads files from (a UTC ``datetime``), or
    None when ``df`` reads no row, or its files are not all in one Delta table's root and
    partition folders, or the table's log cannot be listed by this session.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> spark.range(1).write.mode("overwrite").parquet(folder)  # Parquet, no Delta log
    >>> last_commit(spark.read.parquet(folder)) is None
    True
    """
    spark = df.sparkSession
    first = df.selectExpr("_metadata.file_path AS path").limit(1).collect()
    if not first:
        return None
    for folder in table_roots(unquote(str(first[0]["path"]))):
        commits = _commits(spark, folder)
        if commits:
            if not _all_under(df, folder):  # files of another folder too: their times stand
                return None
            _, path, modified = max(commits)
            head = f"substring(value, 1, {_FIRST_LINE_LIMIT + 1})"  # never a huge line whole
            lines = files(spark, "text", path).selectExpr(head).limit(1).collect()
            line = str(lines[0][0]) if lines else None
            micros = commit_micros(line, modified)
            return datetime.fromtimestamp(micros / 1_000_000, tz=timezone.utc)
    return None
