"""A quality job: one frozen, typed request that the library, the command line and every
orchestrator run the same way.

.. code-block:: python

    from quality_py.jobs import Outputs, QualityJob

    job = QualityJob(
        ruleset="rulesets/flights.yaml",
        input="sample:flights",
        outputs=Outputs(valid="out/valid", quarantine="out/quarantine"),
        history="out/history",
        tags={"month": "2013-01"},
    )
    result = job.run(spark)          # or job.run(): the job's own Spark settings
    result.status, result.summary.quarantined_rows

``QualityJob.from_yaml("job.yaml")`` reads the same fields from a file (an Airflow task or a
Databricks job runs ``quality-py run --job job.yaml``, or calls ``from_yaml(...).run()``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality_py.errors import InputError
from quality_py.gate import files
from quality_py.io.yaml_checks import refuse_aliases
from quality_py.jobs.prepare import PreparedJob, prepare
from quality_py.jobs.running import JobResult, require_runnable, run_prepared
from quality_py.jobs.spec import JobSpec, job_fields
from quality_py.jobs.spec import Outputs as Outputs  # the doctests build outputs
from quality_py.model.types import SparkSession


@dataclass(frozen=True, kw_only=True)
class QualityJob(JobSpec):
    """A quality job. Every field is optional until a call needs it:

    * ``ruleset``: a YAML file, rule tables (``--suite``, ``lambdas``, ``output_expressions``,
      ``meta_rule_sets`` beside them) or a read :class:`~quality_py.io.ruleset_file.RulesetFile`;
      ``variables``: ``${NAME}`` values of a YAML ruleset;
    * ``input``: a path (``format`` or its suffix says how to read it), ``table:NAME`` /
      ``catalog.schema.table``, ``sample:NAME``, or a DataFrame; ``where``: a SQL condition
      (under the rule policy); ``schema``: a DDL for checking rules without data;
    * reference data: ``views`` (name to path or table) and ``views_file`` (YAML of views, maps
      and blooms), read once; rules may read exactly these views;
    * ``outputs``: :class:`~quality_py.jobs.spec.Outputs`; ``history``, ``tags``, ``run_id``;
      ``notify`` (JSON lines files), ``webhooks``, ``notifiers`` (values); ``keys`` and
      ``hide_columns`` of sample rows; ``name`` and ``layout`` of the data-quality column;
      ``openlineage``: the run's OpenLineage events (``true``, a mapping of
      :class:`~quality_py.OpenLineage`'s fields, or ``false``; docs/lineage.md);
    * ``spark``: :class:`~quality_py.jobs.spec.SparkSettings`, used when no session is given;
      ``strict``: warnings make exit code 3.

    >>> job = QualityJob.from_dict({"ruleset": "rulesets/flights.yaml", "input": "sample:flights",
    ...                             "outputs": {"valid": "out/valid"}, "tags": {"m": "1"}})
    >>> job.outputs.valid, job.tags, job.needs_spark
    ('out/valid', (('m', '1'),), True)
    """

    @classmethod
    def from_dict(cls, document: Mapping[str, Any], origin: str = "job") -> QualityJob:
        """A job from a mapping of its fields (``outputs`` and ``spark`` as mappings, ``input``
        as text or ``{path|table|sample: ..., format: ...}``); an unknown field is refused."""
        return cls(**job_fields(document, origin))

    @classmethod
    def from_yaml(cls, source: str | Path) -> QualityJob:
        """A job from a YAML file of its fields (see :meth:`from_dict`).

        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "job.yaml")
        >>> _ = open(path, "w").write("ruleset: r.yaml\\ninput: {sample: flights}\\n")
        >>> QualityJob.from_yaml(path).input
        'sample:flights'
        """
        import yaml

        path = Path(source)
        text = files.read_text(path, what="job file")
        refuse_aliases(text, str(path))  # bounded depth, no aliases: as every YAML we read
        try:
            document = files.yaml_value(text)
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
            problem = getattr(err, "problem", None) or err
            raise InputError(f"{path}{where}: not YAML: {problem}", item_kind="job") from None
        return cls.from_dict(document or {}, str(path))

    def prepare(
        self,
        spark: SparkSession | None = None,
        *,
        compile: bool = True,
        also_writes: Sequence[tuple[str, str]] = (),
        static_schema: bool = False,
    ) -> PreparedJob:
        """The job ready to run (:func:`quality_py.jobs.prepare.prepare`): ``spark``, else the
        job's Spark settings when it needs Spark at all; ``also_writes``: ``(label, path)`` of
        files the caller writes too (kept apart from what the job reads); ``static_schema``:
        read ``schema`` here for a check of names (``prepared.paths``), without Spark.

        >>> prepared = QualityJob(ruleset="rulesets/flights.yaml").prepare(compile=False)
        >>> prepared.spark is None, prepared.frame is None, prepared.suite.rule_count > 0
        (True, True, True)
        """
        return prepare(
            self, spark, compile=compile, also_writes=also_writes, static_schema=static_schema
        )

    def run(self, spark: SparkSession | None = None) -> JobResult:
        """Prepare and run the job; its result (a failing quality run raises
        :class:`~quality_py.actions.QualityRunFailed`, with nothing written).

        >>> import tempfile
        >>> from quality_py import loads_ruleset_file
        >>> rules = loads_ruleset_file('''
        ... suite: {id: 1}
        ... rule_sets: [{id: 5, rules: [{id: 9, expression: "a > 0", action_if_failed: drop}]}]
        ... ''')
        >>> out = tempfile.mkdtemp()
        >>> result = QualityJob(ruleset=rules, input=spark.createDataFrame([(0,), (2,)], "a int"),
        ...                     outputs=Outputs(valid=f"{out}/valid")).run(spark)
        >>> result.status, result.summary.valid_rows, result.summary.dropped_rows
        ('success', 1, 1)
        """
        require_runnable(self)
        return run_prepared(self.prepare(spark))
