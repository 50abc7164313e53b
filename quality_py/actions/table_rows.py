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

Only counts of rows can be answered from the index. Any other window over a key (a rank, a sum,
keep-one's ``row_number``), a count of a column's values or a key that is not a plain column is
refused with a table state, naming the rule, rather than answered for the batch while the run
claims the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from quality_py.dataset.grouping import COUNT, FrequencyState, GroupKey
from quality_py.dataset.table_state import TableState
from quality_py.errors import ModelError, item_text
from quality_py.model.types import DataFrame
from quality_py.sql.compiler import CompiledRule, CompiledSuite
from quality_py.sql.snippets import quoted
from quality_py.sql.table_counts import KeySet, add_table_counts, counted_keys
from quality_py.sql.windows import key_sets as key_sets_of

#: The table's count of a key set's key, joined onto the batch (hidden, never in an output)
_COUNT_COLUMN = "__qp_table_count_{}"
_KEY_COLUMN = "__qp_table_key_{}_{}"


def _counted_keys(rule: CompiledRule, names: dict[str, str]) -> list[KeySet]:
    """The key sets ``rule`` counts rows by; a window the key index cannot answer is refused."""
    out = []
    for keys, shown in counted_keys(rule.tree, names):
        if keys is None:
            raise ModelError(
                f"{item_text('rule', rule.rule_id, rule.name)} computes {shown}: with a table "
                "state a rule over rows answers for the table from each partition's count of "
                "rows per key, which answers COUNT(*) OVER (PARTITION BY columns) (is_unique, "
                "group limits) and nothing else; run this rule without a table state, or write "
                "it as a count of rows per key",
                code="TABLE_ROWS",
            )
        out.append(keys)
    return out


def key_sets(compiled: CompiledSuite, columns: Sequence[str]) -> tuple[KeySet, ...]:
    """The key sets (input column names) the rules count rows by, sorted; refuses what the key
    index cannot answer (see the module)."""
    names = {c.lower(): c for c in columns}
    found = {keys for rule in compiled.rules for keys in _counted_keys(rule, names)}
    return tuple(sorted(found))


def table_rows(
    table: TableState,
) -> Callable[[DataFrame, CompiledSuite], tuple[DataFrame, CompiledSuite, tuple[str, ...]]]:
    """The staging step that makes the rules' counts of rows per key the table's (see the
    module): the batch joined to the other partitions' counts, the rules reading them, and the
    joined columns (hidden from every output). Refuses what the key index cannot answer."""

    def step(
        df: DataFrame, compiled: CompiledSuite
    ) -> tuple[DataFrame, CompiledSuite, tuple[str, ...]]:
        keys = key_sets(compiled, df.columns)
        others = table.key_counts(keys) if keys else {}
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

    return step


def key_index(df: DataFrame, keys: Sequence[KeySet]) -> dict[GroupKey, FrequencyState]:
    """The batch's key index: each key set's row counts per key (lazy; written when kept)."""
    return {(key, None): FrequencyState.of(df, key) for key in keys}


def planned_keys(
    table: TableState | None, checks: Sequence[object], compiled: CompiledSuite, columns: list[str]
) -> tuple[KeySet, ...]:
    """The key sets a run with a table state keeps an index of (none without one); a table state
    for a run with neither dataset checks nor rules counting rows per key is refused: it would
    keep nothing."""
    if table is None:
        return ()
    keys = key_sets(compiled, columns)
    if not checks and not keys:
        raise ModelError(
            f"a table state ({table.location}, partition {table.partition}) keeps the states of "
            "the run's dataset checks and the counts per key of its rules over rows, and this "
            "run has neither: add the checks that should answer for the table, or leave the "
            "table state out"
        )
    return keys
