"""Run analyzers over a DataFrame (Deequ's Algorithm 1).

Every scan-shareable aggregation runs in **one** Spark job (equal aggregate expressions of
different analyzers are computed once); grouping analyzers run **one** job per distinct set of
grouping columns and filter. Previous states (of older partitions) are merged in, so a grown or
re-partitioned table is measured without re-reading the old data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from quality_py.dataset.analyzers import Analyzer, _predicate
from quality_py.dataset.comparisons import DirectAnalyzer
from quality_py.dataset.grouping import FrequencyState, GroupingAnalyzer, GroupKey, run_grouping
from quality_py.dataset.states import State
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.types import DataFrame

AnyAnalyzer = Analyzer | GroupingAnalyzer | DirectAnalyzer


@dataclass(frozen=True)
class AnalysisResult:
    """States per analyzer, frequency states per grouping key, and (lazily) every metric.

    ``states`` holds the scan-shareable analyzers' states, ``frequencies`` the grouping ones'
    (lazy DataFrames) for the ``grouping`` analyzers. ``metrics`` is computed on first use: a
    merge or a load runs no Spark job until a metric is asked for.
    """

    states: Mapping[Analyzer, State]
    frequencies: Mapping[GroupKey, FrequencyState] = field(default_factory=dict)
    grouping: tuple[GroupingAnalyzer, ...] = ()
    #: metrics of analyzers that compare the data with its schema or another DataFrame: computed
    #: when the data is read, never merged or stored (dataset/comparisons.py)
    direct: Mapping[DirectAnalyzer, Any] = field(default_factory=dict)

    @cached_property
    def metrics(self) -> Mapping[Any, Any]:
        """Every analyzer's metric (grouping ones: one query per grouping key)."""
        metrics: dict[Any, Any] = {a: a.metric(s) for a, s in self.states.items()}
        metrics.update(_grouping_metrics(self.grouping, self.frequencies))
        metrics.update(self.direct)
        return metrics

    def merge(self, other: AnalysisResult) -> AnalysisResult:
        """Both results' states merged per analyzer (analyzers of one side keep their state).

        Frequencies merge lazily; grouping metrics are recomputed (one query per key).
        """
        return AnalysisResult.merge_all([self, other])

    @staticmethod
    def merge_all(results: Sequence[AnalysisResult]) -> AnalysisResult:
        """Many results merged at once: the same value as pairwise merges, with one union per
        frequency key and one query per sketch analyzer, however many results there are.

        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> parts = [AnalysisResult({Size(): SizeState(n)}) for n in (1, 2, 3)]
        >>> AnalysisResult.merge_all(parts).metrics[Size()]
        6.0
        """
        from functools import reduce

        from quality_py.dataset.sketches import SketchState

        by_analyzer: dict[Analyzer, list[Any]] = {}
        by_key: dict[GroupKey, list[FrequencyState]] = {}
        for result in results:
            for analyzer, state in result.states.items():
                by_analyzer.setdefault(analyzer, []).append(state)
            for key, freq in result.frequencies.items():
                by_key.setdefault(key, []).append(freq)
        states: dict[Analyzer, State] = {
            a: SketchState.union(s) if isinstance(s[0], SketchState) else reduce(_merge, s)
            for a, s in by_analyzer.items()
        }
        frequencies = {k: FrequencyState.union(f) for k, f in by_key.items()}
        grouping = tuple(dict.fromkeys(a for r in results for a in r.grouping))
        direct = {a: m for r in results for a, m in r.direct.items()}  # the latest data's
        return AnalysisResult(states, frequencies, grouping, direct)


def _merge(a: Any, b: Any) -> Any:
    return a.merge(b)


def _grouping_metrics(
    analyzers: Sequence[GroupingAnalyzer], frequencies: Mapping[GroupKey, FrequencyState]
) -> dict[GroupingAnalyzer, Any]:
    by_key: dict[GroupKey, list[GroupingAnalyzer]] = {}
    for analyzer in analyzers:
        by_key.setdefault(analyzer.key, []).append(analyzer)
    metrics: dict[GroupingAnalyzer, Any] = {}
    for key, group in by_key.items():
        metrics.update(run_grouping(frequencies[key], group))
    return metrics


def shared_aggregations(
    analyzers: Sequence[Analyzer], policy: RulePolicy
) -> tuple[list[str], list[list[int]]]:
    """Distinct aggregate SQL of the analyzers and, per analyzer, the positions of its values."""
    sqls: dict[str, int] = {}
    positions = []
    for analyzer in analyzers:
        positions.append([sqls.setdefault(s, len(sqls)) for s in analyzer.aggregations(policy)])
    return list(sqls), positions


def states_from_row(
    analyzers: Sequence[Analyzer], positions: list[list[int]], row: Sequence[Any] | None
) -> dict[Analyzer, State]:
    """Each analyzer's state from the values of the shared aggregation row."""
    values = list(row) if row is not None else []
    return {
        a: a.state([values[i] for i in pos]) if values else a.identity()
        for a, pos in zip(analyzers, positions, strict=True)
    }


def run_analyzers(
    df: DataFrame,
    analyzers: Sequence[AnyAnalyzer],
    previous_states: AnalysisResult | None = None,
    *,
    policy: RulePolicy = DEFAULT_POLICY,
) -> AnalysisResult:
    """Compute every analyzer: **one** job for all scan-shareable ones, one per grouping key.

    ``previous_states`` (e.g. loaded from a :class:`FileStateStore`) are merged in.

    >>> from quality_py.dataset.analyzers import Completeness, Size
    >>> from quality_py.dataset.grouping import Uniqueness
    >>> df = spark.createDataFrame([(1,), (None,), (1,)], "a int")
    >>> result = run_analyzers(df, [Size(), Completeness("a"), Uniqueness("a")])
    >>> [result.metrics[a] for a in (Size(), Completeness("a"), Uniqueness("a"))]
    [3.0, 0.6666666666666666, 0.0]
    """
    unique = list(dict.fromkeys(analyzers))
    scans = [a for a in unique if isinstance(a, Analyzer)]
    for scan in scans:  # before any job: an analyzer the data cannot answer says why
        scan.require(df)
    grouping = tuple(a for a in unique if isinstance(a, GroupingAnalyzer))
    sqls, positions = shared_aggregations(scans, policy)
    rows = df.selectExpr(*[f"{s} AS `a{i}`" for i, s in enumerate(sqls)]).collect() if sqls else []
    found = states_from_row(scans, positions, rows[0] if rows else None)
    states = {a: a.refine(df, state) for a, state in found.items()}
    frequencies: dict[GroupKey, FrequencyState] = {}
    for analyzer in grouping:
        if analyzer.key not in frequencies:
            data = df if analyzer.where is None else df.where(_predicate(analyzer.where, policy))
            frequencies[analyzer.key] = FrequencyState.of(data, analyzer.columns)
    direct = {a: a.compute(df, policy) for a in unique if isinstance(a, DirectAnalyzer)}
    result = AnalysisResult(states, frequencies, grouping, direct)
    return result if previous_states is None else previous_states.merge(result)


def run_grouping_analyzers(
    df: DataFrame,
    analyzers: Sequence[GroupingAnalyzer],
    previous: Mapping[GroupKey, FrequencyState] | None = None,
    *,
    policy: RulePolicy = DEFAULT_POLICY,
) -> tuple[dict[GroupingAnalyzer, Any], dict[GroupKey, FrequencyState]]:
    """Only grouping analyzers: their metrics and frequency states (one query per key).

    >>> from quality_py.dataset.grouping import Uniqueness
    >>> df = spark.createDataFrame([("a",), ("a",), ("b",)], "s string")
    >>> run_grouping_analyzers(df, [Uniqueness("s")])[0][Uniqueness("s")]
    0.3333333333333333
    """
    prior = None
    if previous:
        prior = AnalysisResult({}, dict(previous), ())
    result = run_analyzers(df, analyzers, prior, policy=policy)
    metrics = {a: result.metrics[a] for a in dict.fromkeys(analyzers)}
    return metrics, dict(result.frequencies)
