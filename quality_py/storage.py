"""Durable files: atomic, never-overwriting publication of small files on a local path, a
Databricks mount or any filesystem pyarrow opens by URI (the state store and the metrics
history write this way). :func:`files_at` chooses by where the root lives, asking the one place
that knows (:mod:`quality_py.gate.locations`): ``dbfs:/x`` is the mount ``/dbfs/x`` for every
reader and writer, never a local folder named ``dbfs:``.

On a local path a file is written to a temporary name, flushed and synced, then *linked* to the
first free version name: ``os.link`` fails if the name exists, so concurrent writers never
overwrite each other, and a crash leaves the complete file or none. On a pyarrow URI a
temporary object is renamed to the first free name (object stores have no rename-if-absent:
writers of one folder must be serialized by the caller).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

from quality_py.errors import InputError
from quality_py.gate.locations import local_path, mounted_path


class LocalFiles:
    """A local directory: link-based atomic, no-overwrite publication."""

    def __init__(self, root: str) -> None:
        self.root = Path(root)

    def uri(self, rel: str) -> str:
        return str((self.root / rel).absolute())

    def names(self, rel: str) -> list[str]:
        folder = self.root / rel
        return [p.name for p in folder.iterdir()] if folder.is_dir() else []

    def read(self, rel: str) -> bytes:
        return (self.root / rel).read_bytes()

    def publish(self, rel: str, data: bytes, first: int) -> int:
        tmp = self.put_temp(rel, data)
        try:
            return self.link_temp(rel, tmp, first)
        finally:
            self.drop_temp(rel, tmp)

    def put_temp(self, rel: str, data: bytes) -> str:
        """Write ``data`` durably under a temporary name in ``rel`` (never read as a version);
        its name. A failed write (a full disk) leaves no temporary file behind."""
        folder = self.root / rel
        folder.mkdir(parents=True, exist_ok=True)
        tmp = f".tmp-{uuid.uuid4().hex}"
        try:
            self._write(folder / tmp, data)
        except BaseException:
            (folder / tmp).unlink(missing_ok=True)
            raise
        return tmp

    def _write(self, path: Path, data: bytes) -> None:
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())

    def link_temp(self, rel: str, tmp: str, first: int) -> int:
        """Make the temporary file the first free version from ``first``; its number."""
        folder = self.root / rel
        version = first
        while True:
            try:
                os.link(folder / tmp, folder / f"v{version}.json")  # atomic, fails if taken
                break
            except FileExistsError:
                version += 1  # a concurrent writer took it: take the next one
        (folder / tmp).unlink(missing_ok=True)
        return version

    def drop_temp(self, rel: str, tmp: str) -> None:
        """Remove a temporary file (gone already when it was linked)."""
        (self.root / rel / tmp).unlink(missing_ok=True)


class ArrowFiles:
    """Any filesystem pyarrow opens by URI: temporary object, then rename to a free name."""

    def __init__(self, root: str) -> None:
        from pyarrow import fs

        self.fs, self.base = fs.FileSystem.from_uri(root)
        self.root = root.rstrip("/")

    def uri(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def _path(self, rel: str) -> str:
        return f"{self.base.rstrip('/')}/{rel}"

    def names(self, rel: str) -> list[str]:
        from pyarrow import fs

        selector = fs.FileSelector(self._path(rel), allow_not_found=True)
        return [info.base_name for info in self.fs.get_file_info(selector)]

    def read(self, rel: str) -> bytes:
        with self.fs.open_input_stream(self._path(rel)) as fh:
            return bytes(fh.read())

    def publish(self, rel: str, data: bytes, first: int) -> int:
        tmp = self.put_temp(rel, data)
        try:
            return self.link_temp(rel, tmp, first)
        finally:
            self.drop_temp(rel, tmp)

    def put_temp(self, rel: str, data: bytes) -> str:
        """Write ``data`` to a temporary object in ``rel``; its name."""
        self.fs.create_dir(self._path(rel), recursive=True)
        tmp = f".tmp-{uuid.uuid4().hex}"
        try:
            with self.fs.open_output_stream(self._path(f"{rel}/{tmp}")) as fh:
                fh.write(data)
        except BaseException:
            self.drop_temp(rel, tmp)  # a failed write leaves no temporary object
            raise
        return tmp

    def link_temp(self, rel: str, tmp: str, first: int) -> int:
        """Rename the temporary object to the first free version from ``first``."""
        from pyarrow import fs

        version = first
        while (
            self.fs.get_file_info(self._path(f"{rel}/v{version}.json")).type != fs.FileType.NotFound
        ):
            version += 1
        self.fs.move(self._path(f"{rel}/{tmp}"), self._path(f"{rel}/v{version}.json"))
        return version

    def drop_temp(self, rel: str, tmp: str) -> None:
        """Remove a temporary object (gone already when it was renamed)."""
        from pyarrow import fs

        path = self._path(f"{rel}/{tmp}")
        with contextlib.suppress(Exception):
            if self.fs.get_file_info(path).type != fs.FileType.NotFound:
                self.fs.delete_file(path)


class MountedFiles(LocalFiles):
    """A Databricks mount (``/dbfs``, ``/Volumes``, ``/Workspace``): file calls work, links do
    not, and a rename is a copy. A temporary file is renamed to the first free name (as on an
    object store, writers of one folder must be serialized by the caller)."""

    def _write(self, path: Path, data: bytes) -> None:
        path.write_bytes(data)

    def link_temp(self, rel: str, tmp: str, first: int) -> int:
        folder = self.root / rel
        version = first
        while (folder / f"v{version}.json").exists():
            version += 1
        os.rename(folder / tmp, folder / f"v{version}.json")
        return version


def files_at(root: str | Path) -> LocalFiles | ArrowFiles:
    """The files under ``root``: this machine's disk, a Databricks mount (``dbfs:/x`` read
    through ``/dbfs/x``), or a URI pyarrow opens (``s3://``, ``gs://``, ``abfs://``, ``hdfs://``).

    >>> import tempfile
    >>> type(files_at(tempfile.mkdtemp())).__name__, type(files_at("file:/tmp/h")).__name__
    ('LocalFiles', 'LocalFiles')
    >>> try:
    ...     files_at("dbfs:/mnt/dq/history")
    ... except InputError as err:
    ...     print(err.message.split(";")[0])
    dbfs:/mnt/dq/history is read through the mount /dbfs/mnt/dq/history, which this machine has not
    """
    text = str(root)
    local = local_path(text)
    if local is not None:
        return LocalFiles(str(local))
    mounted = mounted_path(text)
    if mounted is not None:
        if not Path("/" + mounted.parts[1]).is_dir():
            raise InputError(
                f"{text} is read through the mount {mounted}, which this machine has not; on "
                "Databricks give the path as it is, elsewhere a URI pyarrow opens (s3://, "
                "abfs://, gs://) or a local path",
                item_kind="path",
            )
        return MountedFiles(str(mounted))
    return ArrowFiles(text)
