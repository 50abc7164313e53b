"""A suite compiled earlier (before any data was read, as jobs and the CLI do, or for a stream's
previous micro-batch) is reused only where it is what compiling over this input gives: every
question its compile asked Spark about types gets the same answer here (runners.staging.reusable).

Expected values by hand from the documented encodings (sql/library/expressions.py): ``to_yaml``
writes a map whose keys are not text as its entries (``[{"key":1,"value":"a"}]``) and a map with
text keys as a JSON object (``{"k":"a"}``); ``rng_uuid`` of 16 bytes is a 36-character uuid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality, rule_runner, run_quality
from quality_py.actions import foreach_batch
from quality_py.runners.staging import stage_rule_codes
from quality_py.sql.compiler import compile_suite

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes

ENTRIES = '[{"key":1,"value":"a"}]'
OBJECT = '{"k":"a"}'
PASSED = 100000  # the overall result of a row passing every rule


def _suite(*texts: str) -> RuleSuite:
    rules = [Rule(Id(10 + i, 1), text, action_if_failed="drop") for i, text in enumerate(texts)]
    return RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])


def _typed(spark: Any) -> Any:
    return spark.sql("SELECT map(1, 'a') AS m, X'000102030405060708090A0B0C0D0E0F' AS b")


def test_a_suite_compiled_before_the_data_is_compiled_again_where_types_decide(
    spark: Any,
) -> None:
    suite = _suite(f"to_yaml(m) = '{ENTRIES}'", "length(rng_uuid(b)) = 36")
    early = compile_suite(suite)  # no data yet: the types these functions need are unknown
    df = _typed(spark)
    checked = add_data_quality(df, suite, compiled=early)
    assert [
        r.overall for r in checked.selectExpr("DataQuality.overallResult AS overall").collect()
    ] == [PASSED]
    run = run_quality(df, early)
    assert run.valid.count() == 1 and run.quarantine.count() == 0
    assert run.compiled is not early


def test_a_compile_is_reused_where_every_answer_is_the_same(spark: Any) -> None:
    plain = _suite("a > 0", "s IS NOT NULL")
    df = spark.createDataFrame([(1, "x"), (0, None)], "a int, s string")
    early = compile_suite(plain)
    assert early.asked == ()
    assert stage_rule_codes(df, plain, compiled=early).early is early

    typed = _suite(f"to_yaml(m) = '{ENTRIES}'")
    first = run_quality(_typed(spark), typed)
    again = run_quality(_typed(spark), first.compiled)
    assert again.compiled is first.compiled
    assert again.valid.count() == 1


def test_a_stream_batch_whose_types_differ_is_compiled_for_them(spark: Any, tmp_path: Path) -> None:
    suite = _suite(f"to_yaml(m) IN ('{ENTRIES}', '{OBJECT}')")
    handle = foreach_batch(suite, target=str(tmp_path / "v"), quarantine=str(tmp_path / "q"))
    handle(spark.sql("SELECT map(1, 'a') AS m"), 1)
    handle(spark.sql("SELECT map(1, 'a') AS m"), 2)  # the first batch's compile, reused
    handle(spark.sql("SELECT map('k', 'a') AS m"), 3)  # text keys: another compile
    valid = spark.read.parquet(str(tmp_path / "v"))
    counts = {r.qp_run_id: r["count"] for r in valid.groupBy("qp_run_id").count().collect()}
    assert counts == {"batch-1": 1, "batch-2": 1, "batch-3": 1}


def test_a_column_runner_given_the_schema_compiles_for_its_types(spark: Any) -> None:
    suite = _suite(f"to_yaml(m) = '{ENTRIES}'", "length(rng_uuid(b)) = 36")
    df = _typed(spark)
    for schema in (df, df.schema):
        column = rule_runner(suite, schema=schema)
        assert [r.DataQuality.overallResult for r in df.select(column).collect()] == [PASSED]
