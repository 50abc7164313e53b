"""Orders checked inside a declarative pipeline: the rules are analysed once, here at the top
level where the pipeline allows it, against the input's declared schema; the query functions
only build plans (docs/pipelines.md)."""

from __future__ import annotations

from pathlib import Path

from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

from quality_py import load_ruleset, pipeline_checks

spark = SparkSession.active()
RULES = load_ruleset(Path(__file__).parents[1] / "orders.yaml")
CHECKS = pipeline_checks(RULES, "id INT, amount DOUBLE, note STRING")


@dp.materialized_view
def orders_raw() -> DataFrame:
    """Twelve orders: ids 0 and 1 twice, four amounts not above 0, every fourth note missing."""
    return spark.range(12).selectExpr(
        "CAST(id % 10 AS INT) AS id",
        "CAST(id - 3 AS DOUBLE) AS amount",
        "CASE WHEN id % 4 = 0 THEN NULL ELSE 'n' END AS note",
    )


@dp.materialized_view
def orders_checked() -> DataFrame:
    """Every order with its data-quality column."""
    return CHECKS.apply(spark.read.table("orders_raw"))


@dp.materialized_view
def orders_valid() -> DataFrame:
    """The orders no drop rule fails: what downstream tables read."""
    return CHECKS.valid(spark.read.table("orders_checked"))


@dp.materialized_view
def orders_quarantine() -> DataFrame:
    """The orders failing any rule, with the names of the rules they fail."""
    return CHECKS.quarantine(spark.read.table("orders_checked"))


@dp.materialized_view
def orders_stats() -> DataFrame:
    """The counts a batch run's stats hold: rows in, valid, quarantined and dropped, and each
    rule's passed and failed rows."""
    return CHECKS.stats(spark.read.table("orders_checked"))
