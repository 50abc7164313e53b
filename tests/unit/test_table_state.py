"""A growing table's partition states (issue 55, ``dataset/table_state.py``), without a JVM:
random sequences of appends, partition re-runs and refused batches, each answered from the
stored states, against Python's own count, sum, maximum and completeness over the table as it
stands (the latest published rows of every partition, with the batch in its partition's place)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.dataset.analyzers import Completeness, Maximum, Mean, Size, Sum
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.store import StateStoreError
from quality_py.dataset.table_state import TableState, parse_partition

ANALYZERS = (Size(), Completeness("v"), Sum("v"), Mean("v"), Maximum("v"))


def _batch(rows: list[int | None]) -> AnalysisResult:
    """The batch's states from aggregation values Python computes over its rows."""
    valued = [r for r in rows if r is not None]
    values: dict[Any, list[Any]] = {
        Size(): [len(rows)],
        Completeness("v"): [len(valued), len(rows)],
        Sum("v"): [sum(valued) if valued else None, len(valued)],
        Mean("v"): [sum(valued) if valued else None, len(valued)],
        Maximum("v"): [max(valued) if valued else None],
    }
    return AnalysisResult({a: a.state(values[a]) for a in ANALYZERS})


def _truth(rows: list[int | None]) -> dict[Any, Any]:
    valued = [r for r in rows if r is not None]
    return {
        Size(): float(len(rows)),
        Completeness("v"): len(valued) / len(rows) if rows else None,
        Sum("v"): float(sum(valued)) if valued else None,
        Mean("v"): sum(valued) / len(valued) if valued else None,
        Maximum("v"): float(max(valued)) if valued else None,
    }


STEPS = st.lists(
    st.tuples(
        st.sampled_from(["day=1", "day=2", "day=3", "day=4"]),
        st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), max_size=6),
        st.booleans(),  # published (the batch belongs to the table) or refused
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40)
@given(steps=STEPS)
def test_the_table_from_partition_states_is_the_recomputation(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, list[int | None], bool]]
) -> None:
    root = tmp_path_factory.mktemp("table")
    table: dict[str, list[int | None]] = {}  # the latest published rows of each partition
    for partition, rows, published in steps:
        state = TableState(root, partition)
        got = state.table_result(_batch(rows)).metrics
        whole = [r for p, rs in {**table, partition: rows}.items() for r in rs]
        expected = _truth(whole)
        for analyzer in ANALYZERS:
            want, found = expected[analyzer], got[analyzer]
            if want is None:
                assert found is None or (analyzer == Completeness("v") and found == 1.0), analyzer
            else:
                assert found == pytest.approx(want), (analyzer, steps)
        if published:
            state.publish(_batch(rows), rows=None)
            table[partition] = rows
    assert TableState(root, "day=1").partitions() == sorted(table)


def test_a_rerun_replaces_its_partition_never_adds_it_twice(tmp_path: Path) -> None:
    TableState(tmp_path, "day=1").publish(_batch([1, 2, 3]), rows=None)
    TableState(tmp_path, "day=2").publish(_batch([4]), rows=None)
    again = TableState(tmp_path, "day=1")
    assert again.table_result(_batch([5])).metrics[Size()] == 2.0  # day=1's 3 rows replaced
    again.publish(_batch([5]), rows=None)
    assert TableState(tmp_path, "day=3").table_result(_batch([])).metrics[Sum("v")] == 9.0


def test_a_check_added_later_is_refused_naming_the_partitions_to_rerun(tmp_path: Path) -> None:
    TableState(tmp_path, "day=1").publish(AnalysisResult({Size(): Size().state([3])}), rows=None)
    batch = _batch([1])
    with pytest.raises(StateStoreError, match=r"Completeness.*1 partition.*day=1.*Re-run"):
        TableState(tmp_path, "day=2").table_result(batch)


def test_partition_names_round_trip_and_bad_ones_are_refused(tmp_path: Path) -> None:
    odd = "region=EU/West ü, day=2013-01-01"
    TableState(tmp_path, odd).publish(_batch([1]), rows=None)
    TableState(tmp_path, {"region": "x.y", "day": "1"}).publish(_batch([2]), rows=None)
    # shown with their keys in order, lower-cased (one name per partition)
    assert TableState(tmp_path, "a=1").partitions() == ["day=1,region=x.y",
                                                        "day=2013-01-01,region=EU/West ü"]  # fmt: skip
    assert parse_partition(" year = 2013 ,month=1") == (("year", "2013"), ("month", "1"))
    for bad in ("", "day", "day=", "=1", "1day=2", "day=1,day=2"):
        with pytest.raises(StateStoreError, match="partition"):
            TableState(tmp_path, bad)
    with pytest.raises(StateStoreError, match="too long"):
        TableState(tmp_path, f"day={'x' * 300}")


def test_one_partition_whatever_the_order_and_case_of_its_keys(tmp_path: Path) -> None:
    TableState(tmp_path, "year=2013,month=1").publish(_batch([1, 2]), rows=None)
    TableState(tmp_path, "year=2013,month=2").publish(_batch([3]), rows=None)
    again = TableState(tmp_path, {"Month": "1", "YEAR": "2013"})  # the first, given otherwise
    assert again.table_result(_batch([7])).metrics[Size()] == 2.0  # 1 replaced + 1, not 3 + 1
    assert TableState(tmp_path, "year=1,month=1").partitions() == [
        "month=1,year=2013", "month=2,year=2013"]  # fmt: skip


def test_a_partition_keyed_otherwise_than_the_table_is_refused(tmp_path: Path) -> None:
    TableState(tmp_path, "day=1").publish(_batch([1]), rows=None)
    with pytest.raises(StateStoreError, match=r"keyed by month.*keeps partition 'day=1'"):
        TableState(tmp_path, "month=1").table_result(_batch([2]))


def test_a_job_names_its_table_state_and_partition_together() -> None:
    from quality_py.errors import InputError
    from quality_py.jobs.spec import JobSpec

    job = JobSpec(table_state="states/orders", partition="Day=2026-11-28")
    assert job.table is not None
    assert job.table.key == TableState("elsewhere", "day=2026-11-28").key  # one name per partition
    assert JobSpec().table is None
    with pytest.raises(InputError, match="partition is given without table_state"):
        JobSpec(partition="day=1")
    with pytest.raises(InputError, match="table_state is given without partition"):
        JobSpec(table_state="states/orders")
    with pytest.raises(InputError, match="KEY=VALUE"):
        JobSpec(table_state="states/orders", partition="2026-11-28")
