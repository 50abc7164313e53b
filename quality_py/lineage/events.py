"""A quality run as OpenLineage run events (spec 2-0-2), built with the OpenLineage Python client's
classes (``openlineage-python``, the ``lineage`` extra; imported by this module only).

A run is one OpenLineage run of the job ``namespace``/``job``: START when its outputs are about
to be written, COMPLETE once they are published, FAIL when nothing is published. Its input is the
input dataset; valid, quarantine and stats are its output datasets. The input carries
``dataQualityAssertions`` (one assertion per rule and per dataset check) and
``dataQualityMetrics`` (the input's rows; per column what the dataset checks counted); an output
carries ``outputStatistics`` (its rows). A FAIL carries ``errorMessage``. The run's id is a UUID
derived from the job and the run's own id, so START and its end name one run, and a run id
that is run again (it replaces its outputs) is the same OpenLineage run.

Dataset names follow OpenLineage's naming: ``file`` and an absolute path on this machine;
``s3://bucket`` (``gs://``, ``abfss://container@account...``) and the object's key; ``hdfs://host``
and a path; ``dbfs`` and a path; a catalog table in the namespace its configuration names, as
``catalog.schema.table``.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from openlineage.client.event_v2 import (
    InputDataset,
    Job,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
)
from openlineage.client.generated import (
    data_quality_assertions_dataset as assertions_facet,
)
from openlineage.client.generated import (
    data_quality_metrics_input_dataset as metrics_facet,
)
from openlineage.client.generated import (
    error_message_run,
    job_type_job,
    output_statistics_output_dataset,
    tags_run,
)

from quality_py.gate.locations import Location
from quality_py.model.times import time_text
from quality_py.version import __version__

#: who made the events (a URI naming quality_py and its version)
PRODUCER = f"https://quality-py.invalid/quality_py/{__version__}"
#: the namespace of the run ids' UUIDs (uuid5 of the job and the run's id)
_RUN_IDS = uuid.UUID("6a1f4c1e-5b0e-4a52-9b61-7c1d8f3e2a10")
#: an object store's scheme: its name has no leading "/" (the object's key)
_OBJECT_STORES = frozenset({"s3", "gs", "abfss", "abfs", "wasbs", "wasb", "oci", "cos", "r2"})
#: Azure's schemes as OpenLineage's naming writes them (a place's identity merges abfs and
#: abfss, wasb and wasbs: one storage)
_NAMESPACE_SCHEMES = {"abfs": "abfss", "wasb": "wasbs"}


@dataclass(frozen=True)
class Assertion:
    """One rule's or dataset check's outcome, as the ``dataQualityAssertions`` facet says it."""

    #: ``custom_sql`` for a rule (an SQL predicate per row), else the check's kind
    kind: str
    name: str
    success: bool
    #: ``error`` when its failure stops the run (a ``fail`` rule, an error-level check)
    severity: str
    column: str | None = None
    #: a rule's SQL, a check's constraint
    content: str | None = None
    content_type: str | None = None
    expected: str | None = None
    actual: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ColumnNumbers:
    """What a run counted of one input column (None: not counted)."""

    nulls: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    total: float | None = None
    count: int | None = None


@dataclass(frozen=True)
class Outcome:
    """What a finished (or failed) run says to lineage: its assertions, the input's numbers,
    each output's rows, and the error of a failed run."""

    assertions: tuple[Assertion, ...] = ()
    rows: int | None = None
    columns: Mapping[str, ColumnNumbers] = field(default_factory=dict)
    output_rows: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None


@dataclass(frozen=True)
class RunIdentity:
    """The job a run belongs to, the run, and its datasets."""

    namespace: str
    job: str
    run_id: str
    suite: str
    input: Location | None
    #: each output's name (``valid``, ``quarantine``, ``stats``) and place
    outputs: Mapping[str, Location]
    #: the namespace of catalog tables
    table_namespace: str = "spark_catalog"

    @property
    def run_uuid(self) -> str:
        """The run's OpenLineage id: the same for the same job and run id.

        >>> RunIdentity("ns", "job", "r1", "s", None, {}).run_uuid == RunIdentity(
        ...     "ns", "job", "r1", "other", None, {}).run_uuid
        True
        """
        return str(uuid.uuid5(_RUN_IDS, f"{self.namespace}\x00{self.job}\x00{self.run_id}"))


def dataset_name(place: Location, table_namespace: str = "spark_catalog") -> tuple[str, str]:
    """A place's OpenLineage namespace and name.

    >>> from quality_py.gate.locations import location
    >>> dataset_name(location("s3a://Bucket/raw/orders/"))
    ('s3://bucket', 'raw/orders')
    >>> dataset_name(location("/data/orders"))
    ('file', '/data/orders')
    >>> dataset_name(location("main.sales.orders", table=True))
    ('spark_catalog', 'main.sales.orders')
    """
    if place.scheme == "table":
        return table_namespace, place.path
    if place.scheme in ("file", "dbfs"):
        return place.scheme, place.path
    name = place.path.lstrip("/") if place.scheme in _OBJECT_STORES else place.path
    return place.root(_NAMESPACE_SCHEMES.get(place.scheme)), name


def _now() -> str:
    return str(time_text(datetime.now(timezone.utc)))


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _assertions(outcome: Outcome) -> assertions_facet.DataQualityAssertionsDatasetFacet:
    return assertions_facet.DataQualityAssertionsDatasetFacet(
        assertions=[
            assertions_facet.Assertion(
                assertion=a.kind,
                success=a.success,
                column=a.column,
                severity=a.severity,
                name=a.name,
                expected=a.expected,
                actual=a.actual,
                content=a.content,
                contentType=a.content_type,
                params=dict(a.params),
            )
            for a in outcome.assertions
        ],
        producer=PRODUCER,
    )


def _metrics(outcome: Outcome) -> metrics_facet.DataQualityMetricsInputDatasetFacet:
    columns = {
        name: metrics_facet.ColumnMetrics(
            nullCount=numbers.nulls,
            min=_finite(numbers.minimum),
            max=_finite(numbers.maximum),
            sum=_finite(numbers.total),
            count=None if numbers.count is None else float(numbers.count),
        )
        for name, numbers in outcome.columns.items()
    }
    return metrics_facet.DataQualityMetricsInputDatasetFacet(
        columnMetrics=columns, rowCount=outcome.rows, producer=PRODUCER
    )


def _inputs(identity: RunIdentity, outcome: Outcome | None) -> list[InputDataset]:
    if identity.input is None:
        return []
    namespace, name = dataset_name(identity.input, identity.table_namespace)
    facets: dict[str, Any] = {}
    if outcome is not None and outcome.assertions:
        facets["dataQualityAssertions"] = _assertions(outcome)
    if outcome is not None and outcome.rows is not None:
        facets["dataQualityMetrics"] = _metrics(outcome)
    return [InputDataset(namespace=namespace, name=name, inputFacets=facets)]


def _outputs(identity: RunIdentity, outcome: Outcome | None) -> list[OutputDataset]:
    out = []
    for kind, place in identity.outputs.items():
        namespace, name = dataset_name(place, identity.table_namespace)
        facets: dict[str, Any] = {}
        rows = None if outcome is None else outcome.output_rows.get(kind)
        if rows is not None:
            facets["outputStatistics"] = (
                output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                    rowCount=rows, producer=PRODUCER
                )
            )
        out.append(OutputDataset(namespace=namespace, name=name, outputFacets=facets))
    return out


def run_event(state: str, identity: RunIdentity, outcome: Outcome | None = None) -> RunEvent:
    """The run event of ``state`` (``START``, ``COMPLETE`` or ``FAIL``) for ``identity``.

    >>> event = run_event("START", RunIdentity("dq", "orders", "r1", "orders 1.1", None, {}))
    >>> event.eventType.value, event.job.name, len(event.run.runId)
    ('START', 'orders', 36)
    """
    run_facets: dict[str, Any] = {
        "tags": tags_run.TagsRunFacet(
            tags=[
                tags_run.TagsRunFacetFields("quality_py.run_id", identity.run_id, "quality_py"),
                tags_run.TagsRunFacetFields("quality_py.suite", identity.suite, "quality_py"),
            ],
            producer=PRODUCER,
        )
    }
    if state == "FAIL" and outcome is not None and outcome.error is not None:
        run_facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
            message=outcome.error, programmingLanguage="python", producer=PRODUCER
        )
    job_facets: dict[str, Any] = {
        "jobType": job_type_job.JobTypeJobFacet(
            processingType="BATCH",
            integration="QUALITY_PY",
            jobType="DATA_QUALITY",
            producer=PRODUCER,
        )
    }
    return RunEvent(
        eventType=RunState(state),
        eventTime=_now(),
        run=Run(runId=identity.run_uuid, facets=run_facets),
        job=Job(namespace=identity.namespace, name=identity.job, facets=job_facets),
        inputs=_inputs(identity, outcome),
        outputs=_outputs(identity, outcome),
        producer=PRODUCER,
    )


def event_json(event: RunEvent) -> dict[str, Any]:
    """The event as the client sends it (nulls and enums as the client writes them).

    >>> event_json(run_event("START", RunIdentity("dq", "j", "r1", "s", None, {})))["eventType"]
    'START'
    """
    from openlineage.client.serde import Serde

    return Serde.to_dict(event)


__all__ = [
    "PRODUCER",
    "Assertion",
    "ColumnNumbers",
    "Outcome",
    "RunIdentity",
    "dataset_name",
    "event_json",
    "run_event",
]
