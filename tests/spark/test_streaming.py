"""add_data_quality on a streaming DataFrame, over a few micro-batches."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import (
    FAILED,
    PASSED,
    Id,
    LambdaFunction,
    Rule,
    RuleSet,
    RuleSuite,
    add_data_quality,
)

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

SUITE = RuleSuite(
    Id(1, 1),
    [RuleSet(Id(2, 1), [Rule(Id(3, 1), "isEven(value)"), Rule(Id(4, 1), "value < 1000")])],
    lambdas=[LambdaFunction("isEven", "x -> x % 2 = 0", Id(9, 1))],
)


def test_file_stream_micro_batches(spark: Any, tmp_path: Any) -> None:
    source = tmp_path / "in"
    source.mkdir()
    stream = spark.readStream.schema("value bigint").json(str(source))
    checked = add_data_quality(stream, SUITE, layout="compact")
    assert checked.isStreaming
    query = (
        checked.selectExpr(
            "value", "DataQuality.overallResult AS o", "DataQuality.ruleResults AS r"
        )
        .writeStream.format("memory")
        .queryName("qp_stream_results")
        .outputMode("append")
        .start()
    )
    try:
        for batch, values in enumerate([[1, 2], [4, 1001], [1002]]):
            (source / f"part-{batch}.json").write_text(
                "\n".join(f'{{"value": {v}}}' for v in values)
            )
            query.processAllAvailable()
        rows = {r.value: (r.o, list(r.r)) for r in spark.table("qp_stream_results").collect()}
        assert query.lastProgress is not None
    finally:
        query.stop()
    assert rows == {
        1: (FAILED, [FAILED, PASSED]),
        2: (PASSED, [PASSED, PASSED]),
        4: (PASSED, [PASSED, PASSED]),
        1001: (FAILED, [FAILED, FAILED]),
        1002: (FAILED, [PASSED, FAILED]),
    }


def test_rate_source_runs_several_batches(spark: Any) -> None:
    stream = spark.readStream.format("rate").option("rowsPerSecond", 50).load()
    checked = add_data_quality(stream, SUITE)
    query = (
        checked.selectExpr("value", "DataQuality.overallResult AS o")
        .writeStream.format("memory")
        .queryName("qp_rate_results")
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        import time

        deadline = time.time() + 60
        while time.time() < deadline and len(query.recentProgress) < 3:
            time.sleep(0.2)
        query.processAllAvailable()
    finally:
        query.stop()
    rows = spark.table("qp_rate_results").collect()
    assert len(rows) > 0
    assert all(r.o == (PASSED if r.value % 2 == 0 and r.value < 1000 else FAILED) for r in rows)


def test_lookups_blooms_and_ids_in_a_stream(spark: Any, tmp_path: Any) -> None:
    """Reference data joins each micro-batch: map lookups, blooms, ids and digests."""
    import hashlib
    import struct

    from quality_py.io.blooms import build_bloom, register_bloom
    from quality_py.io.views import MapConfig, load_views

    spark.createDataFrame([(2, "two"), (4, "four")], "k bigint, v string").createOrReplaceTempView(
        "qp_stream_ref"
    )
    loaded = load_views(spark, (), (MapConfig("qp_stream_names", "qp_stream_ref", "k", "v"),))
    bloom = build_bloom(spark.range(10).selectExpr("id * 2 AS k"), "k", "qp_stream_evens")
    register_bloom(spark, bloom)
    md5_of_2 = struct.unpack(">qq", hashlib.md5(struct.pack(">q", 2)).digest())[0]
    suite = RuleSuite(
        Id(1, 1),
        [
            RuleSet(
                Id(2, 1),
                [
                    Rule(Id(3, 1), "map_lookup('qp_stream_names', value) = 'two'"),
                    Rule(Id(4, 1), "bloom_contains(value, 'qp_stream_evens')"),
                    Rule(Id(5, 1), f"digest_to_longs('MD5', value)[0] = {md5_of_2}"),
                    Rule(Id(6, 1), "long_pair_from_uuid(as_uuid(value, 0)).lower = value"),
                ],
            )
        ],
    )
    suite = suite.with_policy(suite.policy.with_views(*loaded.names).with_blooms(bloom.spec))
    source = tmp_path / "in"
    source.mkdir()
    stream = spark.readStream.schema("value bigint").json(str(source))
    checked = add_data_quality(stream, suite, layout="compact")
    query = (
        checked.selectExpr("value", "DataQuality.ruleResults AS r")
        .writeStream.format("memory")
        .queryName("qp_stream_reference")
        .outputMode("append")
        .start()
    )
    try:
        for batch, values in enumerate([[2], [4]]):
            (source / f"part-{batch}.json").write_text(
                "\n".join(f'{{"value": {v}}}' for v in values)
            )
            query.processAllAvailable()
        rows = {r.value: list(r.r) for r in spark.table("qp_stream_reference").collect()}
    finally:
        query.stop()
    # 2: its name is 'two', even, its digest; 4: 'four', even, another digest
    assert rows == {2: [PASSED] * 4, 4: [FAILED, PASSED, FAILED, PASSED]}
