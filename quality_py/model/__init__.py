"""The frozen rule model and the result contracts."""

from __future__ import annotations

from quality_py.model.ids import Id, pack_ints, unpack
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
    "DISABLED_RULE",
    "FAILED",
    "PASSED",
    "SOFT_FAILED",
    "Id",
    "LambdaFunction",
    "Layout",
    "MetaRuleSet",
    "OutputExpression",
    "Rule",
    "RuleSet",
    "RuleSuite",
    "pack_ints",
    "unpack",
]
