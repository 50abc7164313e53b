"""Column profiles in at most three passes, and constraint suggestions from them."""

from __future__ import annotations

from quality_py.profile.profiler import ColumnProfile, DatasetProfile, profile
from quality_py.profile.suggest import (
    Evaluation,
    Suggestion,
    evaluate,
    suggest,
    suggested_checks,
    suggested_ruleset,
)

__all__ = [
    "ColumnProfile",
    "DatasetProfile",
    "Evaluation",
    "Suggestion",
    "evaluate",
    "profile",
    "suggest",
    "suggested_checks",
    "suggested_ruleset",
]
