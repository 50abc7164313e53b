"""The stats of a run as a DataFrame: one row per count, per rule and per dataset constraint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quality_py.errors import ModelError
from quality_py.model.rules import RuleSuite
from quality_py.model.times import metric_number
from quality_py.model.types import DataFrame, SparkSession
from quality_py.sql.snippets import quoted

if TYPE_CHECKING:  # run.py imports this module
    from quality_py.actions.outcome import RunSummary

STATS_DDL = (
    "qp_run_id STRING, run_time TIMESTAMP, suite_id INT, suite_version INT, kind STRING, "
    "name STRING, rule_set STRING, rule STRING, action STRING, description STRING, "
    "passed BIGINT, failed BIGINT, soft_failed BIGINT, disabled BIGINT, probability BIGINT, "
    "value DOUBLE, status STRING, message STRING, failing_rows BIGINT, null_values BIGINT"
)

#: ``STATS_DDL`` as (column, type) pairs
STATS_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (column, kind) for column, kind in (c.split(" ", 1) for c in STATS_DDL.split(", "))
)


#: the stats' kind of each number of docs/glossary.md that is not a row count
_NUMBER_KINDS = {"pass_rate": "share", "valid_share": "share", "failing_rule_results": "rules"}


def stats_rows(suite: RuleSuite, refs: Sequence[Any], summary: RunSummary) -> list[tuple[Any, ...]]:
    """The rows of :func:`stats_frame` (plain tuples in ``STATS_DDL`` order)."""
    head = (summary.run_id, summary.run_time, suite.id.id, suite.id.version)
    rows: list[tuple[Any, ...]] = []

    def add(kind: str, name: str, **values: Any) -> None:
        rows.append(
            (
                *head,
                kind,
                name,
                values.get("rule_set"),
                values.get("rule"),
                values.get("action"),
                values.get("description"),
                values.get("passed"),
                values.get("failed"),
                values.get("soft_failed"),
                values.get("disabled"),
                values.get("probability"),
                values.get("value"),
                values.get("status", str(summary.status)),
                values.get("message"),
                values.get("failing"),
                values.get("null_values"),
            )
        )

    for name in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        count = getattr(summary, name)
        add("rows", name, value=None if count is None else float(count))
    for name, number in summary.numbers().items():  # docs/glossary.md
        kind = _NUMBER_KINDS.get(name, "rows")
        add(kind, name, value=None if number is None else float(number))
    for name, seconds in summary.timings.items():
        add("timing", name, value=float(seconds))
    by_rule = {(r.rule_set, r.rule): r for r in refs}
    if summary.rules is not None:
        for r in summary.rules.rules:
            ref = by_rule.get((r.rule_set_id, r.rule_id))
            add(
                "rule",
                f"{r.rule_id.id}.{r.rule_id.version}" if ref is None else ref.label,
                rule_set=f"{r.rule_set_id.id}.{r.rule_set_id.version}",
                rule=f"{r.rule_id.id}.{r.rule_id.version}",
                action=None if ref is None else ref.action,
                description=None if ref is None else ref.description,
                passed=r.passed,
                failed=r.failed,
                soft_failed=r.soft_failed,
                disabled=r.disabled,
                probability=r.probability,
                failing=r.failing,
                null_values=r.null_values,
                value=r.pass_rate,
            )
    for t in summary.tolerances:
        add("tolerance", t.field, rule=t.entity, value=t.share, failing=t.failing,
            status=t.status, message=t.message, description=t.tolerance)  # fmt: skip
    for entity, values in summary.top_values.items():
        for v in values:
            add("top_value", v.column, rule=entity, message=v.value, failing=v.rows)
    if summary.checks is not None:
        for c in summary.checks.results:
            metric = c.metric
            add(
                "check",
                c.constraint,
                rule_set=c.check,
                action=str(c.level),
                value=metric_number(metric),
                status="passed" if c.passed else "failed",
                message=c.message,
            )
    return rows


def stats_frame(
    spark: SparkSession, suite: RuleSuite, refs: Sequence[Any], summary: RunSummary
) -> DataFrame:
    """A small DataFrame of the run's stats (partitioned by ``qp_run_id`` when written)."""
    return spark.createDataFrame(stats_rows(suite, refs, summary), STATS_DDL)


#: The key of a rule in a run: ``rule_set/rule``, both ``id.version``, as the stats spell them.
_STATS_KEY = "concat(rule_set, '/', rule)"
_FAILED_KEY = "concat(f.ruleSetId, '.', f.ruleSetVersion, '/', f.ruleId, '.', f.ruleVersion)"
#: A packed rule id (``id << 32 | version``: :func:`quality_py.model.ids.pack_id`) as id.version
_PACKED_KEY = (
    "concat(shiftright(f, 32), '.', if((f & 4294967295) >= 2147483648, "
    "(f & 4294967295) - 4294967296, f & 4294967295))"
)


def quarantine_with_names(quarantine: DataFrame, stats: DataFrame) -> DataFrame:
    """The quarantine with ``qp_failed_rule_names``: the name of each rule a row failed (its
    ``id.version`` when it has none), read from the stats the same run wrote, so no suite is
    needed at hand. Every quarantined row is kept (a run without stats shows ids). A quarantine
    written in the default form (``quarantine_detail="names"``) names them already and is
    returned as it is.

    The stats of each run hold its rules (``kind = 'rule'``: ``rule_set``, ``rule``, ``name``,
    ``action``, ``description``); this is the join written once. In SQL::

        SELECT q.*, transform(q.qp_failed_rules, f -> coalesce(
                 n.names[concat(f.ruleSetId, '.', f.ruleSetVersion, '/', f.ruleId, '.',
                                f.ruleVersion)],
                 concat(f.ruleId, '.', f.ruleVersion))) AS qp_failed_rule_names
        FROM quarantine q LEFT JOIN (
          SELECT qp_run_id, map_from_entries(collect_list(
                   struct(concat(rule_set, '/', rule), name))) AS names
          FROM stats WHERE kind = 'rule' GROUP BY qp_run_id) n
        ON q.qp_run_id = n.qp_run_id

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [
    ...     Rule(Id(101, 1), "a > 0", name="positive_a"), Rule(Id(102, 1), "a < 5")])])
    >>> run = run_quality(spark.createDataFrame([(1,), (-2,), (9,)], "a int"), suite, run_id="r1")
    >>> summary = run.write()
    >>> stats = stats_frame(spark, run.suite, run.refs, summary)
    >>> named = quarantine_with_names(run.quarantine, stats)  # run.quarantine: the full form
    >>> sorted(tuple(r.qp_failed_rule_names) for r in named.collect())
    [('102.1',), ('positive_a',)]
    >>> lean = spark.createDataFrame(  # written with quarantine_detail="ids"
    ...     [("r1", [Id(101, 1).packed])], "qp_run_id string, qp_failed_rule_ids array<bigint>")
    >>> [tuple(r.qp_failed_rule_names) for r in quarantine_with_names(lean, stats).collect()]
    [('positive_a',)]
    """
    from pyspark.sql import functions as F

    if "qp_failed_rule_names" in quarantine.columns:  # the default form names them itself
        return quarantine
    rules = stats.where("kind = 'rule'")
    if "qp_failed_rules" in quarantine.columns:
        key, failed, shown = _STATS_KEY, "qp_failed_rules", "concat(f.ruleId, '.', f.ruleVersion)"
        wanted = _FAILED_KEY
    elif "qp_failed_rule_ids" in quarantine.columns:  # the lean form: packed rule ids only
        rules = rules.groupBy("qp_run_id", "rule").agg(F.min("name").alias("name"))
        key, failed, wanted = "rule", "qp_failed_rule_ids", _PACKED_KEY
        shown = wanted
    else:
        raise ModelError(
            "quarantine_with_names reads a quarantine: it has neither qp_failed_rules nor "
            "qp_failed_rule_ids",
            code="INPUT",
        )
    names = rules.groupBy("qp_run_id").agg(
        F.expr(f"map_from_entries(collect_list(struct({key}, name)))").alias("__qp_n")
    )
    named = F.expr(f"transform({failed}, f -> coalesce(__qp_n[{wanted}], {shown}))")
    return quarantine.join(F.broadcast(names), "qp_run_id", "left").select(
        *[F.col(quoted(c)) for c in quarantine.columns], named.alias("qp_failed_rule_names")
    )
