"""One answer to "where does this path live?" for every reader and writer (issue 39): the
publisher, the history, the state store and blooms all ask quality_py.gate.locations. Before,
``dbfs:/x`` was remote to the publisher but a local folder named ``dbfs:`` to the history."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quality_py.dataset.store import FileStateStore
from quality_py.errors import InputError
from quality_py.gate.locations import local_path, mounted_path
from quality_py.history import FileMetricsRepository
from quality_py.storage import LocalFiles, MountedFiles, files_at

#: (spelling, local path, mounted path), by hand from Databricks' documented mounts: dbfs:/x is
#: /dbfs/x on a driver, Unity Catalog volumes and workspace files keep their paths.
CASES = [
    ("out/history", Path("out/history"), None),
    ("file:/tmp/h", Path("/tmp/h"), None),
    ("file:///tmp/h", Path("/tmp/h"), None),
    ("dbfs:/mnt/dq/history", None, Path("/dbfs/mnt/dq/history")),
    ("DBFS:/mnt/dq", None, Path("/dbfs/mnt/dq")),
    ("dbfs:/Volumes/main/dq/v/h", None, Path("/Volumes/main/dq/v/h")),
    ("/dbfs/mnt/dq", None, Path("/dbfs/mnt/dq")),
    ("/Volumes/main/dq/v", None, Path("/Volumes/main/dq/v")),
    ("/Workspace/Users/a/h", None, Path("/Workspace/Users/a/h")),
    ("s3a://bucket/dq/history", None, None),
    ("abfss://c@acct.dfs.core.windows.net/h", None, None),
]


@pytest.mark.parametrize(("spelling", "local", "mounted"), CASES)
def test_each_spelling_lives_in_one_place(
    spelling: str, local: Path | None, mounted: Path | None
) -> None:
    assert local_path(spelling) == local
    assert mounted_path(spelling) == mounted
    assert local is None or mounted is None  # never both


@pytest.mark.parametrize("root", ["dbfs:/mnt/dq/history", "/Volumes/main/dq/v/history"])
def test_a_mount_this_machine_lacks_is_refused_not_created(
    root: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for opener in (files_at, FileMetricsRepository, FileStateStore):
        with pytest.raises(InputError) as caught:
            opener(root)
        assert "which this machine has not" in caught.value.message
    assert list(tmp_path.iterdir()) == []  # no folder named "dbfs:" or "Volumes"


def test_local_roots_are_local_files(tmp_path: Path) -> None:
    assert type(files_at(str(tmp_path))) is LocalFiles
    assert type(files_at(f"file:{tmp_path}")) is LocalFiles
    assert files_at(f"file:{tmp_path}").root == tmp_path


def test_a_mount_publishes_without_links_and_never_overwrites(tmp_path: Path) -> None:
    """A Databricks mount has no hard links: versions are claimed by rename to a free name."""
    files = MountedFiles(str(tmp_path))
    assert [files.publish("k", b"one", 1), files.publish("k", b"two", 1)] == [1, 2]
    assert files.read("k/v1.json") == b"one" and files.read("k/v2.json") == b"two"
    assert sorted(os.listdir(tmp_path / "k")) == ["v1.json", "v2.json"]  # no temporary left
