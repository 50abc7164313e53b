"""Running a prepared job: a quality run with actions (valid rows, quarantine, stats, history,
notifications), or the data with its data-quality column written to one output. Either returns
a :class:`JobResult`, the same value the command line prints and writes as ``--json``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from quality_py.actions.notify import JsonLinesNotifier, Notifier, WebhookNotifier
from quality_py.actions.outcome import RunSummary
from quality_py.actions.run import QualityRun, run_quality
from quality_py.alerts import alert_sender
from quality_py.dataset.checks import ConstraintResult, VerificationResult
from quality_py.dataset.observe import observe_checks
from quality_py.dataset.table_state import TableState
from quality_py.errors import InputError
from quality_py.history import MetricsRepository, open_repository
from quality_py.history.over_time import OverTime
from quality_py.io.ruleset_file import RulesetFile
from quality_py.jobs.inputs import input_table
from quality_py.jobs.prepare import PreparedJob
from quality_py.jobs.spec import JobSpec
from quality_py.lineage.openlineage import INSTALL, OpenLineage, lineage_installed
from quality_py.model.rules import RuleSuite
from quality_py.model.times import time_text
from quality_py.model.types import DataFrame, SparkSession
from quality_py.outputs.writing import write_frame
from quality_py.progress import watching
from quality_py.runners.data_quality import add_data_quality
from quality_py.runners.summary import (
    RuleStats,
    SuiteStats,
    layout_of,
    stats_from_row,
    summary_columns,
)
from quality_py.spark.hardening import check_session
from quality_py.spark.session import is_connect
from quality_py.sql.compiler import CompiledSuite
from quality_py.version import __version__


@dataclass(frozen=True)
class JobResult:
    """What a job did: its status and exit code, the outputs written, the rules' counts, the
    dataset checks and (for a quality run) the run's summary."""

    suite: RuleSuite
    status: str
    exit_code: int
    input: str
    outputs: Mapping[str, str]
    elapsed_seconds: float
    stats: SuiteStats | None = None
    checks: VerificationResult | None = None
    summary: RunSummary | None = None
    spark: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The result as the command line's ``--json`` writes it.

        >>> from quality_py import Id, RuleSuite
        >>> result = JobResult(RuleSuite(Id(1, 1), []), "success", 0, "in.csv", {}, 1.5)
        >>> document = result.to_dict()
        >>> document["status"], document["exit_code"], document["elapsed_seconds"]
        ('success', 0, 1.5)
        """
        counts: dict[str, Any] = {}
        if self.summary is not None:
            counts = self.summary.to_dict()
        elif self.stats is not None:
            counts = {"input_rows": self.stats.rows}
        counts.setdefault("suite_name", self.suite.name)
        return {
            "command": "run",
            "status": self.status,
            "exit_code": self.exit_code,
            "input": self.input,
            "outputs": dict(self.outputs),
            "elapsed_seconds": round(self.elapsed_seconds, 3),
            **counts,
            "rules": [rule_result(r) for r in (self.stats.rules if self.stats else ())],
            "checks": check_results(self.checks.results if self.checks else ()),
            "spark": dict(self.spark),
            "undelivered_alerts": list(self.summary.undelivered if self.summary else ()),
            "quality_py": __version__,
        }


def require_runnable(job: JobSpec) -> None:
    """Refuse, before anything starts, a run with nothing to run or nowhere to write."""
    if job.ruleset is None or job.input is None:
        missing = "a ruleset" if job.ruleset is None else "an input"
        raise InputError(f"a run needs {missing}", item_kind="job")
    if not (job.outputs.places() or job.history):
        raise InputError(
            "a run writes somewhere: give an output (--output), or valid, quarantine or stats "
            "(--valid/--quarantine/--stats) for a quality run, or a history",
            item_kind="job",
        )


def run_prepared(prepared: PreparedJob) -> JobResult:
    """Run a prepared job: a quality run when it has valid, quarantine or stats outputs or a
    history, else its data with the data-quality column to its one output."""
    job = prepared.job
    require_runnable(job)
    if prepared.frame is None or prepared.spark is None:
        raise InputError("a run needs an input", item_kind="job")
    hardening = check_session(prepared.spark)
    if not hardening.hardened:
        print(f"warning: {hardening.describe()}", file=sys.stderr)
    with prepared.ruleset.locating() if prepared.ruleset else nullcontext():
        if job.outputs.quality_run or job.history:
            return _quality_run(prepared)
        return _checked_output(prepared)


def failed_result(prepared: PreparedJob, summary: RunSummary) -> JobResult:
    """The result of a quality run that failed (nothing was written): exit code 1."""
    assert prepared.spark is not None
    return JobResult(
        prepared.suite, str(summary.status), 1, prepared.job.input_text or "<DataFrame>", {},
        time.perf_counter() - prepared.started, summary.rules, summary.checks, summary,
        session_facts(prepared.spark),
    )  # fmt: skip


def notifiers_of(prepared: PreparedJob) -> list[Notifier]:
    """The job's notifiers: JSON lines files, webhooks, then those given as values."""
    job = prepared.job
    out: list[Notifier] = [JsonLinesNotifier(p) for p in job.notify]
    out += [WebhookNotifier(u) for u in job.webhooks]
    out += [
        alert_sender(a, job.report_url, when=job.alert_when, every=job.alert_every)
        for a in job.alerts
    ]
    lineage = lineage_of(job)
    return [*out, *job.notifiers, *([lineage] if lineage is not None else [])]


def lineage_of(job: JobSpec, environ: Mapping[str, str] | None = None) -> OpenLineage | None:
    """The job's OpenLineage setting: its ``openlineage`` field, else the defaults when
    ``OPENLINEAGE_URL`` is set (as the OpenLineage client reads it) and the client is
    installed; the input dataset named by the job's input (a path or ``table:NAME``).

    >>> from quality_py.jobs.spec import JobSpec
    >>> lineage_of(JobSpec(input="main.sales.orders", openlineage=True)).input
    'table:main.sales.orders'
    >>> lineage_of(JobSpec(input="in.csv"), {}) is None
    True
    """
    environ = os.environ if environ is None else environ
    setting = job.openlineage
    if setting is None and environ.get("OPENLINEAGE_URL"):
        if not lineage_installed():
            print(
                "note: OPENLINEAGE_URL is set, but the OpenLineage Python client is not "
                f"installed: no OpenLineage events ({INSTALL})",
                file=sys.stderr,
            )
            return None
        setting = OpenLineage()
    if not isinstance(setting, OpenLineage):
        return None
    text = job.input_text
    if setting.input is None and text is not None and not text.startswith("sample:"):
        table = input_table(text)
        setting = replace(setting, input=text if table is None else f"table:{table}")
    return setting


def _quality_run(prepared: PreparedJob) -> JobResult:
    job, spark, frame = prepared.job, prepared.spark, prepared.frame
    assert spark is not None and frame is not None and prepared.ruleset is not None
    ruleset = prepared.ruleset
    history = open_repository(job.history, spark) if job.history else None
    if history is None and ruleset.anomaly_checks:
        print(
            f"note: {len(ruleset.anomaly_checks)} anomaly check(s) need a history (--history): "
            "not judged",
            file=sys.stderr,
        )
        ruleset = replace(ruleset, anomaly_checks=())
    run = run_ruleset(
        ruleset, frame, job.run_id, history=history, tags=dict(job.tags),
        compiled=prepared.compiled, name=job.name, layout=job.layout,
        notifiers=notifiers_of(prepared), keys=job.keys, hide_columns=job.hide_columns,
        table_state=job.table,
    )  # fmt: skip
    out = job.outputs
    with watching(spark, f"quality run of {job.input_text or 'the input'}: checking and writing"):
        summary = run.write(
            out.valid, out.quarantine, out.stats, format=out.format, publish=out.publish,
            quarantine_detail=out.quarantine_detail,
        )  # fmt: skip
    written = {k: v for k, v in out.places() if k != "output"}
    code = 3 if job.strict and summary.failed_checks else 0
    return JobResult(
        prepared.suite, str(summary.status), code, job.input_text or "<DataFrame>", written,
        time.perf_counter() - prepared.started, summary.rules, summary.checks, summary,
        session_facts(spark),
    )  # fmt: skip


def _checked_output(prepared: PreparedJob) -> JobResult:
    """The data with its data-quality column, counted and checked as it is written."""
    from pyspark.sql import Observation

    job, frame = prepared.job, prepared.frame
    assert frame is not None and prepared.ruleset is not None and job.outputs.output
    suite, checks = prepared.suite, prepared.ruleset.checks
    compiled = prepared.compiled
    checked = add_data_quality(frame, suite, job.name, layout=job.layout, compiled=compiled)
    observation = Observation("quality_py_summary")
    observed = checked.observe(
        observation, *summary_columns(suite, job.name, layout_of(checked, job.name))
    )
    observed, finish_checks = observe_checks(observed, checks, policy=suite.policy)
    write_frame(observed, job.outputs.output, "overwrite", job.outputs.format)
    stats = stats_from_row(suite, observation.get)
    verification = finish_checks() if checks else None
    status = "success" if verification is None else verification.status
    code = {"error": 1, "warning": 3 if job.strict else 0}.get(status, 0)
    return JobResult(
        suite, status, code, job.input_text or "<DataFrame>", {"output": job.outputs.output},
        time.perf_counter() - prepared.started, stats, verification, None,
        session_facts(frame.sparkSession),
    )  # fmt: skip


def run_ruleset(
    ruleset: RulesetFile,
    df: DataFrame,
    run_id: str | None = None,
    *,
    history: MetricsRepository | None = None,
    tags: Mapping[str, Any] | None = None,
    compiled: CompiledSuite | None = None,
    hide_columns: Sequence[str] = (),
    table_state: TableState | None = None,
    **options: Any,
) -> QualityRun:
    """A quality run of ``df`` with every section of ``ruleset`` in one call: the suite
    (``compiled``: its compilation done beforehand), its dataset checks, SQL checks and error
    rates, and its anomaly checks, which judge the run against ``history`` (a metrics
    repository, keeping the run's record with ``tags``; ``hide_columns``: columns its sample
    failing rows never show; ``table_state``: the table ``df`` is a partition of). ``options`` go
    to ``run_quality`` (``keys``, ``notifiers``, ``layout``, ``name``).

    >>> from quality_py.io.ruleset_file import loads_ruleset_file
    >>> ruleset = loads_ruleset_file('''
    ... suite: {id: 1}
    ... rule_sets: [{id: 5, rules: [{id: 9, expression: "a > 0", action_if_failed: drop}]}]
    ... ''')
    >>> run = run_ruleset(ruleset, spark.createDataFrame([(0,), (2,)], "a int"))
    >>> [r.a for r in run.valid.collect()]
    [2]
    """
    over_time = OverTime.of(history, tags, ruleset.anomaly_checks, hide_columns, table_state)
    return run_quality(
        df,
        compiled or ruleset.suite,
        [*ruleset.checks, *ruleset.sql_checks],
        run_id,
        over_time=over_time,
        error_rates=ruleset.error_rates,
        **options,
    )


def rule_result(stats: RuleStats) -> dict[str, Any]:
    """One rule's counts as ``--json`` shows them."""
    return {
        "rule_set": f"{stats.rule_set_id.id}.{stats.rule_set_id.version}",
        "rule": f"{stats.rule_id.id}.{stats.rule_id.version}",
        "name": stats.name,
        "rule_set_name": stats.rule_set_name,
        "passed": stats.passed,
        "failed": stats.failed,
        "soft_failed": stats.soft_failed,
        "disabled": stats.disabled,
        "probability": stats.probability,
        "failing": stats.failing,
        "null_values": stats.null_values,
    }


def check_results(results: Sequence[ConstraintResult]) -> list[dict[str, Any]]:
    """Each dataset check's constraint as ``--json`` shows it."""
    return [
        {
            "check": c.check,
            "level": c.level,
            "constraint": c.constraint,
            "passed": c.passed,
            "value": _json_value(c.metric),
            "message": c.message,
        }
        for c in results
    ]


def _json_value(metric: object) -> object:
    """A check's metric in ``--json``: a number or text as it is, a time as ISO 8601 text.

    >>> import datetime as dt
    >>> _json_value(dt.date(2026, 1, 2)), _json_value(0.5), _json_value(None)
    ('2026-01-02', 0.5, None)
    """
    if metric is None or isinstance(metric, int | float | str):
        return metric
    return time_text(metric) or str(metric)


def session_facts(spark: SparkSession) -> dict[str, Any]:
    """What a result says of the Spark a job ran on."""
    try:
        master = spark.conf.get("spark.master", None)
    except Exception:  # a server that will not tell
        master = None
    return {"version": str(spark.version), "master": master, "connect": is_connect(spark)}
