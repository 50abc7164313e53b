"""Untrusted rule text: the policy, its limits, and checks of the Spark session."""

from __future__ import annotations

from quality_py.policy.limits import HARD_LIMITS, Limits, check_limits
from quality_py.policy.policy import DEFAULT_POLICY, RulePolicy
from quality_py.policy.session_check import SessionHardening, check_session

__all__ = [
    "DEFAULT_POLICY",
    "HARD_LIMITS",
    "Limits",
    "RulePolicy",
    "SessionHardening",
    "check_limits",
    "check_session",
]
