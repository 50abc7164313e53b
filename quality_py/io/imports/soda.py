"""SodaCL ``checks for DATASET:`` files. Metric checks with a fixed threshold become dataset
checks (``row_count``, ``missing_count(c) = 0``, ``missing_percent(c) < p %``,
``duplicate_count(...) = 0``, ``min``/``max``/``avg``/``sum``/``stddev``, ``min_length`` /
``max_length``, ``invalid_count(c) = 0`` with ``valid values`` or ``valid regex``); ``failed
rows`` with a ``fail condition`` become row rules that fail those rows; a schema's ``when wrong
column type`` becomes ``has_schema``; ``values in (c) must exist in t (k)`` becomes referential
integrity. Thresholds written as ``warn:`` / ``fail:`` alerts, freshness, anomaly and change-over-
time checks, and anything else are listed with their line."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import yaml

from quality_py.io.imports.common import (
    Draft,
    ImportResult,
    assemble,
    each_item,
    line_of,
    malformed,
    nodes_with_lines,
    value,
)
from quality_py.io.imports.dqx import literal

_OP = r"(<=|>=|!=|=|<|>)"
_NUM = r"(-?[0-9.]+)"
_METRIC = re.compile(rf"^(\w+)\(([^)]*)\)\s*{_OP}\s*{_NUM}\s*(%?)$")
_BETWEEN = re.compile(rf"^(\w+)(?:\(([^)]*)\))?\s+between\s+{_NUM}\s+and\s+{_NUM}$")
_ROWS = re.compile(rf"^row_count\s*{_OP}\s*{_NUM}$")
_REFERENCE = re.compile(r"^values in \(([^)]*)\) must exist in (\S+) \(([^)]*)\)$")
_SIMPLE = {
    "min": "has_min",
    "max": "has_max",
    "avg": "has_mean",
    "sum": "has_sum",
    "stddev": "has_standard_deviation",
    "min_length": "has_min_length",
    "max_length": "has_max_length",
}


def _columns(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def _op(op: str) -> str:
    return "==" if op == "=" else op


def _metric(draft: Draft, text: str, config: dict[str, Any]) -> str | None:
    """Map one metric check; the reason it cannot be mapped, else None."""
    if m := _ROWS.match(text):
        draft.check("error", "has_size", {"assertion": f"{_op(m.group(1))} {m.group(2)}"})
        return None
    if m := _BETWEEN.match(text):
        fn, col, lo, hi = m.groups()
        if fn == "row_count":
            draft.check("error", "has_size", {"assertion": f"between {lo} and {hi}"})
            return None
        if fn in _SIMPLE and col:
            draft.check(
                "error", _SIMPLE[fn], {"column": col, "assertion": f"between {lo} and {hi}"}
            )
            return None
        return f"{fn} has no counterpart here"
    m = _METRIC.match(text)
    if not m:
        return "not a check with a fixed threshold we read"
    fn, inside, op, number, percent = m.groups()
    cols, n = _columns(inside), float(number)
    if fn in _SIMPLE and len(cols) == 1 and not percent:
        draft.check("error", _SIMPLE[fn], {"column": cols[0], "assertion": f"{_op(op)} {number}"})
        return None
    if fn == "missing_count" and len(cols) == 1 and op == "=" and n == 0:
        draft.check("error", "is_complete", {"column": cols[0]})
        return None
    if fn == "missing_percent" and len(cols) == 1 and op in ("<", "<="):
        flipped = {"<": ">", "<=": ">="}[op]
        draft.check(
            "error",
            "has_completeness",
            {"column": cols[0], "assertion": f"{flipped} {1 - n / 100:g}"},
        )
        return None
    if fn == "duplicate_count" and cols and op == "=" and n == 0:
        draft.check("error", "is_unique", {"column": cols if len(cols) > 1 else cols[0]})
        return None
    if fn == "invalid_count" and len(cols) == 1 and op == "=" and n == 0:
        return _invalid(draft, cols[0], config)
    return f"{fn} {op} {number}{percent} has no counterpart here"


def _invalid(draft: Draft, column: str, config: dict[str, Any]) -> str | None:
    c = f"`{column}`"
    if config.get("valid values"):
        draft.check(
            "error", "is_contained_in", {"column": column, "values": config["valid values"]}
        )
        return None
    if config.get("valid regex"):
        predicate = (
            f"{c} IS NULL OR {c} RLIKE {literal('^(?:' + str(config['valid regex']) + ')$')}"
        )
        draft.check("error", "satisfies", {"predicate": predicate, "name": f"{column} is valid"})
        return None
    return "only valid values and valid regex are read for invalid_count"


def _failed_rows(draft: Draft, config: dict[str, Any]) -> str | None:
    condition = config.get("fail condition")
    if not str(condition or "").strip():
        return "failed rows with a fail query read tables by name"
    rule: dict[str, Any] = {
        "name": draft.name(str(config.get("name") or "failed_rows")),
        "expression": f"NOT ({condition})",
    }
    draft.rules.append(rule)
    return None


def _schema(draft: Draft, config: dict[str, Any]) -> str | None:
    fail = (config.get("fail") or {}) if isinstance(config.get("fail"), dict) else {}
    types = fail.get("when wrong column type")
    if not types or set(fail) - {"when wrong column type"} or config.get("warn"):
        return "only fail: when wrong column type maps (has_schema needs each column's type)"
    draft.check("error", "has_schema", {"expected": {str(k): str(v) for k, v in types.items()}})
    return None


def _one(draft: Draft, node: Any) -> None:
    spec, line = value(node), line_of(node)
    text, config = (spec, {}) if isinstance(spec, str) else next(iter(spec.items()))
    config = config if isinstance(config, dict) else {}
    text = str(text).strip()
    if isinstance(spec, dict) and len(spec) != 1:
        draft.skip(line, spec, "a check is one key")
        return
    if config.get("warn") is not None or (text != "schema" and config.get("fail") is not None):
        draft.skip(line, spec, "warn / fail alert thresholds have no counterpart here")
        return
    if text == "failed rows":
        reason = _failed_rows(draft, config)
    elif text == "schema":
        reason = _schema(draft, config)
    elif (m := _REFERENCE.match(text)) and draft.reference(m.group(2)):
        reason = draft.reference(m.group(2))
    elif m:
        draft.check(
            "error",
            "has_referential_integrity",
            {
                "columns": _columns(m.group(1)),
                "reference": m.group(2),
                "reference_columns": _columns(m.group(3)),
            },
        )
        reason = None
    else:
        reason = _metric(draft, text, config)
    if reason:
        draft.skip(line, spec, reason)


def _node(draft: Draft, line: int, node: Any) -> None:
    _one(draft, node)


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from a SodaCL file."""
    root = nodes_with_lines(text, origin)
    draft = Draft(origin)
    datasets = []
    for key, node in getattr(root, "value", []) or []:
        m = re.match(r"^checks for (\S+)$", str(key.value))
        if not m:
            draft.skip(line_of(key), key.value, "only 'checks for DATASET' sections are read")
            continue
        datasets.append(m.group(1))
        items = getattr(node, "value", []) or []
        if items and not isinstance(node, yaml.SequenceNode):
            raise malformed(origin, line_of(node), f"checks for {m.group(1)}", "not a list")
        each_item(draft, ((line_of(n), n) for n in items), "this check", partial(_node, draft))
    if len(datasets) > 1:
        draft.skip(1, ", ".join(datasets), "several datasets: their checks are in one ruleset")
    return assemble(draft, datasets[0] if datasets else "sodacl")
