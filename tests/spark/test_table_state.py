"""``verify`` with a table state answers for the whole table from partition states (issue 55):
days appended, a day re-run, a refused day, a check that compares the batch with its schema.
Every expected value is counted by hand from the rows below (the table as it stands after each
step), never by a second run of ours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py.dataset.checks import Check, verify
from quality_py.dataset.store import StateStoreError
from quality_py.dataset.table_state import TableState
from quality_py.history import FileMetricsRepository
from quality_py.history.over_time import OverTime

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes

DDL = "day int, k int, v double"
#: is the key unique over the table, how big is it, how complete and how large is v
CHECKS = [
    Check("warning", "table")
    .has_uniqueness("k", ">= 0")
    .has_size(">= 0")
    .has_completeness("v", ">= 0")
    .has_max("v", ">= 0")
    .has_count_distinct("k", ">= 0")
]


NAMES = ("uniqueness", "size", "completeness", "max", "count")  # the constraints, in order


def _metrics(result: Any) -> dict[str, Any]:
    return dict(zip(NAMES, (r.metric for r in result.results), strict=True))


def _table(location: Path, partition: str) -> OverTime:
    """A run's link to the table at ``location``, ``partition`` being the batch's."""
    return OverTime(table_state=TableState(location, partition))


def _day(spark: Any, day: int, rows: list[tuple[int, float | None]]) -> Any:
    return spark.createDataFrame([(day, k, v) for k, v in rows], DDL)


def test_days_appended_and_rerun_answer_for_the_table(spark: Any, tmp_path: Path) -> None:
    def run(day: int, rows: list[tuple[int, float | None]]) -> dict[str, Any]:
        state = TableState(tmp_path, f"day={day}")
        return _metrics(
            verify(_day(spark, day, rows), CHECKS, over_time=OverTime(table_state=state))
        )

    first = run(1, [(1, 1.0), (2, None), (3, 3.0)])
    assert first == pytest.approx(
        {"uniqueness": 1.0, "size": 3.0, "completeness": 2 / 3, "max": 3.0, "count": 3.0}
    )
    # day 2 repeats key 3 of day 1: over the table keys 1, 2, 4 are unique, 3 is not (3 of 4)
    second = run(2, [(3, 10.0), (4, 4.0)])
    assert second["size"] == 5.0
    assert second["uniqueness"] == pytest.approx(3 / 5)  # rows whose key occurs once: 1, 2, 4
    assert second["completeness"] == pytest.approx(4 / 5)
    assert second["max"] == 10.0 and second["count"] == 4.0  # keys 1, 2, 3, 4
    # day 2 re-run without the repeated key: it replaces day 2, never adds to it
    again = run(2, [(5, 5.0)])
    assert again == pytest.approx(
        {"uniqueness": 1.0, "size": 4.0, "completeness": 3 / 4, "max": 5.0, "count": 4.0}
    )
    assert TableState(tmp_path, "day=1").partitions() == ["day=1", "day=2"]


def test_a_refused_batch_leaves_the_state_as_it_was(spark: Any, tmp_path: Path) -> None:
    strict = [Check("error", "keys").is_unique("k")]
    assert verify(_day(spark, 1, [(1, 1.0)]), strict, over_time=_table(tmp_path, "day=1"))
    refused = verify(_day(spark, 2, [(1, 2.0)]), strict, over_time=_table(tmp_path, "day=2"))
    assert refused.status == "error"  # key 1 is already in day 1
    assert TableState(tmp_path, "day=1").partitions() == ["day=1"]  # day 2 was not kept
    ok = verify(_day(spark, 2, [(2, 2.0)]), strict, over_time=_table(tmp_path, "day=2"))
    assert ok.status == "success"


def test_a_batch_holding_rows_of_other_partitions_is_kept_nowhere(
    spark: Any, tmp_path: Path
) -> None:
    """Day 2's state kept from a batch with day-1 rows would count them twice once day 1 is
    re-run: refused, naming the values, nothing kept. The key's case and the value's spelling
    do not matter (``Day``; ``02`` is the number 2); a null key is Hive's default partition; a
    column whose type cannot read the value is not the partition's."""
    mixed = spark.createDataFrame(
        [(2, 1, 1.0), (1, 2, 2.0), (None, 3, 3.0)], "Day int, k int, v double"
    )
    history = FileMetricsRepository(tmp_path / "history")
    state = TableState(tmp_path, "day=02")
    with pytest.raises(StateStoreError) as err:
        verify(mixed, CHECKS, over_time=OverTime(table_state=state, history=history))
    assert list(history.records()) == []  # refused before the history records it
    text = str(err.value)
    assert "partition day=02 holds rows of other partitions" in text
    assert "(Day=1, Day=__HIVE_DEFAULT_PARTITION__)" in text and "nothing was kept" in text
    assert TableState(tmp_path, "day=2").partitions() == []
    verify(mixed.where("Day = 2"), CHECKS, over_time=_table(tmp_path, "day=02"))
    nulls = mixed.where("Day IS NULL")
    verify(nulls, CHECKS, over_time=_table(tmp_path, "day=__HIVE_DEFAULT_PARTITION__"))
    # the flights' day of the month beside a partition named by its date: not the partition's
    verify(mixed, CHECKS, over_time=_table(tmp_path, "day=2013-01-02"))
    assert TableState(tmp_path, "day=1").partitions() == [
        "day=02", "day=2013-01-02", "day=__HIVE_DEFAULT_PARTITION__"
    ]  # fmt: skip


def test_what_has_no_state_is_refused_not_answered_for_the_batch(
    spark: Any, tmp_path: Path
) -> None:
    verify(_day(spark, 1, [(1, 1.0)]), [Check("warning", "t").has_size(">= 1")],
           over_time=_table(tmp_path, "day=1"))  # fmt: skip
    later = [Check("warning", "t").has_size(">= 1").is_complete("v")]  # a check added later
    with pytest.raises(StateStoreError, match=r"no stored state for 1 partition.*day=1"):
        verify(_day(spark, 2, [(2, 2.0)]), later, over_time=_table(tmp_path, "day=2"))
    schema = [Check("warning", "t").has_schema({"day": "int"})]
    with pytest.raises(StateStoreError, match="no state to merge"):
        verify(_day(spark, 3, [(3, 3.0)]), schema, over_time=_table(tmp_path, "day=3"))
