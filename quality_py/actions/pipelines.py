"""Rules inside a declarative pipeline (Spark Declarative Pipelines, Lakeflow / DLT).

A pipeline's query function may build a plan but not analyse one, and :func:`add_data_quality`
analyses every rule against the data's schema before it returns (that is how a rule naming a
missing column fails with its id, and how each result is coded by its type). Inside a query
function it therefore refuses, with this module's way out.

:func:`pipeline_checks` does that analysis once, where the pipeline allows it (the file's top
level, when the pipeline imports it), against the schema you declare. The value it returns
builds, with no analysis, what a quality run writes: the rows with the data-quality column
(:meth:`PipelineChecks.apply`), the valid rows (:meth:`~PipelineChecks.valid`: no ``drop``
rule fails them; a failing ``fail`` rule fails the flow) and the quarantine
(:meth:`~PipelineChecks.quarantine`: rows failing any rule, with ``qp_failed_rule_names`` and
``qp_kept_in_valid``), the same rows and names as a batch run of the suite. Each SQL string
also carries the schema it was analysed for: an input column of another type fails the flow,
naming the column, instead of coding rows by the wrong types.

Refused when the checks are built, with the reason: what needs a run's counts (tolerances,
``warn_if`` and ``fail_if``) and hashes computed in Python (Arrow functions registered in a
session the pipeline's flows do not share).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quality_py.actions.flags import FAILED_COLUMN, failed_rules_sql, fails_any_sql, rule_refs
from quality_py.actions.pipeline_sql import JudgedCheck, check_rows_sql, judged_checks
from quality_py.actions.sql_checks import SqlCheck
from quality_py.actions.stats import STATS_COLUMNS
from quality_py.errors import ModelError
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame, SparkSession
from quality_py.runners.arrow_functions import arrow_functions_called
from quality_py.runners.data_quality import rule_runner_sql
from quality_py.runners.staging import MAIN_ALIAS, as_layout, stage_rule_codes, wrap_column
from quality_py.sql.schema_guard import schema_guarded
from quality_py.sql.snippets import quoted, string_literal

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class PipelineChecks:
    """A suite analysed against a declared schema: its methods build plans only (no analysis,
    no job), so they work inside a declarative pipeline's query function."""

    #: the suite as analysed (meta rule sets expanded)
    suite: RuleSuite
    #: the data-quality struct as one SQL string, guarded by the declared schema
    sql: str
    name: str
    layout: Layout
    #: each rule's result code, read back from the struct column, in rule order
    codes: tuple[str, ...]
    families: tuple[str | None, ...]
    #: the declared columns (the schema analysed), in order
    columns: tuple[str, ...]
    #: the SQL checks, each with its judgement as SQL (``actions/pipeline_sql.py``)
    judged: tuple[JudgedCheck, ...] = ()

    def apply(self, df: DataFrame) -> DataFrame:
        """``df`` with the data-quality column appended.

        >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
        >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(100, 1), "amount > 0")])])
        >>> checks = pipeline_checks(suite, "id INT, amount DOUBLE", spark=spark)
        >>> df = spark.createDataFrame([(1, 2.0), (2, -1.0)], "id INT, amount DOUBLE")
        >>> [r.DataQuality.overallResult for r in checks.apply(df).collect()]
        [100000, 0]
        """
        column = wrap_column(self.sql, self.suite, self.layout, self.name)
        return df.alias(MAIN_ALIAS).select("*", column)

    def _fails(self, kind: str | None) -> str:
        refs = rule_refs(self.suite)
        chosen = [
            (c, f)
            for c, f, r in zip(self.codes, self.families, refs, strict=True)
            if kind is None or (r.stops_run if kind == "fail" else r.drops_row)
        ]
        pp = self.suite.probable_pass
        return fails_any_sql([c for c, _ in chosen], pp, [f for _, f in chosen])

    def valid(self, checked: DataFrame) -> DataFrame:
        """The rows of ``checked`` (what :meth:`apply` gave) that no ``drop`` rule fails, without
        the data-quality column: a batch run's valid output. A row failing a ``fail`` rule fails
        the flow (a batch run publishes nothing then; the quarantine's flow stops too).

        >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
        >>> rule = Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="drop")
        >>> checks = pipeline_checks(RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [rule])]),
        ...                          "id INT, amount DOUBLE", spark=spark)
        >>> df = spark.createDataFrame([(1, 2.0), (2, -1.0)], "id INT, amount DOUBLE")
        >>> [r.id for r in checks.valid(checks.apply(df)).collect()]
        [1]
        """
        # a projection, never drop(): a pipeline's server analyses the input of a drop at once
        kept = f"* EXCEPT ({quoted(self.name)})"
        return self._stopped(checked).where(f"NOT ({self._fails('drop')})").selectExpr(kept)

    def _stopped(self, checked: DataFrame) -> DataFrame:
        """``checked``, whose reading fails when a row fails a ``fail`` rule: the valid and the
        quarantine flows both stop, as a batch run publishes neither then."""
        stops = [r.label for r in rule_refs(self.suite) if r.stops_run]
        if not stops:
            return checked
        suite = f"{self.suite.id.id}.{self.suite.id.version}"
        message = string_literal(
            f"quality_py: a row fails a fail rule of suite {suite} ({', '.join(stops)}): the "
            "flow stops, as a batch run publishes nothing then"
        )
        return checked.where(f"assert_true(NOT ({self._fails('fail')}), {message}) IS NULL")

    def quarantine(self, checked: DataFrame) -> DataFrame:
        """The rows of ``checked`` that fail any rule: the input's columns, ``qp_kept_in_valid``
        (no ``drop`` rule failed the row) and ``qp_failed_rule_names``, as a batch run's
        quarantine in its default form (without its run id and time: a pipeline's update is
        the run).

        >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
        >>> rule = Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="drop")
        >>> checks = pipeline_checks(RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [rule])]),
        ...                          "id INT, amount DOUBLE", spark=spark)
        >>> df = spark.createDataFrame([(1, 2.0), (2, -1.0)], "id INT, amount DOUBLE")
        >>> [(r.id, r.qp_failed_rule_names) for r in checks.quarantine(checks.apply(df)).collect()]
        [(2, ['positive'])]
        """
        from pyspark.sql import functions as F

        refs = rule_refs(self.suite)
        pp = self.suite.probable_pass
        names = failed_rules_sql(refs, self.codes, pp, self.families, "names")
        return (
            self._stopped(checked)
            .where(self._fails(None))
            .select(
                F.expr(f"* EXCEPT ({quoted(self.name)})"),
                F.expr(f"NOT ({self._fails('drop')})").alias("qp_kept_in_valid"),
                F.expr(names).alias(FAILED_COLUMN["names"]),
            )
        )

    def stats(self, checked: DataFrame) -> DataFrame:
        """The counts of ``checked`` (what :meth:`apply` gave) in one aggregation, as a batch
        run's stats rows of the same kinds: the input, valid, quarantined and dropped rows
        (``kind = 'rows'``, ``value``) and each rule's ``passed``, ``failed``, ``soft_failed``,
        ``disabled``, ``probability`` and ``failing_rows``, with its pass rate as ``value``
        (``kind = 'rule'``). The same counts as a batch run of the suite on the same rows;
        ``null_values`` is left null (a batch run counts it from each rule's value, which the
        data-quality column does not keep). A failing ``fail`` rule stops this flow too.

        >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
        >>> rule = Rule(Id(100, 1), "amount > 0", name="positive", action_if_failed="drop")
        >>> checks = pipeline_checks(RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [rule])]),
        ...                          "id INT, amount DOUBLE", spark=spark)
        >>> df = spark.createDataFrame([(1, 2.0), (2, -1.0)], "id INT, amount DOUBLE")
        >>> sorted((r.name, r.value, r.failed) for r in checks.stats(checks.apply(df)).collect())
        [('dropped_rows', 1.0, None), ('input_rows', 2.0, None), ('positive', 0.5, 1), \
('quarantined_rows', 1.0, None), ('valid_rows', 1.0, None)]
        """
        from quality_py.runners.summary import code_counts

        counts = code_counts(self.codes, self.suite.probable_pass, None, self.families)
        aggregated = self._stopped(checked).selectExpr(
            *[f"{sql} AS {key}" for key, sql in counts],
            f"count_if({self._fails('drop')}) AS qp_dropped",
            f"count_if({self._fails(None)}) AS qp_quarantined",
        )
        rows = [
            _stat_row("rows", "input_rows", value="rows"),
            _stat_row("rows", "valid_rows", value="rows - qp_dropped"),
            _stat_row("rows", "quarantined_rows", value="qp_quarantined"),
            _stat_row("rows", "dropped_rows", value="qp_dropped"),
        ]
        rows += [_rule_row(i, ref, self.families[i]) for i, ref in enumerate(rule_refs(self.suite))]
        suite = self.suite.id
        names = ", ".join(PIPELINE_STATS[3:])
        return aggregated.selectExpr(
            "current_timestamp() AS run_time",
            f"{suite.id} AS suite_id",
            f"{suite.version} AS suite_version",
            f"stack({len(rows)}, {', '.join(rows)}) AS ({names})",
        )

    def sql_checks(
        self,
        source: str | None = None,
        valid: str | None = None,
        quarantine: str | None = None,
        *,
        spark: SparkSession | None = None,
    ) -> DataFrame:
        """Each SQL check given to :func:`pipeline_checks` judged on the tables named for its
        frames (``source``: the input; ``valid`` and ``quarantine``: what :meth:`valid` and
        :meth:`quarantine` made), one row each (``actions/pipeline_sql.CHECK_ROWS``: ``kind =
        'sql'``, the check's name, its level as ``action``, ``value``, ``status``, ``message``),
        the value and status a batch run gives on the same rows. A failed ``error`` check fails
        this flow with its message, as a batch run fails then; a ``warning`` is a row.

        >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
        >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(100, 1), "amount > 0")])])
        >>> checks = pipeline_checks(suite, "id INT, amount DOUBLE", spark=spark, checks=[
        ...     SqlCheck("some rows", "count(*)", assertion=">= 2", level="warning")])
        >>> spark.createDataFrame([(1, 2.0)], "id INT, amount DOUBLE").createOrReplaceTempView("t")
        >>> [(r.name, r.value, r.status) for r in checks.sql_checks(source="t").collect()]
        [('some rows', 1.0, 'failed')]
        """
        from pyspark.sql import SparkSession as Session

        if not self.judged:
            raise ModelError(
                "these checks were built without SQL checks: give them to pipeline_checks "
                "(checks=[SqlCheck(...)])",
                code="INVALID_MODEL",
            )
        tables = {
            f: t
            for f, t in (("source", source), ("valid", valid), ("quarantine", quarantine))
            if t is not None
        }
        session = spark or Session.active()
        return session.sql(check_rows_sql(self.judged, tables, self.suite.id))


#: what a pipeline's stats hold of a batch run's (``actions/stats.STATS_DDL``): the run's id,
#: status and messages are the pipeline's update's own
_KEPT = tuple((c, t) for c, t in STATS_COLUMNS if c not in ("qp_run_id", "status", "message"))
PIPELINE_STATS = tuple(column for column, _ in _KEPT)
#: the typed columns of a stacked stats row, after ``run_time``, the suite's id, kind and name
_STACKED = _KEPT[5:]


def _stat_row(kind: str, name: str, **sql: str) -> str:
    """One stats row for ``stack``: its kind, name and typed columns, each an SQL expression
    (NULL where not given), typed as ``STATS_DDL`` types them."""
    values = [string_literal(kind), string_literal(name)]
    values += [f"CAST({sql.get(column, 'NULL')} AS {type_})" for column, type_ in _STACKED]
    return ", ".join(values)


def _rule_row(i: int, ref: Any, family: str | None) -> str:
    """Rule ``i``'s stats row from the aggregation's ``r{i}_*`` counts (``code_counts``): a
    boolean rule has Passed and Failed only, as a batch run counts it."""
    if family == "boolean":
        known = {
            "passed": f"rows - r{i}_failed", "failed": f"r{i}_failed", "soft_failed": "0",
            "disabled": "0", "probability": "0", "failing_rows": f"r{i}_failed",
        }  # fmt: skip
    else:
        known = {
            "passed": f"r{i}_passed", "failed": f"r{i}_failed", "soft_failed": f"r{i}_soft",
            "disabled": f"r{i}_disabled", "probability": f"r{i}_prob",
            "failing_rows": f"r{i}_failing",
        }  # fmt: skip
    parts = ("passed", "failed", "soft_failed", "probability")
    applicable = " + ".join(f"({known[k]})" for k in parts)
    description = "NULL" if ref.description is None else string_literal(ref.description)
    return _stat_row(
        "rule",
        ref.label,
        rule_set=string_literal(f"{ref.rule_set.id}.{ref.rule_set.version}"),
        rule=string_literal(f"{ref.rule.id}.{ref.rule.version}"),
        action=string_literal(ref.action),
        description=description,
        value=f"({known['passed']}) / nullif({applicable}, 0)",
        **known,
    )


def pipeline_checks(
    suite: RuleSuite,
    schema: object,
    *,
    name: str = "DataQuality",
    layout: Layout | str = Layout.MAP,
    spark: SparkSession | None = None,
    checks: Sequence[SqlCheck] = (),
) -> PipelineChecks:
    """Analyse ``suite`` against ``schema`` (a StructType or DDL text: the input's columns) now,
    for plans built later with no analysis (see the module). ``checks``: SQL checks, analysed
    here too and judged by :meth:`PipelineChecks.sql_checks`.

    Call it where analysis is allowed (a pipeline file's top level) and use the value inside the
    query functions. Everything :func:`add_data_quality` asks of the rules is asked here (names,
    types, the policy, meta rule sets, ties ordered by the row's columns, rules over rows).

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(100, 1), "amount > 0")])])
    >>> checks = pipeline_checks(suite, "id INT, amount DOUBLE", spark=spark)
    >>> checks.name, checks.columns, "raise_error" in checks.sql
    ('DataQuality', ('id', 'amount'), True)
    """
    from pyspark.sql import SparkSession as Session

    session = spark or Session.getActiveSession()
    if session is None:
        raise ModelError("pipeline_checks needs a SparkSession (spark=...)", code="NO_SPARK")
    tolerant = [r.name or str(r.id) for _, r in suite.iter_rules() if r.warn_if or r.fail_if]
    if tolerant:
        raise ModelError(
            f"rule(s) {', '.join(tolerant)} have tolerances (warn_if, fail_if), which judge a "
            "run's counts; a pipeline's flow has none: check them on the pipeline's tables "
            "with a quality run, or drop the tolerances for the pipeline",
            code="INVALID_MODEL",
        )
    struct = _struct(session, schema)
    lay = as_layout(layout)
    staged = stage_rule_codes(session.createDataFrame([], struct), suite)  # add_data_quality's
    compiled = staged.compiled
    python = arrow_functions_called(r.sql for r in compiled.rules)
    if python:
        raise ModelError(
            f"the rules call {', '.join(sorted(python))}, hashes computed in Python (Arrow "
            "functions registered in a session), which a pipeline's flows do not have: use "
            "the SQL hashes (docs/functions.md) in a pipeline",
            code="INVALID_MODEL",
        )
    body = rule_runner_sql(compiled.suite, layout=lay, families=staged.families, compiled=compiled)
    kinds = [(f.name, _sql_type(f.dataType)) for f in struct.fields]
    guarded = schema_guarded(body, kinds, MAIN_ALIAS)
    codes = _code_refs(compiled.suite, name, lay)
    columns = tuple(f.name for f in struct.fields)
    judged = judged_checks(session, checks, kinds, compiled.suite.policy)
    return PipelineChecks(
        compiled.suite, guarded, name, lay, codes, tuple(staged.families), columns, judged
    )


def _code_refs(suite: RuleSuite, name: str, layout: Layout) -> tuple[str, ...]:
    """Each rule's code read back from the struct column ``name``."""
    column = quoted(name)
    if layout is Layout.COMPACT:
        return tuple(f"{column}.ruleResults[{i}]" for i, _ in enumerate(suite.iter_rules()))
    return tuple(
        f"{column}.ruleSetResults[CAST({int(rs.id.packed)} AS BIGINT)]"
        f".ruleResults[CAST({int(r.id.packed)} AS BIGINT)]"
        for rs, r in suite.iter_rules()
    )


def _struct(spark: SparkSession, schema: object) -> StructType:
    """A StructType from one or DDL text (read by Spark: every version, every client)."""
    from pyspark.sql.types import StructType

    if isinstance(schema, StructType):
        return schema
    if isinstance(schema, str):
        return spark.createDataFrame([], schema).schema
    raise ModelError(
        "pipeline_checks takes the input's schema as a StructType or DDL text, not "
        f"{type(schema).__name__}",
        code="INVALID_MODEL",
    )


def _sql_type(kind: Any) -> str:
    """A Spark type as SQL text, field names quoted (``STRUCT<`a b`: INT>``)."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(kind, StructType):
        fields = ", ".join(f"{quoted(f.name)}: {_sql_type(f.dataType)}" for f in kind.fields)
        return f"STRUCT<{fields}>"
    if isinstance(kind, ArrayType):
        return f"ARRAY<{_sql_type(kind.elementType)}>"
    if isinstance(kind, MapType):
        return f"MAP<{_sql_type(kind.keyType)}, {_sql_type(kind.valueType)}>"
    return str(kind.simpleString())


__all__ = ["PipelineChecks", "pipeline_checks"]
