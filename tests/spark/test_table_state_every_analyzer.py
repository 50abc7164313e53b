"""Every analyzer a table state keeps, answered for the table (issue 55, point 4): random
sequences of appends, partition re-runs and refused batches on Spark, each table value from the
other partitions' stored states merged with the batch's, against a plain recomputation: the
same analyzers run in one pass over the union of the rows the table holds (every kept
partition's latest rows, the batch in its partition's place). A refused batch is not kept.

The steps are fixed (append, re-run, refusal, an emptied partition); their rows are drawn from a
fixed seed (a bounded count of runs, whatever the machine's load).
"""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from quality_py.dataset.analyzers import (
    Completeness,
    Compliance,
    Correlation,
    DataType,
    HistogramBinned,
    Maximum,
    MaxLength,
    Mean,
    Minimum,
    MinLength,
    PatternMatch,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Entropy,
    Histogram,
    MutualInformation,
    Uniqueness,
    UniqueValueRatio,
)
from quality_py.dataset.runner import run_analyzers
from quality_py.dataset.sketches import ApproxCountDistinct, ApproxQuantile
from quality_py.dataset.store import STORED_NAMES
from quality_py.dataset.table_state import TableState
from quality_py.dataset.times import LastWrite, Newest, TimeBuckets

pytestmark = pytest.mark.wiring  # our merges over Spark's aggregates (those run on every leg)

SCHEMA = "k int, x double, s string, t timestamp"
START = datetime(2026, 11, 1, tzinfo=timezone.utc)
#: one analyzer of every kind the state store keeps (a unit test below keeps the list whole)
ANALYZERS = (
    Size(),
    Size("x > 0"),
    Completeness("x"),
    Compliance("x positive", "x > 0"),
    PatternMatch("s", "^a"),
    Minimum("x"),
    Maximum("x"),
    Minimum("t", kind="timestamp"),
    Mean("x"),
    Sum("x"),
    StandardDeviation("x"),
    Correlation("k", "x"),
    DataType("s"),
    MinLength("s"),
    MaxLength("s"),
    HistogramBinned("x", (-10.0, 0.0, 10.0)),
    Newest("t"),
    TimeBuckets("t", 86_400),
    LastWrite(),
    ApproxCountDistinct("k"),
    ApproxQuantile("x", 0.5),
    CountDistinct(("k",)),
    Distinctness(("k",)),
    Uniqueness(("k",)),
    UniqueValueRatio(("k",)),
    Entropy(("s",)),
    MutualInformation("k", "s"),
    Histogram("s"),
)


def _rows(rng: random.Random, n: int) -> list[tuple[Any, ...]]:
    """Rows with repeated keys, nulls in every column, negative and positive values, and
    strings of several types and lengths."""
    words = ["a", "ab", "b7", "12", "3.5", "true", "", None]
    return [
        (
            rng.randint(0, 6),
            None if rng.random() < 0.2 else round(rng.uniform(-12, 12), 3),
            rng.choice(words),
            None if rng.random() < 0.1 else START + timedelta(hours=rng.randint(0, 24 * 9)),
        )
        for _ in range(n)
    ]


def _frame(spark: Any, folder: Path, rows: list[tuple[Any, ...]], written: int) -> Any:
    """The rows as a parquet folder read back (so the files have a write time, set by hand)."""
    spark.createDataFrame(rows, SCHEMA).coalesce(1).write.mode("overwrite").parquet(str(folder))
    for path in folder.glob("*.parquet"):
        os.utime(path, (written, written))
    return spark.read.parquet(str(folder))


def _same(table: Any, whole: Any, analyzer: Any) -> None:
    if isinstance(analyzer, ApproxQuantile):  # a merged sketch is within its error bound
        assert (table is None) == (whole is None)
        if table is not None:
            assert abs(table - whole) <= 2.5, analyzer
    elif isinstance(table, float) and isinstance(whole, float):
        assert table == pytest.approx(whole, rel=1e-9, abs=1e-12, nan_ok=True), analyzer
    else:
        assert table == whole, analyzer


#: (partition, rows, refused): two appends, a re-run, a refused batch, a re-run that empties
#: a partition, and an append after them; the rows themselves are random (a fixed seed)
STEPS = (("day=0", 9, False), ("day=1", 7, False), ("day=0", 6, False), ("day=2", 8, True),
         ("day=1", 0, False), ("day=2", 5, False))  # fmt: skip


def test_every_analyzer_answers_for_the_table_as_a_recomputation(
    spark: Any, tmp_path: Path
) -> None:
    rng = random.Random(2026)
    kept: dict[str, list[tuple[Any, ...]]] = {}  # partition -> its latest published rows
    written_at: dict[str, int | None] = {}  # partition -> its file's write time (None: empty)
    for step, (part, count, refused) in enumerate(STEPS):
        rows = _rows(rng, count)
        written = 1_700_000_000 + rng.randint(0, 10_000)
        batch_df = _frame(spark, tmp_path / f"step{step}", rows, written)
        state = TableState(str(tmp_path / "state"), part)
        batch = run_analyzers(batch_df, ANALYZERS)
        table = state.table_result(batch).metrics
        union = [r for p, rs in kept.items() if p != part for r in rs] + rows
        union_df = spark.createDataFrame(union, SCHEMA)  # no files: its write time is by hand
        whole = run_analyzers(union_df, [a for a in ANALYZERS if a != LastWrite()]).metrics
        for analyzer in ANALYZERS:
            if analyzer == LastWrite():  # by hand: the newest of the times set on the files
                times = [w for p, w in written_at.items() if p != part and w is not None]
                times += [written] if rows else []
                newest = datetime.fromtimestamp(max(times), timezone.utc) if times else None
                assert table[analyzer] == newest
                continue
            _same(table[analyzer], whole[analyzer], analyzer)
        if not refused:
            state.publish(batch, rows=batch_df)
            kept[part] = rows
            written_at[part] = written if rows else None
    assert sorted(kept) == ["day=0", "day=1", "day=2"] and kept["day=1"] == []


def test_the_list_holds_every_analyzer_the_store_keeps() -> None:
    stored = {c for c in STORED_NAMES.values() if c.__name__ not in _STATES}
    assert {type(a) for a in ANALYZERS} == stored


#: what the store keeps that is a state or a metric's value, not an analyzer
_STATES = {
    "CoMomentsState", "ExtremeState", "FrequencyState", "BinCountsState", "BucketsState",
    "MomentsState", "RatioState", "Distribution", "SizeState", "SketchState", "SumState", "TypeCountsState",
}  # fmt: skip
