"""A few failing rows for a run's record: each row's key columns (the declared keys, else the
columns its failed rules read), the values of the columns its failed rules read, and the rules
it failed (``sample/row <i>/row`` metrics, JSON; the report's rule pages show them).

**How rows are chosen.** A run that published its quarantine samples it after the fact: this
run's partition, read back with only the columns a sample shows (a columnar read, no rule
evaluated again), keeps the rows whose hash of the run id and the row's shown values falls
below a threshold set for each rule it failed from that rule's failing rows, so that every
failing rule has about its share of :data:`SCANNED` rows, spread over all of its rows (a rule
with few failing rows keeps them all). Among them (in hash order) each failing rule gets its
share of the ``OverTime.sample_rows`` rows (10 by default; :func:`spread`). The same run id
over the same data keeps the same rows. A run that failed (nothing published) or wrote no
quarantine shows the first failing rows its job finds, in the same way.

Bounded: at most four times ``sample_rows`` rows, :data:`MAX_COLUMNS` value columns a row and
:data:`MAX_CHARS` characters a value. ``OverTime.hide_columns`` names columns that are never
shown (sensitive data): they are not even read by the sampling job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quality_py.actions.flags import failed_rule_names, failed_rules_sql
from quality_py.model.reads import columns_read
from quality_py.sql.snippets import quoted

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


def sample_rows(
    run: RunPlan, where: str, written: tuple[Any, str, dict[str, int]] | None = None
) -> list[dict[str, Any]]:
    """Up to ``run.over_time.sample_rows`` failing rows (more when rules need their share),
    each ``{"keys": {...}, "values": {...}, "failed": ["101.1", ...]}``: of ``written`` (this
    run's published quarantine rows, their form and each rule's failing rows) when given, else of
    ``run.flagged`` matching ``where`` (a flag)."""
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
    shown = [F.col(quoted(c)) for c in wanted]
    hashed = F.xxhash64(F.lit(run.run_id), *shown) if shown else F.xxhash64(F.lit(run.run_id))
    if written is not None and written[0] is not None:
        frame, form, failing = written
        failed = F.expr(_written_failed(form))
        entity = _entities(run, form)
        # each rule's rows pass with the chance that leaves about its share of SCANNED rows
        # of it: a rare rule keeps all of its few rows, a frequent one a spread few of its many
        share = SCANNED // max(1, len([e for e in failing.values() if e]))
        below = [
            x
            for key, e in entity.items()
            if failing.get(e)
            for x in (F.lit(key), F.lit(_below(max(share, 20) / failing[e])))
        ]
        masked = hashed.bitwiseAND(F.lit(_TOP))
        chance = F.create_map(*below) if below else F.create_map()
        kept = F.exists(failed, lambda f: masked < F.coalesce(F.element_at(chance, f), F.lit(0)))
        picked = frame.where(kept).select(*shown, failed.alias(FAILED), hashed.alias(HASH))
        collected = picked.limit(4 * SCANNED).collect()
    else:
        ids = failed_rules_sql(
            run.refs, run.codes, run.prepared.probable_pass, run.families or None, form="ids"
        )
        picked = run.flagged.where(where).select(
            *shown, F.expr(ids).alias(FAILED), hashed.alias(HASH)
        )
        collected = picked.limit(SCANNED).collect()
        entity = {r.rule.packed: f"{r.rule.id}.{r.rule.version}" for r in run.refs}
    ordered = sorted((r.asDict() for r in collected), key=lambda r: r.pop(HASH))
    return spread([_row(r, keys, read, entity) for r in ordered], limit)


#: the largest hash kept (the hash's sign bit cleared)
_TOP = 9223372036854775807


def _below(chance: float) -> int:
    """The hash below which a row is kept with ``chance`` (all of them from 1 on).

    >>> _below(2.0) == _TOP, round(_below(0.5) / _TOP, 6)
    (True, 0.5)
    """
    return _TOP if chance >= 1 else min(_TOP, int(chance * _TOP))


#: the sampling job's own columns
FAILED, HASH = "__qp_sample_failed", "__qp_sample_hash"


def _written_failed(form: str) -> str:
    """SQL of the failed rules of a written quarantine row, in its form."""
    if form == "names":
        return "qp_failed_rule_names"
    if form == "ids":
        return "qp_failed_rule_ids"
    return "transform(qp_failed_rules, f -> concat(f.ruleId, '.', f.ruleVersion))"


def _entities(run: RunPlan, form: str) -> dict[Any, str]:
    """A written failed-rule entry (a name, a packed id or ``id.version``) -> the rule's
    ``id.version``."""
    entities = [f"{r.rule.id}.{r.rule.version}" for r in run.refs]
    if form == "names":
        return dict(zip(failed_rule_names(run.refs), entities, strict=True))
    if form == "ids":
        return {r.rule.packed: e for r, e in zip(run.refs, entities, strict=True)}
    return {e: e for e in entities}


def spread(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """``limit`` rows of ``rows`` with each failing rule given its share: in turn, each rule
    takes the next row (in ``rows``' order) failing it that is not kept yet, until ``limit``
    rows are kept; then every rule still without a row takes one (at most ``4 * limit`` rows
    in all). The kept rows stay in ``rows``' order.

    >>> rows = [{"failed": ["a"]}] * 5 + [{"failed": ["b"]}]
    >>> [r["failed"] for r in spread(rows, 3)]
    [['a'], ['a'], ['b']]
    """
    rules = list(dict.fromkeys(e for r in rows for e in r["failed"]))
    kept: set[int] = set()
    shown: set[str] = set()
    cursor = dict.fromkeys(rules, 0)

    def take(rule: str) -> bool:
        i = cursor[rule]
        while i < len(rows) and (i in kept or rule not in rows[i]["failed"]):
            i += 1
        cursor[rule] = i + 1
        if i >= len(rows):
            return False
        kept.add(i)
        shown.update(rows[i]["failed"])
        return True

    progress = True
    while progress and len(kept) < limit:
        progress = False
        for rule in rules:
            if len(kept) >= limit:
                break
            progress = take(rule) or progress
    for rule in rules:  # a rare rule still without a row
        if len(kept) >= 4 * limit:
            break
        if rule not in shown:
            take(rule)
    return [rows[i] for i in sorted(kept)]


def _row(
    row: dict[str, Any], keys: list[str], read: dict[str, tuple[str, ...]], entity: dict[Any, str]
) -> dict[str, Any]:
    failed = list(dict.fromkeys(entity[p] for p in row.pop(FAILED) or () if p in entity))
    columns = list(dict.fromkeys(c for e in failed for c in read.get(e, ())))[:MAX_COLUMNS]
    # without declared keys a row is shown by what its failed rules read, never by whichever
    # columns happen to come first in the input
    return {
        "keys": {k: _shown(row[k]) for k in (keys or columns)},
        "values": {c: _shown(row[c]) for c in columns},
        "failed": failed,
    }


__all__ = ["MAX_CHARS", "MAX_COLUMNS", "sample_rows", "spread"]
