"""Preparing a quality job, in one order for every caller (the command line's commands, a
notebook, an orchestrator's task):

1. the reference data's declarations are read once (the views file, blooms: no Spark);
2. the places it reads and writes are checked apart (no Spark);
3. a YAML ruleset is read and, for a run, compiled under the policy those views imply, so rule
   errors come before a JVM starts;
4. the session: the one given, else the job's Spark settings (only when the job needs Spark);
5. rule tables are read, the reference data registered, the input read and filtered (``where``
   through the rule policy) or an empty frame of the job's schema made.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from quality_py.alerts import alert_sender
from quality_py.errors import InputError
from quality_py.gate.locations import Location, location, require_disjoint
from quality_py.history.over_time import DATA_TIME
from quality_py.io.ruleset_file import RulesetFile, load_ruleset_file
from quality_py.jobs.inputs import input_table, read_input
from quality_py.jobs.reference import ReferenceData
from quality_py.jobs.schema_text import schema_frame, static_paths, static_views
from quality_py.jobs.spec import JobSpec, SparkSettings
from quality_py.model.policy import RulePolicy
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame, SparkSession
from quality_py.progress import step
from quality_py.spark.session import is_connect, job_session, supplied_by_environment
from quality_py.sql.compiler import CompiledSuite, compile_suite, filter_sql


@dataclass(frozen=True)
class PreparedJob:
    """A job ready to run: its session (None when it needs none), ruleset (with the policy its
    reference data implies), early compilation, reference data and input frame."""

    job: JobSpec
    spark: SparkSession | None
    ruleset: RulesetFile | None
    compiled: CompiledSuite | None
    reference: ReferenceData
    frame: DataFrame | None
    #: when the job's data work began (``time.perf_counter``), after Spark started
    started: float
    #: the rules' policy: the ruleset's own (the safe one from a file) allowing the job's views
    policy: RulePolicy
    #: ``--schema`` read without Spark (``static_schema``): ``{dotted path: is a struct}``
    paths: dict[str, bool] | None = None
    #: the views' columns read without Spark (``static_schema``): ``{view: paths or None}``
    view_paths: dict[str, dict[str, bool] | None] | None = None

    @property
    def suite(self) -> RuleSuite:
        """The job's suite (a job without a ruleset has none: an :class:`InputError`)."""
        if self.ruleset is None:
            raise InputError("this job names no ruleset", item_kind="job")
        return self.ruleset.suite

    def other_ruleset(self, source: str) -> RulesetFile:
        """Another ruleset read as the job reads its own (same tables, variables, session and
        policy): the old side of a diff, the previous version of generated docs."""
        other = _read_ruleset(self.job, source, self.spark)
        return replace(other, suite=other.suite.with_policy(self.policy))


def prepare(
    job: JobSpec,
    spark: SparkSession | None = None,
    *,
    compile: bool = True,
    also_writes: Sequence[tuple[str, str]] = (),
    static_schema: bool = False,
) -> PreparedJob:
    """Prepare ``job`` (see the module's steps); ``compile``: compile a YAML ruleset before
    Spark starts (a run), or leave its errors to the caller to report (validate, docs);
    ``also_writes``: ``(label, path)`` of files the caller writes beside the job's outputs (a
    result document), kept apart from what the job reads like its outputs; ``static_schema``:
    ``--schema`` is read here for a check of names (no Spark for it, no frame of it)."""
    sample = job.schema if job.schema and job.schema.startswith("sample:") else None
    reference = ReferenceData.read(
        job.views, job.views_file, input=job.input_text or sample, format=job.format,
        table_view=job.table_view,
    )  # fmt: skip
    require_apart(job, reference, also_writes)
    if compile:  # a run: an alert that could not be sent stops it before Spark starts
        for alert in job.alerts:
            alert_sender(alert, job.report_url, when=job.alert_when, every=job.alert_every)
    ruleset, compiled = None, None
    if isinstance(job.ruleset, RulesetFile) or (job.ruleset and not job.tables_need_spark):
        if job.from_tables:
            step(f"reading the rule tables of {job.ruleset}")
        ruleset, compiled = _with_policy(_read_ruleset(job, job.ruleset, None), reference, compile)
    if spark is None and job.input is not None and not isinstance(job.input, str):
        spark = job.input.sparkSession  # a DataFrame brings its session
    if spark is None and job.needs_spark_with(schema=not static_schema):
        spark = open_session(job.spark)
    if job.tables_need_spark and isinstance(job.ruleset, str):
        step(f"reading the rule tables of {job.ruleset}")
        ruleset, compiled = _with_policy(_read_ruleset(job, job.ruleset, spark), reference, compile)
    started = time.perf_counter()
    policy = ruleset.suite.policy if ruleset is not None else reference.policy()
    frame = None
    if spark is not None:
        reference.register(spark)
        frame = _frame(job, spark, policy, static_schema)
    paths = static_paths(job.schema) if static_schema and job.schema else None
    views = static_views(reference, paths) if static_schema and spark is None else None
    return PreparedJob(
        job, spark, ruleset, compiled, reference, frame, started, policy, paths, views
    )


def _read_ruleset(
    job: JobSpec, source: str | RulesetFile, spark: SparkSession | None
) -> RulesetFile:
    if isinstance(source, RulesetFile):
        return source
    variables = dict(job.variables)
    data_time = dict(job.tags).get(DATA_TIME)
    if data_time is not None:  # the run's data time, for rules judged at it (is_recent)
        variables.setdefault("DATA_TIME", data_time)
    return load_ruleset_file(
        source, spark=spark, suite=job.suite, others=job.others, variables=variables
    )


def _with_policy(
    ruleset: RulesetFile, reference: ReferenceData, compile: bool
) -> tuple[RulesetFile, CompiledSuite | None]:
    """The ruleset under the job's policy and, for a run, compiled (a suite with meta rule sets
    needs the data's schema: the run compiles it)."""
    suite = ruleset.suite.with_policy(reference.policy(ruleset.suite.policy))
    with ruleset.locating():
        compiled = compile_suite(suite) if compile and not suite.meta_rule_sets else None
    if compile:
        checked = "checked" if compiled is not None else "read"
        step(f"{suite.rule_count} rules of {ruleset.origin} {checked}")
    return replace(ruleset, suite=suite), compiled


def _frame(
    job: JobSpec, spark: SparkSession, policy: RulePolicy, static_schema: bool
) -> DataFrame | None:
    """The job's input with ``where`` applied, or an empty frame of its schema, or None."""
    if job.input is None:
        return schema_frame(spark, job.schema) if job.schema and not static_schema else None
    frame = (
        job.input if not isinstance(job.input, str) else read_input(spark, job.input, job.format)
    )
    if job.where:  # through the rule policy, as every SQL text we accept
        frame = frame.where(filter_sql(job.where, what="--where", policy=policy))
    return frame


def open_session(settings: SparkSettings) -> SparkSession:
    """The session of a job's Spark settings (see :func:`quality_py.spark.session.job_session`);
    a setting the server refuses is a warning on stderr, not a failure."""
    spark, refused = job_session(
        master=settings.master, remote=settings.remote, conf=dict(settings.conf), say=step
    )
    for warning in refused:
        print(f"warning: {warning}", file=sys.stderr)
    if not (is_connect(spark) or supplied_by_environment() or os.environ.get("QP_TRACEBACK")):
        # a failing task logs its Java stack at ERROR; a job reports every failure itself in
        # one paragraph, so only fatal JVM logs reach the terminal
        spark.sparkContext.setLogLevel("FATAL")
    return spark


def require_apart(
    job: JobSpec, reference: ReferenceData, also_writes: Sequence[tuple[str, str]] = ()
) -> None:
    """Refuse a job whose outputs overlap what it reads (its input, ruleset, views file and the
    files its reference data reads) or each other, naming both (no Spark needed)."""

    def place(text: str) -> Location:
        return location(text, table=input_table(text) is not None)

    reads = [("input", job.input_text), ("views file", job.views_file)]
    reads += [*reference.sources(), *reference.bloom_sources()]
    if isinstance(job.ruleset, str):
        reads.append(("ruleset", job.ruleset))
    inputs = [(label, place(t)) for label, t in reads if t and not t.startswith("sample:")]
    writes = [*job.outputs.places(), *([("history", job.history)] if job.history else [])]
    writes += [("table state", job.table_state)] if job.table_state else []
    writes += [("notify", n) for n in job.notify]
    writes += list(also_writes)
    require_disjoint(inputs, [(label, place(t)) for label, t in writes])
