"""Rule, lambda, output-expression and meta rule-set tables: rows, versioning, Spark IO."""

from __future__ import annotations

from quality_py.io.tables.assemble import LoadedSuites, tables_to_suites
from quality_py.io.tables.columns import (
    LambdaColumns,
    MetaRuleSetColumns,
    OutputColumns,
    RuleColumns,
)
from quality_py.io.tables.rows import (
    DELETED,
    LambdaRow,
    MetaRuleSetRow,
    OutputRow,
    RuleRow,
    SuiteTables,
    check_rows,
    suite_to_tables,
)
from quality_py.io.tables.spark_io import (
    lambdas_dataframe,
    meta_rule_sets_dataframe,
    outputs_dataframe,
    read_rule_tables,
    rules_dataframe,
)

__all__ = [
    "DELETED",
    "LambdaColumns",
    "LambdaRow",
    "LoadedSuites",
    "MetaRuleSetColumns",
    "MetaRuleSetRow",
    "OutputColumns",
    "OutputRow",
    "RuleColumns",
    "RuleRow",
    "SuiteTables",
    "check_rows",
    "lambdas_dataframe",
    "meta_rule_sets_dataframe",
    "outputs_dataframe",
    "read_rule_tables",
    "rules_dataframe",
    "suite_to_tables",
    "tables_to_suites",
]
