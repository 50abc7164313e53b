"""Writing run outputs to paths, URIs or tables; a run replaces only its own partition.

A destination with ``/`` or ``://`` is a path (parquet by default, ``delta`` when delta-spark is
installed); anything else is a table name. Quarantine and stats are partitioned by run id and
written with dynamic partition overwrite, so re-running a run id replaces that run's rows and
keeps every other run's.

:class:`OutputWriter` writes a run's outputs together: with ``publish="atomic"`` (the default for
paths) through :mod:`quality_py.outputs.publish`, so a killed run never leaves a reader half an
output or outputs of two different runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from types import TracebackType

from quality_py.gate import reads
from quality_py.gate.locations import (
    Location,
    dataset_roots,
    is_path,
    local_path,
    location,
    require_disjoint,
)
from quality_py.gate.run_ids import partition_directory
from quality_py.model.types import DataFrame, SparkSession
from quality_py.outputs.destination import (
    PUBLISH_MODES,
    Destination,
    RunOutputError,
    destination,
    require_format,
    require_lasting,
)
from quality_py.outputs.publish import Move, Publication
from quality_py.progress import describing
from quality_py.spark.capabilities import has_delta, table_exists, table_format
from quality_py.spark.session import on_this_machine
from quality_py.sql.snippets import quoted, string_literal, table_name


def _resolved(destination: str) -> str:
    """A local path made absolute on this (the driver's) side, so that Spark, whose working
    directory may differ, and the publisher's renames mean the same directory."""
    path = local_path(destination)
    return destination if path is None else str(path.absolute())


def output_format(spark: SparkSession, destination: str, fmt: str) -> str:
    """The format ``destination`` is written in, asked of the server where it matters (Delta,
    a table's own format), never decided by what this client has installed."""
    require_format(fmt)
    if fmt == "auto":
        if is_path(destination):
            return "parquet"
        existing = table_format(spark, destination.removeprefix("table:"))
        if existing is not None:
            return existing
        return "delta" if has_delta(spark) else "parquet"
    if fmt == "delta" and not has_delta(spark):
        raise RunOutputError(
            "format 'delta' needs Delta Lake on the Spark server, and this one has none: write "
            "parquet, or run where Delta is (a Databricks runtime, delta-spark configured)",
            item_kind="output",
        )
    return fmt


def write_frame(
    frame: DataFrame,
    destination: str,
    mode: str,
    fmt: str,
    partition: str | None = None,
    value: str | None = None,
) -> None:
    """Write ``frame``; with ``partition``, replace only the partition ``partition = value``.
    A destination that is, is inside or contains what ``frame`` reads is refused first."""
    require_lasting(_destination(destination), frame.sparkSession)
    require_apart(frame, [("output", destination)])
    with describing(frame.sparkSession, f"writing {destination}"):
        _write_frame(frame, destination, mode, fmt, partition, value)


def _destination(text: str, label: str = "output") -> Destination:
    return destination(text, label=label)


def _current(spark: SparkSession) -> tuple[str, str] | None:
    """The session's current catalog and schema (which qualify a shorter table name)."""
    try:
        return str(spark.catalog.currentCatalog()), str(spark.catalog.currentDatabase())
    except Exception:  # a catalog that will not say: names are compared as written
        return None


def _table_location(spark: SparkSession, name: str) -> str | None:
    """Where an existing table keeps its files (None: no such table, or no location)."""
    if not table_exists(spark, name):
        return None
    try:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED {table_name(name)}").collect()
    except Exception:  # a view, or a catalog that will not describe it
        return None
    found = [str(r[1]) for r in rows if str(r[0]).strip().lower() == "location" and r[1]]
    return found[0] if found else None


def _input_files(frame: DataFrame) -> list[str]:
    try:
        return list(frame.inputFiles())
    except Exception:  # a source that lists no files (a stream's batch of a socket, ...)
        return []


def read_places(frame: DataFrame) -> list[Location]:
    """What ``frame`` reads: the roots of its input files (:func:`dataset_roots`; none for a
    source that lists no files).

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> spark.range(3).write.parquet(f"{folder}/in")
    >>> [p.path.endswith("/in") for p in read_places(spark.read.parquet(f"{folder}/in"))]
    [True]
    """
    return [location(root, table=False) for root in dataset_roots(_input_files(frame))]


def write_places(
    spark: SparkSession, destinations: Sequence[tuple[str, str | None]]
) -> list[tuple[str, Location]]:
    """Where each named destination is, a table qualified by the session's current catalog and
    schema; None destinations are left out.

    >>> [(label, w.scheme) for label, w in write_places(spark, [("valid", "v"), ("stats", None)])]
    [('valid', 'table')]
    """
    current = _current(spark)
    return [(label, location(p, current=current)) for label, p in destinations if p is not None]


def require_apart(frame: DataFrame, destinations: Sequence[tuple[str, str | None]]) -> None:
    """Refuse, before any job, a destination that is, is inside or contains what ``frame``
    reads (its input files, and the folder of a dataset Spark wrote) or another destination
    (``(label, destination)`` pairs; None: not written), naming both
    (:func:`quality_py.gate.locations.require_disjoint`). A table is compared by its qualified
    name and, when it exists, by the folder that holds its files.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> spark.range(3).write.parquet(f"{folder}/in")
    >>> frame = spark.read.parquet(f"{folder}/in")
    >>> try:
    ...     require_apart(frame, [("valid", f"{folder}/x/../in/valid")])
    ... except Exception as err:
    ...     print(err.code, err.message.split(":")[0].replace(folder, "D"))
    OUTPUT_OVERLAP the valid output D/x/../in/valid is inside the input D/in
    """
    spark = frame.sparkSession
    inputs = [("input", place) for place in read_places(frame)]
    outputs = []
    named = [(label, place) for label, place in destinations if place is not None]
    for (label, place), (_, where) in zip(named, write_places(spark, named), strict=True):
        outputs.append((label, where))
        if where.scheme == "table":
            folder = _table_location(spark, place.removeprefix("table:"))
            if folder is not None:
                outputs.append((label, location(folder, table=False)))
    require_disjoint(inputs, outputs)


def _write_frame(
    frame: DataFrame,
    destination: str,
    mode: str,
    fmt: str,
    partition: str | None,
    value: str | None,
) -> None:
    spark = frame.sparkSession
    fmt = output_format(spark, destination, fmt)
    destination = destination.removeprefix("table:")
    if partition is None:
        writer = frame.write.format(fmt).mode(mode)
        if is_path(destination):
            writer.save(destination)
        else:
            writer.saveAsTable(destination)
        return
    assert value is not None
    if fmt == "delta":
        # Delta replaces one partition with replaceWhere (dynamic overwrite needs a setting)
        writer = (
            frame.write.format("delta")
            .mode("overwrite")
            .option("replaceWhere", f"{_quoted(partition)} = {string_literal(value)}")
            .partitionBy(partition)
        )
        if is_path(destination):
            writer.save(destination)
        else:
            writer.saveAsTable(destination)
        return
    if is_path(destination):
        # straight into the run's own partition directory: an overwrite of that directory
        # replaces the earlier run's rows even when this run has none (a dynamic overwrite of
        # the parent would replace only the partitions that have rows)
        part = f"{destination.rstrip('/')}/{partition_directory(partition, value)}"
        frame.drop(partition).write.format(fmt).mode("overwrite").save(part)
    elif table_exists(spark, destination):
        # a static partition: replaced whole, emptied when this run has no rows
        columns = [c for c in reads.table(spark, destination).columns if c != partition]
        view = f"qp_out_{uuid.uuid4().hex}"
        frame.createOrReplaceTempView(view)
        try:
            spec = f"{_quoted(partition)} = {_partition_literal(spark, value)}"
            spark.sql(
                f"INSERT OVERWRITE TABLE {table_name(destination)} PARTITION ({spec}) "
                f"SELECT {', '.join(_quoted(c) for c in columns)} FROM {view}"
            )
        finally:
            spark.catalog.dropTempView(view)
    else:
        frame.write.format(fmt).partitionBy(partition).saveAsTable(destination)


def _partition_literal(spark: SparkSession, value: str) -> str:
    """``value`` as the literal of a ``PARTITION (...)`` clause, which takes nothing but a
    literal (no ``CONCAT``, and no parameter marker before Spark 4): ``\\``, ``'`` and ``{``
    are escaped with a backslash, the last so that no ``${`` is left for Spark to substitute.

    >>> print(_partition_literal(spark, "it's ${x}"))
    'it\\'s $\\{x}'
    """
    if any(c in value for c in "\\'{"):
        if str(spark.conf.get("spark.sql.parser.escapedStringLiterals", "false")) == "true":
            raise RunOutputError(
                f"run id {value!r} cannot name a table partition while "
                "spark.sql.parser.escapedStringLiterals is true (a backslash would be kept as "
                "it is): use a run id without backslash, quote or '{', or unset that setting",
                item_kind="output",
            )
        value = value.replace("\\", "\\\\").replace("'", "\\'").replace("{", "\\{")
    return f"'{value}'"


def _quoted(name: str) -> str:
    """A column name in SQL text we hand Spark: generated (a name holding ``${``, which Spark
    would substitute, is refused; sql/build.py)."""
    return quoted(name)


#: The column that partitions the quarantine and the stats by run.
RUN_ID_COLUMN = "qp_run_id"
#: The schema of an output, kept beside its data.
SCHEMA_FILE = "_qp_schema.json"


class OutputWriter:
    """Writes a run's outputs; with atomic publishing, nothing is visible before :meth:`commit`.

    Atomic publishing applies when every destination is a path and the format is not Delta
    (a Delta write is already one atomic commit per output); tables are written directly.
    """

    def __init__(
        self,
        destinations: Mapping[str, str | None],
        fmt: str,
        publish: str,
        spark: SparkSession | None = None,
    ) -> None:
        for label, text in destinations.items():
            if text is not None:
                place = _destination(text, label)
                if spark is not None:
                    require_lasting(place, spark, label=label)
        require_format(fmt)
        if publish not in PUBLISH_MODES:
            raise RunOutputError(
                f"publish must be one of {', '.join(PUBLISH_MODES)}, not {publish!r}",
                item_kind="output",
            )
        named = [d for d in destinations.values() if d is not None]
        atomic = publish == "atomic" and fmt != "delta" and bool(named)
        atomic = atomic and all(is_path(d) for d in named)
        if atomic and spark is not None and not on_this_machine(spark):
            raise RunOutputError(
                f"{', '.join(named)}: atomic publication renames directories on this machine, "
                "and this Spark's writers may run elsewhere (its master or Spark Connect server "
                "is not on this machine): write Delta (format='delta'), tables, or pass "
                "publish='direct' to accept a non-atomic overwrite",
                item_kind="output",
            )
        self.fmt = fmt
        self.publication = Publication(named) if atomic else None
        self.moves: list[Move] = []

    def __enter__(self) -> OutputWriter:
        if self.publication is not None:
            self.publication.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.publication is not None:
            self.publication.__exit__(kind, error, trace)

    def write(
        self,
        frame: DataFrame,
        destination: str,
        mode: str = "overwrite",
        partition: str | None = None,
        value: str | None = None,
    ) -> None:
        """Write (or stage) ``frame``; with ``partition``, it replaces only that partition."""
        publication = self.publication
        if publication is None:
            with describing(frame.sparkSession, f"writing {destination}"):
                _write_frame(frame, destination, mode, self.fmt, partition, value)
            return
        fmt = output_format(frame.sparkSession, destination, self.fmt)
        target = publication.dest(destination)
        if mode in ("error", "errorifexists") and target.exists():
            raise RunOutputError(
                f"{destination} already exists (mode {mode!r})", item_kind="output"
            )
        if mode == "ignore" and target.exists():
            return
        if mode not in ("overwrite", "append", "error", "errorifexists", "ignore"):
            raise RunOutputError(f"unsupported write mode {mode!r}", item_kind="output")
        staged = publication.staging(destination)
        writer = frame.write.format(fmt).mode("overwrite")
        if partition is not None:
            writer = writer.partitionBy(partition)
        with describing(frame.sparkSession, f"writing {destination}"):
            writer.save(str(staged))
        if partition is not None and value is not None:
            # a run that wrote no rows (nothing quarantined) still replaces its partition:
            # an empty directory takes the place of an earlier run's rows under this run id
            (staged / partition_directory(partition, value)).mkdir(exist_ok=True)
        # the schema beside the data (Spark skips "_" files): a partitioned output whose runs
        # have all been empty has no data file to read it from (read_outputs uses it)
        (staged / SCHEMA_FILE).write_text(frame.schema.json(), encoding="utf-8")
        if partition is not None:
            self.moves.extend(publication.partitions(destination))
            if target.exists():
                self.moves.append(publication.file(destination, SCHEMA_FILE))
        elif mode == "append" and target.exists():
            self.moves.extend(publication.files(destination))
        else:
            self.moves.append(publication.whole(destination))

    def commit(self) -> None:
        """Make every staged output visible together (nothing to do for direct writes)."""
        if self.publication is not None:
            self.publication.commit(self.moves)


def _read_path(spark: SparkSession, path: str, fmt: str) -> DataFrame:
    """Read a published output; with its kept schema, an output without data files (no run has
    quarantined a row yet) reads as an empty frame instead of failing."""
    import json
    from pathlib import Path

    from pyspark.sql.types import StringType, StructField, StructType

    schema_file = Path(path) / SCHEMA_FILE
    if schema_file.is_file():
        schema = StructType.fromJson(json.loads(schema_file.read_text("utf-8")))
        return reads.files(spark, fmt, path, schema=schema)
    frame = reads.files(spark, fmt, path)
    if fmt == "delta" or RUN_ID_COLUMN not in frame.columns:
        return frame
    # without the kept schema Spark infers a partition's type from its directory names: run
    # ids that all look like numbers (Databricks' job run ids, ``007``) would read as numbers
    # and lose their text; the run id is text, read as it was written
    fields = [
        StructField(f.name, StringType(), True) if f.name == RUN_ID_COLUMN else f
        for f in frame.schema.fields
    ]
    return reads.files(spark, fmt, path, schema=StructType(fields))


def existing_columns(spark: SparkSession, destination: str, fmt: str) -> list[str] | None:
    """The columns of what ``destination`` holds now; None when it holds nothing yet (or
    nothing Spark can read, which its write will then report).

    >>> existing_columns(spark, "/nonexistent/qp-out", "auto") is None
    True
    """
    if not is_path(destination):
        name = destination.removeprefix("table:")
        return list(reads.table(spark, name).columns) if table_exists(spark, name) else None
    local = local_path(destination)
    if local is not None and not local.exists() and on_this_machine(spark):
        return None  # (a path of a Spark elsewhere is that Spark's to read)
    try:
        chosen = output_format(spark, destination, fmt)
        return list(_read_path(spark, _resolved(destination), chosen).columns)
    except RunOutputError:
        raise
    except Exception:  # an empty folder, or nothing there: the write says what it finds
        return None


def run_rows(spark: SparkSession, destination: str, fmt: str, run_id: str) -> DataFrame:
    """The rows run ``run_id`` published to ``destination`` (its partition of a quarantine or
    stats output).

    >>> import tempfile
    >>> from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    >>> out = tempfile.mkdtemp()
    >>> _ = run_quality(spark.createDataFrame([(0,), (1,)], "a int"), suite, run_id="r1").write(
    ...     None, f"{out}/q")
    >>> run_rows(spark, f"{out}/q", "auto", "r1").count()
    1
    """
    from pyspark.sql import functions as F

    frame = read_place(spark, destination, fmt)
    return frame.where(F.col(RUN_ID_COLUMN) == F.lit(run_id))


def read_place(spark: SparkSession, destination: str, fmt: str) -> DataFrame:
    """What is published at ``destination`` (a path in ``fmt``, ``auto``: as found; or a
    table), read as it is (no wait for a publication: see :func:`read_outputs`)."""
    if is_path(destination):
        return _read_path(spark, _resolved(destination), output_format(spark, destination, fmt))
    return reads.table(spark, destination.removeprefix("table:"))


def read_outputs(
    spark: SparkSession,
    valid: str | None = None,
    quarantine: str | None = None,
    stats: str | None = None,
    *,
    format: str = "parquet",
    wait_seconds: float = 60.0,
) -> tuple[DataFrame | None, DataFrame | None, DataFrame | None]:
    """Read a run's published outputs, all three from the same run.

    A publication a killed run committed is finished first, and one in progress is waited for,
    so the three frames never mix two runs. (Reading each path directly also never gives half
    an output, but can see valid of one run and stats of the previous during a switch.)
    Like any Spark read, the frames list the files of the run they read: after a later run
    replaced them, read again.

    >>> import tempfile
    >>> from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    >>> out = tempfile.mkdtemp()
    >>> _ = run_quality(spark.createDataFrame([(0,), (1,)], "a int"), suite, run_id="r1").write(
    ...     f"{out}/v", f"{out}/q", f"{out}/s")
    >>> v, q, s = read_outputs(spark, f"{out}/v", f"{out}/q", f"{out}/s")
    >>> v.count(), q.count(), s.where("kind = 'rows' AND name = 'input_rows'").first().value
    (2, 1, 2.0)
    """
    from quality_py.outputs.publish import recovered

    paths = [p for p in (valid, quarantine, stats) if p is not None and is_path(p)]
    with recovered(paths, wait_seconds):
        frames = tuple(
            None
            if path is None
            else (
                _read_path(spark, _resolved(path), format)
                if is_path(path)
                else reads.table(spark, path)
            )
            for path in (valid, quarantine, stats)
        )
        for frame in frames:  # resolve the file listing while the lock is held
            if frame is not None:
                frame.schema  # noqa: B018 - forces the listing
    return frames  # type: ignore[return-value]
