"""Library functions through ``quality_py.functions``, ``expr`` and registered SQL functions."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from quality_py import PASSED, Id, LambdaFunction, LibraryFunctionError, Rule, RuleSet, RuleSuite
from quality_py import add_data_quality as add_dq
from quality_py import functions as Q
from quality_py.spark.session import register_sql_functions

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


@pytest.fixture(scope="module")
def ids(spark: Any) -> Any:
    return spark.createDataFrame(
        [(1, 2, 4294967298), (1024, 9084, 4398046520188), (-1, -1, -1), (None, 3, None)],
        "i int, v int, p bigint",
    )


def test_pack_and_unpack_match_reference_values(ids: Any) -> None:
    rows = ids.select(
        "i",
        "v",
        "p",
        Q.pack_ints("i", "v").alias("packed"),
        Q.pack_ints(F.col("i"), F.col("v")).alias("packed_col"),
        Q.unpack("p").alias("u"),
        Q.expr("packInts(i, v) = p").alias("same"),
    ).collect()
    for r in rows:
        assert r.packed == r.p == r.packed_col
        if r.p is None:
            assert r.u is None and r.same is None
        else:
            assert (r.u.id, r.u.version) == (r.i, r.v)
            assert r.same is True


def test_literals_fold_to_constants(spark: Any) -> None:
    row = (
        spark.range(1)
        .select(
            Q.pack_ints(1024, 9084).alias("p"),
            Q.passed().alias("ok"),
            Q.failed().alias("ko"),
            Q.soft_failed().alias("soft"),
            Q.disabled_rule().alias("off"),
            Q.probability(1000).alias("prob"),
            Q.soft_fail("1 > 2").alias("sf"),
        )
        .first()
    )
    assert tuple(row) == (4398046520188, 100000, 0, -1, -2, 0.01, -1.0)


def test_unpack_id_triple_and_details(spark: Any) -> None:
    df = spark.createDataFrame(
        [((Id(1, 2).packed, Id(50, 1).packed, Id(-7, 3).packed),), (None,)],
        "t struct<ruleSuiteId: bigint, ruleSetId: bigint, ruleId: bigint>",
    )
    got = df.select(Q.unpack_id_triple("t").alias("u")).collect()
    assert tuple(got[0].u) == (1, 2, 50, 1, -7, 3)
    assert got[1].u is None


def test_type_errors_for_non_integral_arguments(spark: Any) -> None:
    with pytest.raises(LibraryFunctionError):
        Q.pack_ints(1, "'a'")
    df = spark.createDataFrame([("x", 1.5)], "s string, d double")
    for bad in (Q.pack_ints("s", 1), Q.probability("d")):
        with pytest.raises(AnalysisException):
            df.select(bad).schema  # noqa: B018


def test_composed_columns_are_rejected_with_advice(spark: Any) -> None:
    with pytest.raises(TypeError, match="SQL text"):
        Q.unpack(F.col("p") + 1)


def test_expr_inlines_lambdas_in_user_selects(spark: Any) -> None:
    lam = [
        LambdaFunction("twice", "x -> x * 2", Id(1, 1)),
        LambdaFunction("quad", "x -> twice(twice(x))", Id(2, 1)),
    ]
    got = spark.range(3).select(Q.expr("quad(id) + soft_failed()", lam).alias("q")).collect()
    assert [r.q for r in got] == [-1, 3, 7]


SPARK_4 = int(__import__("pyspark").__version__.split(".")[0]) >= 4


@pytest.mark.skipif(SPARK_4, reason="the error path is for Spark 3.x")
def test_registering_sql_functions_on_spark_3_says_why(spark: Any) -> None:
    with pytest.raises(NotImplementedError, match="Spark 4"):
        register_sql_functions(spark)


@pytest.mark.skipif(not SPARK_4, reason="SQL functions with RETURN need Spark 4")
def test_registered_sql_functions_make_plain_sql_work(spark: Any) -> None:
    names = register_sql_functions(spark)
    assert {
        "passed",
        "failed",
        "soft_failed",
        "softFailed",
        "pack_ints",
        "packInts",
        "unpack",
    } <= set(names)
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 1")])])
    checked = add_dq(spark.createDataFrame([(1,), (2,)], "a int"), suite)
    assert [r.a for r in checked.filter("DataQuality.overallResult = passed()").collect()] == [2]
    row = spark.sql(
        "SELECT packInts(1, 2) AS p, unpack(4294967298).version AS v, probability(1000) AS q, disabledRule() AS d"
    ).first()
    assert tuple(row) == (4294967298, 2, 0.01, -2)
    assert spark.sql("SELECT passed() AS p").first().p == PASSED
