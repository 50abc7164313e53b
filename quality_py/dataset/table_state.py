"""A growing table's analyzer states, one per partition (Deequ's differential paper, issue 55).

A batch is one partition of a table (a day appended, a partition rewritten). Its analyzer states
are kept in a :class:`~quality_py.dataset.store.FileStateStore` under
``<location>/partitions/<partition>/``; the table's metrics are every stored partition's latest
state merged with the batch's, which is exactly what a recomputation over the whole table gives
(the merge laws of ``dataset/states.py``), at the cost of the batch alone.

- Re-running a partition **replaces** its state: the batch's state stands for its partition and
  the stored one of that partition is left out of the merge, never added twice.
- The state is saved by :meth:`TableState.publish`, called by whoever decides the batch belongs
  to the table (a verification that passes, a published run): a refused batch leaves the stored
  state as it was.
- A partition stored without a state for an analyzer the checks now need (the checks changed
  after it was stored) cannot be answered for: :meth:`TableState.table_result` refuses, naming
  the analyzer and the partitions to re-run, rather than answer for part of the table while
  claiming the whole.
- Analyzers that compare the data with its schema or another frame (``dataset/comparisons.py``)
  have no mergeable state and are refused with a table state.
- A partition's state holds its own rows only: a batch that has a column named as a key of its
  partition is kept only when every row has the partition's value there
  (:func:`rows_elsewhere`). A row of another partition kept here would be counted twice once
  that partition is re-run from its own rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quality_py.dataset.comparisons import DirectAnalyzer
from quality_py.dataset.grouping import FrequencyState, GroupingAnalyzer, GroupKey
from quality_py.dataset.runner import AnalysisResult
from quality_py.dataset.store import FileStateStore, StagedState, StateStoreError
from quality_py.model.file_names import decode_part, file_name
from quality_py.model.types import DataFrame
from quality_py.sql.snippets import quoted, string_literal

_PAIR = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$")
_FOLDER = "partitions"
_VIEW = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def parse_partition(text: str) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE[,KEY=VALUE...]`` as ordered pairs (the form ``--partition`` takes).

    >>> parse_partition("day=2013-01-01")
    (('day', '2013-01-01'),)
    >>> parse_partition("year=2013, month=1")
    (('year', '2013'), ('month', '1'))
    """
    pairs = []
    for item in text.split(","):
        found = _PAIR.match(item)
        if found is None or not found.group(2).strip():
            raise StateStoreError(
                f"partition {text!r}: each part is KEY=VALUE (a column name, '=', a value), "
                "for example day=2013-01-01 or year=2013,month=1",
                item_kind="partition",
            )
        pairs.append((found.group(1), found.group(2).strip()))
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise StateStoreError(f"partition {text!r} names a key twice", item_kind="partition")
    return tuple(pairs)


def _folder_name(pairs: tuple[tuple[str, str], ...]) -> str:
    """One name per partition whatever the order its keys were given in, and whatever their
    case (Spark's column names are case-insensitive): ``Month=1,year=2013`` is
    ``year=2013,month=1``, never a second partition counted twice."""
    canonical = sorted((k.lower(), v) for k, v in pairs)
    return file_name("partition", *(f"{k}={v}" for k, v in canonical))


def _has_state(result: AnalysisResult, analyzer: Any) -> bool:
    """Whether a stored partition can stand for ``analyzer``: its state, or for a grouping
    analyzer the value frequencies of its columns and filter (which any analyzer of that key
    reads)."""
    if isinstance(analyzer, GroupingAnalyzer):
        return analyzer.key in result.frequencies
    return analyzer in result.states


def _key_names(shown: str) -> list[str]:
    return sorted(pair.split("=", 1)[0] for pair in shown.split(","))


def _is_partition(key: str) -> bool:
    return key.rsplit("/", 1)[-1].startswith("partition.")


def _shown(key: str) -> str:
    """A stored partition's ``KEY=VALUE`` text from its key."""
    return ",".join(decode_part(p) for p in key.rsplit("/", 1)[-1].split(".")[1:])


@dataclass(frozen=True)
class TableState:
    """The stored states of a table's partitions, and the partition the batch at hand is.

    ``location``: a folder or filesystem URI of the table's own (see
    :class:`~quality_py.dataset.store.FileStateStore`); ``partition``: the batch's partition,
    ``KEY=VALUE`` pairs (a mapping, or the text ``"day=2013-01-01"``); ``view``: the name rules
    give the table itself in ``in_reference`` (``in_reference('orders', 'order_id',
    parent_id)``: a foreign key into the table), answered from the partitions' key indexes and
    the batch, never the table's rows (:mod:`quality_py.actions.table_rows`).

    >>> import tempfile
    >>> from quality_py.dataset.analyzers import Size
    >>> from quality_py.dataset.states import SizeState
    >>> root = tempfile.mkdtemp()
    >>> _ = TableState(root, "day=1").publish(AnalysisResult({Size(): SizeState(10)}), rows=None)
    >>> today = TableState(root, "day=2")
    >>> today.table_result(AnalysisResult({Size(): SizeState(3)})).metrics[Size()]
    13.0
    >>> rerun = TableState(root, "day=1")  # replaces day 1's state, never adds to it
    >>> rerun.table_result(AnalysisResult({Size(): SizeState(4)})).metrics[Size()]
    4.0
    """

    location: str | Path
    partition: Mapping[str, str] | str
    view: str | None = None
    pairs: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    #: the partitions' states read so far, by key and version (a run reads them for its rules
    #: over rows and again for its checks: the files are read and checked once)
    loaded: dict[tuple[str, int], AnalysisResult] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.partition, str):
            pairs = parse_partition(self.partition)
        else:
            pairs = tuple((str(k), str(v)) for k, v in self.partition.items())
            if not pairs:
                raise StateStoreError("a partition names at least one KEY=VALUE")
            parse_partition(",".join(f"{k}={v}" for k, v in pairs))  # the same rules
        if ".." in _folder_name(pairs):  # shortened with a digest: no longer read back
            raise StateStoreError(
                f"partition {self.partition!r} is too long to name a stored state",
                item_kind="partition",
            )
        if self.view is not None and not _VIEW.match(self.view):
            raise StateStoreError(
                f"the table's view name {self.view!r} is not a plain name (letters, digits and "
                "underscores, not starting with a digit): rules name it in in_reference",
                item_kind="partition",
            )
        object.__setattr__(self, "pairs", pairs)

    @property
    def store(self) -> FileStateStore:
        """The store the partitions' states are kept in."""
        return FileStateStore(self.location)

    @property
    def key(self) -> str:
        """The store key of this batch's partition."""
        return f"{_FOLDER}/{_folder_name(self.pairs)}"

    def partitions(self) -> list[str]:
        """Every stored partition's ``KEY=VALUE`` text, sorted (this batch's included when it was
        stored before).

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> root = tempfile.mkdtemp()
        >>> _ = TableState(root, "day=2").publish(AnalysisResult({Size(): SizeState(1)}), rows=None)
        >>> TableState(root, "day=1").partitions()
        ['day=2']
        """
        return sorted(_shown(k) for k in self.store.keys(_FOLDER) if _is_partition(k))

    def others(self) -> dict[str, AnalysisResult]:
        """The latest stored state of every partition but this batch's, by partition.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> root = tempfile.mkdtemp()
        >>> _ = TableState(root, "day=1").publish(AnalysisResult({Size(): SizeState(5)}), rows=None)
        >>> TableState(root, "day=2").others()["day=1"].metrics[Size()]
        5.0
        """
        store = self.store
        out = {}
        for key in store.keys(_FOLDER):
            if not _is_partition(key) or key == self.key:
                continue
            version = store.versions(key)[-1]
            if (key, version) not in self.loaded:  # a version is never overwritten: load once
                self.loaded[(key, version)] = store.load(key, version)
            out[_shown(key)] = self.loaded[(key, version)]
        return out

    def table_result(self, batch: AnalysisResult) -> AnalysisResult:
        """The table's states: every other partition's stored state merged with ``batch`` (this
        partition's new state). Refuses, naming them, analyzers some partition has no state for
        and analyzers that have no mergeable state.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> root = tempfile.mkdtemp()
        >>> _ = TableState(root, "day=1").publish(AnalysisResult({Size(): SizeState(5)}), rows=None)
        >>> batch = AnalysisResult({Size(): SizeState(2)})
        >>> TableState(root, "day=2").table_result(batch).metrics[Size()]
        7.0
        """
        require_mergeable(batch.direct)
        others = self.others()
        self._same_keys(others)
        needed: list[Any] = [*batch.states, *batch.grouping]
        for analyzer in needed:
            missing = [p for p, r in others.items() if not _has_state(r, analyzer)]
            if missing:
                self._unknown(f"{analyzer.name}: no stored state", "the check", missing, "analyzer")
        if not others:
            return batch
        trimmed = [  # only what the batch needs: the grouping analyzers are the batch's
            AnalysisResult(
                {a: s for a, s in r.states.items() if a in batch.states},
                {k: f for k, f in r.frequencies.items() if k in batch.frequencies},
            )
            for r in others.values()
        ]
        return AnalysisResult.merge_all([*trimmed, batch])

    def _unknown(self, what: str, added: str, missing: list[str], kind: str) -> None:
        """Refuse a table whose ``missing`` partitions were kept before ``added`` was added."""
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise StateStoreError(
            f"{what} for {len(missing)} partition(s) of the table at {self.location} ({shown}), "
            f"kept before {added} was added: the table's value cannot be known from the states. "
            "Re-run those partitions with this table state (a backfill), then this one",
            item_kind=kind,
        )

    def _same_keys(self, others: Mapping[str, AnalysisResult]) -> None:
        mine = _key_names(_shown(self.key))
        for partition in others:
            if _key_names(partition) != mine:
                raise StateStoreError(
                    f"partition {self.partition!r} is keyed by {', '.join(mine)}, but the table "
                    f"at {self.location} keeps partition {partition!r}: one table's partitions "
                    "share their keys (a table state per table)",
                    item_kind="partition",
                )

    def key_counts(self, keys: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], FrequencyState]:
        """Every other partition's rows per key of each key set, merged (a rule over rows'
        key index: :mod:`quality_py.actions.table_rows`); empty when no other partition is
        kept. Refuses, naming them, partitions kept without a key set's index (kept before the
        rule was added).

        >>> import tempfile
        >>> TableState(tempfile.mkdtemp(), "day=1").key_counts([("k",)])
        {}
        """
        out = {}
        for key in keys:
            shown = f"no stored count of rows per ({', '.join(key)})"
            parts = self.kept_indexes((tuple(key), None), shown, "a rule over those keys")
            if parts:
                out[tuple(key)] = FrequencyState.union(parts)
        return out

    def kept_indexes(self, name: GroupKey, shown: str, added: str) -> list[FrequencyState]:
        """Every other partition's kept index ``name`` (empty when no other partition is kept);
        refuses, naming them, partitions kept without it (``shown``: what is missing, ``added``:
        what needs it).

        >>> import tempfile
        >>> TableState(tempfile.mkdtemp(), "day=1").kept_indexes((("k",), None), "", "")
        []
        """
        others = self.others()
        self._same_keys(others)
        missing = [p for p, r in others.items() if name not in r.frequencies]
        if missing:
            self._unknown(shown, added, missing, "key index")
        return [r.frequencies[name] for r in others.values()]

    def publish(self, batch: AnalysisResult, *, rows: DataFrame | None) -> int:
        """Save ``batch`` as this partition's state (a new version: the partition's earlier
        states stay readable, the latest is the one merged); returns the version.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> root = tempfile.mkdtemp()
        >>> [TableState(root, "day=1").publish(AnalysisResult({Size(): SizeState(n)}), rows=None)
        ...  for n in (5, 6)]
        [1, 2]
        """
        return self.stage(batch, rows=rows).publish()

    def stage(self, batch: AnalysisResult, *, rows: DataFrame | None) -> StagedState:
        """This partition's new state written but not yet the latest (see
        :meth:`~quality_py.dataset.store.FileStateStore.stage`): a run stages it before its
        outputs' commit and publishes it right after. ``rows`` is the batch the state was
        computed from (None: a state made without a frame); one holding rows of another
        partition is refused (:func:`rows_elsewhere`), nothing written.

        >>> import tempfile
        >>> from quality_py.dataset.analyzers import Size
        >>> from quality_py.dataset.states import SizeState
        >>> staged = TableState(tempfile.mkdtemp(), "day=1").stage(
        ...     AnalysisResult({Size(): SizeState(5)}), rows=None)
        >>> staged.publish()
        1
        """
        if rows is not None:
            found = rows_elsewhere(self.pairs, rows)
            if found:
                raise StateStoreError(
                    f"the batch of partition {_shown(self.key)} holds rows of other partitions "
                    f"({', '.join(found)}): a partition's state must count its own rows only, "
                    "or a row counted here is counted again when its partition is re-run. Keep "
                    "each partition's rows apart, or name the batch by a key that is no column "
                    "(like load_day=...: each load is then a partition); nothing was kept",
                    item_kind="partition",
                )
        return self.store.stage(self.key, batch)


#: the value Hive and Spark give a partition whose key is null
_NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"
#: types of columns that are never a partition's (text does not cast to them)
_NOT_PARTITION_TYPES = ("struct<", "array<", "map<", "variant")


def rows_elsewhere(pairs: Sequence[tuple[str, str]], rows: DataFrame) -> list[str]:
    """Up to three of ``rows``' values that are not their partition's, as ``key=value`` texts
    (one job; none when ``rows`` has no column named as a key, in any case). The partition's
    value is read as the column's type (``month=01`` is the number 1); a column whose type
    cannot read it is not the partition's (the flights' ``day`` of the month, a number, beside
    ``day=2013-01-02``) and is not compared.

    >>> df = spark.createDataFrame([("2013-01-02", 2, [1])], "day string, n int, a array<int>")
    >>> df = df.union(spark.createDataFrame([("2013-01-01", 1, [2])], df.schema))
    >>> rows_elsewhere([("day", "2013-01-02")], df), rows_elsewhere([("n", "x"), ("a", "1")], df)
    (['day=2013-01-01'], [])
    """
    fields = {f.name.lower(): f for f in rows.schema.fields}
    tests, shown = [], []
    for key, value in pairs:
        found = fields.get(key.lower())
        kind = found.dataType.simpleString() if found is not None else ""
        if found is None or kind.startswith(_NOT_PARTITION_TYPES):
            continue  # no such column, or one no partition value can be (no cast from text)
        column = quoted(found.name)
        read = f"try_cast({string_literal(value)} AS {kind})"
        tests.append(
            f"{column} IS NOT NULL"
            if value == _NULL_PARTITION
            else f"({read} IS NOT NULL AND NOT {column} <=> {read})"
        )
        shown.append(f"concat({string_literal(found.name + '=')}, coalesce(CAST({column} AS "
                     f"STRING), {string_literal(_NULL_PARTITION)}))")  # fmt: skip
    if not tests:
        return []
    text = "concat_ws(',', " + ", ".join(shown) + ")"
    found_rows = rows.where(" OR ".join(tests)).selectExpr(text).distinct().limit(3).collect()
    return sorted(str(r[0]) for r in found_rows)


def require_mergeable(analyzers: Iterable[Any]) -> None:
    """Refuse analyzers that have no mergeable state (they compare the batch with its schema or
    another frame): with a table state they cannot answer for the table.

    >>> from quality_py.dataset.analyzers import Size
    >>> require_mergeable([Size()])
    """
    direct = sorted({a.name for a in analyzers if isinstance(a, DirectAnalyzer)})
    if direct:
        raise StateStoreError(
            f"{', '.join(direct)} compare(s) the batch with its schema or another frame and has "
            "no state to merge: with a table state it cannot answer for the table; check it "
            "without a table state, or leave it out",
            item_kind="analyzer",
        )


__all__ = ["TableState", "parse_partition", "require_mergeable"]
