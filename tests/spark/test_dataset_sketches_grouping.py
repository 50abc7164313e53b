"""DataType, sketches, histogram, mutual information, filtered grouping, stored frequencies,
observed metrics and checks from YAML."""

from __future__ import annotations

import math
from collections import Counter
from functools import reduce
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py.dataset import run_analyzers
from quality_py.dataset.analyzers import Completeness, DataType, Mean, PatternMatch, Size
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Entropy,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from quality_py.dataset.sketches import ApproxCountDistinct, ApproxQuantile, _kll_available
from tests.spark.jobs import jobs_of

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

needs_kll = pytest.mark.skipif(not _kll_available(), reason="KLL sketches need Spark 4.1+")


def test_data_type_classifies_values_like_deequ(spark: Any) -> None:
    values = ["1", "-20", " 3 ", "2.5", "1e3", ".5", "true", "FALSE", "x", "1.2.3", None, None]
    df = spark.createDataFrame([(v,) for v in values], "s string")
    result = run_analyzers(df, [DataType("s"), DataType("s", "integral"), DataType("s", "string")])
    state = result.states[DataType("s")]
    assert state.by_type() == {
        "unknown": 2,
        "integral": 3,
        "fractional": 3,
        "boolean": 2,
        "string": 2,
    }
    assert result.metrics[DataType("s", "integral")] == 3 / 10
    assert result.metrics[DataType("s")] == 3 / 10  # the most common type's share
    ints = spark.createDataFrame([(1,), (None,), (30,)], "n int")
    assert run_analyzers(ints, [DataType("n")]).metrics[DataType("n")] == 1.0


def test_approx_count_distinct_partitions_merge_exactly(spark: Any) -> None:
    df = spark.range(0, 20000).selectExpr("id", "CAST(id % 3001 AS STRING) AS s", "id % 4 AS p")
    acd = ApproxCountDistinct("s")
    whole = run_analyzers(df, [acd])
    assert abs(whole.metrics[acd] - 3001) / 3001 < 0.05  # lg_k=12: ~1.6% standard error
    parts = [run_analyzers(df.where(f"p = {p}"), [acd]) for p in range(4)]
    merged = reduce(lambda a, b: a.merge(b), parts)
    assert merged.metrics[acd] == whole.metrics[acd]  # HLL unions are exact
    empty = run_analyzers(df.where("false"), [acd])
    assert empty.metrics[acd] == 0.0
    assert empty.merge(whole).metrics[acd] == whole.metrics[acd]  # the identity


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.one_of(st.none(), st.integers(-50, 50)), max_size=60),
    st.lists(st.integers(0, 2), min_size=60, max_size=60),
)
def test_sketch_and_grouping_states_merge_like_the_whole(
    spark: Any, values: list[int | None], cuts: list[int]
) -> None:
    """Random partitionings (some empty, some all-null): merged states give the whole's metric."""
    rows = [(v, cuts[i]) for i, v in enumerate(values)]
    # from SQL literals: a frame from a Python list starts a Python worker for each of the
    # test's thirty-odd queries (twice the test's time on pyspark 3.5)
    literals = ", ".join(f"({'NULL' if v is None else v}, {p})" for v, p in rows)
    df = (
        spark.sql(f"SELECT CAST(col1 AS INT) AS v, CAST(col2 AS INT) AS p FROM VALUES {literals}")
        if rows
        else spark.createDataFrame(rows, "v int, p int")
    )
    analyzers = [
        ApproxCountDistinct("v"),
        CountDistinct("v"),
        Distinctness("v"),
        Uniqueness("v"),
        UniqueValueRatio("v"),
        Entropy("v"),
        Histogram("v"),
        MutualInformation("v", "p"),
    ]
    whole = run_analyzers(df, analyzers).metrics
    parts = [run_analyzers(df.where(f"p = {p}"), analyzers) for p in range(3)]
    forward = reduce(lambda a, b: a.merge(b), parts).metrics  # (p0 + p1) + p2
    backward = reduce(lambda a, b: a.merge(b), reversed(parts)).metrics  # commuted
    right = parts[0].merge(parts[1].merge(parts[2])).metrics  # p0 + (p1 + p2): associativity
    for analyzer in analyzers:
        for merged in (forward, backward, right):
            a, b = whole[analyzer], merged[analyzer]
            if isinstance(a, float) and isinstance(b, float):
                assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), analyzer
            else:
                assert a == b, analyzer
    distinct = {v for v in values if v is not None}
    assert whole[CountDistinct("v")] == len(distinct)
    assert whole[ApproxCountDistinct("v")] == pytest.approx(len(distinct), rel=0.02, abs=0.5)


@needs_kll
def test_approx_quantile_merges_within_rank_error(spark: Any) -> None:
    df = spark.range(0, 50000).selectExpr("CAST(id AS DOUBLE) / 10 AS x", "id % 5 AS p")
    q = ApproxQuantile("x", 0.9)
    whole = run_analyzers(df, [q]).metrics[q]
    merged = reduce(
        lambda a, b: a.merge(b), (run_analyzers(df.where(f"p = {p}"), [q]) for p in range(5))
    ).metrics[q]
    for value in (whole, merged):
        rank = value * 10 / 50000  # x is uniform over [0, 5000)
        assert abs(rank - 0.9) < 0.02  # KLL (k=200) rank error is about 1.3%
    nan = spark.createDataFrame([(float("nan"),), (None,), (4.0,)], "x double")
    assert run_analyzers(nan, [q]).metrics[q] == 4.0  # NaN and null are not values
    assert run_analyzers(nan.where("false"), [q]).metrics[q] is None


def test_histogram_and_mutual_information_values(spark: Any) -> None:
    rows = [("a", 1), ("a", 1), ("b", 2), ("b", 2), ("c", 1), (None, 2), ("a", None)]
    df = spark.createDataFrame(rows, "s string, n int")
    result = run_analyzers(
        df, [Histogram("s"), Histogram("s", max_bins=2), MutualInformation("s", "n")]
    )
    hist = result.metrics[Histogram("s")]
    assert hist.rows == 7 and hist.number_of_bins == 4
    assert hist.bins[0] == ("a", 3, 3 / 7) and hist.ratio(None) == 1 / 7 and hist.ratio("z") == 0
    assert len(result.metrics[Histogram("s", max_bins=2)].bins) == 2
    pairs = Counter((s, n) for s, n in rows if s is not None and n is not None)
    n = sum(pairs.values())
    ps = Counter(s for s, _ in pairs.elements())
    pn = Counter(v for _, v in pairs.elements())
    expected = sum(c / n * math.log(c * n / (ps[s] * pn[v])) for (s, v), c in pairs.items())
    assert math.isclose(result.metrics[MutualInformation("s", "n")], expected, rel_tol=1e-12)


def test_grouping_where_and_one_job_per_key(no_aqe: Any) -> None:
    spark = no_aqe
    df = spark.createDataFrame([(i % 4, i % 3) for i in range(24)], "a int, b int")
    analyzers = [
        Size(),
        Mean("a"),
        CountDistinct("a"),
        Uniqueness("a"),
        CountDistinct("a", where="b = 0"),
        MutualInformation("a", "b"),
    ]
    jobs, metrics = jobs_of(spark, lambda: run_analyzers(df, analyzers).metrics)
    # one scan + keys (a), (a | b = 0), (a, b)
    assert jobs == 4
    assert metrics[CountDistinct("a", where="b = 0")] == 4
    assert metrics[Size()] == 24 and metrics[CountDistinct("a")] == 4


def test_store_keeps_frequencies_and_sketches_at_a_uri(no_aqe: Any, tmp_path: Any) -> None:
    from quality_py.dataset.store import FileStateStore

    spark = no_aqe

    df = spark.createDataFrame(
        [(i % 5, f"s {i % 3}", i) for i in range(30)], "a int, `odd name` string, k int"
    )
    analyzers = [
        Size(),
        ApproxCountDistinct("a"),
        Uniqueness("odd name"),
        Histogram("a"),
        Entropy(["a", "odd name"]),
    ]
    for root in (str(tmp_path / "plain"), f"file://{tmp_path}/uri"):
        store = FileStateStore(root)
        for p in range(3):
            store.save(f"t/p={p}", run_analyzers(df.where(f"k % 3 = {p}"), analyzers))
        jobs, view = jobs_of(
            spark,
            lambda s=store: reduce(lambda a, b: a.merge(b), (s.load(f"t/p={p}") for p in range(3))),
        )
        # loading and merging read no data; only the two HLL unions run (one aggregation each,
        # over literal sketches)
        assert jobs == 2
        expected = run_analyzers(df, analyzers).metrics
        for analyzer in analyzers:
            got = view.metrics[analyzer]
            assert (
                got == pytest.approx(expected[analyzer])
                if isinstance(got, float)
                else got == expected[analyzer]
            )
        assert store.versions("t/p=0") == [1]


def test_observed_analyzers_equal_a_separate_scan(spark: Any, tmp_path: Any) -> None:
    from quality_py.dataset.observe import observe_analyzers

    df = spark.createDataFrame(
        [(i, f"a{i % 4}" if i % 5 else None, i / 3) for i in range(40)], "k int, s string, x double"
    )
    analyzers = [
        Size(where="k > 10"),
        Completeness("s"),
        PatternMatch("s", "^a[12]$", where="x > 2"),
        Mean("x", where="s IS NOT NULL"),
        DataType("s"),
        ApproxCountDistinct("s", where="k % 2 = 0"),
    ]
    observed, handle = observe_analyzers(df, analyzers)
    jobs, _ = jobs_of(
        spark, lambda: observed.write.mode("overwrite").parquet(str(tmp_path / "out"))
    )
    got = handle.result().metrics
    expected = run_analyzers(df, analyzers).metrics
    assert jobs == 1  # the metrics rode on the write
    for analyzer in analyzers:
        assert got[analyzer] == pytest.approx(expected[analyzer]), analyzer


def test_checks_from_yaml_run(spark: Any) -> None:
    from quality_py.dataset.checks import verify
    from quality_py.io.yaml_checks import loads_checks

    checks = loads_checks(
        """
suite: {id: 1, version: 1}
checks:
  - level: error
    description: fit to publish
    constraints:
      - has_size: "== 3"
      - is_complete: k
      - is_in_range: {column: k, low: 0, high: 2}
      - has_consistent_type: s
      - has_histogram_values: {column: s, value: "1", assertion: ">= 0.6"}
  - level: warning
    description: soft
    action_if_failed: ignore
    constraints:
      - has_approx_count_distinct: [s, "== 3"]
"""
    )
    df = spark.createDataFrame([(0, "1"), (1, "1"), (2, "2")], "k int, s string")
    result = verify(df, checks)
    assert [r.passed for r in result.results] == [True, True, True, True, True, False]
    assert result.status == "warning"
    assert checks[1].action == "ignore" and checks[0].action == "fail"
