"""When the tests' own JVM ends under them, the next test that uses the session says how in one
paragraph and, under xdist, ends its worker so that a new worker with a new JVM runs the rest
(the root conftest's ``_tests_jvm_alive``; without xdist the run stops with that paragraph). Driven here without a JVM: a test of a scratch file
puts an ended process where pyspark keeps its gateway's JVM."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = """
import subprocess, sys, types
import pytest
from pyspark import SparkContext

@pytest.fixture
def spark():
    return None

def test_a_jvm_is_killed(spark):
    proc = subprocess.Popen([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"])
    proc.wait()
    SparkContext._gateway = types.SimpleNamespace(proc=proc)

def test_b_needs_the_session(spark):
    pass

def test_c_runs_on_a_new_worker():
    pass

def test_d_ends_its_jvm_each_time(spark):
    test_a_jvm_is_killed(spark)
    raise AssertionError("the JVM is gone")
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The scratch file's run as a run of its own: not a worker of this run's xdist, and with
    its own folder of notes (two scratch runs share their tests' names)."""
    (tmp_path / "test_scratch.py").write_text(SCRATCH)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_XDIST") and k != "QP_JVM_NOTES"}  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path), "-c", "/dev/null", *args, str(tmp_path / "test_scratch.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_a_test_runs_again_on_a_new_worker_once(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    # --dist loadfile, as the Spark step runs (the default "load" is served the same way)
    done = _pytest(tmp_path, "-n", "1", "-p", "xdist", "--dist", "loadfile")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    # b never ran on the ended JVM: it runs on a new worker; d ends its JVM twice and fails
    assert "3 passed" in out and "1 failed" in out and "2 rerun" in out, out
    (failed,) = [line for line in out.splitlines() if line.startswith("FAILED ")]
    # the summary line may carry the failure's message after " - " (it does on a wide terminal)
    assert failed.split(" - ")[0].endswith("test_scratch.py::test_d_ends_its_jvm_each_time"), failed
    assert "killed by SIGKILL" in out and "It ended while this test ran." in out
    assert out.count("The test ran again on a new worker.") == 2


def test_without_new_workers_the_run_fails_and_says_so(tmp_path: Path) -> None:
    """As the Spark steps run (``--max-worker-restart=0``): no new worker starts, so the test
    whose JVM ended and those queued behind it never run, the run fails naming them, and the
    summary does not claim they ran again (it did, 2026-12-01)."""
    pytest.importorskip("xdist")
    done = _pytest(tmp_path, "-n", "1", "-p", "xdist", "--dist", "loadfile",
                   "--max-worker-restart=0")  # fmt: skip
    out = done.stdout
    assert done.returncode != 0, out + done.stderr
    assert "The test ran again on a new worker." not in out, out
    assert "No worker ran it again (the step starts no new worker): the run fails." in out, out
    assert "tests that never ran" in out and "test_scratch.py::test_b_needs_the_session" in out
