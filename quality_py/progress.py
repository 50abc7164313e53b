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
    """``<what>: <done> of <total> tasks`` of each active stage, in words where the stage runs
    inside :func:`describing` (``writing out/valid: 3 of 8 tasks``)."""
    out = []
    for stage_id in sorted(tracker.getActiveStageIds()):
        info = tracker.getStageInfo(stage_id)
        if info is not None:
            name = str(getattr(info, "name", "") or "")
            what = name if name and " at " not in name else f"step {stage_id}"
            out.append(f"{what}: {info.numCompletedTasks} of {info.numTasks} tasks")
    return out


@contextmanager
def describing(spark: Any, text: str) -> Iterator[None]:
    """Name the Spark jobs started inside the block ``text`` (their stages are shown by that
    name in progress lines and in Spark's UI, instead of a code location). A session without a
    SparkContext (Spark Connect) runs the block unchanged.

    >>> with describing(spark, "counting ids"):
    ...     spark.range(3).count()
    3
    """
    try:
        context = spark.sparkContext
        before = context.getLocalProperty("callSite.short")
        context.setLocalProperty("callSite.short", text)
    except Exception:  # Spark Connect has no SparkContext
        yield
        return
    try:
        yield
    finally:
        context.setLocalProperty("callSite.short", before)


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
