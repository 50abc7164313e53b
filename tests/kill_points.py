"""Kill a real process at chosen executed lines of our code, cheaply: one driver process imports
the code once, then forks a child per kill point (the child traces the lines of the target
modules and dies by SIGKILL at its line). The work is bounded by the number of kill points,
and each costs a fork, not a Python start and the imports, so the tests take the same count of
steps on a busy machine as on a quiet one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

_DRIVER = r"""
import os, signal, sys
{setup}

def traced(args, stop_at):
    seen = 0

    def tracer(frame, event, arg):
        nonlocal seen
        if frame.f_code.co_filename not in TARGETS:
            return tracer
        if event == "line":
            seen += 1
            if seen == stop_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return tracer

    sys.settrace(tracer)
    act(*args)
    sys.settrace(None)
    return seen

for request in sys.stdin:
    stop_at, *args = request.rstrip("\n").split("\t")
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        lines = traced(args, int(stop_at))
        sys.stdout.write(f"lines {{lines}}\n")
        sys.stdout.flush()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(f"status {{os.waitstatus_to_exitcode(status)}}\n")
    sys.stdout.flush()
"""


def kill_at(setup: str, cases: Sequence[tuple[int, Sequence[str]]]) -> list[tuple[int, int | None]]:
    """For each ``(stop_at, args)``, run ``act(*args)`` in a forked child killed at the
    ``stop_at``-th executed line of the modules in ``TARGETS`` (0: never); ``setup`` is Python
    that defines ``act`` and ``TARGETS``. Returns each child's exit code (-9: killed) and, for a
    child that finished, the lines it executed."""
    requests = "".join(f"{stop}\t" + "\t".join(args) + "\n" for stop, args in cases)
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER.format(setup=setup)],
        input=requests,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: list[tuple[int, int | None]] = []
    lines: int | None = None
    for row in done.stdout.splitlines():
        word, value = row.split()
        if word == "lines":
            lines = int(value)
        else:
            out.append((int(value), lines))
            lines = None
    assert len(out) == len(cases), done.stdout + done.stderr
    return out
