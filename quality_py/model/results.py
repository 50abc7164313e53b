"""Result codes and the result-column contracts (the schema is declared once, here)."""

from __future__ import annotations

from enum import Enum

#: Stored int for a passed rule (and for a passed rule set / suite).
PASSED = 100000
#: Stored int for a failed rule; also what a null rule value becomes.
FAILED = 0
#: Stored int for a soft-failed rule: reported, but does not fail the overall result.
SOFT_FAILED = -1
#: Stored int for a disabled rule: ignored by the overall result.
DISABLED_RULE = -2
#: Probabilities are stored as ``int(p * PROBABILITY_SCALE)`` (truncated toward zero).
PROBABILITY_SCALE = 100000


class Layout(str, Enum):
    """How the data-quality struct stores per-rule-set and per-rule results.

    ``MAP`` is the original library's schema: maps keyed by packed ids. ``COMPACT`` stores the
    same results in positional arrays (ids live in the column metadata and in the compiled
    expressions of the library functions); it is several times cheaper to build in Spark.
    """

    MAP = "map"
    COMPACT = "compact"


#: The original library's DataQuality column type.
DQ_MAP_DDL = (
    "struct<id:bigint,overallResult:int,"
    "ruleSetResults:map<bigint,struct<overallResult:int,ruleResults:map<bigint,int>>>>"
)
#: The compact layout: one int per rule set and one per rule, in declaration order.
DQ_COMPACT_DDL = (
    "struct<id:bigint,overallResult:int,ruleSetResults:array<int>,ruleResults:array<int>>"
)
#: Element type of ``flatten_results``.
FLAT_RESULT_DDL = (
    "struct<ruleSuiteId:int,ruleSuiteVersion:int,ruleSuiteResult:int,ruleSetResult:int,"
    "ruleSetId:int,ruleSetVersion:int,ruleId:int,ruleVersion:int,ruleResult:int>"
)
FLAT_RESULT_FIELDS: tuple[str, ...] = (
    "ruleSuiteId",
    "ruleSuiteVersion",
    "ruleSuiteResult",
    "ruleSetResult",
    "ruleSetId",
    "ruleSetVersion",
    "ruleId",
    "ruleVersion",
    "ruleResult",
)
#: Metadata key under which the compact layout records its ids.
METADATA_KEY = "quality_py"


def result_name(code: int) -> str:
    """A readable name for a stored result int.

    >>> result_name(100000), result_name(-1), result_name(85000)
    ('Passed', 'SoftFailed', 'Probability(0.85)')
    """
    names = {
        PASSED: "Passed",
        FAILED: "Failed",
        SOFT_FAILED: "SoftFailed",
        DISABLED_RULE: "Disabled",
    }
    if code in names:
        return names[code]
    return f"Probability({code / PROBABILITY_SCALE:g})"
