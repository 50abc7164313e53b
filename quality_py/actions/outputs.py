"""Writing run outputs to paths, URIs or tables; a run replaces only its own partition.

A destination with ``/`` or ``://`` is a path (parquet by default, ``delta`` when delta-spark is
installed); anything else is a table name. Quarantine and stats are partitioned by run id and
written with dynamic partition overwrite, so re-running a run id replaces that run's rows and
keeps every other run's.
"""

from __future__ import annotations

from quality_py.errors import QualityError
from quality_py.model.types import DataFrame, SparkSession


class RunOutputError(QualityError):
    """An output cannot be written as asked (e.g. Delta without delta-spark)."""

    code = "RUN_OUTPUT"


def _is_path(destination: str) -> bool:
    return "/" in destination or "://" in destination or destination.startswith(".")


def _check_format(spark: SparkSession, fmt: str) -> None:
    if fmt == "delta":
        import importlib.util

        if importlib.util.find_spec("delta") is None:
            raise RunOutputError("format 'delta' needs the delta-spark package", item_kind="output")
    elif fmt not in ("parquet", "orc", "json", "csv"):
        raise RunOutputError(f"unsupported output format {fmt!r}", item_kind="output")


def _table_exists(spark: SparkSession, name: str) -> bool:
    try:
        return bool(spark.catalog.tableExists(name))
    except Exception:  # older catalogs: fall back to a lookup
        try:
            spark.table(name)
            return True
        except Exception:
            return False


def write_frame(
    frame: DataFrame,
    destination: str,
    mode: str,
    fmt: str,
    partition: str | None = None,
    value: str | None = None,
) -> None:
    """Write ``frame``; with ``partition``, replace only the partition ``partition = value``."""
    spark = frame.sparkSession
    _check_format(spark, fmt)
    if partition is None:
        writer = frame.write.format(fmt).mode(mode)
        if _is_path(destination):
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
            .option("replaceWhere", f"{partition} = '{value.replace(chr(39), '')}'")
            .partitionBy(partition)
        )
        if _is_path(destination):
            writer.save(destination)
        else:
            writer.saveAsTable(destination)
        return
    previous = spark.conf.get("spark.sql.sources.partitionOverwriteMode") or "STATIC"
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        if _is_path(destination):
            frame.write.format(fmt).mode("overwrite").partitionBy(partition).save(destination)
        elif _table_exists(spark, destination):
            columns = spark.table(destination).columns
            frame.select(*[f"`{c}`" for c in columns]).write.insertInto(destination, overwrite=True)
        else:
            frame.write.format(fmt).partitionBy(partition).saveAsTable(destination)
    finally:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", previous)
