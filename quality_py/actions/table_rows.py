"""Rules over rows that answer for a growing table (issue 55): a run with a table state counts a
key's rows in the whole table, not the batch alone.

Each partition keeps a **key index** per key set its rules partition by: the key's values with
their row counts (a :class:`~quality_py.dataset.grouping.FrequencyState`, the mergeable state a
grouping check keeps, stored with the partition's state). A run joins the batch, null-safely, to
the other partitions' counts of each key set (one left join per key set: the counts hold one row
per key, so no row is repeated) and reads ``COUNT(*) OVER (PARTITION BY k)`` as the batch's count
plus the table's: ``is_unique(k)``, ``is_unique_nulls_equal(...)`` and group limits
(``count(*) OVER (PARTITION BY g) <= n``) then answer for the table, at the cost of the batch
and the index, never the table's rows.

Foreign keys into the table itself: a table state may name the view rules give the table
(``TableState(..., view="orders")``); then ``in_reference('orders', 'order_id', parent_id)``
tests ``parent_id`` against the **table's** ``order_id`` values: the other partitions' key index
of ``(order_id)`` (kept for the purpose) and the batch's own values, read as a temporary view of
those keys alone (left in the session: a lazy plan reads it whenever it runs). Any other read
of that view (a lookup of another column) is refused, naming the rule.

Keep-one (``row_number() OVER (PARTITION BY k ORDER BY ...) = 1``): each partition keeps a
**first-row index** per such window, its first row of each key's order values
(:mod:`quality_py.sql.table_firsts`); a run joins the batch to the first of the other
partitions' kept rows of its key and passes a row first in the batch only when it comes before
that one.

Only counts of rows and keep-one can be answered from the indexes. Any other window over a key
(a rank, a sum, ``row_number`` compared otherwise), a count of a column's values or a key that
is not a plain column is refused with a table state, naming the rule, rather than answered for
the batch while the run claims the table.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import Any

from quality_py.dataset.grouping import COUNT, FrequencyState, GroupKey
from quality_py.dataset.table_state import TableState
from quality_py.errors import ModelError, item_text
from quality_py.model.types import DataFrame
from quality_py.sql.compiler import CompiledRule, CompiledSuite
from quality_py.sql.own_table import KEYS_VIEW, own_references, read_keys_from
from quality_py.sql.snippets import quoted
from quality_py.sql.table_counts import KeySet, add_table_counts, counted_keys
from quality_py.sql.table_firsts import FirstRows, add_first_rows, first_rows
from quality_py.sql.windows import key_sets as key_sets_of

#: The table's count of a key set's key, joined onto the batch (hidden, never in an output)
_COUNT_COLUMN = "__qp_table_count_{}"
_KEY_COLUMN = "__qp_table_key_{}_{}"
#: The other partitions' first row of a key, for keep-one (hidden, never in an output)
_FIRST_KEY = "__qp_first_key_{}_{}"
_FIRST_VALUE = "__qp_first_{}_{}"
_FIRST_PRESENT = "__qp_first_{}"
_RANK = "__qp_first_rank"


def _windows(rule: CompiledRule, names: dict[str, str]) -> tuple[list[KeySet], list[FirstRows]]:
    """The key sets ``rule`` counts rows by and the first-row indexes its keep-one windows
    read; a window neither answers is refused."""
    firsts = first_rows(rule.tree, names)
    good = {shown: found for found, shown in firsts if found is not None}
    bad = {shown for found, shown in firsts if found is None}
    counts = []
    for keys, shown in counted_keys(rule.tree, names):
        if keys is not None:
            counts.append(keys)
        elif shown in bad or shown not in good:
            raise ModelError(
                f"{item_text('rule', rule.rule_id, rule.name)} computes {shown}: with a table "
                "state a rule over rows answers for the table from each partition's index of "
                "its keys, which answers COUNT(*) OVER (PARTITION BY columns) (is_unique, "
                "group limits) and row_number() OVER (PARTITION BY columns ORDER BY ...) = 1 "
                "(keep-one) and nothing else; run this rule without a table state, or write it "
                "in one of those forms",
                code="TABLE_ROWS",
            )
    return counts, list(good.values())


def indexes(
    compiled: CompiledSuite, columns: Sequence[str]
) -> tuple[tuple[KeySet, ...], tuple[FirstRows, ...]]:
    """The key sets (input column names) the rules count rows by and the first-row indexes
    their keep-one windows read, each sorted, from one pass over the rules; refuses what no
    index answers (see the module)."""
    names = {c.lower(): c for c in columns}
    counts: set[KeySet] = set()
    firsts: set[FirstRows] = set()
    for rule in compiled.rules:
        found_counts, found_firsts = _windows(rule, names)
        counts.update(found_counts)
        firsts.update(found_firsts)
    return tuple(sorted(counts)), tuple(sorted(firsts))


def referenced_keys(
    compiled: CompiledSuite, view: str | None, columns: Sequence[str]
) -> tuple[KeySet, ...]:
    """The key sets of the table (input column names) that rules test membership in through
    ``view``, the table itself, sorted; any other read of ``view`` is refused, naming the rule."""
    if view is None:
        return ()
    names = {c.lower(): c for c in columns}
    found = set()
    for rule in compiled.rules:
        for keys, shown in own_references(rule.tree, view, names):
            if keys is None:
                raise ModelError(
                    f"{item_text('rule', rule.rule_id, rule.name)} reads the table itself "
                    f"({view!r}) as {shown}: with a table state the table is answered from its "
                    "key indexes, which hold its key columns and nothing else, so a rule reads "
                    f"it only with in_reference('{view}', 'column', key) over columns of the "
                    "input; read other columns from a view of the table under another name",
                    code="TABLE_ROWS",
                )
            found.add(keys)
    return tuple(sorted(found))


def _own_keys(
    df: DataFrame, owned: Sequence[KeySet], others: dict[KeySet, FrequencyState]
) -> dict[KeySet, str]:
    """A temporary view per key set of the table's keys (the other partitions' and the
    batch's), by key set."""
    at = {}
    for key in owned:
        columns = [quoted(c) for c in key]
        parts = [df.select(*columns)]
        if key in others:
            parts.append(others[key].frame.select(*columns))
        name = f"{KEYS_VIEW}{uuid.uuid4().hex}"
        reduce(lambda a, b: a.unionByName(b), parts).createOrReplaceTempView(name)
        at[key] = name
    return at


@dataclass(frozen=True)
class TableRows:
    """The staging step that makes the rules' counts of rows per key the table's (see the
    module): the batch joined to the other partitions' counts, the rules reading them, and the
    joined columns (hidden from every output); with :attr:`view`, the rules' reads of the
    table itself point at its keys. Refuses what the key index cannot answer."""

    table: TableState

    @property
    def view(self) -> str | None:
        """The name rules give the table itself (its columns are the input's)."""
        return self.table.view

    def __call__(
        self, df: DataFrame, compiled: CompiledSuite
    ) -> tuple[DataFrame, CompiledSuite, tuple[str, ...]]:
        table = self.table
        keys, firsts = indexes(compiled, df.columns)
        owned = referenced_keys(compiled, table.view, df.columns)
        wanted = tuple(sorted(set(keys) | set(owned)))
        others = table.key_counts(wanted) if wanted else {}
        names = {c.lower(): c for c in df.columns}
        if owned:  # the table's own keys, for foreign keys into it: the batch's at least
            at_view = _own_keys(df, owned, others)
            rules = tuple(
                replace(r, tree=read_keys_from(r.tree, table.view or "", names, at_view))
                for r in compiled.rules
            )
            compiled = replace(compiled, rules=rules)
        counts = {k: v for k, v in others.items() if k in keys}
        df, compiled, counted = _join_counts(df, compiled, keys, counts)
        df, compiled, first = _join_firsts(df, compiled, table, firsts)
        return df, compiled, counted + first


def _join_counts(
    df: DataFrame,
    compiled: CompiledSuite,
    keys: Sequence[KeySet],
    others: dict[KeySet, FrequencyState],
) -> tuple[DataFrame, CompiledSuite, tuple[str, ...]]:
    """The batch joined to the other partitions' counts of each key set, and the rules adding
    them to the batch's (nothing when no other partition is kept)."""
    if not others:  # the table is this partition alone: its counts are the batch's
        return df, compiled, ()
    names = {c.lower(): c for c in df.columns}
    at: dict[KeySet, str] = {}
    for i, key in enumerate(keys):
        counts = others[key].frame
        renamed = counts.select(
            *[counts[quoted(c)].alias(_KEY_COLUMN.format(i, j)) for j, c in enumerate(key)],
            counts[COUNT].alias(_COUNT_COLUMN.format(i)),
        )
        on = [df[quoted(c)].eqNullSafe(renamed[_KEY_COLUMN.format(i, j)])
              for j, c in enumerate(key)]  # fmt: skip
        df = df.join(renamed, on=on, how="left").drop(
            *[_KEY_COLUMN.format(i, j) for j in range(len(key))]
        )
        at[key] = _COUNT_COLUMN.format(i)
    rules = tuple(
        replace(r, tree=add_table_counts(r.tree, names, at)) if key_sets_of(r.tree) else r
        for r in compiled.rules
    )
    return df, replace(compiled, rules=rules), tuple(at.values())


def _ordered(index: FirstRows, columns: Sequence[str]) -> list[Any]:
    """``columns`` (the index's order values) ordered as the index's window orders its terms."""
    from pyspark.sql import functions as F

    out = []
    for column, (_, desc, first) in zip(columns, index.order, strict=True):
        c = F.col(quoted(column))
        if desc:
            out.append(c.desc_nulls_first() if first else c.desc_nulls_last())
        else:
            out.append(c.asc_nulls_first() if first else c.asc_nulls_last())
    return out


def _first_of_each_key(frame: DataFrame, index: FirstRows, columns: Sequence[str]) -> DataFrame:
    """The first row of each key of ``frame`` (``columns``: its order values), as the index's
    window numbers them."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if not columns:  # every row of a key is equal in the order
        return frame.dropDuplicates(list(index.keys))
    window = Window.partitionBy(*[quoted(k) for k in index.keys]).orderBy(*_ordered(index, columns))
    ranked = frame.withColumn(_RANK, F.row_number().over(window))
    return ranked.where(F.col(_RANK) == 1).drop(_RANK)


def _join_firsts(
    df: DataFrame, compiled: CompiledSuite, table: TableState, firsts: Sequence[FirstRows]
) -> tuple[DataFrame, CompiledSuite, tuple[str, ...]]:
    """The batch joined to the other partitions' first row of each key of each keep-one
    index, and the rules needing their row to come before it (see the module)."""
    from pyspark.sql import functions as F

    names = {c.lower(): c for c in df.columns}
    at: dict[FirstRows, tuple[str, tuple[str, ...]]] = {}
    for i, index in enumerate(firsts):
        parts = table.kept_indexes(
            (index.keys + index.columns, index.marker),
            f"no stored first row per ({', '.join(index.keys)}) by the keep-one rule's order",
            "a keep-one rule over those keys in that order (or a column of the input: the "
            "order breaks ties by every column)",
        )
        if not parts:
            continue
        stored = [quoted(c) for c in index.keys + index.columns]
        kept = reduce(lambda a, b: a.unionByName(b), (p.frame.select(*stored) for p in parts))
        best = _first_of_each_key(kept, index, index.columns)
        keys = [_FIRST_KEY.format(i, j) for j in range(len(index.keys))]
        values = tuple(_FIRST_VALUE.format(i, j) for j in range(len(index.columns)))
        present = _FIRST_PRESENT.format(i)
        renamed = best.select(
            *[best[quoted(c)].alias(k) for c, k in zip(index.keys, keys, strict=True)],
            *[best[quoted(c)].alias(v) for c, v in zip(index.columns, values, strict=True)],
            F.lit(True).alias(present),
        )
        on = [df[quoted(c)].eqNullSafe(renamed[k]) for c, k in zip(index.keys, keys, strict=True)]
        df = df.join(renamed, on=on, how="left").drop(*keys)
        at[index] = (present, values)
    if not at:
        return df, compiled, ()
    rules = tuple(replace(r, tree=add_first_rows(r.tree, names, at)) for r in compiled.rules)
    joined = tuple(c for present, values in at.values() for c in (present, *values))
    return df, replace(compiled, rules=rules), joined


def table_rows(table: TableState) -> TableRows:
    """The staging step of a run with ``table`` (:class:`TableRows`)."""
    return TableRows(table)


def key_index(df: DataFrame, keys: Sequence[KeySet | FirstRows]) -> dict[GroupKey, FrequencyState]:
    """The batch's key index: each key set's row counts per key, each keep-one index's first
    row per key (lazy; written when kept)."""
    from pyspark.sql import functions as F

    out: dict[GroupKey, FrequencyState] = {}
    for key in keys:
        if isinstance(key, FirstRows):
            terms = [
                F.expr(sql).alias(c) for (sql, _, _), c in zip(key.order, key.columns, strict=True)
            ]
            frame = df.select(*[df[quoted(k)] for k in key.keys], *terms)
            first = _first_of_each_key(frame, key, key.columns)
            out[(key.keys + key.columns, key.marker)] = FrequencyState.of(
                first, key.keys + key.columns
            )
        else:
            out[(key, None)] = FrequencyState.of(df, key)
    return out


def planned_keys(
    table: TableState | None, checks: Sequence[object], compiled: CompiledSuite, columns: list[str]
) -> tuple[KeySet | FirstRows, ...]:
    """The key sets a run with a table state keeps an index of (none without one); a table state
    for a run with neither dataset checks nor rules counting rows per key is refused: it would
    keep nothing."""
    if table is None:
        return ()
    owned = referenced_keys(compiled, table.view, columns)
    counts, firsts = indexes(compiled, columns)
    keys: tuple[KeySet | FirstRows, ...] = (*sorted(set(counts) | set(owned)), *firsts)
    if not checks and not keys:
        raise ModelError(
            f"a table state ({table.location}, partition {table.partition}) keeps the states of "
            "the run's dataset checks and the counts per key of its rules over rows, and this "
            "run has neither: add the checks that should answer for the table, or leave the "
            "table state out"
        )
    return keys
