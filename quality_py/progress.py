"""Progress of long commands: the step, and the tasks of the Spark stages running.

:func:`watching` prints, every ``every`` seconds while its block runs, each active stage's
finished and total tasks (what Spark knows while a job runs; rows are counted when it ends).
On sessions without a status tracker (Spark Connect) it prints the step only.
"""

from __future__ import annotations

import contextlib
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
    remote = None if tracker is not None else ConnectProgress.on(spark)
    done = threading.Event()

    def report() -> None:
        while not done.wait(every):
            shown = stage_progress(tracker) if tracker is not None else remote.lines()  # type: ignore[union-attr]
            if shown:
                step(f"{message}: " + ", ".join(shown))

    watched = tracker is not None or remote is not None
    thread = threading.Thread(target=report, daemon=True) if watched else None
    if thread is not None:
        thread.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        done.set()
        if thread is not None:
            thread.join(timeout=1)
        if remote is not None:
            remote.close()
            last = remote.lines(finished=True)
            if last:  # what the server last said, however short the phase
                step(f"{message}: " + ", ".join(last))
        step(f"{message}: done in {time.perf_counter() - started:.1f} s")


class ConnectProgress:
    """The stages a Spark Connect server reports while it runs a query (a progress handler of
    the session; Spark 4).

    >>> watcher = ConnectProgress(None)
    >>> from types import SimpleNamespace as Stage
    >>> watcher(stages=[Stage(stage_id=3, num_tasks=8, num_completed_tasks=3,
    ...                       num_bytes_read=2_500_000, done=False)], inflight_tasks=2,
    ...         operation_id="x", done=False)
    >>> watcher.lines()
    ['3 of 8 tasks in 1 step, 2.5 MB read']
    """

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self._stages: list[Any] = []
        self._last: list[Any] = []
        self._lock = threading.Lock()
        #: reports received (every query sends at least its last one)
        self.reports = 0

    @classmethod
    def on(cls, spark: Any) -> ConnectProgress | None:
        """A watcher registered with ``spark``; None when the session takes no handler."""
        register = getattr(spark, "registerProgressHandler", None)
        if register is None:
            return None
        watcher = cls(spark)
        try:
            register(watcher)
        except Exception:  # a classic session of Spark 4 has the method and refuses it
            return None
        return watcher

    def __call__(self, stages: Any = None, inflight_tasks: int = 0, operation_id: Any = None,
                 done: bool = False, **_: Any) -> None:  # fmt: skip
        with self._lock:
            self.reports += 1
            self._stages = [] if done else list(stages or ())
            if self._stages:
                self._last = self._stages

    def lines(self, finished: bool = False) -> list[str]:
        """``<done> of <total> tasks in <n> steps, <bytes> read`` of the running stages
        (``finished``: of every stage of the last report, the finished ones too); no line
        when none runs."""
        with self._lock:
            if finished:
                stages = list(self._last)
            else:
                stages = [s for s in self._stages if not getattr(s, "done", False)]
        if not stages:
            return []
        done = sum(s.num_completed_tasks for s in stages)
        total = sum(s.num_tasks for s in stages)
        read = sum(s.num_bytes_read for s in stages)
        steps = f"{len(stages)} step{'s' if len(stages) != 1 else ''}"
        return [f"{done} of {total} tasks in {steps}, {_size(read)} read"]

    def close(self) -> None:
        """Stop listening."""
        with contextlib.suppress(Exception):  # the session may be gone
            self.spark.removeProgressHandler(self)


def _size(n: int) -> str:
    """Bytes for people.

    >>> _size(999), _size(2_500_000), _size(3 * 10**9)
    ('999 B', '2.5 MB', '3.0 GB')
    """
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
