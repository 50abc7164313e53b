"""Dataset checks with mergeable states (Deequ): analyzers, states, one-pass execution.

Work in progress for issue 6: the scan-shareable analyzers exist; grouping analyzers, sketches,
checks and the state store do not yet.
"""

from __future__ import annotations

from quality_py.dataset.analyzers import (
    Analyzer,
    Completeness,
    Compliance,
    Correlation,
    Maximum,
    Mean,
    Minimum,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.runner import AnalysisResult, run_analyzers

__all__ = [
    "AnalysisResult",
    "Analyzer",
    "Completeness",
    "Compliance",
    "Correlation",
    "Maximum",
    "Mean",
    "Minimum",
    "PatternMatch",
    "Size",
    "StandardDeviation",
    "Sum",
    "run_analyzers",
]
