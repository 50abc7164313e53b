"""A versioned, atomic, checksummed store of analyzer states on a filesystem.

Layout: ``<root>/<key>/v<N>.json``, one file per saved version. A save writes a temporary file,
flushes it to disk, then *links* it to the next free version name: ``os.link`` fails if the name
exists, so two concurrent writers never overwrite each other (the loser takes the next number),
and a crash leaves either the complete new version or none (temporary files are ignored).
Every file carries the state format and a SHA-256 of its content; a corrupt or incompatible file
is an error naming the file and, where it can, the analyzer.

Frequency states (grouping analyzers) are DataFrames and are not stored here yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from dataclasses import fields
from pathlib import Path
from typing import Any

from quality_py.dataset import analyzers as analyzer_module
from quality_py.dataset import states as state_module
from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.states import STATE_FORMAT
from quality_py.errors import QualityError

_VERSION = re.compile(r"^v(\d+)\.json$")


class StateStoreError(QualityError):
    """A stored state is corrupt, incompatible or missing."""

    code = "STATE_STORE"


def _encode(result: AnalysisResult) -> dict[str, Any]:
    items = []
    for analyzer, state in result.states.items():
        args = {f.name: getattr(analyzer, f.name) for f in fields(analyzer)}
        items.append(
            {
                "analyzer": type(analyzer).__name__,
                "args": args,
                "state_type": type(state).__name__,
                "state": state.to_dict(),
            }
        )
    return {"format": STATE_FORMAT, "analyzers": items}


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, allow_nan=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _decode(doc: dict[str, Any], path: Path) -> AnalysisResult:
    if doc.get("format") != STATE_FORMAT:
        raise StateStoreError(
            f"{path}: state format {doc.get('format')!r}, this version reads {STATE_FORMAT}",
            item_kind="state",
        )
    states = {}
    for item in doc["analyzers"]:
        try:
            cls = getattr(analyzer_module, item["analyzer"])
            state_cls = getattr(state_module, item["state_type"])
            analyzer = cls(**item["args"])
            state = state_cls(**item["state"])
        except (AttributeError, TypeError, KeyError) as err:
            raise StateStoreError(
                f"{path}: cannot read the state of {item.get('analyzer')!r}: {err}",
                item_kind="state",
            ) from None
        if not isinstance(analyzer, Analyzer):
            raise StateStoreError(
                f"{path}: {item['analyzer']} is not an analyzer", item_kind="state"
            )
        states[analyzer] = state
    return AnalysisResult(states, {a: a.metric(s) for a, s in states.items()})


class FileStateStore:
    """States under ``root`` (a local path), by key and version.

    >>> import tempfile
    >>> from quality_py.dataset.analyzers import Size
    >>> from quality_py.dataset.states import SizeState
    >>> store = FileStateStore(tempfile.mkdtemp())
    >>> store.save("flights/2013-01", AnalysisResult({Size(): SizeState(27004)}))
    1
    >>> store.load("flights/2013-01").metrics[Size()]
    27004.0
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _dir(self, key: str) -> Path:
        if not key or key.startswith("/") or ".." in Path(key).parts:
            raise StateStoreError(f"invalid state key {key!r}", item_kind="state")
        return self.root / key

    def versions(self, key: str) -> list[int]:
        """The saved versions of ``key``, ascending."""
        folder = self._dir(key)
        if not folder.is_dir():
            return []
        found = (_VERSION.match(p.name) for p in folder.iterdir())
        return sorted(int(m.group(1)) for m in found if m)

    def save(self, key: str, result: AnalysisResult) -> int:
        """Write a new version of ``key``; returns its number (never overwrites one)."""
        folder = self._dir(key)
        folder.mkdir(parents=True, exist_ok=True)
        payload = _encode(result)
        doc = {**payload, "sha256": _digest(payload)}
        tmp = folder / f".tmp-{uuid.uuid4().hex}"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, sort_keys=True, allow_nan=True)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            version = (self.versions(key) or [0])[-1] + 1
            while True:
                try:
                    os.link(tmp, folder / f"v{version}.json")  # atomic, fails if taken
                    return version
                except FileExistsError:
                    version += 1  # a concurrent writer took it: take the next one
        finally:
            tmp.unlink(missing_ok=True)

    def load(self, key: str, version: int | None = None) -> AnalysisResult:
        """Version ``version`` of ``key`` (default: the latest), checked against its checksum."""
        versions = self.versions(key)
        if not versions:
            raise StateStoreError(
                f"no stored state for {key!r} under {self.root}", item_kind="state"
            )
        number = versions[-1] if version is None else version
        path = self._dir(key) / f"v{number}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StateStoreError(f"{path}: no such version", item_kind="state") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise StateStoreError(f"{path}: not a state file ({err})", item_kind="state") from None
        expected = doc.pop("sha256", None)
        if expected != _digest(doc):
            raise StateStoreError(
                f"{path}: checksum mismatch, the file is corrupt", item_kind="state"
            )
        return _decode(doc, path)
