"""The frozen rule model, the policy value and the result contracts (no Spark, no sqlglot)."""

from __future__ import annotations

from quality_py.model.enums import CheckLevel, RowAction, RunStatus
from quality_py.model.ids import Id, pack_id, unpack_id
from quality_py.model.limits import Limits
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.results import (
    DISABLED_RULE,
    FAILED,
    PASSED,
    SOFT_FAILED,
    Layout,
)
from quality_py.model.rules import (
    LambdaFunction,
    MetaRuleSet,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
)

__all__ = [
    "DEFAULT_POLICY",
    "DISABLED_RULE",
    "FAILED",
    "PASSED",
    "SOFT_FAILED",
    "CheckLevel",
    "Id",
    "LambdaFunction",
    "Layout",
    "Limits",
    "MetaRuleSet",
    "OutputExpression",
    "RowAction",
    "Rule",
    "RulePolicy",
    "RuleSet",
    "RuleSuite",
    "RunStatus",
    "pack_id",
    "unpack_id",
]
