"""The boundary on Spark: references through the policy, outputs apart from inputs (what Spark
says a frame reads, tables included), schemas compared as parsed types, and one history record
per run. Expected values are written by hand."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RulePolicy, RuleSet, RuleSuite, run_quality
from quality_py.dataset.checks import Check, verify
from quality_py.errors import DataNameError, OutputOverlapError
from quality_py.history import FileMetricsRepository
from quality_py.history.over_time import OverTime
from quality_py.outputs.writing import write_frame

pytestmark = pytest.mark.wiring  # places and names checked before writing

SUITE = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0", action_if_failed="drop")])])


@pytest.fixture
def countries(spark: Any) -> str:
    name = f"qp_countries_{uuid.uuid4().hex[:6]}"
    spark.createDataFrame([("FR",), ("DE",)], "code string").createOrReplaceTempView(name)
    return name


def test_a_reference_is_read_only_when_the_policy_allows_it(spark: Any, countries: str) -> None:
    df = spark.createDataFrame([("FR",), ("XX",)], "c string")
    check = Check("error", "ref").has_referential_integrity("c", countries, "code")
    with pytest.raises(DataNameError, match="no allowed view names"):
        verify(df, [check])
    result = verify(df, [check], policy=RulePolicy().with_views(countries))
    assert result.results[0].metric == 0.5  # FR found, XX not: 1 of 2 by hand
    with pytest.raises(DataNameError, match="names no table"):  # YAML wrote a mapping there
        verify(df, [Check("error", "p").matches_dataset({"a": 1}, "c")])  # type: ignore[arg-type]
    for name in ("text.`/etc/passwd`", "csv.data", "a.b.c.d", "x; DROP"):
        with pytest.raises(DataNameError, match=r"no table name|read that as the file"):
            verify(df, [Check("error", "p").has_size_ratio(name, "> 0")],
                   policy=RulePolicy().with_views(name))  # fmt: skip


def test_a_run_never_writes_where_it_reads(spark: Any, tmp_path: Path) -> None:
    source = tmp_path / "in"
    spark.createDataFrame([(1,), (-1,)], "a int").write.parquet(str(source))
    before = sorted(p.name for p in source.iterdir())
    df = spark.read.parquet(str(source))
    run = run_quality(df, SUITE, run_id="r1")
    for valid, quarantine, said in [
        (f"{tmp_path}/x/../in", None, "is the input"),
        (f"{tmp_path}/out/v", f"{source}/quarantine", "is inside the input"),
        (str(tmp_path), None, "contains the input"),
        (f"{tmp_path}/out/v", f"{tmp_path}/out/v/q", "is inside the valid output"),
    ]:
        with pytest.raises(OutputOverlapError, match=said):
            run.write(valid, quarantine)
    with pytest.raises(OutputOverlapError, match="is the input"):
        write_frame(df, f"file://{source}", "overwrite", "parquet")
    assert sorted(p.name for p in source.iterdir()) == before  # nothing written there
    assert spark.read.parquet(str(source)).count() == 2
    summary = run.write(f"{tmp_path}/out/valid", f"{tmp_path}/out/quarantine")
    assert (summary.valid_rows, summary.dropped_rows) == (1, 1)


def test_a_table_is_not_overwritten_by_its_own_run(spark: Any) -> None:
    name = f"qp_boundary_{uuid.uuid4().hex[:6]}"
    spark.createDataFrame([(1,), (-1,)], "a int").write.format("parquet").saveAsTable(name)
    try:
        df = spark.table(name)
        run = run_quality(df, SUITE, run_id="r1")
        with pytest.raises(OutputOverlapError, match="valid output"):
            run.write(f"spark_catalog.default.{name.upper()}")
        assert spark.table(name).count() == 2
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_has_schema_compares_parsed_types(spark: Any) -> None:
    df = spark.createDataFrame(
        [((1,), [2], {"k": 3})], "s struct<Name:int>, a array<bigint>, m map<string,int>"
    )
    check = Check("error", "types").has_schema(
        {"s": "struct<Name:int>", "a": "array<long>", "m": "map<string,integer>"}
    )
    assert verify(df, [check]).results[0].metric == 1.0  # all three, by hand
    wrong = Check("error", "types").has_schema({"s": "struct<Name:string>", "a": "array<int>"})
    assert verify(df, [wrong]).results[0].metric == 0.0


def test_a_rerun_keeps_one_history_record(spark: Any, tmp_path: Path) -> None:
    history = FileMetricsRepository(tmp_path / "history")
    for rows in ([(1,), (-1,)], [(1,), (2,), (-1,)]):  # the run, then a corrected re-run
        df = spark.createDataFrame(rows, "a int")
        run = run_quality(df, SUITE, run_id="2026-05-01", over_time=OverTime(history=history))
        run.write(f"{tmp_path}/valid", f"{tmp_path}/quarantine")
    kept = history.records()
    assert [r.run_id for r in kept] == ["2026-05-01"]
    assert kept[0].value("rows", "run", "input_rows") == 3.0  # the re-run's rows
