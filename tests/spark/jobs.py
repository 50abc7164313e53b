"""Count the Spark jobs an action runs.

The status tracker keeps only the last ``spark.ui.retainedJobs`` (1000) jobs, so the number of
jobs it lists before and after an action can shrink in a long test session (and stays flat at the
cap however many jobs ran). Job ids are allocated one after another by the scheduler, jobs of
helper threads (broadcasts, subqueries) included, so the highest id tells how many started.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _last_job_id(spark: Any) -> int:
    return max(spark.sparkContext.statusTracker().getJobIdsForGroup(None), default=-1)


def jobs_of(spark: Any, action: Callable[[], T]) -> tuple[int, T]:
    """The number of jobs ``action()`` started, and its result."""
    before = _last_job_id(spark)
    result = action()
    return _last_job_id(spark) - before, result
