"""Dataset checks with mergeable states (Deequ): analyzers, states, one-pass execution.

Work in progress for issue 6: the scan-shareable analyzers and the frequency-based ones
(CountDistinct, Distinctness, Uniqueness, UniqueValueRatio, Entropy) exist; sketches, histogram,
mutual information, checks and the state store do not yet.
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
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Entropy,
    FrequencyState,
    GroupingAnalyzer,
    Uniqueness,
    UniqueValueRatio,
)
from quality_py.dataset.runner import AnalysisResult, run_analyzers, run_grouping_analyzers

__all__ = [
    "AnalysisResult",
    "Analyzer",
    "Completeness",
    "Compliance",
    "Correlation",
    "CountDistinct",
    "Distinctness",
    "Entropy",
    "FrequencyState",
    "GroupingAnalyzer",
    "Maximum",
    "Mean",
    "Minimum",
    "PatternMatch",
    "Size",
    "StandardDeviation",
    "Sum",
    "UniqueValueRatio",
    "Uniqueness",
    "run_analyzers",
    "run_grouping_analyzers",
]
