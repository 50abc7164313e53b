"""Run analyzers over a DataFrame: every shareable aggregation in one Spark job (Algorithm 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.grouping import FrequencyState, GroupingAnalyzer, run_grouping
from quality_py.dataset.states import State
from quality_py.policy import DEFAULT_POLICY, RulePolicy


@dataclass(frozen=True)
class AnalysisResult:
    """States and metrics per analyzer."""

    states: Mapping[Analyzer, State]
    metrics: Mapping[Analyzer, float | None] = field(default_factory=dict)

    def merge(self, other: AnalysisResult) -> AnalysisResult:
        """Both results' states merged per analyzer (analyzers of one side keep their state)."""
        states = dict(self.states)
        for analyzer, state in other.states.items():
            states[analyzer] = states[analyzer].merge(state) if analyzer in states else state
        return AnalysisResult(states, {a: a.metric(s) for a, s in states.items()})


def run_analyzers(
    df: Any,
    analyzers: Sequence[Analyzer],
    previous_states: AnalysisResult | None = None,
    *,
    policy: RulePolicy = DEFAULT_POLICY,
) -> AnalysisResult:
    """Compute every analyzer's state in **one** aggregation job, merge ``previous_states``.

    >>> from quality_py.dataset.analyzers import Completeness, Size
    >>> df = spark.createDataFrame([(1,), (None,)], "a int")
    >>> result = run_analyzers(df, [Size(), Completeness("a")])
    >>> [result.metrics[a] for a in (Size(), Completeness("a"))]
    [2.0, 0.5]
    """
    unique = list(dict.fromkeys(analyzers))
    sqls: list[str] = []
    spans: list[tuple[int, int]] = []
    for analyzer in unique:
        aggs = analyzer.aggregations(policy)
        spans.append((len(sqls), len(sqls) + len(aggs)))
        sqls += aggs
    rows = df.selectExpr(*[f"{s} AS `a{i}`" for i, s in enumerate(sqls)]).collect() if sqls else []
    row = rows[0] if rows else None  # collect, not first(): take() may run a second job
    values = list(row) if row is not None else []
    states: dict[Analyzer, State] = {
        a: a.state(values[lo:hi]) for a, (lo, hi) in zip(unique, spans, strict=True)
    }
    result = AnalysisResult(states, {a: a.metric(s) for a, s in states.items()})
    return result if previous_states is None else previous_states.merge(result)


def run_grouping_analyzers(
    df: Any,
    analyzers: Sequence[GroupingAnalyzer],
    previous: Mapping[tuple[str, ...], FrequencyState] | None = None,
) -> tuple[dict[GroupingAnalyzer, float | None], dict[tuple[str, ...], FrequencyState]]:
    """Metrics of grouping analyzers: **one** aggregation query per distinct set of columns.

    ``previous`` holds frequency states (e.g. of older partitions) merged in before the metrics.
    Returns the metrics and the frequency states, to store or merge later.

    >>> from quality_py.dataset.grouping import Uniqueness
    >>> df = spark.createDataFrame([("a",), ("a",), ("b",)], "s string")
    >>> run_grouping_analyzers(df, [Uniqueness("s")])[0][Uniqueness("s")]
    0.3333333333333333
    """
    by_columns: dict[tuple[str, ...], list[GroupingAnalyzer]] = {}
    for analyzer in dict.fromkeys(analyzers):
        by_columns.setdefault(analyzer.columns, []).append(analyzer)
    metrics: dict[GroupingAnalyzer, float | None] = {}
    states: dict[tuple[str, ...], FrequencyState] = {}
    for columns, group in by_columns.items():
        state = FrequencyState.of(df, columns)
        if previous and columns in previous:
            state = previous[columns].merge(state)
        states[columns] = state
        metrics.update(run_grouping(state, group))
    return metrics, states
