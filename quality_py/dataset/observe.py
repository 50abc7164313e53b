"""Shareable analyzers riding on a write through ``DataFrame.observe`` (no extra pass).

Spark's observed metrics reject ``FILTER (WHERE ...)`` clauses, so each aggregate of the form
``agg(x, ...) FILTER (WHERE p)`` is rewritten to ``agg(IF(p, x, NULL), ...)``: every aggregate
the analyzers use ignores nulls, so the value is the same. Grouping analyzers need their own
aggregation over frequencies and cannot ride on a write.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp, parse_one

from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.runner import AnalysisResult, shared_aggregations, states_from_row
from quality_py.errors import ModelError
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.sql.build import to_sql
from quality_py.sql.dialect import DIALECT
from quality_py.types import DataFrame

_names = itertools.count()


def without_filter(sql: str) -> str:
    """``agg(x) FILTER (WHERE p)`` as ``agg(IF(p, x, NULL))`` (literal arguments stay).

    >>> without_filter("count(1) FILTER (WHERE a > 0)")
    'COUNT(IF(a > 0, 1, NULL))'
    >>> without_filter("hll_sketch_agg(s, 12) FILTER (WHERE b)")
    'HLL_SKETCH_AGG(IF(b, s, NULL), 12)'
    """
    tree = parse_one(sql, dialect=DIALECT)

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Filter):
            return node
        agg, predicate = node.this, node.expression.this
        first = True
        for key, value in list(agg.args.items()):
            values = value if isinstance(value, list) else [value]
            wrapped = []
            for v in values:
                keep = not isinstance(v, exp.Expr) or (isinstance(v, exp.Literal) and not first)
                wrapped.append(
                    v if keep else exp.If(this=predicate.copy(), true=v, false=exp.Null())
                )
                first = False if isinstance(v, exp.Expr) else first
            agg.set(key, wrapped if isinstance(value, list) else wrapped[0])
        result: exp.Expr = agg
        return result

    return to_sql(tree.transform(rewrite))


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
    bad = [a for a in unique if not isinstance(a, Analyzer)]
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
) -> tuple[list[Any], Any]:
    """The checks' shareable metrics as aggregate Columns to put on *any* aggregation (an
    ``agg``, an ``observe``), and a function that assesses the checks from that aggregation's
    values (a mapping of column name to value; None when it never ran). Grouping analyzers run
    their own queries (one per key) over ``source`` when the function is called.

    >>> from quality_py.dataset.checks import Check
    >>> df = spark.createDataFrame([(1,), (2,)], "a int")
    >>> columns, assess_from = checks_aggregation([Check("error", "t").has_size("== 2")], df)
    >>> assess_from(df.agg(*columns).collect()[0].asDict()).status
    'success'
    """
    from pyspark.sql import functions as F

    from quality_py.dataset.checks import assess
    from quality_py.dataset.runner import run_analyzers

    analyzers = list(dict.fromkeys(k.analyzer for c in checks for k in c.constraints))
    scans = [a for a in analyzers if isinstance(a, Analyzer)]
    others = [a for a in analyzers if not isinstance(a, Analyzer)]
    sqls, positions = shared_aggregations(scans, policy)
    columns = [F.expr(without_filter(s)).alias(f"{prefix}{i}") for i, s in enumerate(sqls)]

    def assess_from(values: Any) -> Any:
        metrics: dict[Any, Any] = {}
        if scans:
            row = [None if values is None else values.get(f"{prefix}{i}") for i in range(len(sqls))]
            states = states_from_row(scans, positions, row)
            metrics.update(AnalysisResult(states).metrics)
        if others:
            metrics.update(run_analyzers(source, others, policy=policy).metrics)
        return assess(checks, metrics)

    return columns, assess_from


def observe_checks(
    df: DataFrame,
    checks: Sequence[Any],
    *,
    policy: RulePolicy = DEFAULT_POLICY,
    grouping_source: DataFrame | None = None,
) -> tuple[Any, Any]:
    """``df`` observing the checks' shareable analyzers, and a function giving the verification.

    Call the function after an action on the returned DataFrame ran (e.g. its write): shareable
    metrics come from that action; grouping analyzers run their own queries (one per key) over
    ``grouping_source`` (default ``df``; pass the plain input when ``df`` carries costly columns).

    >>> from quality_py.dataset.checks import Check
    >>> df = spark.createDataFrame([(1,), (2,)], "a int")
    >>> observed, finish = observe_checks(df, [Check("error", "t").has_size("== 2")])
    >>> observed.write.format("noop").mode("overwrite").save()
    >>> finish().status
    'success'
    """
    from pyspark.sql import Observation

    source = df if grouping_source is None else grouping_source
    columns, assess_from = checks_aggregation(checks, source, policy=policy)
    observation = Observation(f"quality_py_checks_{next(_names)}")
    observed = df.observe(observation, *columns) if columns else df

    def finish() -> Any:
        return assess_from(observation.get if columns else {})

    return observed, finish
