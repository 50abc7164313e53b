"""Metrics repositories: where run records are kept and read back, on files or in a table.

:class:`FileMetricsRepository` keeps one JSON file per run under ``<root>/<yyyy-mm-dd>/`` (the
run's UTC day), written as the state store writes (:mod:`quality_py.dataset.store`): a
temporary file, flushed, then linked to the first free name (``os.link`` fails if the name is
taken, so concurrent writers never overwrite each other) on a local path; on a pyarrow URI
(``s3://``, ``gs://``, ``hdfs://``) a temporary object renamed. Every file carries the record
format and a SHA-256 of the record; a file that does not match is refused with its name (never
silently skipped: a history with holes would hide the anomalies it exists to find). Reading by
time lists only the days asked for.

:class:`TableMetricsRepository` appends one row per run (the same JSON and checksum) to a Spark
table (Delta or parquet, created on first save); Delta's commits make each append atomic.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from quality_py.errors import HistoryError
from quality_py.gate import reads
from quality_py.history.records import RECORD_FORMAT, RunRecord
from quality_py.model.times import parse_datetime
from quality_py.model.types import DataFrame, SparkSession

#: The long form of the history: one row per metric of each run.
HISTORY_DDL = (
    "run_id STRING, run_time TIMESTAMP, source STRING, suite STRING, run_status STRING, "
    "tags MAP<STRING, STRING>, kind STRING, entity STRING, name STRING, value DOUBLE, "
    "status STRING, message STRING, `group` STRING"
)


def _digest(record: Mapping[str, Any]) -> str:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode(record: RunRecord) -> bytes:
    """The stored bytes of ``record``: format, checksum, record."""
    body = record.to_dict()
    payload = {"format": RECORD_FORMAT, "sha256": _digest(body), "record": body}
    return json.dumps(payload, sort_keys=True).encode("utf-8")


def decode(data: bytes, where: str) -> RunRecord:
    """The record stored in ``data`` (read from ``where``), checked."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise HistoryError(f"run record {where} is not JSON ({err})", item_kind="history") from None
    if not isinstance(payload, dict) or payload.get("format") != RECORD_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else None
        raise HistoryError(
            f"run record {where} has format {found!r}, not {RECORD_FORMAT!r}", item_kind="history"
        )
    body = payload.get("record")
    if not isinstance(body, dict) or _digest(body) != payload.get("sha256"):
        raise HistoryError(
            f"run record {where} does not match its checksum (changed or damaged after it was "
            "written): restore or delete it",
            item_kind="history",
        )
    try:
        return RunRecord.from_dict(body)
    except (KeyError, TypeError, ValueError) as err:
        raise HistoryError(
            f"run record {where} is incomplete ({err})", item_kind="history"
        ) from None


def _utc(when: datetime | date | str | None) -> datetime | None:
    if when is None:
        return None
    if isinstance(when, str):
        when = parse_datetime(when)
    if not isinstance(when, datetime):
        when = datetime(when.year, when.month, when.day)
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def _version_order(name: str) -> tuple[int, str]:
    """``v2.json`` before ``v10.json`` (the order they were written in)."""
    digits = name[1:].split(".", 1)[0]
    return (int(digits) if digits.isdigit() else -1, name)


def _suite_id(record: RunRecord) -> str | None:
    return None if record.suite is None else record.suite.split(".")[0]


def select(
    records: Sequence[RunRecord],
    since: datetime | date | str | None = None,
    until: datetime | date | str | None = None,
    tags: Mapping[str, str] | None = None,
    suite: str | None = None,
    source: str | None = None,
) -> list[RunRecord]:
    """``records`` in ``[since, until)`` with all ``tags`` (and the suite, source), by time.
    A suite without a version (``"7"``) selects every version of it. A run id recorded again
    (a re-run) counts once: its latest record replaces the earlier ones, as its outputs do."""
    lo, hi = _utc(since), _utc(until)
    chosen = [
        r
        for r in latest_of_each_run(records)
        if (lo is None or r.run_time >= lo)
        and (hi is None or r.run_time < hi)
        and r.matches(tags)
        and (suite is None or r.suite == suite or ("." not in suite and _suite_id(r) == suite))
        and (source is None or r.source == source)
    ]
    return sorted(chosen, key=lambda r: (r.run_time, r.run_id))


def latest_of_each_run(records: Sequence[RunRecord]) -> list[RunRecord]:
    """One record per run (source, suite id and run id): the one recorded last (by
    ``recorded_at``; records kept before it was, by the order read), in the order read.

    >>> first = RunRecord("r1", datetime(2026, 1, 2), "quality_run", "1.1", "success")
    >>> again = RunRecord("r1", datetime(2026, 1, 3), "quality_run", "1.2", "failure")
    >>> [r.status for r in latest_of_each_run([first, again])]
    ['failure']
    """
    oldest = datetime.min.replace(tzinfo=timezone.utc)
    best: dict[tuple[str, str | None, str], tuple[tuple[datetime, int], int]] = {}
    for i, record in enumerate(records):
        key = (record.source, _suite_id(record), record.run_id)
        rank = (record.recorded_at or oldest, i)
        if key not in best or rank >= best[key][0]:
            best[key] = (rank, i)
    kept = sorted(i for _, i in best.values())
    return [records[i] for i in kept]


def stamped(record: RunRecord) -> RunRecord:
    """``record`` with the time it is kept (unless it has one)."""
    from dataclasses import replace

    if record.recorded_at is not None:
        return record
    return replace(record, recorded_at=datetime.now(timezone.utc))


class MetricsRepository(Protocol):
    """Where run records are saved and read back (files or a table)."""

    def save(self, record: RunRecord) -> None:
        """Keep ``record`` (atomically: readers see all of it or nothing)."""

    def records(
        self,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
        suite: str | None = None,
        source: str | None = None,
    ) -> list[RunRecord]:
        """The records in ``[since, until)`` with ``tags``, oldest first."""


def history_rows(records: Sequence[RunRecord]) -> list[tuple[Any, ...]]:
    """The rows of :func:`history_frame` (``HISTORY_DDL`` order)."""
    rows = []
    for r in records:
        head = (r.run_id, r.run_time, r.source, r.suite, r.status, dict(r.tags))
        for m in r.metrics:
            rows.append((*head, m.kind, m.entity, m.name, m.value, m.status, m.message, m.group))
    return rows


def history_frame(spark: SparkSession, records: Sequence[RunRecord]) -> DataFrame:
    """The records as a DataFrame, one row per metric (``HISTORY_DDL``).

    >>> rec = RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success", {"t": "x"})
    >>> history_frame(spark, [rec]).count()
    0
    """
    return spark.createDataFrame(history_rows(records), HISTORY_DDL)


class FileMetricsRepository:
    """Run records under ``root``: a local folder or a pyarrow filesystem URI.

    >>> import tempfile
    >>> from quality_py.history.records import Metric
    >>> repo = FileMetricsRepository(tempfile.mkdtemp())
    >>> repo.save(RunRecord("r1", datetime(2026, 1, 2, 3, 4), "verify", None, "success",
    ...                     {"table": "t"}, (Metric("rows", "run", "input_rows", 7.0),)))
    >>> [r.run_id for r in repo.records(since="2026-01-01", tags={"table": "t"})]
    ['r1']
    """

    def __init__(self, root: str | Path) -> None:
        from quality_py.storage import ArrowFiles, LocalFiles, files_at

        text = str(root)
        self.root = text
        self._files: LocalFiles | ArrowFiles = files_at(text)

    def save(self, record: RunRecord) -> None:
        """Write ``record`` as a new file of its day (never replacing another).

        >>> import tempfile
        >>> repo = FileMetricsRepository(tempfile.mkdtemp())
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
        >>> [r.run_id for r in repo.records(until="2026-01-03")], repo.frame(spark).count()
        (['r1'], 0)
        """
        day = record.run_time.date().isoformat()
        try:
            self._files.publish(day, encode(stamped(record)), 1)
        except OSError as err:
            raise HistoryError(
                f"cannot write run record {record.run_id} under {self.root}: {err}",
                item_kind="history",
            ) from None

    def _days(self, lo: datetime | None, hi: datetime | None) -> list[str]:
        days = []
        for name in self._files.names(""):
            try:
                day = date.fromisoformat(name)
            except ValueError:
                continue  # not a day folder of ours
            if lo is not None and day < lo.date():
                continue
            if hi is not None and datetime(day.year, day.month, day.day, tzinfo=timezone.utc) >= hi:
                continue
            days.append(name)
        return sorted(days)

    def records(
        self,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
        suite: str | None = None,
        source: str | None = None,
    ) -> list[RunRecord]:
        """The records in ``[since, until)`` with ``tags``, oldest first.

        >>> import tempfile
        >>> repo = FileMetricsRepository(tempfile.mkdtemp())
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
        >>> [r.run_id for r in repo.records(until="2026-01-03")], repo.frame(spark).count()
        (['r1'], 0)
        """
        lo, hi = _utc(since), _utc(until)
        found = []
        for day in self._days(lo, hi):
            for name in sorted(self._files.names(day), key=_version_order):
                if name.startswith("v") and name.endswith(".json"):
                    rel = f"{day}/{name}"
                    found.append(decode(self._files.read(rel), self._files.uri(rel)))
        return select(found, lo, hi, tags, suite, source)

    def frame(self, spark: SparkSession, **filters: Any) -> DataFrame:
        """The selected records as a DataFrame, one row per metric (see :func:`history_frame`).

        >>> import tempfile
        >>> repo = FileMetricsRepository(tempfile.mkdtemp())
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
        >>> [r.run_id for r in repo.records(until="2026-01-03")], repo.frame(spark).count()
        (['r1'], 0)
        """
        return history_frame(spark, self.records(**filters))


class TableMetricsRepository:
    """Run records as rows of a Spark table, appended: one row per metric, queryable as it is
    (``SELECT run_time, tags, entity, name, value FROM history WHERE kind = 'rule'``), and one
    row per run holding the whole record (``payload``, the metric columns null), from which
    :meth:`records` reads. A table written by an earlier version (``run_id, run_time, day,
    payload`` only) keeps that layout.

    >>> import uuid
    >>> table = f"qp_history_{uuid.uuid4().hex[:8]}"
    >>> repo = TableMetricsRepository(spark, table)
    >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
    >>> [r.run_id for r in repo.records()]
    ['r1']
    >>> _ = spark.sql(f"DROP TABLE {table}")
    """

    #: the rows of a table of this version: :data:`HISTORY_DDL`, the day, the record
    _DDL = f"{HISTORY_DDL}, day DATE, payload STRING"
    #: the rows of a table written before one row per metric
    _DDL_RECORDS_ONLY = "run_id STRING, run_time TIMESTAMP, day DATE, payload STRING"

    def __init__(self, spark: SparkSession, table: str, format: str | None = None) -> None:
        self.spark = spark
        self.table = table
        self.format = format

    def _records_only(self) -> bool:
        """Whether the table exists with the earlier layout (a record per row, no metrics)."""
        if not self.spark.catalog.tableExists(self.table):
            return False
        columns = set(reads.table(self.spark, self.table).columns)
        return columns == {"run_id", "run_time", "day", "payload"}

    def save(self, record: RunRecord) -> None:
        """Append ``record``: its metrics and the record itself in one Spark write (one commit
        on Delta), so a reader sees all of a run or none of it.

        >>> import uuid
        >>> from quality_py.history.records import Metric
        >>> repo = TableMetricsRepository(spark, f"qp_h_{uuid.uuid4().hex[:8]}")
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success", {},
        ...                     (Metric("rows", "run", "input_rows", 7.0),)))
        >>> spark.table(repo.table).where("kind = 'rows'").select("name", "value").collect()
        [Row(name='input_rows', value=7.0)]
        >>> _ = spark.sql(f"DROP TABLE {repo.table}")
        """
        record = stamped(record)
        day, payload = record.run_time.date(), encode(record).decode()
        if self._records_only():
            frame = self.spark.createDataFrame(
                [(record.run_id, record.run_time, day, payload)], self._DDL_RECORDS_ONLY
            )
        else:
            head = (record.run_id, record.run_time, record.source, record.suite, record.status)
            rows = [(*row, day, None) for row in history_rows([record])]
            rows.append((*head, dict(record.tags), *([None] * 7), day, payload))
            frame = self.spark.createDataFrame(rows, self._DDL)
        writer = frame.write.mode("append")
        if self.format:
            writer = writer.format(self.format)
        writer.saveAsTable(self.table)

    def records(
        self,
        since: datetime | date | str | None = None,
        until: datetime | date | str | None = None,
        tags: Mapping[str, str] | None = None,
        suite: str | None = None,
        source: str | None = None,
    ) -> list[RunRecord]:
        """The records in ``[since, until)`` with ``tags``, oldest first (the time filter runs
        in Spark on the ``day`` column, the rest on the decoded records).

        >>> import uuid
        >>> repo = TableMetricsRepository(spark, f"qp_h_{uuid.uuid4().hex[:8]}")
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
        >>> [r.run_id for r in repo.records(since="2026-01-01")], repo.frame().count()
        (['r1'], 0)
        >>> _ = spark.sql(f"DROP TABLE {repo.table}")
        """
        if not self.spark.catalog.tableExists(self.table):
            return []
        lo, hi = _utc(since), _utc(until)
        frame = reads.table(self.spark, self.table)
        if lo is not None:
            frame = frame.where(frame["day"] >= lo.date())
        if hi is not None:
            frame = frame.where(frame["day"] <= hi.date())
        rows = frame.where("payload IS NOT NULL").select("run_id", "payload").collect()
        found = [decode(str(r.payload).encode(), f"{self.table} run {r.run_id}") for r in rows]
        return select(found, lo, hi, tags, suite, source)

    def frame(self, spark: SparkSession | None = None, **filters: Any) -> DataFrame:
        """The selected records as a DataFrame, one row per metric.

        >>> import uuid
        >>> repo = TableMetricsRepository(spark, f"qp_h_{uuid.uuid4().hex[:8]}")
        >>> repo.save(RunRecord("r1", datetime(2026, 1, 2), "verify", None, "success"))
        >>> [r.run_id for r in repo.records(since="2026-01-01")], repo.frame().count()
        (['r1'], 0)
        >>> _ = spark.sql(f"DROP TABLE {repo.table}")
        """
        return history_frame(spark or self.spark, self.records(**filters))


def open_repository(target: str, spark: SparkSession | None = None) -> FileMetricsRepository | Any:
    """A repository from a command-line target: ``table:NAME`` for a table, else a path/URI."""
    if target.startswith("table:"):
        if spark is None:
            raise HistoryError("a history table needs a Spark session", item_kind="history")
        return TableMetricsRepository(spark, target[len("table:") :])
    return FileMetricsRepository(target)
