"""Pipeline helpers: a decorator for functions returning DataFrames, and ``foreachBatch``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from quality_py.actions.run import QualityRun, run_quality
from quality_py.actions.sql_checks import SqlCheck
from quality_py.dataset.checks import Check
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame


def with_quality(
    suite: RuleSuite,
    checks: Sequence[Check | SqlCheck] = (),
    *,
    target: str | None = None,
    quarantine: str | None = None,
    stats: str | None = None,
    mode: str = "overwrite",
    **options: Any,
) -> Callable[[Callable[..., Any]], Callable[..., QualityRun]]:
    """Decorate a function returning a DataFrame: its result is checked (and written if a
    ``target``, ``quarantine`` or ``stats`` is given); the wrapper returns the QualityRun.

    ``run_id`` passed to the decorated function's call (as a keyword) names the run.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
    ...     Rule(Id(10, 1), "a > 0", action_if_failed="drop")])])
    >>> @with_quality(suite)
    ... def load():
    ...     return spark.createDataFrame([(0,), (2,)], "a int")
    >>> [r.a for r in load().valid.collect()]
    [2]
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., QualityRun]:
        @functools.wraps(fn)
        def wrapper(*args: Any, run_id: str | None = None, **kwargs: Any) -> QualityRun:
            run = run_quality(fn(*args, **kwargs), suite, checks, run_id, **options)
            if target is not None or quarantine is not None or stats is not None:
                run.write(target, quarantine, stats, mode=mode)
            return run

        return wrapper

    return decorate


def foreach_batch(
    suite: RuleSuite,
    checks: Sequence[Check | SqlCheck] = (),
    *,
    target: str,
    quarantine: str | None = None,
    stats: str | None = None,
    run_prefix: str = "batch",
    **options: Any,
) -> Callable[[Any, int], None]:
    """A ``foreachBatch`` function: each micro-batch is a run with id ``<prefix>-<batch id>``.

    Valid rows go to ``target`` partitioned by ``qp_run_id`` and every output replaces only its
    batch's partition, so a batch Spark replays after a failure is written once. The suite is
    compiled for the first micro-batch and reused for the next ones (a batch whose types would
    compile it differently is compiled again).

    ``stream.writeStream.foreachBatch(foreach_batch(suite, target="out/valid")).start()``

    >>> import tempfile
    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    >>> target = tempfile.mkdtemp() + "/valid"
    >>> handle = foreach_batch(suite, target=target)
    >>> handle(spark.createDataFrame([(1,), (2,)], "a int"), 7)  # what Spark calls per batch
    >>> [r.qp_run_id for r in spark.read.parquet(target).select("qp_run_id").distinct().collect()]
    ['batch-7']
    """

    earlier: list[Any] = [suite]  # the suite, or its compile for the last batch

    def handle(batch: DataFrame, batch_id: int) -> None:
        run = run_quality(batch, earlier[0], checks, f"{run_prefix}-{batch_id}", **options)
        # Reused only when fitting the suite to the schema changed nothing (no meta rule set,
        # no fallback), so the run's suite is the suite given; staging compiles it again for a
        # batch whose types answer its compile's questions differently.
        if run.compiled is not None and run.compiled.suite is suite:
            earlier[0] = run.compiled
        run.write(target, quarantine, stats, partition_valid_by_run=True)

    return handle
