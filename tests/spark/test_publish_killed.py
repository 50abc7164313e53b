"""A CLI quality run killed with SIGKILL while it writes never takes away the previous run's
published outputs, and the next run cleans what it left; a release killed while it writes
leaves both outputs as they were (expected counts by hand)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from quality_py import read_outputs
from quality_py.cli import main

pytestmark = pytest.mark.wiring  # atomic publication under SIGKILL

RULES = """
suite: {id: 3, version: 1}
rule_sets:
  - id: 30
    rules:
      - {id: 300, expression: "amount > 0", action_if_failed: drop}
"""


def _argv(tmp_path: Path, data: Path, run_id: str) -> list[str]:
    out = tmp_path / "out"
    return [
        "run",
        str(tmp_path / "rules.yaml"),
        "--input",
        str(data),
        "--run-id",
        run_id,
        "--valid",
        str(out / "valid"),
        "--quarantine",
        str(out / "quarantine"),
        "--stats",
        str(out / "stats"),
    ]


FIXED = RULES.replace("version: 1", "version: 2").replace("amount > 0", "amount >= 0")


def _release_argv(tmp_path: Path) -> list[str]:
    out = tmp_path / "out"
    return ["release", str(tmp_path / "fixed.yaml"), "--quarantine", str(out / "quarantine"),
            "--valid", str(out / "valid"), "--run-id", "r1"]  # fmt: skip


def _cli(tmp_path: Path, data: Path, run_id: str) -> subprocess.Popen[str]:
    """The command in a process of its own (with its own JVM): a process to kill."""
    return _process(_argv(tmp_path, data, run_id))


def _process(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "quality_py", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its JVM is in the same group and dies with it
    )


def _wait_for(path_glob: str, root: Path, proc: subprocess.Popen[str], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if list(root.glob(path_glob)):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.long
def test_a_killed_cli_run_leaves_the_previous_run_whole(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    # run r1: ids 0..59999, amount = id % 4 - 1 fails for 1 in 4 (id % 4 == 0 -> -1, 1 -> 0)
    # so 30000 valid rows; run r2's data has 90000 rows and would give 45000.
    first, second = tmp_path / "first", tmp_path / "second"
    spark.range(60000).selectExpr("id", "id % 4 - 1 AS amount").write.parquet(str(first))
    spark.range(90000).selectExpr("id", "id % 4 - 1 AS amount").repartition(8).write.parquet(
        str(second)
    )
    # the runs that are not killed run in this process (the command line's main, on the tests'
    # session): a process of their own would prove nothing more and start a JVM each
    assert main(_argv(tmp_path, first, "r1")) == 0
    out = tmp_path / "out"

    def published() -> tuple[int, set[str], set[str]]:
        valid, quarantine, stats = read_outputs(
            spark, str(out / "valid"), str(out / "quarantine"), str(out / "stats")
        )
        assert valid is not None and quarantine is not None and stats is not None
        runs_q = {r.qp_run_id for r in quarantine.select("qp_run_id").distinct().collect()}
        runs_s = {r.qp_run_id for r in stats.select("qp_run_id").distinct().collect()}
        return valid.count(), runs_q, runs_s

    assert published() == (30000, {"r1"}, {"r1"})
    # the rule was wrong (amount 0 is fine): a release of r1 killed once it stages an output
    # leaves valid and the quarantine as they were; then it releases the 15000 rows with
    # amount 0 (id % 4 == 1), once
    (tmp_path / "fixed.yaml").write_text(FIXED)
    proc = _process(_release_argv(tmp_path))
    staged = _wait_for("*.qp-staging-*", out, proc, seconds=240)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert staged, "the release ended before it staged an output"
    assert published() == (30000, {"r1"}, {"r1"})
    assert spark.read.parquet(str(out / "quarantine")).where("NOT qp_kept_in_valid").count() == (
        30000
    )
    assert main(_release_argv(tmp_path)) == 0
    assert published() == (45000, {"r1"}, {"r1"})
    assert spark.read.parquet(str(out / "quarantine")).count() == 15000  # amount -1 stays
    # kill r2 as soon as it stages its first output, then later in the run
    for pattern in ("*.qp-staging-*", "valid.qp-staging-*/part-*"):
        proc = _cli(tmp_path, second, "r2")
        staged = _wait_for(pattern, out, proc, seconds=240)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        assert staged, f"the run ended before {pattern} appeared"
        # a plain reader of the valid path sees r1's rows, whole
        assert spark.read.parquet(str(out / "valid")).count() == 45000
        assert published() == (45000, {"r1"}, {"r1"})
    assert main(_argv(tmp_path, second, "r2")) == 0
    assert published() == (45000, {"r1", "r2"}, {"r1", "r2"})
    assert sorted(p.name for p in out.iterdir()) == ["quarantine", "stats", "valid"]
