"""Orders checked inside a declarative pipeline: the rules are analysed once, here at the top
level where the pipeline allows it, against the input's declared schema; the query functions
only build plans (docs/pipelines.md)."""

from __future__ import annotations

from pathlib import Path

from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

from quality_py import (
    Id,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
    SqlCheck,
    load_ruleset,
    pipeline_checks,
    rule_engine_runner,
    rule_folder_runner,
)

spark = SparkSession.active()
RULES = load_ruleset(Path(__file__).parents[1] / "orders.yaml")
CHECKS = pipeline_checks(RULES, "id INT, amount DOUBLE, note STRING", checks=[
    # an error check that fails fails its flow, as it fails a batch run; a warning is a row
    SqlCheck("half valid",
             "SELECT (SELECT count(*) FROM valid) * 2 >= (SELECT count(*) FROM source)"),
    SqlCheck("amount total", "sum(amount)", assertion="between 0 and 100", level="warning"),
    SqlCheck("valid notes", "count(note)", on="valid", assertion=">= 6", level="warning"),
])  # fmt: skip
# the rule engine and the rule folder build one Column each, with no analysis: made here,
# used in a query function (the lowest salience wins; the folder applies its outputs in order)
PRIORITY = rule_engine_runner(
    RuleSuite(Id(2, 1), [RuleSet(Id(20, 1), [
        Rule(Id(200, 1), "amount > 5", 10, OutputExpression(Id(2000, 1), "'high'")),
        Rule(Id(201, 1), "amount > 0", 20, OutputExpression(Id(2001, 1), "'normal'")),
    ])]),
    "string",
)  # fmt: skip
DISCOUNT = rule_folder_runner(
    RuleSuite(Id(3, 1), [RuleSet(Id(30, 1), [
        Rule(Id(300, 1), "amount > 5", 10, OutputExpression(Id(3000, 1), "set(discount = 0.1D)")),
        Rule(Id(301, 1), "true", 20, OutputExpression(Id(3001, 1), "x -> x")),
    ])]),
    "named_struct('discount', 0.0D)",
    "struct<discount: double>",
)  # fmt: skip


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


@dp.materialized_view
def orders_checks() -> DataFrame:
    """The SQL checks judged on the pipeline's tables, one row each with its value and status."""
    return CHECKS.sql_checks(
        source="orders_raw", valid="orders_valid", quarantine="orders_quarantine"
    )


@dp.materialized_view
def orders_priced() -> DataFrame:
    """Each valid order's priority (the rule engine) and discount (the rule folder)."""
    return spark.read.table("orders_valid").select(
        "*", PRIORITY.result.alias("priority"), DISCOUNT.result.discount.alias("discount")
    )
