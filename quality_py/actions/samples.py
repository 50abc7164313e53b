"""A few failing rows for a run's record: each row's key columns (the declared keys, else the
columns its failed rules read), the values of the columns its failed rules read, and the rules
it failed (``sample/row <i>/row`` metrics, JSON; the report's
rule pages show them).

Bounded: the first ``OverTime.sample_rows`` failing rows (10 by default), then among the first
:data:`SCANNED` failing rows those that show a rule no two kept rows show yet (:func:`covering`,
at most four times as many rows in all), :data:`MAX_COLUMNS` value
columns a row and :data:`MAX_CHARS` characters a value. ``OverTime.hide_columns`` names
columns that are never shown (sensitive data): they are not even read by the sampling job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quality_py.actions.flags import RuleRef, failed_rules_sql
from quality_py.model.reads import columns_read

if TYPE_CHECKING:
    from quality_py.actions.plan import RunPlan

#: the most value columns one sampled row keeps
MAX_COLUMNS = 24
#: how many failing rows the sampling job reads (it stops there) to choose the kept ones from
SCANNED = 500
#: the longest value kept (longer ones are cut, ending in an ellipsis)
MAX_CHARS = 200


def _shown(value: Any) -> Any:
    """A value as JSON keeps it: numbers, booleans and null as they are, the rest as bounded
    text."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = str(value)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def sample_rows(run: RunPlan, where: str) -> list[dict[str, Any]]:
    """Up to ``run.over_time.sample_rows`` rows of ``run.flagged`` matching ``where`` (a flag),
    each ``{"keys": {...}, "values": {...}, "failed": ["101.1", ...]}`` (one small job that stops
    at that many rows)."""
    from pyspark.sql import functions as F

    limit = run.over_time.sample_rows
    if limit == 0:
        return []
    hidden = {c.lower() for c in run.over_time.hide_columns}
    unknown = hidden - {c.lower() for c in run.input_columns}
    if unknown:  # a misspelt sensitive column must not let the real one through: keep no row
        import logging

        logging.getLogger("quality_py").warning(
            "no sample rows kept: hide_columns names no column of the input: %s",
            ", ".join(sorted(unknown)),
        )
        return []
    visible = [c for c in run.input_columns if c.lower() not in hidden]
    keys = [c for c in run.keys if c.lower() not in hidden]  # none declared: see _row
    read = columns_read(run.prepared, visible)
    wanted = list(dict.fromkeys([*keys, *(c for cols in read.values() for c in cols)]))
    failed = failed_rules_sql(
        run.refs, run.codes, run.prepared.probable_pass, run.families or None, form="ids"
    )
    frame = run.flagged.where(where).select(
        *[F.col(f"`{c.replace('`', '``')}`") for c in wanted],
        F.expr(failed).alias("__qp_sample_failed"),
    )
    rows = [_row(r.asDict(), keys, read, run.refs) for r in frame.limit(SCANNED).collect()]
    return covering(rows, limit)


def covering(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` of ``rows``, and after them rows that show a rule fewer than two
    kept rows show (at most ``4 * limit`` rows in all): a rule that fails rarely still gets a
    row when one is among the rows scanned.

    >>> rows = [{"failed": ["a"]}] * 5 + [{"failed": ["b"]}]
    >>> [r["failed"] for r in covering(rows, 2)]
    [['a'], ['a'], ['b']]
    """
    kept: list[dict[str, Any]] = []
    shown: dict[str, int] = {}
    for row in rows:
        if len(kept) >= 4 * limit:
            break
        if len(kept) < limit or any(shown.get(e, 0) < 2 for e in row["failed"]):
            kept.append(row)
            for e in row["failed"]:
                shown[e] = shown.get(e, 0) + 1
    return kept


def _row(
    row: dict[str, Any], keys: list[str], read: dict[str, tuple[str, ...]], refs: Sequence[RuleRef]
) -> dict[str, Any]:
    entity = {r.rule.packed: f"{r.rule.id}.{r.rule.version}" for r in refs}
    failed = list(dict.fromkeys(entity[p] for p in row.pop("__qp_sample_failed") or ()))
    columns = list(dict.fromkeys(c for e in failed for c in read.get(e, ())))[:MAX_COLUMNS]
    # without declared keys a row is shown by what its failed rules read, never by whichever
    # columns happen to come first in the input
    return {
        "keys": {k: _shown(row[k]) for k in (keys or columns)},
        "values": {c: _shown(row[c]) for c in columns},
        "failed": failed,
    }


__all__ = ["MAX_CHARS", "MAX_COLUMNS", "sample_rows"]
