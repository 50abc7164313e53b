"""Atomic publication of run outputs: a real process killed at many executed lines of a
publication (every 8th line, a different eighth per case) leaves readers one whole run (the
previous or the new), for all outputs together.

The staged outputs are plain files written by the test (what Spark writes is opaque to the
protocol), so every kill point is cheap and no JVM is needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quality_py.outputs.publish import (
    Publication,
    RunOutputError,
    local_path,
    recover,
    recovered,
)
from tests.kill_points import kill_at

PARTS = 3  # part files of the valid output


def _stage(pub: Publication, root: Path, run: str, label: str) -> list:
    """Stage valid (whole) and quarantine/stats (one run partition), as a run's writes do."""
    moves = []
    staged = pub.staging(str(root / "valid"))
    staged.mkdir()
    for i in range(PARTS):
        (staged / f"part-{i}.txt").write_text(label)
    (staged / "_SUCCESS").write_text("")
    moves.append(pub.whole(str(root / "valid")))
    for name in ("quarantine", "stats"):
        staged = pub.staging(str(root / name))
        (staged / f"qp_run_id={run}").mkdir(parents=True)
        (staged / f"qp_run_id={run}" / "part-0.txt").write_text(label)
        (staged / "_SUCCESS").write_text("")
        moves.extend(pub.partitions(str(root / name)))
    return moves


def publish(root: Path, run: str, label: str) -> None:
    outputs = [str(root / n) for n in ("valid", "quarantine", "stats")]
    with Publication(outputs) as pub:
        pub.commit(_stage(pub, root, run, label))


def snapshot(root: Path) -> dict[str, object]:
    """What a reader sees: the label of every valid part and every run partition's label."""
    valid = sorted(p.read_text() for p in (root / "valid").glob("part-*"))
    seen: dict[str, object] = {"valid": valid}
    for name in ("quarantine", "stats"):
        seen[name] = {
            p.name: (p / "part-0.txt").read_text()
            for p in sorted((root / name).glob("qp_run_id=*"))
        }
    return seen


def test_publish_replaces_valid_and_adds_run_partitions(tmp_path: Path) -> None:
    publish(tmp_path, "a", "A")
    publish(tmp_path, "b", "B")
    assert snapshot(tmp_path) == {
        "valid": ["B"] * PARTS,
        "quarantine": {"qp_run_id=a": "A", "qp_run_id=b": "B"},
        "stats": {"qp_run_id=a": "A", "qp_run_id=b": "B"},
    }
    publish(tmp_path, "a", "A2")  # re-running a run id replaces only its partition
    assert snapshot(tmp_path)["quarantine"] == {"qp_run_id=a": "A2", "qp_run_id=b": "B"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quarantine", "stats", "valid"]


def test_a_failed_run_leaves_no_staging_and_the_old_outputs(tmp_path: Path) -> None:
    publish(tmp_path, "a", "A")
    before = snapshot(tmp_path)
    outputs = [str(tmp_path / n) for n in ("valid", "quarantine", "stats")]

    def failing_run() -> None:
        with Publication(outputs) as pub:
            _stage(pub, tmp_path, "b", "B")
            raise ZeroDivisionError  # the run fails after staging, before its commit

    with pytest.raises(ZeroDivisionError):
        failing_run()
    assert snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quarantine", "stats", "valid"]


def test_a_live_publisher_is_never_disturbed(tmp_path: Path) -> None:
    outputs = [str(tmp_path / "valid")]
    with Publication(outputs), pytest.raises(RunOutputError, match="is publishing to"):
        Publication(outputs).__enter__()
    with pytest.raises(RunOutputError, match="not on a local filesystem"):
        Publication(["s3a://bucket/valid"])
    with pytest.raises(RunOutputError, match="same path"):
        Publication([str(tmp_path / "v"), str(tmp_path / "v")])
    assert local_path("file:///x/y") == Path("/x/y")


def test_a_dead_publishers_lock_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    import socket

    lock = tmp_path / "valid.qp-lock"
    lock.write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname()}))
    publish(tmp_path, "a", "A")
    assert not lock.exists() and snapshot(tmp_path)["valid"] == ["A"] * PARTS


def test_a_stale_lock_naming_a_live_process_is_taken_over(tmp_path: Path) -> None:
    """The old lock trusted a process id: a dead run's id re-used by any live process (here:
    this one) blocked every later run. The OS lock belongs to no one once its holder died."""
    lock = tmp_path / "valid.qp-lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "host": "anywhere"}))
    publish(tmp_path, "a", "A")
    assert not lock.exists() and snapshot(tmp_path)["valid"] == ["A"] * PARTS


def test_a_live_holder_blocks_and_its_death_releases(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
         str(tmp_path / "valid.qp-lock")],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RunOutputError, match="another run"):
            publish(tmp_path, "a", "A")
    finally:
        holder.kill()
        holder.wait()
    publish(tmp_path, "a", "A")  # the OS released the dead holder's lock
    assert snapshot(tmp_path)["valid"] == ["A"] * PARTS


_SETUP = """
sys.path.insert(0, {tests!r})
from test_publish import publish
from pathlib import Path
import quality_py.outputs.publish as target

TARGETS = {{target.__file__}}

def act(root, run, label):
    publish(Path(root), run, label)
"""


@pytest.mark.long
@pytest.mark.timeout(1800)  # bounded by its count of kill points (forks), not by wall time
@pytest.mark.parametrize("run", ["b", "a"], ids=["new-run-id", "rerun-of-a-run-id"])
def test_killed_at_every_line_of_a_publication_readers_see_one_whole_run(
    tmp_path: Path, run: str
) -> None:
    setup = _SETUP.format(tests=str(Path(__file__).parent))
    probe = tmp_path / "probe"
    publish(probe, "a", "A")
    ((code, total),) = kill_at(setup, [(0, [str(probe), run, "N"])])
    assert code == 0 and total is not None and total > 40
    before = {
        "valid": ["A"] * PARTS,
        "quarantine": {"qp_run_id=a": "A"},
        "stats": {"qp_run_id=a": "A"},
    }
    after_partitions = {"qp_run_id=a": "A", f"qp_run_id={run}": "N"}
    after = {"valid": ["N"] * PARTS, "quarantine": after_partitions, "stats": after_partitions}
    assert snapshot(probe) == after
    # every 8th executed line (a different eighth for each case): about 70 kills per case
    stops = list(range(1 if run == "b" else 5, total + 1, 8))
    for stop_at in stops:
        publish(tmp_path / f"r{stop_at}", "a", "A")
    results = kill_at(setup, [(s, [str(tmp_path / f"r{s}"), run, "N"]) for s in stops])
    outcomes = set()
    for stop_at, (code, _) in zip(stops, results, strict=True):
        root = tmp_path / f"r{stop_at}"
        assert code == -9, stop_at
        # every single output is whole even before recovery (directory renames are atomic)
        direct = snapshot(root)
        assert direct["valid"] in (before["valid"], after["valid"]), (stop_at, direct)
        with recovered([str(root / n) for n in ("valid", "quarantine", "stats")]):
            seen = snapshot(root)
        assert seen in (before, after), (stop_at, seen)
        outcomes.add("old" if seen == before else "new")
        assert sorted(p.name for p in root.iterdir()) == ["quarantine", "stats", "valid"], stop_at
    assert outcomes == {"old", "new"}  # killed both before and after the commit point


def test_recover_is_harmless_on_missing_and_clean_destinations(tmp_path: Path) -> None:
    recover(tmp_path / "nowhere" / "valid")
    publish(tmp_path, "a", "A")
    recover(tmp_path / "valid")
    assert snapshot(tmp_path)["valid"] == ["A"] * PARTS
