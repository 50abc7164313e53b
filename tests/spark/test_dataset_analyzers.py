"""Scan-shareable analyzers in Spark: one job, correct metrics, partition states merge to the whole."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from quality_py.dataset import (
    Completeness,
    Compliance,
    Correlation,
    Maximum,
    Mean,
    Minimum,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
    run_analyzers,
)
from quality_py.errors import PolicyError
from tests.spark.jobs import jobs_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ROWS = [
    (1, 2.0, "a1", 10.0),
    (2, None, "b2", 20.0),
    (3, float("nan"), None, 30.0),
    (4, float("inf"), "a4", None),
    (5, -1.5, "zz", 50.0),
    (6, 4.0, "a6", 60.0),
]
ANALYZERS = [
    Size(),
    Size(where="k > 3"),
    Completeness("x"),
    Completeness("s", where="k <= 4"),
    Compliance("positive y", "y > 15"),
    PatternMatch("s", "^a[0-9]$"),
    Minimum("x"),
    Maximum("x"),
    Maximum("y"),
    Sum("y"),
    Mean("y"),
    StandardDeviation("y"),
    Correlation("k", "y"),
]


@pytest.fixture(scope="module")
def data(spark: Any) -> Any:
    return spark.createDataFrame(ROWS, "k int, x double, s string, y double")


def test_all_shareable_analyzers_run_in_one_job(no_aqe: Any, data: Any) -> None:
    spark = no_aqe
    jobs, result = jobs_of(spark, lambda: run_analyzers(data, ANALYZERS))
    assert jobs == 1
    m = result.metrics
    ys = [10.0, 20.0, 30.0, 50.0, 60.0]
    mean = sum(ys) / 5
    assert m[Size()] == 6 and m[Size(where="k > 3")] == 3
    assert m[Completeness("x")] == 5 / 6 and m[Completeness("s", where="k <= 4")] == 3 / 4
    assert m[Compliance("positive y", "y > 15")] == 4 / 6  # a null y does not comply
    assert m[PatternMatch("s", "^a[0-9]$")] == 3 / 6
    assert m[Minimum("x")] == -1.5 and math.isnan(m[Maximum("x")])  # type: ignore[arg-type]
    assert m[Maximum("y")] == 60.0 and m[Sum("y")] == 170.0 and m[Mean("y")] == mean
    std = math.sqrt(sum((v - mean) ** 2 for v in ys) / 5)
    assert math.isclose(m[StandardDeviation("y")], std, rel_tol=1e-12)  # type: ignore[arg-type]
    assert m[Correlation("k", "y")] is not None and 0.99 < m[Correlation("k", "y")] <= 1.0  # type: ignore[operator]


@pytest.mark.parametrize("cuts", [[0], [2, 4], [1, 1, 6], [3]])
def test_partition_states_merge_to_the_whole(spark: Any, data: Any, cuts: list[int]) -> None:
    whole = run_analyzers(data, ANALYZERS)
    bounds = [0, *cuts, len(ROWS)]
    merged = None
    for lo, hi in itertools.pairwise(bounds):  # includes empty partitions
        part = data.filter(f"k > {lo} AND k <= {hi}")
        merged = run_analyzers(part, ANALYZERS, merged)
    assert merged is not None
    for analyzer in ANALYZERS:
        a, b = whole.metrics[analyzer], merged.metrics[analyzer]
        if a is None or b is None or math.isnan(a):
            assert repr(a) == repr(b), analyzer
        else:
            assert math.isclose(a, b, rel_tol=1e-9), analyzer


def test_empty_data_gives_identities_and_undefined_ratios(spark: Any, data: Any) -> None:
    result = run_analyzers(data.limit(0), ANALYZERS)
    for analyzer in ANALYZERS:
        assert result.states[analyzer] == analyzer.identity(), analyzer
    assert result.metrics[Size()] == 0.0 and result.metrics[Completeness("x")] is None


def test_predicates_go_through_the_rule_policy(data: Any) -> None:
    with pytest.raises(PolicyError):
        run_analyzers(data, [Compliance("bad", "reflect('java.lang.System', 'exit', 0) IS NULL")])
    with pytest.raises(PolicyError):
        run_analyzers(data, [PatternMatch("s", "(a|b)+")])


def test_grouping_analyzers_one_query_per_column_set_and_merge(no_aqe: Any) -> None:
    spark = no_aqe
    from quality_py.dataset import (
        CountDistinct,
        Distinctness,
        Entropy,
        Uniqueness,
        UniqueValueRatio,
        run_grouping_analyzers,
    )

    rows = [("a", 1), ("a", 2), ("b", 1), ("c", None), (None, 1), ("c", 3)]
    df = spark.createDataFrame(rows, "s string, n int")
    analyzers = [
        CountDistinct("s"),
        Distinctness("s"),
        Uniqueness("s"),
        UniqueValueRatio("s"),
        Entropy("s"),
        CountDistinct(["s", "n"]),
    ]
    jobs, (metrics, _) = jobs_of(spark, lambda: run_grouping_analyzers(df, analyzers))
    assert jobs == 2  # two column sets: (s) and (s, n)
    # s: a x2, b x1, c x2, null x1; as in Deequ the null row is no value and not in N = 5
    assert metrics[CountDistinct("s")] == 3
    assert metrics[Distinctness("s")] == 3 / 5
    assert metrics[Uniqueness("s")] == 1 / 5
    assert metrics[UniqueValueRatio("s")] == 1 / 3
    p = [2 / 5, 1 / 5, 2 / 5]
    expected = -sum(x * math.log(x) for x in p)
    assert math.isclose(metrics[Entropy("s")], expected, rel_tol=1e-12)
    # (s, n): a row is left out only when both are null, so all 6 rows are distinct values
    assert metrics[CountDistinct(["s", "n"])] == 6
    # partitions: frequencies merged equal the whole
    first, second = df.filter("n = 1 OR n IS NULL"), df.filter("n > 1")
    _, part = run_grouping_analyzers(first, analyzers)
    merged, _ = run_grouping_analyzers(second, analyzers, part)
    assert merged == metrics


def test_differential_scenarios_with_stored_partition_states(spark: Any, tmp_path: Any) -> None:
    from functools import reduce

    from quality_py.dataset.store import FileStateStore

    store = FileStateStore(tmp_path)
    df = spark.createDataFrame(
        [(i, float(i % 7), f"v{i % 5}") for i in range(60)], "k int, x double, s string"
    )
    analyzers = [Size(), Completeness("x"), Mean("x"), StandardDeviation("x"), Maximum("x")]
    parts = {p: df.filter(f"k % 3 = {p}") for p in range(3)}
    for p, part in parts.items():
        store.save(f"t/p={p}", run_analyzers(part, analyzers))

    def close(a: Any, b: Any) -> None:
        for analyzer in analyzers:
            assert math.isclose(a.metrics[analyzer], b.metrics[analyzer], rel_tol=1e-9), analyzer

    # scenario 3, views: any combination of partitions from stored states, no data read
    def views() -> Any:
        view = store.load("t/p=0").merge(store.load("t/p=2"))
        whole = reduce(lambda a, b: a.merge(b), (store.load(f"t/p={p}") for p in range(3)))
        return view, whole

    jobs, (view, whole) = jobs_of(spark, views)
    assert jobs == 0
    close(view, run_analyzers(df.filter("k % 3 IN (0, 2)"), analyzers))
    close(whole, run_analyzers(df, analyzers))
    # scenario 2, partition replacement: recompute one partition, merge with the stored others
    new_part = parts[1].selectExpr("k", "x * 2 AS x", "s")
    store.save("t/p=1", run_analyzers(new_part, analyzers))
    replaced = reduce(lambda a, b: a.merge(b), (store.load(f"t/p={p}") for p in range(3)))
    close(replaced, run_analyzers(parts[0].unionByName(new_part).unionByName(parts[2]), analyzers))
    # scenario 1, append: the delta's state merged into the stored total
    delta = spark.createDataFrame([(100, 50.0, "new")], "k int, x double, s string")
    grown = run_analyzers(delta, analyzers, replaced)
    assert grown.metrics[Size()] == 61 and grown.metrics[Maximum("x")] == 50.0


def test_checks_and_verify(spark: Any) -> None:
    from quality_py.dataset.checks import Check, verify

    df = spark.createDataFrame(
        [(1, "ua", 10.0, 20.0), (2, "aa", 5.0, 3.0), (3, "ua", None, 40.0), (4, "dl", 7.0, 8.0)],
        "id int, carrier string, dep double, arr double",
    )
    errors = (
        Check("error", "keys")
        .is_unique("id")
        .is_complete("carrier")
        .is_contained_in("carrier", ["ua", "aa", "dl"])
        .has_size("== 4")
    )
    warnings = (
        Check("warning", "delays")
        .is_complete("dep")
        .has_completeness("dep", ">= 0.75")
        .is_non_negative("dep")
        .is_in_range("dep", 0, 8)
        .is_less_than("dep", "arr")
        .has_mean("dep", lambda m: abs(m - 22 / 3) < 1e-9)
        .has_count_distinct("carrier", "== 3")
        .has_uniqueness("carrier", "between 0.4 and 0.6")
    )
    result = verify(df, [errors, warnings])
    outcome = {(r.check, r.constraint): r.passed for r in result.results}
    assert all(outcome[("keys", c.description)] for c in errors.constraints)
    assert not outcome[("delays", "dep is complete")]
    assert outcome[("delays", "dep completeness")]
    assert outcome[("delays", "dep >= 0")]
    assert not outcome[("delays", "dep in [0, 8]")]  # 10.0 is out of range
    assert not outcome[("delays", "dep < arr")]  # 5 < 3 fails, and a null dep does not comply
    assert outcome[("delays", "mean(dep)")]
    assert outcome[("delays", "carrier count distinct")]
    assert outcome[("delays", "carrier uniqueness")]  # aa, dl once each: 2 / 4
    assert result.status == "warning"
    frame = result.metrics_frame(spark)
    assert frame.count() == len(result.results) and "message" in frame.columns
