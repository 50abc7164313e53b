"""The most frequent failing values of each rule, counted in the same pass as the run's counts.

For each chosen ``(rule, column)`` pair, one ``approx_top_k`` aggregate (Spark 4.1+: a frequent
items sketch, bounded to :data:`TRACKED` items and mergeable) is observed beside the counts: on
the quarantine's write when it counts its own rows (only failing rows pass there), else on the
valid write. A row feeds a pair's sketch the column's value, as it is, when the rule fails the
row, and null otherwise. The sketch counts those nulls too, so its null item is dropped when
read, and the failing rows whose value is null are counted beside it (``count_if``). (A value
turned into tagged text instead cost 0.8 s more per million failing rows at 10 rules.)

The columns counted are each rule's **telling** ones (:mod:`quality_py.sql.telling`: the key of
a rule over rows counted as one value, the column a lookup tests, columns compared with a
constant, then the others; a rule's ``report_columns`` when it names them), not the first
column it reads. Bounded: at most :data:`MAX_PAIRS` pairs a run (each rule's first telling
entry, in suite order, then each rule's second, ...), :data:`TOP_K` values a rule,
:data:`MAX_CHARS` characters a value. Columns named by ``OverTime.hide_columns`` are never
counted (nor a key holding one). Counts are exact while a rule's failing rows hold fewer
distinct values than the sketch tracks, and estimates beyond that. Measured in
benchmarks/README.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quality_py.model.rules import RuleSuite
from quality_py.runners.summary import failing_sql
from quality_py.sql.snippets import quoted

#: Values kept a rule (the most frequent first)
TOP_K = 5
#: Items each sketch tracks: counts are exact below about three quarters of it
TRACKED = 1024
#: ``(rule, column)`` sketches one run keeps at most
MAX_PAIRS = 24
#: The longest value kept (longer ones are cut, ending in an ellipsis)
MAX_CHARS = 120


@dataclass(frozen=True)
class TopValue:
    """One failing value of a column a rule reads, and the failing rows holding it."""

    column: str
    value: str | None
    rows: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``value`` null for a null value).

        >>> TopValue("amount", "-1", 9).to_dict()
        {'column': 'amount', 'value': '-1', 'rows': 9}
        """
        return {"column": self.column, "value": self.value, "rows": self.rows}


#: Column types the sketch counts as they are; others are counted as their text
SKETCHED = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "string",
            "varchar", "char", "date", "timestamp", "timestamp_ntz", "boolean")  # fmt: skip


@dataclass(frozen=True)
class TopValuePlan:
    """The pairs a run counts: ``(rule index, rule entity, column)``, and the columns counted
    as text (types the sketch does not take: arrays, maps, structs, binary, ...)."""

    pairs: tuple[tuple[int, str, tuple[str, ...]], ...] = ()
    as_text: frozenset[str] = frozenset()

    def aggregates(
        self,
        codes: Sequence[str],
        probable_pass: float,
        values: Sequence[str] | None,
        families: Sequence[str | None] | None,
    ) -> list[tuple[str, str]]:
        """The aggregates to observe (name, SQL: ``top<j>`` for pair ``j``).

        >>> plan = TopValuePlan(((0, "1.1", ("amount",)),))
        >>> plan.aggregates(["c"], 0.8, None, ["boolean"])[0]
        ('top0', 'approx_top_k(IF(c = 0, `amount`, NULL), 21, 1024)')
        """
        out = []
        for j, (i, _, entry) in enumerate(self.pairs):
            fails = failing_sql(i, codes, probable_pass, values, families)
            col = _value_sql(entry, self.as_text)
            top = f"approx_top_k(IF({fails}, {col}, NULL), {4 * TOP_K + 1}, {TRACKED})"
            out.append((f"top{j}", top))
            out.append((f"top{j}_null", f"count_if({col} IS NULL AND {fails})"))
        return out

    def read(self, observed: Mapping[str, Any]) -> dict[str, tuple[TopValue, ...]]:
        """Each rule's top values (entity -> the :data:`TOP_K` most frequent over its columns).

        >>> from collections import namedtuple
        >>> Item = namedtuple("Item", "item count")
        >>> plan = TopValuePlan(((0, "1.1", ("amount",)),))
        >>> found = plan.read({"top0": [Item(None, 93), Item(-1, 7)], "top0_null": 3})["1.1"]
        >>> [(v.value, v.rows) for v in found]
        [('-1', 7), (None, 3)]
        """
        found: dict[str, list[TopValue]] = {}
        for j, (_, entity, entry) in enumerate(self.pairs):
            column = ", ".join(entry)
            for item in observed.get(f"top{j}") or ():
                value, count = item[0], int(item[1])
                if value is None or count <= 0:
                    continue  # rows the rule did not fail, and failing nulls (counted below)
                found.setdefault(entity, []).append(TopValue(column, _text(value), count))
            nulls = int(observed.get(f"top{j}_null") or 0)
            if nulls:
                found.setdefault(entity, []).append(TopValue(column, None, nulls))
        return {
            entity: tuple(sorted(values, key=_order)[:TOP_K]) for entity, values in found.items()
        }


def _value_sql(entry: tuple[str, ...], as_text: frozenset[str]) -> str:
    """The value a pair counts: the column as it is (as text for types the sketch does not
    take), or a key of several columns as one text (``N725MQ, 2013, 1, 2``; null parts shown as
    ``null``), never null itself.

    >>> _value_sql(("a",), frozenset())
    '`a`'
    >>> print(_value_sql(("a", "b"), frozenset()))
    concat_ws(', ', coalesce(CAST(`a` AS STRING), 'null'), coalesce(CAST(`b` AS STRING), 'null'))
    """
    if len(entry) == 1:
        col = quoted(entry[0])
        return f"CAST({col} AS STRING)" if entry[0] in as_text else col
    parts = ", ".join(f"coalesce(CAST({quoted(c)} AS STRING), 'null')" for c in entry)
    return f"concat_ws(', ', {parts})"


def _order(v: TopValue) -> tuple[int, bool, str, str]:
    """Most rows first; ties by value (a null value last), then column: the same order every
    run."""
    return (-v.rows, v.value is None, v.value or "", v.column)


def _text(value: Any) -> str:
    """A value as text, as Spark casts it to a string (booleans lower case, bytes as hex),
    cut at :data:`MAX_CHARS`.

    >>> _text(True), _text(2.5), _text(b"\\x01\\xff"), _text("x" * 200)[-3:]
    ('true', '2.5', '01ff', 'xx…')
    """
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, bytes | bytearray):
        text = bytes(value).hex()
    else:
        text = str(value)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def telling_of(
    suite: RuleSuite, trees: Sequence[Any], columns: Sequence[str], hidden: Sequence[str] = ()
) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Each rule's telling columns (entity -> entries, :mod:`quality_py.sql.telling`): its
    ``report_columns`` when it names them, else read from its tree; no entry holding a
    ``hidden`` column. Rules are read in order until :data:`MAX_PAIRS` of them have an entry
    (a run counts at most that many pairs, every rule's first entry before any second).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0 AND b = 1",
    ...                   report_columns=["B"])])])
    >>> telling_of(suite, [None], ["a", "b"])
    {'3.1': (('b',),)}
    """
    from quality_py.sql.telling import telling_columns

    by_lower = {c.lower(): c for c in columns}
    hide = {h.lower() for h in hidden}
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    filled = 0
    for (_, rule), tree in zip(suite.iter_rules(), trees, strict=False):
        if filled >= MAX_PAIRS:
            break
        entity = f"{rule.id.id}.{rule.id.version}"
        if rule.report_columns:
            named = tuple(by_lower[c.lower()] for c in rule.report_columns if c.lower() in by_lower)
            entries: tuple[tuple[str, ...], ...] = (named,) if named else ()
        else:
            entries = telling_columns(tree, columns) if tree is not None else ()
        out[entity] = tuple(e for e in entries if not any(c.lower() in hide for c in e))
        filled += bool(out[entity])
    return out


def choose_pairs(
    entities: Sequence[str],
    telling: Mapping[str, Sequence[tuple[str, ...]]],
    hidden: Sequence[str],
    columns: Sequence[str],
    types: Mapping[str, str] | None = None,
) -> TopValuePlan:
    """The pairs to count: each rule's telling columns (``telling``: entity -> entries, each
    one column or a key of several counted as one value), none holding a ``hidden`` column, at
    most :data:`MAX_PAIRS`: every rule's first entry (in suite order) before any rule's second.
    A hidden column that names no input column keeps nothing (a misspelt sensitive column must
    not let the real one out).

    >>> choose_pairs(["1.1", "2.1"], {"1.1": [("a",)], "2.1": [("b", "c"), ("s",)]}, ["s"],
    ...              ["a", "b", "c", "s"])
    TopValuePlan(pairs=((0, '1.1', ('a',)), (1, '2.1', ('b', 'c'))), as_text=frozenset())
    """
    lowered = {c.lower() for c in columns}
    hide = {h.lower() for h in hidden}
    if hide - lowered:
        return TopValuePlan()
    shown = [
        [e for e in telling.get(entity, ()) if not any(c.lower() in hide for c in e)]
        for entity in entities
    ]
    # the first entry of every rule, then the second of every rule, ...: a suite of up to
    # MAX_PAIRS rules counts something for each of them
    pairs = [
        (i, entities[i], entries[depth])
        for depth in range(max((len(e) for e in shown), default=0))
        for i, entries in enumerate(shown)
        if depth < len(entries)
    ]
    chosen = tuple(sorted(pairs[:MAX_PAIRS]))
    text = {
        e[0]
        for _, _, e in chosen
        if len(e) == 1
        and types is not None
        and types.get(e[0], "string").split("(")[0] not in SKETCHED
    }
    return TopValuePlan(chosen, frozenset(text))


__all__ = [
    "MAX_PAIRS", "TOP_K", "TRACKED", "TopValue", "TopValuePlan", "choose_pairs", "telling_of"
]  # fmt: skip
