"""Shared pytest fixtures: one tuned local SparkSession, created only when a test asks for it.

``tests/unit`` never requests it, so the unit tier runs without a JVM. Doctests in
``quality_py`` get the session as ``spark``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# CI runs the same examples every time (--hypothesis-profile=ci in scripts/test.sh), so a red
# run is repeatable; locally the default profile keeps exploring new examples. Examples are
# bounded by count, never by wall time (no deadline): a busy machine runs the same examples.
settings.register_profile("ci", derandomize=True, deadline=None)

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
# Every JVM started through spark-submit while the tests run (the tests' own session, a command
# line the tests start as a process of its own, a Connect server) takes the quick JIT tier and the
# serial collector (tests/jvm.py says why): one setting for every start site, present and future.
# Spark's launcher adds SPARK_SUBMIT_OPTS to the driver's command and prints nothing about it.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "")
if "TieredStopAtLevel" not in os.environ["SPARK_SUBMIT_OPTS"]:
    from tests.jvm import QUICK_JVM

    os.environ["SPARK_SUBMIT_OPTS"] = f"{os.environ['SPARK_SUBMIT_OPTS']} {QUICK_JVM}".strip()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from quality_py.spark.session import local_session
    from tests.frames import FOLD_ON_DRIVER, arrow_frames
    from tests.jvm import CRASH_DIR, ERROR_FILE, QUICK_JVM

    CRASH_DIR.mkdir(exist_ok=True)
    session = local_session(
        "local[2]",
        "quality_py-tests",
        {
            "spark.driver.memory": "2g",
            "spark.sql.shuffle.partitions": "1",
            "spark.default.parallelism": "2",
            "spark.driver.extraJavaOptions": f"{QUICK_JVM} {ERROR_FILE}",
            # a rule meets a test's rows in tasks, with generated code, as it meets a table's
            # (tests/frames.py), not folded into the plan on the driver
            "spark.sql.optimizer.excludedRules": FOLD_ON_DRIVER,
        },
    )
    # the tests' own frames through Arrow, not a Python worker (QP_TEST_FRAMES=list: the
    # list's way, to tell whether a difference comes from the frames)
    if os.environ.get("QP_TEST_FRAMES") != "list":
        arrow_frames(session)
    yield session
    session.stop()


def _jvm_ended() -> str | None:
    """How the tests' JVM ended (``tests/jvm.py``), or None while it runs or before it starts."""
    if "pyspark" not in sys.modules:
        return None
    try:
        from pyspark import SparkContext
    except ImportError:  # the Spark Connect client alone: no JVM of ours
        return None

    from tests.jvm import ended_jvm

    gateway = getattr(SparkContext, "_gateway", None)
    return ended_jvm(getattr(gateway, "proc", None)) if gateway is not None else None


def _end_worker(nodeid: str, paragraph: str) -> None:
    """Under xdist, the first time: leave the paragraph for ``nodeid`` and end this worker. xdist
    starts a new worker with a new JVM, and ``nodeid`` runs again there with the tests left. A
    test whose JVM ends a second time fails (it may be what ends it), with the paragraph."""
    from tests.jvm import leave_note, note_path

    if not os.environ.get("PYTEST_XDIST_WORKER") or note_path(nodeid).exists():
        return
    leave_note(nodeid, paragraph)
    os._exit(3)


@pytest.fixture(autouse=True)
def _tests_jvm_alive(request: pytest.FixtureRequest) -> None:
    """Before a test that uses the session: if the session's JVM has ended (the kernel's OOM
    killer, an OutOfMemoryError, a crash), say how instead of hundreds of "Connection refused":
    under xdist a new worker runs this test and the rest (``_end_worker``); else the run stops
    with the paragraph."""
    if "spark" not in request.fixturenames:
        return
    paragraph = _jvm_ended()
    if paragraph is None:
        return
    _end_worker(request.node.nodeid, paragraph)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.fail(paragraph, pytrace=False)  # its JVM ended again: what the test ran, maybe
    pytest.exit(paragraph, returncode=3)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test that failed because the JVM ended under it runs again on a new worker, once."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when in ("setup", "call"):
        paragraph = _jvm_ended()
        if paragraph is not None:
            _end_worker(item.nodeid, f"{paragraph}\nIt ended while this test ran.")
            report.sections.append(("the tests' JVM", paragraph))


def pytest_configure(config: pytest.Config) -> None:
    """The controller (or a run without xdist) names a folder of its own for its workers'
    paragraphs on an ended JVM."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        import tempfile

        os.environ["QP_JVM_NOTES"] = tempfile.mkdtemp(prefix="quality_py-jvm-notes-")


_JVM_ENDINGS: list[tuple[str, str]] = []


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched: Any) -> None:
    """In the xdist controller: a worker that ended because its JVM had ended left a paragraph
    for ``crashitem``; the test is run again on the new worker (loadfile puts the file's
    unfinished tests back itself), and the paragraph is printed in the summary."""
    from tests.jvm import note_path

    note = note_path(crashitem)
    if not note.exists():
        return
    _JVM_ENDINGS.append((crashitem, note.read_text(encoding="utf-8")))
    # loadfile and loadscope schedule the crashed file's unfinished tests again themselves
    with contextlib.suppress(NotImplementedError):
        sched.mark_test_pending(crashitem)
    report.outcome = "rerun"  # type: ignore[assignment]


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """A test run again on a new worker (its JVM had ended) is shown as ``R``, not as failed."""
    if report.outcome == "rerun":  # type: ignore[comparison-overlap]
        return "rerun", "R", "RERUN"
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Every ended JVM of the run, said once at the end (whether its test ran again on a new
    worker), and every collected test that no worker ran (:func:`pytest_sessionfinish` fails the
    run)."""
    if _JVM_ENDINGS:
        terminalreporter.section("the tests' JVM ended")
        for nodeid, paragraph in _JVM_ENDINGS:
            again = (
                "The test ran again on a new worker."
                if nodeid in _RAN
                else "No worker ran it again (the step starts no new worker): the run fails."
            )
            terminalreporter.write_line(f"{nodeid}: {paragraph}\n{again}")
    lost = _never_ran()
    if lost:
        terminalreporter.section("tests that never ran")
        terminalreporter.write_line(
            f"{len(lost)} collected test(s) got no result (a worker ended with them queued); "
            "the run fails:\n  " + "\n  ".join(lost[:50])
        )


#: In the xdist controller: the tests the workers collected, and those that got a result.
_COLLECTED: set[str] = set()
_RAN: set[str] = set()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """The tests a worker collected (after deselection): each must get a result."""
    _COLLECTED.update(ids)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A test has a result once its call ran, it failed anywhere (a worker's crash included), or
    its setup skipped it (a test run again after its JVM ended has only the ``rerun`` report
    until it runs)."""
    if report.outcome == "rerun":  # type: ignore[comparison-overlap]
        return
    if report.failed or report.when == "call" or (report.when == "setup" and report.skipped):
        _RAN.add(report.nodeid)


def _never_ran() -> list[str]:
    return sorted(_COLLECTED - _RAN)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run where a collected test got no result fails, whatever else passed: a worker that
    ended with tests queued must not pass the step silently (2026-11-30: 31 doctests and one
    test never ran after a worker's JVM ended, and the step passed)."""
    if _never_ran() and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _uses_spark(item: pytest.Item) -> bool:
    """Whether a doctest's examples name the session (``spark``): only those start a JVM."""
    examples = getattr(getattr(item, "dtest", None), "examples", ())
    return any("spark" in example.source for example in examples)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Doctests are marked by what they need: ``needs_spark`` (their examples use the session:
    the Spark step runs them) or ``no_spark`` (the unit step runs them, with no JVM)."""
    from _pytest.doctest import DoctestItem

    for item in items:
        if isinstance(item, DoctestItem):
            item.add_marker(pytest.mark.needs_spark if _uses_spark(item) else pytest.mark.no_spark)


@pytest.fixture(autouse=True)
def _doctest_spark(request: pytest.FixtureRequest) -> None:
    from _pytest.doctest import DoctestItem

    if isinstance(request.node, DoctestItem) and _uses_spark(request.node):
        request.getfixturevalue("doctest_namespace")["spark"] = request.getfixturevalue("spark")
