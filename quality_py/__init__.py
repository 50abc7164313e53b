"""quality_py: versioned SQL data-quality rules evaluated by Spark built-ins as one column.

The public API, by what it is for. Importing the package starts no JVM and changes no logging
configuration.

>>> from quality_py import Id, Rule, RuleSet, RuleSuite
>>> RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])]).rule_count
1
"""

from __future__ import annotations

import logging

# --- quality runs: actions, outputs, notifications ----------------------------------------------
from quality_py.actions import (
    CallbackNotifier,
    JsonLinesNotifier,
    QualityRun,
    QualityRunFailed,
    RunSummary,
    WebhookNotifier,
    foreach_batch,
    quarantine_with_names,
    read_outputs,
    run_quality,
    with_quality,
)

# --- quality over time ----------------------------------------------------------------------------
from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.pipelines import PipelineChecks, pipeline_checks
from quality_py.actions.release import ReleaseResult, release_quarantine
from quality_py.actions.sql_checks import SqlCheck
from quality_py.alerts import EmailAlert, PagerDutyAlert, SlackAlert, TeamsAlert, WebhookAlert

# --- dataset checks (Deequ) ---------------------------------------------------------------------
from quality_py.dataset import Check, VerificationResult, run_analyzers, verify
from quality_py.dataset.store import FileStateStore
from quality_py.dataset.table_state import TableState

# --- documentation ------------------------------------------------------------------------------
from quality_py.docgen import to_html, to_markdown

# --- errors ---------------------------------------------------------------------------------------
from quality_py.errors import (
    LambdaError,
    LibraryFunctionError,
    ModelError,
    PolicyError,
    QualityError,
    RuleAnalysisError,
    RulesetFormatError,
    RuleSyntaxError,
)

# --- library functions as Columns ---------------------------------------------------------------
from quality_py.functions import expr, pack_ints, unpack
from quality_py.history import (
    AnomalyCheck,
    FileMetricsRepository,
    OverTime,
    TableMetricsRepository,
)
from quality_py.io.ruleset_file import RulesetFile, load_ruleset_file, loads_ruleset_file
from quality_py.io.tables import read_rule_tables, suite_to_tables, tables_to_suites
from quality_py.io.yaml_rulesets import dump_ruleset, dumps_ruleset, load_ruleset, loads_ruleset

# --- rule tables and YAML -----------------------------------------------------------------------
from quality_py.jobs import JobResult, Outputs, QualityJob, SparkSettings, run_ruleset
from quality_py.lineage import OpenLineage

# --- the model ------------------------------------------------------------------------------------
from quality_py.model.enums import CheckLevel, RowAction, RunStatus
from quality_py.model.ids import Id, pack_id, unpack_id
from quality_py.model.layout import CompactLayout, layout_of_field
from quality_py.model.policy import RulePolicy
from quality_py.model.results import DISABLED_RULE, FAILED, PASSED, SOFT_FAILED, Layout
from quality_py.model.rules import (
    LambdaFunction,
    MetaRuleSet,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
)
from quality_py.prepare import prepare_for_schema
from quality_py.profile import profile, suggest
from quality_py.report import write_report

# --- runners --------------------------------------------------------------------------------------
from quality_py.runners.data_quality import (
    add_data_quality,
    add_overall_results_and_details,
    data_quality,
    overall_results_and_details,
    rule_runner,
)
from quality_py.runners.explain import RuleExplanation, explain_rules
from quality_py.runners.expressions import expression_runner, typed_expression_runner
from quality_py.runners.rule_engine import rule_engine, rule_engine_runner, rule_engine_with_struct
from quality_py.runners.rule_folder import (
    fold_and_replace_fields,
    folded_fields,
    rule_folder,
    rule_folder_runner,
    rule_folder_with_struct,
)
from quality_py.runners.summary import rule_summary

# --- rules that see more than one row (rule text from names) ------------------------------------
from quality_py.sql.row_rules import group_limit_rule, keep_one_rule, reference_rule, unique_rule
from quality_py.testing import assert_quality

# --- validation -----------------------------------------------------------------------------------
from quality_py.validation import ValidationReport, validate
from quality_py.version import __version__

logging.getLogger("quality_py").addHandler(logging.NullHandler())

__all__ = [  # noqa: RUF022 - grouped by purpose, as the imports above
    # model
    "DISABLED_RULE",
    "FAILED",
    "PASSED",
    "SOFT_FAILED",
    "CheckLevel",
    "CompactLayout",
    "Id",
    "LambdaFunction",
    "Layout",
    "MetaRuleSet",
    "OutputExpression",
    "RowAction",
    "Rule",
    "RulePolicy",
    "RuleSet",
    "RuleSuite",
    "RunStatus",
    "layout_of_field",
    "pack_id",
    "unpack_id",
    # runners
    "add_data_quality",
    "add_overall_results_and_details",
    "data_quality",
    "fold_and_replace_fields",
    "folded_fields",
    "overall_results_and_details",
    "prepare_for_schema",
    "rule_engine",
    "rule_engine_runner",
    "rule_engine_with_struct",
    "explain_rules",
    "RuleExplanation",
    "expression_runner",
    "typed_expression_runner",
    "rule_folder",
    "rule_folder_runner",
    "rule_folder_with_struct",
    "rule_runner",
    "rule_summary",
    # rules that see more than one row
    "group_limit_rule",
    "keep_one_rule",
    "reference_rule",
    "unique_rule",
    # library functions as Columns
    "expr",
    "pack_ints",
    "unpack",
    # rule tables and YAML
    "dump_ruleset",
    "dumps_ruleset",
    "load_ruleset",
    "loads_ruleset",
    "RulesetFile",
    "load_ruleset_file",
    "loads_ruleset_file",
    "read_rule_tables",
    "suite_to_tables",
    "tables_to_suites",
    # validation and docs
    "ValidationReport",
    "to_html",
    "to_markdown",
    "validate",
    # dataset checks
    "Check",
    "FileStateStore",
    "VerificationResult",
    "run_analyzers",
    "verify",
    # quality runs
    "CallbackNotifier",
    "EmailAlert",
    "JsonLinesNotifier",
    "QualityRun",
    "QualityRunFailed",
    "ReleaseResult",
    "RunSummary",
    "PagerDutyAlert",
    "SlackAlert",
    "TeamsAlert",
    "WebhookAlert",
    "WebhookNotifier",
    "OpenLineage",
    "foreach_batch",
    "quarantine_with_names",
    "read_outputs",
    "release_quarantine",
    "PipelineChecks",
    "pipeline_checks",
    "run_quality",
    "with_quality",
    # jobs: one request for the library, the command line and orchestrators
    "JobResult",
    "Outputs",
    "QualityJob",
    "SparkSettings",
    "run_ruleset",
    # testing data in a test suite
    "assert_quality",
    # quality over time
    "AnomalyCheck",
    "OverTime",
    "ErrorRates",
    "FileMetricsRepository",
    "SqlCheck",
    "TableMetricsRepository",
    "TableState",
    "profile",
    "suggest",
    "write_report",
    # errors
    "LambdaError",
    "LibraryFunctionError",
    "ModelError",
    "PolicyError",
    "QualityError",
    "RuleAnalysisError",
    "RuleSyntaxError",
    "RulesetFormatError",
    # version
    "__version__",
]
