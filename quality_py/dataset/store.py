"""A versioned, atomic, checksummed store of analyzer states on a filesystem.

Layout: ``<root>/<key>/v<N>.json``, one manifest per saved version, plus, for grouping analyzers,
their frequency states as parquet under ``<root>/<key>/frequencies/<unique id>/``. A save writes
the frequencies first (each under a fresh directory nobody else uses), then the manifest to a
temporary file, flushed, then *links* it to the next free version name: ``os.link`` fails if the
name exists, so concurrent writers never overwrite each other (the loser takes the next number),
and a crash leaves either the complete new version or none (temporary files and unreferenced
frequency directories are ignored). Every manifest carries the state format and a SHA-256 of its
content; a corrupt or incompatible file is a :class:`StateStoreError` naming it and the analyzer.

``root`` is a local path or any URI pyarrow opens (``s3://``, ``gs://``, ``hdfs://``,
``file://``): there a save writes a temporary object and renames it to the first free version.
Object stores have no rename-if-absent, so on them concurrent writers of the *same key* must be
serialized by the caller (one writer per partition key is the usual layout).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import uuid
from pathlib import Path
from typing import Any

from quality_py.dataset import analyzers as analyzer_module
from quality_py.dataset import grouping as grouping_module
from quality_py.dataset import sketches as sketch_module
from quality_py.dataset import states as state_module
from quality_py.dataset import times as time_module
from quality_py.dataset.analyzers import Analyzer
from quality_py.dataset.grouping import COUNT, FrequencyState, GroupingAnalyzer
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.states import STATE_FORMAT
from quality_py.errors import QualityError
from quality_py.gate import reads
from quality_py.storage import ArrowFiles, LocalFiles, files_at

_VERSION = re.compile(r"^v(\d+)\.json$")
#: The name each analyzer and state is stored under, written out (never derived from a class's
#: name): a renamed class keeps its entry's name and still reads every state saved before.
#: Never change a name here; tests/unit/test_state_store.py holds the list.
STORED_NAMES: dict[str, type] = {
    "ApproxCountDistinct": sketch_module.ApproxCountDistinct,
    "ApproxQuantile": sketch_module.ApproxQuantile,
    "CoMomentsState": state_module.CoMomentsState,
    "Completeness": analyzer_module.Completeness,
    "Compliance": analyzer_module.Compliance,
    "Correlation": analyzer_module.Correlation,
    "CountDistinct": grouping_module.CountDistinct,
    "DataType": analyzer_module.DataType,
    "Distinctness": grouping_module.Distinctness,
    "Distribution": grouping_module.Distribution,
    "Entropy": grouping_module.Entropy,
    "ExtremeState": state_module.ExtremeState,
    "FrequencyState": grouping_module.FrequencyState,
    "Histogram": grouping_module.Histogram,
    "BinCountsState": state_module.BinCountsState,
    "BucketsState": state_module.BucketsState,
    "HistogramBinned": analyzer_module.HistogramBinned,
    "MaxLength": analyzer_module.MaxLength,
    "MinLength": analyzer_module.MinLength,
    "Maximum": analyzer_module.Maximum,
    "LastWrite": time_module.LastWrite,
    "Newest": time_module.Newest,
    "Mean": analyzer_module.Mean,
    "Minimum": analyzer_module.Minimum,
    "MomentsState": state_module.MomentsState,
    "MutualInformation": grouping_module.MutualInformation,
    "PatternMatch": analyzer_module.PatternMatch,
    "RatioState": state_module.RatioState,
    "Size": analyzer_module.Size,
    "SizeState": state_module.SizeState,
    "SketchState": sketch_module.SketchState,
    "StandardDeviation": analyzer_module.StandardDeviation,
    "Sum": analyzer_module.Sum,
    "SumState": state_module.SumState,
    "TypeCountsState": state_module.TypeCountsState,
    "UniqueValueRatio": grouping_module.UniqueValueRatio,
    "Uniqueness": grouping_module.Uniqueness,
    "TimeBuckets": time_module.TimeBuckets,
}
_NAME_OF: dict[type, str] = {cls: name for name, cls in STORED_NAMES.items()}


def stored_name(obj: Any) -> str:
    """The name ``obj``'s class is stored under.

    >>> from quality_py.dataset.analyzers import Size
    >>> stored_name(Size())
    'Size'
    """
    name = _NAME_OF.get(type(obj))
    if name is None:
        raise StateStoreError(
            f"{type(obj).__name__} has no stored name: add it to STORED_NAMES "
            "(quality_py/dataset/store.py) to save its states",
            item_kind="state",
        )
    return name


class StateStoreError(QualityError):
    """A stored state is corrupt, incompatible or missing."""

    code = "STATE_STORE"


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _build(name: str, fields: dict[str, Any]) -> Any:
    """An analyzer or state of class ``name`` from its fields (no __init__ logic runs)."""
    cls = STORED_NAMES[name]
    if hasattr(cls, "from_dict"):
        return cls.from_dict(fields)
    expected = {f.name: f for f in dataclasses.fields(cls)}
    # a field added since the state was kept takes its default (``Minimum.kind``: a number)
    later = {
        n for n, f in expected.items() if n not in fields and f.default is not dataclasses.MISSING
    }
    if set(fields) | later != set(expected):
        raise TypeError(f"fields {sorted(fields)} != {sorted(expected)}")
    obj: Any = object.__new__(cls)
    for key in expected:
        value = fields[key] if key in fields else expected[key].default
        object.__setattr__(obj, key, tuple(value) if isinstance(value, list) else value)
    return obj


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, allow_nan=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _spark() -> Any:
    from quality_py.dataset.sketches import active_session

    spark = active_session()
    if spark is None:
        raise StateStoreError("frequency states are read and written with an active Spark session")
    return spark


@dataclasses.dataclass(frozen=True)
class StagedState:
    """A state written in full, its manifest under a temporary name no reader reads
    (:meth:`FileStateStore.stage`): :meth:`publish` makes it the key's latest version,
    :meth:`discard` removes it."""

    store: FileStateStore
    key: str
    temp: str

    def publish(self) -> int:
        """Make the staged state the key's latest version; returns its number."""
        first = (self.store.versions(self.key) or [0])[-1] + 1
        return self.store._files.link_temp(self.key, self.temp, first)

    def discard(self) -> None:
        """Remove the staged manifest (its frequency files, unreferenced, are never read)."""
        self.store._files.drop_temp(self.key, self.temp)


class FileStateStore:
    """States under ``root`` (a local path or a filesystem URI), by key and version.

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
        text = str(root)
        self.root = text
        self._files: LocalFiles | ArrowFiles = files_at(text)

    def _rel(self, key: str) -> str:
        parts = key.split("/")
        if not key or key.startswith("/") or ".." in parts or "" in parts or "\\" in key:
            raise StateStoreError(f"invalid state key {key!r}", item_kind="state")
        return key

    def versions(self, key: str) -> list[int]:
        """The saved versions of ``key``, ascending.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> store = FileStateStore(tempfile.mkdtemp())
        >>> [store.save("t", AnalysisResult({Size(): SizeState(n)})) for n in (3, 4)]
        [1, 2]
        >>> store.versions("t")
        [1, 2]
        """
        found = (_VERSION.match(n) for n in self._files.names(self._rel(key)))
        return sorted(int(m.group(1)) for m in found if m)

    def keys(self, folder: str) -> list[str]:
        """The keys directly under ``folder`` that have a saved version, sorted.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> store = FileStateStore(tempfile.mkdtemp())
        >>> _ = store.save("t/a", AnalysisResult({Size(): SizeState(1)}))
        >>> store.keys("t")
        ['t/a']
        """
        rel = self._rel(folder)
        names = sorted(n for n in self._files.names(rel) if not n.startswith("."))
        return [f"{rel}/{n}" for n in names if self.versions(f"{rel}/{n}")]

    def _encode(self, key: str, result: AnalysisResult) -> dict[str, Any]:
        items = [
            {
                "analyzer": stored_name(a),
                "args": _fields(a),
                "state_type": stored_name(s),
                "state": s.to_dict(),
            }
            for a, s in result.states.items()
        ]
        groups = []
        if result.frequencies:
            batch = f"frequencies/{uuid.uuid4().hex}"
            for i, ((columns, where), freq) in enumerate(result.frequencies.items()):
                rel = f"{batch}/k{i}"
                names = [f"c{j}" for j in range(len(columns))]
                picked = [f"`{c.replace('`', '``')}`" for c in freq.frame.columns[: len(columns)]]
                frame = freq.frame.select(*picked, COUNT).toDF(*names, COUNT)
                frame.write.parquet(self._files.uri(f"{key}/{rel}"))
                groups.append(
                    {
                        "columns": list(columns),
                        "where": where,
                        "path": rel,
                        "schema": json.loads(frame.schema.json()),
                        "files": self._pin(f"{key}/{rel}"),
                    }
                )
        grouping = [{"analyzer": stored_name(a), "args": _fields(a)} for a in result.grouping]
        return {
            "format": STATE_FORMAT,
            "analyzers": items,
            "frequencies": groups,
            "grouping": grouping,
        }

    def _pin(self, folder: str) -> list[dict[str, Any]]:
        """Name, size and SHA-256 of every data file Spark wrote under ``folder``."""
        pins = []
        for name in sorted(self._files.names(folder)):
            if name.startswith(("_", ".")):  # _SUCCESS, checksum side files
                continue
            data = self._files.read(f"{folder}/{name}")
            pins.append(
                {"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            )
        return pins

    def _pinned_paths(self, folder: str, pins: Any, shown: str) -> list[str]:
        """The URIs of the pinned data files, each checked; lost or changed data is an error."""
        if not isinstance(pins, list):
            raise StateStoreError(f"{shown}: the frequency files are not pinned", item_kind="state")
        paths = []
        for pin in pins:
            name = str(pin.get("name", "")) if isinstance(pin, dict) else ""
            if not name or "/" in name or "\\" in name or name.startswith("."):
                raise StateStoreError(f"{shown}: bad data file entry {pin!r}", item_kind="state")
            rel = f"{folder}/{name}"
            where = self._files.uri(rel)
            try:
                data = self._files.read(rel)
            except (FileNotFoundError, OSError):
                raise StateStoreError(
                    f"{shown}: data file {where} is missing; the state cannot be read",
                    item_kind="state",
                ) from None
            if len(data) != pin.get("size"):
                raise StateStoreError(
                    f"{shown}: data file {where} has {len(data)} bytes, the manifest pins "
                    f"{pin.get('size')}; the state cannot be read",
                    item_kind="state",
                )
            if hashlib.sha256(data).hexdigest() != pin.get("sha256"):
                raise StateStoreError(
                    f"{shown}: data file {where} was changed (SHA-256 differs from the "
                    "manifest); the state cannot be read",
                    item_kind="state",
                )
            paths.append(where)
        return paths

    def save(self, key: str, result: AnalysisResult) -> int:
        """Write a new version of ``key``; returns its number (never overwrites one).

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> store = FileStateStore(tempfile.mkdtemp())
        >>> store.save("flights/2013-01", AnalysisResult({Size(): SizeState(27004)}))
        1
        """
        return self.stage(key, result).publish()

    def stage(self, key: str, result: AnalysisResult) -> StagedState:
        """Write everything of a new version of ``key`` but the manifest that makes it the
        latest: the slow part (grouping analyzers' frequencies, one Spark job each) done before
        an output commit, the manifest written under a temporary name, then published by one
        link or rename right after the commit (:meth:`StagedState.publish`). A staged state
        never published is never read.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> store = FileStateStore(tempfile.mkdtemp())
        >>> staged = store.stage("t", AnalysisResult({Size(): SizeState(3)}))
        >>> store.versions("t"), staged.publish(), store.versions("t")
        ([], 1, [1])
        """
        rel = self._rel(key)
        payload = self._encode(rel, result)
        doc = {**payload, "sha256": _digest(payload)}
        data = json.dumps(doc, sort_keys=True, allow_nan=True).encode("utf-8")
        return StagedState(self, rel, self._files.put_temp(rel, data))

    def load(self, key: str, version: int | None = None) -> AnalysisResult:
        """Version ``version`` of ``key`` (default: the latest), checked against its checksum.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> store = FileStateStore(tempfile.mkdtemp())
        >>> _ = store.save("t", AnalysisResult({Size(): SizeState(3)}))
        >>> store.load("t", 1).metrics[Size()]
        3.0
        """
        versions = self.versions(key)
        if not versions:
            raise StateStoreError(
                f"no stored state for {key!r} under {self.root}", item_kind="state"
            )
        number = versions[-1] if version is None else version
        path = f"{self._rel(key)}/v{number}.json"
        shown = self._files.uri(path)
        try:
            doc = json.loads(self._files.read(path).decode("utf-8"))
        except (FileNotFoundError, OSError) as err:
            if number not in versions:
                raise StateStoreError(f"{shown}: no such version", item_kind="state") from None
            raise StateStoreError(f"{shown}: cannot read ({err})", item_kind="state") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise StateStoreError(f"{shown}: not a state file ({err})", item_kind="state") from None
        if not isinstance(doc, dict):
            raise StateStoreError(f"{shown}: not a state file", item_kind="state")
        expected = doc.pop("sha256", None)
        if expected != _digest(doc):
            raise StateStoreError(
                f"{shown}: checksum mismatch, the file is corrupt", item_kind="state"
            )
        return self._decode(key, doc, shown)

    def _decode(self, key: str, doc: dict[str, Any], shown: str) -> AnalysisResult:
        if doc.get("format") != STATE_FORMAT:
            raise StateStoreError(
                f"{shown}: state format {doc.get('format')!r}, this version reads {STATE_FORMAT}",
                item_kind="state",
            )
        states = {}
        for item in doc.get("analyzers", []):
            analyzer = self._object(item, shown, Analyzer)
            try:
                states[analyzer] = _build(item["state_type"], item["state"])
            except (KeyError, TypeError, ValueError) as err:
                raise StateStoreError(
                    f"{shown}: cannot read the state of {analyzer.name}: {err}", item_kind="state"
                ) from None
        grouping = tuple(self._object(g, shown, GroupingAnalyzer) for g in doc.get("grouping", []))
        frequencies = {}
        for group in doc.get("frequencies", []):
            columns = tuple(group["columns"])
            from pyspark.sql.types import StructType

            schema = StructType.fromJson(group["schema"])  # given: no job to infer it
            paths = self._pinned_paths(f"{key}/{group['path']}", group.get("files"), shown)
            if paths:  # exactly the pinned files: a stray file in the folder is not read
                frame = reads.files(_spark(), "parquet", paths, schema=schema)
            else:
                frame = _spark().createDataFrame([], schema)
            frame = frame.toDF(*columns, COUNT)
            frequencies[(columns, group["where"])] = FrequencyState(columns, frame)
        return AnalysisResult(states, frequencies, grouping)

    def _object(self, item: dict[str, Any], shown: str, kind: type) -> Any:
        try:
            obj = _build(item["analyzer"], item["args"])
        except (KeyError, TypeError, ValueError) as err:
            raise StateStoreError(
                f"{shown}: cannot read the analyzer {item.get('analyzer')!r}: {err}",
                item_kind="state",
            ) from None
        if not isinstance(obj, kind):
            raise StateStoreError(
                f"{shown}: {item['analyzer']} is not an analyzer", item_kind="state"
            )
        return obj
