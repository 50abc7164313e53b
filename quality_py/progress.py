"""Progress of long commands: the step, and the tasks of the Spark stages running.

:func:`watching` prints, every ``every`` seconds while its block runs, each active stage's
finished and total tasks (what Spark knows while a job runs; rows are counted when it ends).
On sessions without a status tracker (Spark Connect) it prints the step only.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def step(message: str) -> None:
    """One step of a command, on stderr with the time."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _tracker(spark: Any) -> Any:
    try:
        return spark.sparkContext.statusTracker()
    except Exception:  # Spark Connect has no SparkContext
        return None


def stage_progress(tracker: Any) -> list[str]:
    """``stage <id>: <done>/<total> tasks`` of each active stage."""
    out = []
    for stage_id in sorted(tracker.getActiveStageIds()):
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            out.append(f"stage {stage_id}: {info.numCompletedTasks}/{info.numTasks} tasks")
    return out


@contextmanager
def watching(spark: Any, message: str, every: float = 5.0) -> Iterator[None]:
    """Print ``message`` now and the running stages' progress every ``every`` seconds.

    >>> with watching(spark, "counting", every=0.05):
    ...     _ = spark.range(10).count()
    """
    step(message)
    tracker = _tracker(spark)
    done = threading.Event()

    def report() -> None:
        while not done.wait(every):
            shown = stage_progress(tracker)
            if shown:
                step(f"{message}: " + ", ".join(shown))

    thread = threading.Thread(target=report, daemon=True) if tracker is not None else None
    if thread is not None:
        thread.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        done.set()
        if thread is not None:
            thread.join(timeout=1)
        step(f"{message}: done in {time.perf_counter() - started:.1f} s")
