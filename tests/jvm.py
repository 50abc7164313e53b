"""The options of every JVM the tests start themselves (the local session, the Connect server, a
test cluster's daemons, drivers and executors, a command line started as a process of its own
through ``SPARK_SUBMIT_OPTS``, set by the root conftest): the quick JIT tier and the serial collector. A
test's many short queries on two cores never repay the optimizing tier (measured: the cluster
test 224 s with it, 155 s without; 193 Spark tests 120 s with it, 95 s without). JIT settings
change no result. ``tests/unit/test_test_matrix.py`` keeps every start site on it.

When the tests' own JVM ends under them (the kernel's OOM killer, a Java ``OutOfMemoryError``
that Spark's handler turns into an exit, a crash), :func:`ended_jvm` says how, in one paragraph
with the machine's memory at that moment, instead of hundreds of "Connection refused"."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import tempfile
from pathlib import Path

QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: where a JVM that crashes writes its report (``-XX:ErrorFile``; %p is its process id)
CRASH_DIR = Path(tempfile.gettempdir()) / "quality_py-tests-jvm"
ERROR_FILE = f"-XX:ErrorFile={CRASH_DIR}/hs_err_pid%p.log"
#: exit codes a JVM running Spark ends with, and what they mean
_EXITS = {
    52: "a Java OutOfMemoryError (Spark's handler exits the JVM with 52): its heap was too small",
    134: "the JVM aborted (a crash of the JVM itself)",
}


def _memory() -> str:
    """The machine's available memory and its largest processes, from /proc (Linux)."""
    try:
        info = dict(
            line.split(":", 1)
            for line in Path("/proc/meminfo").read_text().splitlines()
            if ":" in line
        )
        top = subprocess.run(
            ["ps", "-eo", "rss=,pid=,comm=", "--sort=-rss"], capture_output=True, text=True,
            timeout=10,
        ).stdout.splitlines()[:5]  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "the machine's memory could not be read"
    biggest = "; ".join(
        f"{parts[2]} (pid {parts[1]}) {int(parts[0]) // 1024} MB"
        for parts in (line.split(None, 2) for line in top)
        if len(parts) == 3
    )
    return (
        f"memory now: {info.get('MemAvailable', '?').strip()} available of "
        f"{info.get('MemTotal', '?').strip()}; largest processes: {biggest}"
    )


def ended_jvm(proc: subprocess.Popen[bytes] | None) -> str | None:
    """One paragraph saying how the tests' JVM ended, or ``None`` while it runs.

    >>> import sys
    >>> p = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), 9)"])
    >>> _ = p.wait()
    >>> "killed by SIGKILL" in (ended_jvm(p) or "")
    True
    """
    if proc is None or proc.poll() is None:
        return None
    code = proc.returncode
    if code < 0:
        how = f"killed by {signal.Signals(-code).name}"
        if -code == signal.SIGKILL:
            how += (
                " (a signal no test sends: the kernel's OOM killer, or something outside the tests)"
            )
    else:
        how = f"exited with {code}: {_EXITS.get(code, 'Spark or the JVM stopped it')}"
    report = CRASH_DIR / f"hs_err_pid{proc.pid}.log"
    crash = ""
    if report.exists():
        head = report.read_text(errors="replace").splitlines()[:12]
        crash = f" Its crash report, {report}, begins:\n" + "\n".join(head)
    return f"The tests' JVM (pid {proc.pid}) ended, {how}; {_memory()}.{crash}"


def notes_dir() -> Path:
    """Where workers leave their paragraphs for the controller: a folder of this run (the
    controller names it in ``QP_JVM_NOTES`` before its workers start)."""
    return Path(os.environ.get("QP_JVM_NOTES", str(CRASH_DIR)))


def note_path(nodeid: str) -> Path:
    """Where a worker leaves the paragraph for a test it ends on (the controller reads it into
    that test's report; a second note for the same test means its JVM ended twice)."""
    return notes_dir() / f"ended-{hashlib.sha1(nodeid.encode()).hexdigest()[:16]}.txt"


def leave_note(nodeid: str, paragraph: str) -> None:
    """Write the paragraph for ``nodeid`` where :func:`note_path` says."""
    os.makedirs(notes_dir(), exist_ok=True)
    note_path(nodeid).write_text(paragraph, encoding="utf-8")
