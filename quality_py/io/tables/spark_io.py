"""Rule tables as Spark DataFrames: write a suite out, read suites back.

Rule tables are small (thousands of rows), so reading collects them to the driver once and
checks every row before any data is touched. Columns are matched by name through the
``*Columns`` classes, so a table may hold extra columns and use its own names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from quality_py.io.tables.assemble import LoadedSuites, tables_to_suites
from quality_py.io.tables.columns import (
    LambdaColumns,
    MetaRuleSetColumns,
    OutputColumns,
    RuleColumns,
    mapping,
)
from quality_py.io.tables.local import LocalTable
from quality_py.io.tables.rows import (
    LambdaRow,
    MetaRuleSetRow,
    OutputRow,
    Row,
    RuleRow,
    SuiteTables,
    check_rows,
    required_fields,
    suite_to_tables,
    table_name,
)
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_TEXT_FIELDS = {
    "rule_expr",
    "name",
    "column_filter",
    "description",
    "owner",
    "action_if_failed",
    "filter",
    "warn_if",
    "fail_if",
}


def _ddl(field_to_column: dict[str, str]) -> str:
    def kind(name: str) -> str:
        if name in ("tags", "report_columns"):
            return "ARRAY<STRING>"
        if name == "active":
            return "BOOLEAN"
        return "STRING" if name in _TEXT_FIELDS else "INT"

    return ", ".join(f"`{col}` {kind(f)}" for f, col in field_to_column.items())


def _frame(spark: SparkSession, rows: Iterable[Any], columns: object) -> DataFrame:
    cols = mapping(columns)
    lists = ("tags", "report_columns")
    data = [tuple(list(getattr(r, f)) if f in lists else getattr(r, f) for f in cols) for r in rows]
    return spark.createDataFrame(data, _ddl(cols))


def rules_dataframe(
    spark: SparkSession,
    suites: RuleSuite | Iterable[RuleSuite],
    columns: RuleColumns | None = None,
) -> DataFrame:
    """One row per rule of ``suites``.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0")])])
    >>> rules_dataframe(spark, suite).select("ruleId", "ruleExpr").first()
    Row(ruleId=9, ruleExpr='a > 0')
    """
    return _frame(spark, suite_to_tables(suites).rules, columns or RuleColumns())


def lambdas_dataframe(
    spark: SparkSession,
    suites: RuleSuite | Iterable[RuleSuite],
    columns: LambdaColumns | None = None,
) -> DataFrame:
    """One row per lambda of ``suites``."""
    return _frame(spark, suite_to_tables(suites).lambdas, columns or LambdaColumns())


def outputs_dataframe(
    spark: SparkSession,
    suites: RuleSuite | Iterable[RuleSuite],
    columns: OutputColumns | None = None,
) -> DataFrame:
    """One row per distinct output expression of each suite."""
    return _frame(spark, suite_to_tables(suites).outputs, columns or OutputColumns())


def meta_rule_sets_dataframe(
    spark: SparkSession,
    suites: RuleSuite | Iterable[RuleSuite],
    columns: MetaRuleSetColumns | None = None,
) -> DataFrame:
    """One row per meta rule set of ``suites``."""
    return _frame(spark, suite_to_tables(suites).meta_rule_sets, columns or MetaRuleSetColumns())


def _collect(
    df: DataFrame | LocalTable | None, kind: type[Row], columns: object, required: set[str]
) -> list[Row]:
    if df is None:
        return []
    wanted = mapping(columns)
    present = {c.lower(): c for c in df.columns}
    missing = [col for f, col in wanted.items() if f in required and col.lower() not in present]
    if missing:
        from quality_py.errors import BrokenRow, RuleTableError, did_you_mean

        where = f" {df.origin}" if isinstance(df, LocalTable) else ""
        problems = tuple(f"no column {c!r}{did_you_mean(c, df.columns)}" for c in missing)
        raise RuleTableError([BrokenRow(f"{table_name(kind)} table{where}", (), problems)])
    use = {f: present[col.lower()] for f, col in wanted.items() if col.lower() in present}
    if isinstance(df, LocalTable):
        read = df.select_rows(list(use.values()))
    else:
        read = [row.asDict() for row in df.select(*use.values()).collect()]
    return check_rows(kind, [{f: row[col] for f, col in use.items()} for row in read])


def read_rule_tables(
    rules: DataFrame | LocalTable,
    lambdas: DataFrame | LocalTable | None = None,
    outputs: DataFrame | LocalTable | None = None,
    meta_rule_sets: DataFrame | LocalTable | None = None,
    *,
    versioned: bool = True,
    global_library: Id | None = None,
    rule_columns: RuleColumns | None = None,
    lambda_columns: LambdaColumns | None = None,
    output_columns: OutputColumns | None = None,
    meta_columns: MetaRuleSetColumns | None = None,
) -> LoadedSuites:
    """Every suite version in the tables (Spark DataFrames, or tables read here without Spark:
    :mod:`quality_py.io.tables.local`), with lambdas and outputs linked.

    Raises :class:`~quality_py.errors.RuleTableError` listing every broken row (null or
    non-integer ids, blank text, an id + version repeated with different text) of all tables.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0")])])
    >>> read_rule_tables(rules_dataframe(spark, suite)).latest(1) == suite
    True
    """
    from quality_py.errors import BrokenRow, RuleTableError

    parts: list[list[Any]] = []
    broken: list[BrokenRow] = []
    for df, kind, cols in (
        (rules, RuleRow, rule_columns or RuleColumns()),
        (lambdas, LambdaRow, lambda_columns or LambdaColumns()),
        (outputs, OutputRow, output_columns or OutputColumns()),
        (meta_rule_sets, MetaRuleSetRow, meta_columns or MetaRuleSetColumns()),
    ):
        try:
            parts.append(_collect(df, kind, cols, required_fields(kind)))
        except RuleTableError as err:
            broken += err.broken
            parts.append([])
    if broken:
        raise RuleTableError(broken)
    tables = SuiteTables(*(tuple(p) for p in parts))
    return tables_to_suites(tables, versioned=versioned, global_library=global_library)
