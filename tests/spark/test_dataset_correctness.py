"""Dataset checks against independent answers (Python, pandas): empty strings in HLL, merged
HLL estimates, any column name, Deequ's null rule, and stored states that never read lost data."""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from quality_py.dataset import run_analyzers
from quality_py.dataset.checks import Check, verify
from quality_py.dataset.grouping import CountDistinct, Distinctness, Entropy, Uniqueness
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.sketches import ApproxCountDistinct
from quality_py.dataset.store import FileStateStore, StateStoreError
from quality_py.spark.samples import load_sample

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses


def test_approx_count_distinct_counts_the_empty_string(spark: Any) -> None:
    values = ["a", "b", "a", None, "", "c", "b", "a"]
    df = spark.createDataFrame([(v,) for v in values], "s string")
    exact = len({v for v in values if v is not None})  # by hand: a, b, '', c
    metrics = run_analyzers(df, [ApproxCountDistinct("s"), CountDistinct("s")]).metrics
    assert metrics[CountDistinct("s")] == exact == 4
    assert metrics[ApproxCountDistinct("s")] == exact  # few values: the sketch is exact


def test_merged_monthly_hll_equals_the_whole_table(spark: Any) -> None:
    flights = load_sample(spark, "flights").select("month", "tailnum")
    acd = ApproxCountDistinct("tailnum")
    whole = run_analyzers(flights.coalesce(1), [acd])  # one partition: no union inside Spark
    months = [run_analyzers(flights.where(f"month = {m}"), [acd]) for m in range(1, 13)]
    merged = AnalysisResult.merge_all(months)
    assert merged.metrics[acd] == whole.metrics[acd]
    exact = flights.toPandas()["tailnum"].dropna().nunique()  # pandas: 4043
    assert abs(whole.metrics[acd] - exact) / exact < 0.03


def _pandas_grouping(values: list[Any]) -> dict[str, float]:
    """Deequ's definitions computed in plain Python: null rows are no value and not in N."""
    counts = Counter(v for v in values if v is not None)
    n = sum(counts.values())
    return {
        "uniqueness": sum(1 for c in counts.values() if c == 1) / n,
        "distinctness": len(counts) / n,
        "entropy": -sum(c / n * math.log(c / n) for c in counts.values()),
    }


def test_nullable_unique_column_is_unique_like_deequ(spark: Any) -> None:
    emails = ["a@x", None, "b@x", None, "c@x"]
    df = spark.createDataFrame([(e,) for e in emails], "email string")
    result = verify(df, [Check("error", "emails").is_unique("email")])
    assert result.status == "success"
    values = ["a", "a", "b", None, None, "c", "d", "d", "d"]
    df = spark.createDataFrame([(v,) for v in values], "v string")
    analyzers = [Uniqueness("v"), Distinctness("v"), Entropy("v")]
    got = run_analyzers(df, analyzers).metrics
    want = _pandas_grouping(values)
    assert got[Uniqueness("v")] == pytest.approx(want["uniqueness"])
    assert got[Distinctness("v")] == pytest.approx(want["distinctness"])
    assert got[Entropy("v")] == pytest.approx(want["entropy"])


def test_two_columns_a_row_is_left_out_only_when_all_are_null(spark: Any) -> None:
    rows = [("a", 1), ("a", None), (None, 1), (None, None), ("a", 1)]
    df = spark.createDataFrame(rows, "k string, n int")
    got = run_analyzers(df, [Uniqueness(["k", "n"]), CountDistinct(["k", "n"])]).metrics
    valued = [r for r in rows if r != (None, None)]  # by hand: 4 rows, groups (a,1)x2, (a,-), (-,1)
    counts = Counter(valued)
    assert got[CountDistinct(["k", "n"])] == len(counts) == 3
    assert got[Uniqueness(["k", "n"])] == pytest.approx(2 / len(valued))


def test_column_names_with_dots_merge_and_store(spark: Any, tmp_path: Path) -> None:
    values = ["x", "y", "x", None]
    df = spark.createDataFrame([(v,) for v in values], "`note.text` string")
    u = Uniqueness("note.text")
    first, second = run_analyzers(df, [u]), run_analyzers(df, [u])
    merged = first.merge(second)
    # by hand: the union has x 4 times, y twice, 6 valued rows: no value occurs once
    assert merged.metrics[u] == 0.0
    store = FileStateStore(tmp_path)
    store.save("notes", first)
    assert store.load("notes").metrics[u] == pytest.approx(1 / 3)  # y once in x, y, x


def _saved(spark: Any, root: Path) -> tuple[FileStateStore, list[Path]]:
    df = spark.createDataFrame([(i % 4,) for i in range(8)], "k int").repartition(2)
    store = FileStateStore(root)
    store.save("t", run_analyzers(df, [Uniqueness("k")]))
    files = sorted(p for p in root.rglob("*.parquet"))
    assert files
    return store, files


@pytest.mark.parametrize("damage", ["delete", "truncate", "replace"])
def test_lost_or_changed_frequency_files_never_load_as_empty(
    spark: Any, tmp_path: Path, damage: str
) -> None:
    store, files = _saved(spark, tmp_path)
    target = files[0]
    if damage == "delete":
        target.unlink()
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:10])
    else:  # same size, other bytes
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    with pytest.raises(StateStoreError) as err:
        store.load("t")
    assert target.name in err.value.message


@pytest.mark.parametrize("damage", ["delete", "truncate", "replace"])
def test_damaged_manifest_is_an_error(spark: Any, tmp_path: Path, damage: str) -> None:
    store, _ = _saved(spark, tmp_path)
    manifest = tmp_path / "t" / "v1.json"
    if damage == "delete":
        os.remove(manifest)
        with pytest.raises(StateStoreError, match="no stored state"):
            store.load("t")
        return
    text = manifest.read_text()
    manifest.write_text(text[: len(text) // 2] if damage == "truncate" else text.replace("1", "2"))
    with pytest.raises(StateStoreError, match=r"v1\.json"):
        store.load("t")


def test_a_stray_file_in_the_folder_is_not_read(spark: Any, tmp_path: Path) -> None:
    store, files = _saved(spark, tmp_path)
    stray = files[0].parent / "part-99999-stray.snappy.parquet"
    stray.write_bytes(files[0].read_bytes())  # a copy: would double counts if it were read
    assert store.load("t").metrics[Uniqueness("k")] == 0.0  # by hand: 0..3 twice each
