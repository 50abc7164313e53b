"""Publishing a run's outputs so that readers see a whole run or the previous one, never half.

Spark's ``mode("overwrite")`` deletes the old files before it writes the new ones, so a job
killed during the write leaves its readers nothing. A run therefore publishes in four steps,
each of which leaves the destinations readable:

1. **Lock** every destination (``<dest>.qp-lock``, an advisory lock the operating system
   releases when its process dies, so a dead run's lock is never mistaken for a live one) and
   **recover** what an earlier, killed run left (step 4 of a committed publication is
   finished; staging of an uncommitted one is deleted).
2. **Stage**: Spark writes every output to ``<dest>.qp-staging-<nonce>`` beside its destination.
   A kill here leaves the published outputs untouched.
3. **Commit**: one journal file (``<first dest>.qp-journal-<nonce>.json``) listing every move
   is written to a temporary name and renamed into place. The rename is the commit point.
4. **Move**: each staged directory (the whole valid output, or this run's ``qp_run_id=``
   partition of quarantine and stats) is exchanged with its published counterpart in one
   ``renameat2(RENAME_EXCHANGE)`` (Linux; elsewhere two renames, old aside then new in, so
   the path is missing for an instant); then the journal and the old directories are deleted.

A kill during step 4 leaves a journal: the next run, or :func:`read_outputs`, finishes the moves
before anything is read, so valid, quarantine and stats always come from the same run. Each
single output is complete at every moment even for a reader that reads its path directly
(a directory rename is atomic on local and HDFS-like filesystems).

This needs a filesystem with atomic renames: local paths and ``file://`` URIs. Object stores
have no atomic rename; there use ``format="delta"`` (one atomic commit per output) or tables,
or ``publish="direct"`` to accept Spark's own, non-atomic overwrite.

>>> str(local_path("file:///tmp/out/valid")), local_path("s3a://bucket/valid")
('/tmp/out/valid', None)
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quality_py.gate.locations import has_scheme as has_scheme  # where a path lives: the gate
from quality_py.gate.locations import local_path as local_path
from quality_py.outputs.destination import RunOutputError

STAGING = ".qp-staging-"
BACKUP = ".qp-old-"
JOURNAL = ".qp-journal-"
LOCK = ".qp-lock"
#: Journal and owner files name the format; a journal of another format is refused, not guessed.
JOURNAL_FORMAT = 1


@dataclass(frozen=True)
class Move:
    """One directory switch: ``target`` is moved to ``backup`` (if present), then ``source``
    is moved to ``target``."""

    source: str
    target: str
    backup: str
    marker: str = ""  # a hidden file in ``source`` (a directory) naming the publication


def _canonical(path: Path) -> Path:
    """The one spelling of a local destination: absolute, ``..`` and symlinks resolved (so
    ``D/v`` and ``D/x/../v`` are one destination with one lock)."""
    return Path(os.path.realpath(path))


def _sibling(dest: Path, suffix: str) -> Path:
    return dest.parent / f"{dest.name}{suffix}"


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temporary, path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink(missing_ok=True)


def _acquire(dest: Path, nonce: str) -> tuple[Path, int]:
    """Take ``<dest>.qp-lock``: an advisory lock the operating system holds for this process
    and releases when it dies, however it dies (no process id to guess: a stale file left by a
    dead run, whose id may now belong to another process, is simply locked again).

    Returns the lock's path and the open descriptor holding it (see :func:`_release_lock`)."""
    import fcntl

    lock = _sibling(dest, LOCK)
    lock.parent.mkdir(parents=True, exist_ok=True)
    owner = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "nonce": nonce})
    for _ in range(10):
        fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            try:
                held = json.loads(lock.read_text(encoding="utf-8") or "{}")
            except (OSError, ValueError):
                held = {}
            who = f"process {held.get('pid', '?')} on {held.get('host', 'this host')}"
            raise RunOutputError(
                f"another run ({who}) is publishing to {dest}; run again when it has finished",
                item_kind="output",
            ) from None
        try:  # a releasing holder unlinks the file: ours must still be the one at the path
            current = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if not current:
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, owner.encode("utf-8"))
        return lock, fd
    raise RunOutputError(f"cannot take the lock {lock}", item_kind="output")


def _release_lock(lock: Path, fd: int) -> None:
    """Remove the lock file while holding it, then let the lock go."""
    try:
        lock.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or filesystem cannot."""
    global _RENAMEAT2
    if _RENAMEAT2 is None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _RENAMEAT2 = libc.renameat2
        except (OSError, AttributeError):
            _RENAMEAT2 = False
    if _RENAMEAT2 is False:
        return False
    at_fdcwd, rename_exchange = -100, 2
    done = _RENAMEAT2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return bool(done == 0)


_RENAMEAT2: Any = None


def _apply(moves: Sequence[Move]) -> None:
    """Finish ``moves``; each step is skipped when done, so finishing twice is harmless.

    A directory carries a hidden marker file naming its publication, so a finished exchange is
    recognised; where the system can, old and new are exchanged in one step and the path never
    disappears, else the old one is moved aside first (the path is missing for an instant)."""
    for move in moves:
        source, target, backup = Path(move.source), Path(move.target), Path(move.backup)
        if move.marker and (target / move.marker).exists():  # already in; old may be at source
            if source.exists():
                backup.parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, backup)
            continue
        if not source.exists():
            continue  # moved in already
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and move.marker and _exchange(source, target):
            backup.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, backup)
            continue
        if target.exists():
            backup.parent.mkdir(parents=True, exist_ok=True)
            os.replace(target, backup)
        os.replace(source, target)


def _finish(journal: Path) -> None:
    """Complete the publication ``journal`` commits, then delete it and what it replaced."""
    try:
        plan = json.loads(journal.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunOutputError(f"unreadable publication journal {journal}: {err}") from None
    if plan.get("format") != JOURNAL_FORMAT:
        raise RunOutputError(
            f"publication journal {journal} has format {plan.get('format')!r}; this version "
            f"reads format {JOURNAL_FORMAT}"
        )
    _apply([Move(**m) for m in plan["moves"]])
    journal.unlink(missing_ok=True)
    for leftover in plan["leftovers"]:
        _remove(Path(leftover))


def _owner_journal(staging: Path) -> Path | None:
    """The journal a staging directory belongs to (its ``.owner`` file names it)."""
    owner = staging.parent / f"{staging.name}.owner"
    try:
        return Path(json.loads(owner.read_text(encoding="utf-8"))["journal"])
    except (OSError, ValueError, KeyError):
        return None


def recover(dest: Path) -> None:
    """Finish or undo what killed runs left beside ``dest``; call with ``dest`` locked."""
    parent = dest.parent
    if not parent.is_dir():
        return
    prefix = dest.name
    for entry in sorted(parent.iterdir()):
        if entry.name.startswith(prefix + JOURNAL) and entry.name.endswith(".json"):
            _finish(entry)
    for entry in sorted(parent.iterdir()):
        name = entry.name
        if name.startswith(prefix + STAGING) and not name.endswith(".owner"):
            journal = _owner_journal(entry)
            if journal is not None and journal.exists():
                _finish(journal)  # committed at another destination of the same run
            _remove(entry)
            _remove(parent / f"{name}.owner")
        elif name.startswith(prefix + STAGING) and name.endswith(".owner"):
            if not (parent / name[: -len(".owner")]).exists():
                _remove(entry)
        elif name.startswith(prefix + BACKUP):
            _remove(entry)  # a finished publication's old output, not deleted before a kill
        elif name.startswith(f".{prefix}.qp-") and name.endswith(".tmp"):
            _remove(entry)  # a journal or owner file killed while being written


class Publication:
    """One run's atomic publication to local destinations (see the module docs).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> with Publication([str(root / "valid")]) as pub:
    ...     staged = pub.staging(str(root / "valid"))
    ...     staged.mkdir(); _ = (staged / "part-0").write_text("new")
    ...     pub.commit([pub.whole(str(root / "valid"))])
    >>> (root / "valid" / "part-0").read_text(), sorted(p.name for p in root.iterdir())
    ('new', ['valid'])
    """

    def __init__(self, destinations: Sequence[str]) -> None:
        paths = []
        for destination in destinations:
            path = local_path(destination)
            if path is None:
                raise RunOutputError(
                    f"{destination} is not on a local filesystem, where a directory rename is "
                    "atomic; write Delta (format='delta'), a table, or pass publish='direct' to "
                    "accept a non-atomic overwrite",
                    item_kind="output",
                )
            paths.append(_canonical(path))
        if len(set(paths)) != len(paths):
            raise RunOutputError("two outputs are written to the same path", item_kind="output")
        self.destinations = sorted(paths)
        self.nonce = uuid.uuid4().hex[:12]
        self.journal = _sibling(self.destinations[0], f"{JOURNAL}{self.nonce}.json")
        self._locks: list[tuple[Path, int]] = []

    def __enter__(self) -> Publication:
        try:
            for dest in self.destinations:
                self._locks.append(_acquire(dest, self.nonce))
            for dest in self.destinations:
                recover(dest)
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if not self.journal.exists():  # never committed: the staging is garbage
                for dest in self.destinations:
                    _remove(_sibling(dest, f"{STAGING}{self.nonce}"))
                    _remove(_sibling(dest, f"{STAGING}{self.nonce}.owner"))
        finally:
            self._release()

    def _release(self) -> None:
        for lock, fd in self._locks:
            _release_lock(lock, fd)
        self._locks.clear()

    def staging(self, destination: str) -> Path:
        """Where to write ``destination``'s new output (owned by this publication's journal)."""
        dest = self.dest(destination)
        staged = _sibling(dest, f"{STAGING}{self.nonce}")
        owner = {"format": JOURNAL_FORMAT, "journal": str(self.journal)}
        _write_atomically(dest.parent / f"{staged.name}.owner", json.dumps(owner))
        return staged

    def dest(self, destination: str) -> Path:
        """The absolute local path of ``destination``."""
        path = local_path(destination)
        assert path is not None
        return _canonical(path)

    def whole(self, destination: str) -> Move:
        """Replace the whole of ``destination`` with its staging."""
        dest = self.dest(destination)
        staged = _sibling(dest, f"{STAGING}{self.nonce}")
        return Move(
            str(staged), str(dest), str(_sibling(dest, f"{BACKUP}{self.nonce}")), self._mark(staged)
        )

    def _mark(self, directory: Path) -> str:
        """Put this publication's marker in ``directory`` (readers skip dot files)."""
        marker = f".qp-published-{self.nonce}"
        (directory / marker).touch()
        return marker

    def partitions(self, destination: str) -> list[Move]:
        """Replace, in ``destination``, each partition directory its staging holds."""
        dest = self.dest(destination)
        staged = _sibling(dest, f"{STAGING}{self.nonce}")
        if not dest.exists():
            return [self.whole(destination)]
        backup = _sibling(dest, f"{BACKUP}{self.nonce}")
        return [
            Move(str(part), str(dest / part.name), str(backup / part.name), self._mark(part))
            for part in sorted(staged.iterdir())
            if part.is_dir() and "=" in part.name
        ]

    def file(self, destination: str, name: str) -> Move:
        """Replace the file ``name`` at the top of ``destination`` with the staged one."""
        dest = self.dest(destination)
        staged = _sibling(dest, f"{STAGING}{self.nonce}")
        backup = _sibling(dest, f"{BACKUP}{self.nonce}")
        return Move(str(staged / name), str(dest / name), str(backup / name))

    def files(self, destination: str) -> list[Move]:
        """Add the data files of ``destination``'s staging to it (an append; Spark's part file
        names carry a unique job id, so they never replace a file)."""
        dest = self.dest(destination)
        staged = _sibling(dest, f"{STAGING}{self.nonce}")
        backup = _sibling(dest, f"{BACKUP}{self.nonce}")
        return [
            Move(str(part), str(dest / part.name), str(backup / part.name))
            for part in sorted(staged.iterdir())
            if part.is_file() and not part.name.startswith(("_", "."))
        ]

    def commit(self, moves: Sequence[Move]) -> None:
        """Write the journal (the commit point), make the moves, delete what they replaced."""
        leftovers = [str(_sibling(d, f"{BACKUP}{self.nonce}")) for d in self.destinations]
        leftovers += [str(_sibling(d, f"{STAGING}{self.nonce}")) for d in self.destinations]
        leftovers += [str(_sibling(d, f"{STAGING}{self.nonce}.owner")) for d in self.destinations]
        plan = {
            "format": JOURNAL_FORMAT,
            "moves": [m.__dict__ for m in moves],
            "leftovers": leftovers,
        }
        _write_atomically(self.journal, json.dumps(plan, indent=1))
        _finish(self.journal)


@contextmanager
def recovered(destinations: Sequence[str], wait_seconds: float = 60.0) -> Iterator[None]:
    """Hold the local destinations' locks after finishing any publication a killed run
    committed; a live run's publication is waited for (up to ``wait_seconds``)."""
    import time

    local = [str(p) for p in (local_path(d) for d in destinations) if p is not None]
    if not local:
        yield
        return
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            publication = Publication(local).__enter__()
            break
        except RunOutputError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)
    try:
        yield
    finally:
        publication._release()
