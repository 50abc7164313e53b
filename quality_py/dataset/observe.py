"""Shareable analyzers riding on a write through ``DataFrame.observe`` (no extra pass).

Spark's observed metrics reject ``FILTER (WHERE ...)`` clauses, so each aggregate of the form
``agg(x, ...) FILTER (WHERE p)`` is rewritten to ``agg(IF(p, x, NULL), ...)``: every aggregate
the analyzers use ignores nulls, so the value is the same. Grouping analyzers need their own
aggregation over frequencies and cannot ride on a write.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.runner import AnalysisResult, shared_aggregations, states_from_row
from quality_py.dataset.table_state import TableState
from quality_py.errors import ModelError
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.types import DataFrame
from quality_py.sql.snippets import without_filter

_names = itertools.count()


@dataclass(frozen=True)
class ObservedAnalysis:
    """The analyzers observed on a DataFrame; :meth:`result` is ready after an action ran."""

    analyzers: tuple[Analyzer, ...]
    positions: tuple[tuple[int, ...], ...]
    observation: Any
    width: int

    def result(self) -> AnalysisResult:
        """The states and metrics (blocks until the observed DataFrame's action finished)."""
        values = self.observation.get
        row = [values.get(f"a{i}") for i in range(self.width)]
        positions = [list(p) for p in self.positions]
        return AnalysisResult(states_from_row(self.analyzers, positions, row))


def observe_analyzers(
    df: DataFrame, analyzers: Sequence[Analyzer], *, policy: RulePolicy = DEFAULT_POLICY
) -> tuple[Any, ObservedAnalysis]:
    """``df`` with the analyzers attached as observed metrics, and a handle to read them.

    >>> from quality_py.dataset.analyzers import Completeness, Size
    >>> df = spark.createDataFrame([(1,), (None,)], "a int")
    >>> observed, handle = observe_analyzers(df, [Size(), Completeness("a")])
    >>> observed.write.format("noop").mode("overwrite").save()  # the write computes them
    >>> handle.result().metrics[Completeness("a")]
    0.5
    """
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    unique = tuple(dict.fromkeys(analyzers))
    bad = [a for a in unique if not isinstance(a, Analyzer) or a.own_scan]
    if bad:
        raise ModelError(f"only scan-shareable analyzers can be observed, not {bad[0]!r}")
    sqls, positions = shared_aggregations(unique, policy)
    observation = Observation(f"quality_py_analyzers_{next(_names)}")
    columns = [F.expr(without_filter(s)).alias(f"a{i}") for i, s in enumerate(sqls)]
    observed = df.observe(observation, *columns) if columns else df
    handle = ObservedAnalysis(unique, tuple(tuple(p) for p in positions), observation, len(sqls))
    return observed, handle


def checks_aggregation(
    checks: Sequence[Any],
    source: DataFrame,
    *,
    policy: RulePolicy = DEFAULT_POLICY,
    prefix: str = "a",
    table_state: TableState | None = None,
) -> tuple[list[Any], Any]:
    """The checks' shareable metrics as aggregate Columns to put on *any* aggregation (an
    ``agg``, an ``observe``), and a function that assesses the checks from that aggregation's
    values (a mapping of column name to value; None when it never ran). Grouping analyzers run
    their own queries (one per key) over ``source`` when the function is called. With
    ``table_state`` the checks are assessed for the table (the other partitions' stored states
    merged with this aggregation's: :meth:`TableState.table_result`); the result's ``state`` is
    the batch's alone, what the partition keeps.

    >>> from quality_py.dataset.checks import Check
    >>> df = spark.createDataFrame([(1,), (2,)], "a int")
    >>> columns, assess_from = checks_aggregation([Check("error", "t").has_size("== 2")], df)
    >>> assess_from(df.agg(*columns).collect()[0].asDict()).status
    'success'
    """
    from pyspark.sql import functions as F

    from quality_py.dataset.checks import assess
    from quality_py.dataset.runner import run_analyzers
    from quality_py.dataset.times import typed_extremes

    checks = typed_extremes(checks, source)  # the smallest or largest time compared as a time

    analyzers = list(dict.fromkeys(k.analyzer for c in checks for k in c.constraints))
    scans = [a for a in analyzers if isinstance(a, Analyzer) and not a.own_scan]
    others = [a for a in analyzers if a not in scans]
    sqls, positions = shared_aggregations(scans, policy)
    columns = [F.expr(without_filter(s)).alias(f"{prefix}{i}") for i, s in enumerate(sqls)]

    def assess_from(values: Any) -> Any:
        states = {}
        if scans:
            row = [None if values is None else values.get(f"{prefix}{i}") for i in range(len(sqls))]
            states = states_from_row(scans, positions, row)
        grouped = run_analyzers(source, others, policy=policy) if others else AnalysisResult({})
        states = {**states, **grouped.states}  # an own-scan analyzer's, over the source
        batch = AnalysisResult(states, grouped.frequencies, grouped.grouping, grouped.direct)
        table = batch if table_state is None else table_state.table_result(batch)
        return replace(assess(checks, table.metrics), state=batch)

    return columns, assess_from


def observe_checks(
    df: DataFrame,
    checks: Sequence[Any],
    *,
    policy: RulePolicy = DEFAULT_POLICY,
    grouping_source: DataFrame | None = None,
    table_state: TableState | None = None,
) -> tuple[Any, Any]:
    """``df`` observing the checks' shareable analyzers, and a function giving the verification.

    Call the function after an action on the returned DataFrame ran (e.g. its write): shareable
    metrics come from that action; grouping analyzers run their own queries (one per key) over
    ``grouping_source`` (default ``df``; pass the plain input when ``df`` carries costly columns).
    ``table_state``: assessed for the table (see :func:`checks_aggregation`).

    >>> from quality_py.dataset.checks import Check
    >>> df = spark.createDataFrame([(1,), (2,)], "a int")
    >>> observed, finish = observe_checks(df, [Check("error", "t").has_size("== 2")])
    >>> observed.write.format("noop").mode("overwrite").save()
    >>> finish().status
    'success'
    """
    from pyspark.sql import Observation

    source = df if grouping_source is None else grouping_source
    columns, assess_from = checks_aggregation(
        checks, source, policy=policy, table_state=table_state
    )
    observation = Observation(f"quality_py_checks_{next(_names)}")
    observed = df.observe(observation, *columns) if columns else df

    def finish() -> Any:
        return assess_from(observation.get if columns else {})

    return observed, finish
