"""Spark-Expectations rules: their YAML or JSON rules file (``rules:``, optional ``product_id``
and ``dq_env``) or a CSV export of their rules table (one row per rule, the table's columns).

``row_dq`` rules become our rules with their name, expectation, action (``ignore``, ``drop``,
``fail``: the same meanings), tag, description and ``is_active``; an error drop alert becomes an
error rate of that rule (``error_drop_threshold`` read as a percentage). ``agg_dq`` rules become
SQL checks over the source and/or the valid output (``enable_for_source_dq_validation`` /
``..._target_...``), of level ``error`` when their action is ``fail``. ``query_dq`` rules read
tables by name and are listed, not mapped: write them as SQL checks over ``source``, ``valid``
and ``quarantine``."""

from __future__ import annotations

import csv
import io
from functools import partial
from typing import Any

import yaml

from quality_py.gate.numbers import number
from quality_py.io.imports.common import (
    Draft,
    ImportResult,
    assemble,
    each_item,
    line_of,
    malformed,
    mapping,
    nodes_with_lines,
    value,
)
from quality_py.model.ids import id_from_name

_TRUE = ("true", "1", "yes", "y")


def _flag(v: Any, default: bool) -> bool:
    if v is None or v == "":
        return default
    return v if isinstance(v, bool) else str(v).strip().lower() in _TRUE


def _rows(text: str, origin: str) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any], Any]:
    """``(line, rule)`` pairs, the defaults every rule takes, and the product id."""
    if origin.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        rows = []
        try:
            for row in reader:  # a row's line is where it ends (a cell may span lines)
                rows.append((reader.line_num, dict(row)))
        except csv.Error as err:  # a field over the csv module's limit, a stray quote, ...
            raise malformed(origin, reader.line_num + 1, "this CSV row", str(err)) from None
        return rows, {}, None
    root = nodes_with_lines(text, origin)
    doc = mapping(value(root), origin, 1, "the rules file")
    rules_node = next((v for k, v in getattr(root, "value", []) if k.value == "rules"), None)
    if rules_node is not None and not isinstance(rules_node, yaml.SequenceNode):
        raise malformed(origin, line_of(rules_node), "rules", "it must be a list of rules")
    pairs = [(line_of(n), value(n)) for n in getattr(rules_node, "value", []) or []]
    envs = mapping(doc.get("dq_env"), origin, 1, "dq_env")
    defaults = next(iter(envs.values())) if len(envs) == 1 else {}
    defaults = mapping(defaults, origin, 1, "the dq_env environment")
    return pairs, defaults, (doc.get("product_id"), len(envs))


def _row_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    name = draft.name(str(rule.get("rule") or "rule"))
    action = str(rule.get("action_if_failed") or "ignore").lower()
    if action not in ("ignore", "drop", "fail"):
        draft.skip(line, rule, f"the action {action!r} is not ignore, drop or fail")
        return
    out: dict[str, Any] = {
        "name": name,
        "expression": str(rule["expectation"]),
        "action_if_failed": action,
    }
    if rule.get("description"):
        out["description"] = str(rule["description"])
    tags = [str(rule[k]) if k == "tag" else f"priority:{rule[k]}" for k in ("tag", "priority")
            if rule.get(k)]  # fmt: skip
    if tags:
        out["tags"] = tags
    if not _flag(rule.get("is_active"), True):
        out["active"] = False
    draft.rules.append(out)
    if _flag(rule.get("enable_error_drop_alert"), False):
        threshold = rule.get("error_drop_threshold") or 0
        share = number(threshold, name="error_drop_threshold", low=0, high=100) / 100
        draft.error_rates[id_from_name(name)] = share


def _agg_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    level = "error" if str(rule.get("action_if_failed") or "").lower() == "fail" else "warning"
    sides = [
        side
        for side, key in (("source", "source"), ("valid", "target"))
        if _flag(rule.get(f"enable_for_{key}_dq_validation"), True)
    ]
    if not sides:
        draft.skip(line, rule, "enabled for neither the source nor the target")
    for side in sides:
        draft.sql_checks.append(
            {
                "name": f"{rule.get('rule') or 'agg'} ({side})",
                "sql": str(rule["expectation"]),
                "on": side,
                "level": level,
            }
        )


def _rule(draft: Draft, defaults: dict[str, Any], line: int, raw: Any) -> None:
    """One rule of the file, its environment's defaults under it."""
    given = mapping(raw, draft.origin, line, "this rule")
    rule = {**defaults, **{k: v for k, v in given.items() if v not in (None, "")}}
    kind = str(rule.get("rule_type") or "row_dq")
    if not str(rule.get("expectation") or "").strip():
        draft.skip(line, raw, "a rule without an expectation")
    elif kind == "row_dq":
        _row_rule(draft, rule, line)
    elif kind == "agg_dq":
        _agg_rule(draft, rule, line)
    else:
        draft.skip(line, raw, f"{kind} reads tables by name: write it as a SQL check")


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from Spark-Expectations rules."""
    pairs, defaults, product = _rows(text, origin)
    draft = Draft(origin)
    if product and product[1] > 1:
        draft.skip(1, "dq_env", f"{product[1]} environments: no environment's defaults applied")
    each_item(draft, pairs, "this rule", partial(_rule, draft, defaults))
    name = (product[0] if product else None) or origin.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return assemble(draft, str(name) or "spark_expectations")
