"""Column names of the rule, lambda, output-expression and meta rule-set tables.

The defaults are the original library's names; pass an instance with other names to read or write
tables laid out differently (e.g. ``RuleColumns(rule_expr="sql_text")``). The description, owner,
tags, action-if-failed, name, filter and active columns (and the descriptions of lambdas,
outputs and meta rule sets) are ours: optional when reading (old tables load, with the action
``ignore``, active and without a name or filter), written unless set to ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class RuleColumns:
    """Columns of a rules table (one row per rule version)."""

    rule_suite_id: str = "ruleSuiteId"
    rule_suite_version: str = "ruleSuiteVersion"
    rule_set_id: str = "ruleSetId"
    rule_set_version: str = "ruleSetVersion"
    rule_id: str = "ruleId"
    rule_version: str = "ruleVersion"
    rule_expr: str = "ruleExpr"
    rule_engine_salience: str | None = "ruleEngineSalience"
    rule_engine_id: str | None = "ruleEngineId"
    rule_engine_version: str | None = "ruleEngineVersion"
    description: str | None = "ruleDescription"
    owner: str | None = "ruleOwner"
    tags: str | None = "ruleTags"
    action_if_failed: str | None = "ruleActionIfFailed"
    name: str | None = "ruleName"
    filter: str | None = "ruleFilter"
    active: str | None = "ruleActive"
    warn_if: str | None = "ruleWarnIf"
    fail_if: str | None = "ruleFailIf"
    report_columns: str | None = "ruleReportColumns"


@dataclass(frozen=True, slots=True)
class LambdaColumns:
    """Columns of a lambda table (one row per lambda version)."""

    name: str = "name"
    rule_expr: str = "ruleExpr"
    function_id: str = "functionId"
    function_version: str = "functionVersion"
    rule_suite_id: str = "ruleSuiteId"
    rule_suite_version: str = "ruleSuiteVersion"
    description: str | None = "functionDescription"


@dataclass(frozen=True, slots=True)
class OutputColumns:
    """Columns of an output-expression table (one row per output version)."""

    rule_expr: str = "ruleExpr"
    function_id: str = "functionId"
    function_version: str = "functionVersion"
    rule_suite_id: str = "ruleSuiteId"
    rule_suite_version: str = "ruleSuiteVersion"
    description: str | None = "functionDescription"


@dataclass(frozen=True, slots=True)
class MetaRuleSetColumns:
    """Columns of a meta rule-set table (one row per meta rule-set version)."""

    rule_suite_id: str = "ruleSuiteId"
    rule_suite_version: str = "ruleSuiteVersion"
    rule_set_id: str = "ruleSetId"
    rule_set_version: str = "ruleSetVersion"
    column_filter: str = "columnFilter"
    rule_expr: str = "ruleExpr"
    description: str | None = "ruleSetDescription"


def mapping(columns: object) -> dict[str, str]:
    """``{field: column name}`` of the columns in use (fields set to ``None`` are left out)."""
    return {
        f.name: getattr(columns, f.name)
        for f in fields(columns)  # type: ignore[arg-type]
        if getattr(columns, f.name) is not None
    }
