"""Durable files: atomic, never-overwriting publication of small files on a local path or any
filesystem pyarrow opens by URI (the state store and the metrics history write this way).

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
        folder = self.root / rel
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".tmp-{uuid.uuid4().hex}"
        try:  # a failed write (a full disk) leaves no temporary file behind
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            version = first
            while True:
                try:
                    os.link(tmp, folder / f"v{version}.json")  # atomic, fails if taken
                    return version
                except FileExistsError:
                    version += 1  # a concurrent writer took it: take the next one
        finally:
            tmp.unlink(missing_ok=True)


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
        from pyarrow import fs

        self.fs.create_dir(self._path(rel), recursive=True)
        tmp = self._path(f"{rel}/.tmp-{uuid.uuid4().hex}")
        try:
            with self.fs.open_output_stream(tmp) as fh:
                fh.write(data)
            version = first
            while (
                self.fs.get_file_info(self._path(f"{rel}/v{version}.json")).type
                != fs.FileType.NotFound
            ):
                version += 1
            self.fs.move(tmp, self._path(f"{rel}/v{version}.json"))
            return version
        except BaseException:
            with contextlib.suppress(Exception):  # a failed write leaves no temporary object
                self.fs.delete_file(tmp)
            raise
