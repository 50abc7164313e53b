"""Dataset checks with mergeable states (Deequ): analyzers, states, one-pass execution, checks.

Every analyzer computes a state that is a commutative monoid; metrics of a union of partitions
come from merged states (see :mod:`quality_py.dataset.store` for storing them per partition).
"""

from __future__ import annotations

from quality_py.dataset.analyzers import (
    Analyzer,
    BinnedDistribution,
    Completeness,
    Compliance,
    Correlation,
    DataType,
    HistogramBinned,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.checks import Check, ConstraintResult, VerificationResult, verify
from quality_py.dataset.comparisons import (
    DatasetMatch,
    DirectAnalyzer,
    ReferentialIntegrity,
    SchemaMatch,
    SizeRatio,
)
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Distribution,
    Entropy,
    FrequencyState,
    GroupingAnalyzer,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from quality_py.dataset.observe import observe_analyzers, observe_checks
from quality_py.dataset.runner import AnalysisResult, run_analyzers, run_grouping_analyzers
from quality_py.dataset.sketches import ApproxCountDistinct, ApproxQuantile
from quality_py.dataset.store import FileStateStore, StateStoreError
from quality_py.dataset.table_state import TableState

__all__ = [
    "AnalysisResult",
    "Analyzer",
    "ApproxCountDistinct",
    "ApproxQuantile",
    "BinnedDistribution",
    "Check",
    "Completeness",
    "Compliance",
    "ConstraintResult",
    "Correlation",
    "CountDistinct",
    "DataType",
    "DatasetMatch",
    "DirectAnalyzer",
    "Distinctness",
    "Distribution",
    "Entropy",
    "FileStateStore",
    "FrequencyState",
    "GroupingAnalyzer",
    "Histogram",
    "HistogramBinned",
    "MaxLength",
    "Maximum",
    "Mean",
    "MinLength",
    "Minimum",
    "MutualInformation",
    "PatternMatch",
    "ReferentialIntegrity",
    "SchemaMatch",
    "Size",
    "SizeRatio",
    "StandardDeviation",
    "StateStoreError",
    "Sum",
    "TableState",
    "UniqueValueRatio",
    "Uniqueness",
    "VerificationResult",
    "observe_analyzers",
    "observe_checks",
    "run_analyzers",
    "run_grouping_analyzers",
    "verify",
]
