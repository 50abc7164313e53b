"""quality_py: versioned SQL data-quality rules evaluated by Spark built-ins as one column.

>>> from quality_py import Id, Rule, RuleSet, RuleSuite
>>> RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])]).rule_count
1
"""

from __future__ import annotations

import logging

from quality_py.actions import (
    CallbackNotifier,
    JsonLinesNotifier,
    QualityRun,
    QualityRunFailed,
    RunSummary,
    WebhookNotifier,
    foreach_batch,
    run_quality,
    with_quality,
)
from quality_py.dataset import Check, VerificationResult, run_analyzers, verify
from quality_py.errors import (
    LambdaError,
    LibraryFunctionError,
    ModelError,
    QualityError,
    RuleAnalysisError,
    RulesetFormatError,
    RuleSyntaxError,
)
from quality_py.functions import expr
from quality_py.model.ids import Id, pack_ints, unpack
from quality_py.model.layout import CompactLayout, layout_of_field
from quality_py.model.results import DISABLED_RULE, FAILED, PASSED, SOFT_FAILED, Layout
from quality_py.model.rules import LambdaFunction, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.runners.data_quality import (
    add_data_quality,
    add_overall_results_and_details,
    data_quality,
    overall_results_and_details,
    rule_runner,
)
from quality_py.runners.rule_engine import rule_engine_runner, rule_engine_with_struct
from quality_py.runners.rule_folder import (
    fold_and_replace_fields,
    rule_folder_runner,
    rule_folder_with_struct,
)

logging.getLogger("quality_py").addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = [
    "DISABLED_RULE",
    "FAILED",
    "PASSED",
    "SOFT_FAILED",
    "CallbackNotifier",
    "Check",
    "CompactLayout",
    "Id",
    "JsonLinesNotifier",
    "LambdaError",
    "LambdaFunction",
    "Layout",
    "LibraryFunctionError",
    "ModelError",
    "OutputExpression",
    "QualityError",
    "QualityRun",
    "QualityRunFailed",
    "Rule",
    "RuleAnalysisError",
    "RuleSet",
    "RuleSuite",
    "RuleSyntaxError",
    "RulesetFormatError",
    "RunSummary",
    "VerificationResult",
    "WebhookNotifier",
    "__version__",
    "add_data_quality",
    "add_overall_results_and_details",
    "data_quality",
    "expr",
    "fold_and_replace_fields",
    "foreach_batch",
    "layout_of_field",
    "overall_results_and_details",
    "pack_ints",
    "rule_engine_runner",
    "rule_engine_with_struct",
    "rule_folder_runner",
    "rule_folder_with_struct",
    "rule_runner",
    "run_analyzers",
    "run_quality",
    "unpack",
    "verify",
    "with_quality",
]
