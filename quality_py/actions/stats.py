"""The stats of a run as a DataFrame: one row per count, per rule and per dataset constraint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame, SparkSession

if TYPE_CHECKING:  # run.py imports this module
    from quality_py.actions.outcome import RunSummary

STATS_DDL = (
    "qp_run_id STRING, run_time TIMESTAMP, suite_id INT, suite_version INT, kind STRING, "
    "name STRING, rule_set STRING, rule STRING, action STRING, description STRING, "
    "passed BIGINT, failed BIGINT, soft_failed BIGINT, disabled BIGINT, probability BIGINT, "
    "value DOUBLE, status STRING, message STRING, failing_rows BIGINT, null_values BIGINT"
)


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
    if summary.checks is not None:
        for c in summary.checks.results:
            metric = c.metric
            add(
                "check",
                c.constraint,
                rule_set=c.check,
                action=str(c.level),
                value=None if metric is None else float(metric),
                status="passed" if c.passed else "failed",
                message=c.message,
            )
    return rows


def stats_frame(
    spark: SparkSession, suite: RuleSuite, refs: Sequence[Any], summary: RunSummary
) -> DataFrame:
    """A small DataFrame of the run's stats (partitioned by ``qp_run_id`` when written)."""
    return spark.createDataFrame(stats_rows(suite, refs, summary), STATS_DDL)
