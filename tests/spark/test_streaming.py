"""add_data_quality on a streaming DataFrame, over a few micro-batches."""

from __future__ import annotations

from typing import Any

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
