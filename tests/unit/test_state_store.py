"""The state store: round trips, concurrent writers, corruption, crashes (no JVM)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.dataset.analyzers import (
    Completeness,
    Correlation,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
)
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.states import (
    CoMomentsState,
    ExtremeState,
    MomentsState,
    RatioState,
    SizeState,
    SumState,
)
from quality_py.dataset.store import FileStateStore, StateStoreError
from tests.kill_points import kill_at

floats = st.floats(allow_nan=True, allow_infinity=True)
counts = st.integers(0, 2**40)


@st.composite
def results(draw: st.DrawFn) -> AnalysisResult:
    states = {
        Size(): SizeState(draw(counts)),
        Completeness("a", where=draw(st.none() | st.just("b > 1"))): RatioState(
            draw(counts), draw(counts)
        ),
        Minimum("x"): ExtremeState(draw(st.none() | floats), False),
        Maximum("x"): ExtremeState(draw(st.none() | floats), True),
        Mean("y"): SumState(draw(floats), draw(counts)),
        StandardDeviation("y"): MomentsState(draw(counts), draw(floats), draw(floats)),
        Correlation("x", "y"): CoMomentsState(draw(counts), *[draw(floats) for _ in range(5)]),
    }
    return AnalysisResult(states)


@settings(max_examples=60, deadline=None)
@given(results())
def test_save_load_round_trip(
    tmp_path_factory: pytest.TempPathFactory, result: AnalysisResult
) -> None:
    store = FileStateStore(tmp_path_factory.mktemp("store"))
    version = store.save("t/p=1", result)
    loaded = store.load("t/p=1", version)
    assert set(loaded.states) == set(result.states)
    for analyzer, state in result.states.items():
        assert repr(loaded.states[analyzer]) == repr(state)  # repr: NaN equals NaN


def test_versions_increase_and_old_ones_stay(tmp_path: Path) -> None:
    store = FileStateStore(tmp_path)
    assert store.save("k", AnalysisResult({Size(): SizeState(1)})) == 1
    assert store.save("k", AnalysisResult({Size(): SizeState(2)})) == 2
    assert store.versions("k") == [1, 2]
    assert store.load("k").metrics[Size()] == 2.0 and store.load("k", 1).metrics[Size()] == 1.0


def test_concurrent_writers_lose_no_update(tmp_path: Path) -> None:
    store = FileStateStore(tmp_path)
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            store.save("k", AnalysisResult({Size(): SizeState(i)}))
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert store.versions("k") == list(range(1, 25))
    sizes = sorted(int(store.load("k", v).metrics[Size()]) for v in range(1, 25))  # type: ignore[arg-type]
    assert sizes == list(range(24))


def test_corrupt_and_incompatible_files_are_named(tmp_path: Path) -> None:
    store = FileStateStore(tmp_path)
    store.save("k", AnalysisResult({Size(): SizeState(5)}))
    path = tmp_path / "k" / "v1.json"
    doc = json.loads(path.read_text())
    path.write_text(path.read_text().replace('"rows": 5', '"rows": 6'))
    with pytest.raises(StateStoreError) as err:
        store.load("k")
    assert str(path) in err.value.message and "checksum" in err.value.message
    path.write_text("{not json")
    with pytest.raises(StateStoreError):
        store.load("k")
    doc["format"] = 99
    payload = {k: v for k, v in doc.items() if k != "sha256"}
    from quality_py.dataset.store import _digest

    path.write_text(json.dumps({**payload, "sha256": _digest(payload)}))
    with pytest.raises(StateStoreError) as err:
        store.load("k")
    assert "format 99" in err.value.message
    with pytest.raises(StateStoreError):
        store.load("../escape")


def test_a_crash_at_any_write_point_leaves_old_or_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileStateStore(tmp_path)
    store.save("k", AnalysisResult({Size(): SizeState(1)}))
    import os

    def crash(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt("killed")

    for point in ("fsync", "link"):  # die after the temp file is written, before it is linked
        with monkeypatch.context() as m:
            m.setattr(os, point, crash)
            with pytest.raises(KeyboardInterrupt):
                store.save("k", AnalysisResult({Size(): SizeState(2)}))
        assert store.load("k").metrics[Size()] == 1.0  # the old version, intact
    store.save("k", AnalysisResult({Size(): SizeState(3)}))
    assert store.load("k").metrics[Size()] == 3.0


_SETUP = """
from quality_py.dataset.analyzers import Size
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.states import SizeState
from quality_py.dataset import store as store_module
from quality_py import storage as storage_module

# the save runs in the store and in the shared durable-file module that publishes its bytes
TARGETS = {store_module.__file__, storage_module.__file__}

def act(root):
    store_module.FileStateStore(root).save("k", AnalysisResult({Size(): SizeState(2)}))
"""


@pytest.mark.long
@pytest.mark.timeout(1800)  # bounded by its count of kill points (forks), not by wall time
def test_killed_at_every_line_of_a_save_loads_old_or_new(tmp_path: Path) -> None:
    """A real process dies at each executed line of ``save``; every later load is old or new."""
    FileStateStore(tmp_path / "probe").save("k", AnalysisResult({Size(): SizeState(1)}))
    ((code, total),) = kill_at(_SETUP, [(0, [str(tmp_path / "probe")])])
    assert code == 0 and total is not None and total > 10  # a complete second save's lines
    stops = list(range(1, total + 1))
    for stop_at in stops:
        FileStateStore(tmp_path / f"r{stop_at}").save("k", AnalysisResult({Size(): SizeState(1)}))
    results = kill_at(_SETUP, [(s, [str(tmp_path / f"r{s}")]) for s in stops])
    outcomes = set()
    for stop_at, (code, _) in zip(stops, results, strict=True):
        assert code == -9, stop_at
        size = FileStateStore(tmp_path / f"r{stop_at}").load("k").metrics[Size()]
        assert size in (1.0, 2.0), (stop_at, size)
        outcomes.add(size)
    assert outcomes == {1.0, 2.0}  # killed both before and after the publishing link


#: The stored names (issue 25): states saved under these read back whatever the classes are
#: called. A name may be added, never changed or removed.
STORED = [
    "ApproxCountDistinct",
    "ApproxQuantile",
    "CoMomentsState",
    "Completeness",
    "Compliance",
    "Correlation",
    "CountDistinct",
    "DataType",
    "Distinctness",
    "Distribution",
    "Entropy",
    "ExtremeState",
    "FrequencyState",
    "Histogram",
    "Maximum",
    "Mean",
    "Minimum",
    "MomentsState",
    "MutualInformation",
    "PatternMatch",
    "RatioState",
    "Size",
    "SizeState",
    "SketchState",
    "StandardDeviation",
    "Sum",
    "SumState",
    "TypeCountsState",
    "UniqueValueRatio",
    "Uniqueness",
]


def test_stored_names_are_written_out_and_never_change() -> None:
    from quality_py.dataset.store import STORED_NAMES

    assert set(STORED) <= set(STORED_NAMES)


def test_a_renamed_class_still_reads_its_saved_states(tmp_path: Path) -> None:
    store = FileStateStore(tmp_path)
    store.save("t", AnalysisResult({Size(): SizeState(7)}))
    # the class is renamed in the code: its stored name is the entry's, not the class's
    before = Size.__name__
    try:
        Size.__name__ = "RowCount"
        store.save("t", AnalysisResult({Size(): SizeState(8)}))
        loaded = store.load("t", version=1)
    finally:
        Size.__name__ = before
    assert loaded is not None and loaded.states == {Size(): SizeState(7)}
    manifest = json.loads((tmp_path / "t" / "v2.json").read_text())
    assert [a["analyzer"] for a in manifest["analyzers"]] == ["Size"]


def test_a_class_without_a_stored_name_is_refused_by_name(tmp_path: Path) -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Unlisted(Size):
        pass

    with pytest.raises(StateStoreError, match="Unlisted has no stored name"):
        FileStateStore(tmp_path).save("t", AnalysisResult({Unlisted(): SizeState(1)}))


def test_a_staged_state_is_read_only_once_published(tmp_path: Path) -> None:
    """Staging writes everything but the version (a run stages before its outputs' commit and
    publishes after it): nothing is read before, a discarded one leaves no file, and a version
    saved meanwhile is never overwritten."""
    store = FileStateStore(tmp_path)
    staged = store.stage("d/t", AnalysisResult({Size(): SizeState(3)}))
    assert store.versions("d/t") == [] and store.keys("d") == []
    assert store.save("d/t", AnalysisResult({Size(): SizeState(1)})) == 1  # another writer
    assert staged.publish() == 2
    assert store.load("d/t").metrics[Size()] == 3.0
    dropped = store.stage("d/t", AnalysisResult({Size(): SizeState(9)}))
    dropped.discard()
    assert sorted(p.name for p in (tmp_path / "d" / "t").iterdir()) == ["v1.json", "v2.json"]
