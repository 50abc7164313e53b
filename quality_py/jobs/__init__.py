"""Quality jobs: one typed request (:class:`QualityJob`) prepared and run the same way by the
library, the command line and orchestrators."""

from __future__ import annotations

from quality_py.jobs.job import QualityJob
from quality_py.jobs.prepare import PreparedJob
from quality_py.jobs.reference import ReferenceData
from quality_py.jobs.running import JobResult, run_ruleset
from quality_py.jobs.spec import Outputs, SparkSettings

__all__ = [
    "JobResult",
    "Outputs",
    "PreparedJob",
    "QualityJob",
    "ReferenceData",
    "SparkSettings",
    "run_ruleset",
]
