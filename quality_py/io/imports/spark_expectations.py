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
import string
from functools import partial
from typing import Any

import yaml

from quality_py.errors import RulesetFormatError
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
from quality_py.io.imports.dqx_functions import Unmappable
from quality_py.model.ids import id_from_name
from quality_py.sql.windows import peer_windows

_TRUE = ("true", "1", "yes", "y")


def _flag(v: Any, default: bool) -> bool:
    if v is None or v == "":
        return default
    return v if isinstance(v, bool) else str(v).strip().lower() in _TRUE


#: The columns of Spark-Expectations' rules table (``rules/plugins/_flatten.py``,
#: ``RULES_SCHEMA_COLUMNS``) and the keys of its rules file beside ``rules``.
RULE_KEYS = frozenset(
    {"product_id", "table_name", "rule_type", "rule", "column_name", "expectation",
     "action_if_failed", "tag", "description", "enable_for_source_dq_validation",
     "enable_for_target_dq_validation", "is_active", "enable_error_drop_alert",
     "error_drop_threshold", "query_dq_delimiter", "enable_querydq_custom_output", "priority"}
)  # fmt: skip
FILE_KEYS = frozenset({"product_id", "table_name", "dq_env", "defaults", "rules"})
#: Keys that only say where the rules apply or how they are reported, not what they judge.
#: Keys only query_dq rules read (listed when set on another rule).
_QUERY_ONLY = ("query_dq_delimiter", "enable_querydq_custom_output")
#: What the converter does with each key: honoured (it shapes the converted ruleset; the
#: source and target switches of a row rule change nothing there either) or listed.
LISTED_KEYS = frozenset(_QUERY_ONLY)
HONOURED_KEYS = (RULE_KEYS | FILE_KEYS) - LISTED_KEYS


def _environment(envs: dict[str, Any], env: str | None, origin: str) -> dict[str, Any]:
    """The defaults of the environment ``env`` (its name matched case-insensitively, as
    Spark-Expectations does); with one environment and none named, that one."""
    if not envs:
        return {}
    if env is None:
        if len(envs) > 1:
            raise RulesetFormatError(
                f"{origin} defines the environments {', '.join(map(str, envs))} in dq_env: name "
                "one with --dq-env (its defaults, such as action_if_failed, change what the "
                "rules do)",
                item_kind="ruleset",
            )
        env = str(next(iter(envs)))
    found = {str(k).lower(): v for k, v in envs.items()}.get(env.lower())
    if found is None:
        raise RulesetFormatError(
            f"{origin}: no environment {env!r} in dq_env (it has {', '.join(map(str, envs))})",
            item_kind="ruleset",
        )
    settings = mapping(found, origin, 1, f"the dq_env environment {env}")
    return {k: v for k, v in settings.items() if k != "table_name"}


def _environment_table(envs: dict[str, Any], env: str | None) -> Any:
    """The ``table_name`` of the chosen environment (checked by :func:`_environment`)."""
    wanted = (env or str(next(iter(envs)))).lower()
    found = {str(k).lower(): v for k, v in envs.items()}.get(wanted)
    return found.get("table_name") if isinstance(found, dict) else None


def _rows(
    text: str, origin: str, env: str | None
) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any], Any, list[str], Any]:
    """``(line, rule)`` pairs, the defaults every rule takes (``defaults:`` under the chosen
    ``dq_env`` environment's settings, as ``flatten_rules_list`` merges them), the product id
    and the file's keys that are not Spark-Expectations'."""
    if origin.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        rows = []
        try:
            for row in reader:  # a row's line is where it ends (a cell may span lines)
                rows.append((reader.line_num, dict(row)))
        except csv.Error as err:  # a field over the csv module's limit, a stray quote, ...
            raise malformed(origin, reader.line_num + 1, "this CSV row", str(err)) from None
        return rows, {}, None, [], None
    root = nodes_with_lines(text, origin)
    doc = mapping(value(root), origin, 1, "the rules file")
    rules_node = next((v for k, v in getattr(root, "value", []) if k.value == "rules"), None)
    if rules_node is not None and not isinstance(rules_node, yaml.SequenceNode):
        raise malformed(origin, line_of(rules_node), "rules", "it must be a list of rules")
    pairs = [(line_of(n), value(n)) for n in getattr(rules_node, "value", []) or []]
    envs = mapping(doc.get("dq_env"), origin, 1, "dq_env")
    defaults = {
        **mapping(doc.get("defaults"), origin, 1, "defaults"),
        **_environment(envs, env, origin),
    }
    table = (_environment_table(envs, env) if envs else None) or doc.get("table_name")
    return (pairs, defaults, doc.get("product_id"), sorted(set(map(str, doc)) - FILE_KEYS),
            table)  # fmt: skip


def placeholders(draft: Draft, text: str) -> str:
    """``text`` with Spark-Expectations' ``{name}`` placeholders (filled from
    ``se_dq_rules_params`` by ``str.format``: ``utils/reader.py``) as our ``${name}``
    variables, given with ``--var name=value``; ``{{`` and ``}}`` are braces."""
    out = []
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as err:  # str.format fails on it in Spark-Expectations too
        why = f"its expectation is no format string Spark-Expectations fills: {err}"
        raise Unmappable(why) from None
    for literal, name, spec, conversion in fields:
        out.append(literal)
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise Unmappable(f"the placeholder {{{name}}} is not a plain name")
        out.append(draft.variable(name))
    return "".join(out)


def _row_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    name = draft.name(str(rule.get("rule") or "rule"))
    action = str(rule.get("action_if_failed") or "ignore").lower()
    if action not in ("ignore", "drop", "fail"):
        draft.skip(line, rule, f"the action {action!r} is not ignore, drop or fail")
        return
    out: dict[str, Any] = {
        "name": name,
        "expression": peer_windows(placeholders(draft, str(rule["expectation"]))),
        "action_if_failed": action,
    }
    if rule.get("description"):
        out["description"] = str(rule["description"])
    tags = [str(rule[k]) if k == "tag" else f"{k.split('_')[0]}:{rule[k]}"
            for k in ("tag", "priority", "column_name") if rule.get(k)]  # fmt: skip
    if tags:
        out["tags"] = tags
    if not _flag(rule.get("is_active"), True):
        out["active"] = False
    draft.rules.append(out)
    if _flag(rule.get("enable_error_drop_alert"), False):
        # spark_expectations_notify.py: alerts when some row failed and the failed share (in
        # percent, rounded to 2 decimals) is >= the threshold: an inclusive error rate
        threshold = rule.get("error_drop_threshold") or 0
        share = number(threshold, name="error_drop_threshold", low=0, high=100) / 100
        draft.error_rates[id_from_name(name)] = share
        draft.inclusive_rates = True


def _agg_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    if not _flag(rule.get("is_active"), True):  # actions.py: an inactive agg_dq does not run
        draft.skip(line, rule.get("rule"), "an inactive agg_dq rule does not run: not converted")
        return
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
                "sql": placeholders(draft, str(rule["expectation"])),
                "on": side,
                "level": level,
            }
        )


def _rule(draft: Draft, defaults: dict[str, Any], line: int, raw: Any) -> None:
    """One rule of the file, its environment's defaults under it."""
    given = mapping(raw, draft.origin, line, "this rule")
    unknown = sorted(set(map(str, given)) - RULE_KEYS)
    if unknown:
        draft.skip(line, raw, f"the key(s) {', '.join(unknown)} are not Spark-Expectations'")
        return
    rule = {**defaults, **{k: v for k, v in given.items() if v not in (None, "")}}
    kind = str(rule.get("rule_type") or "")
    for key in _QUERY_ONLY:
        if kind != "query_dq" and _flag(rule.get(key), False):
            draft.skip(line, {key: rule[key]}, f"{key} applies to query_dq rules only")
    if not str(rule.get("expectation") or "").strip():
        draft.skip(line, raw, "a rule without an expectation")
    elif kind in ("row_dq", "agg_dq"):
        try:
            (_row_rule if kind == "row_dq" else _agg_rule)(draft, rule, line)
        except Unmappable as why:
            draft.skip(line, raw, str(why))
    elif kind == "query_dq":
        draft.skip(line, raw, "query_dq reads tables by name: write it as a SQL check")
    else:
        draft.skip(line, raw, f"rule_type is row_dq, agg_dq or query_dq, not {kind!r}")


def _chosen_table(
    pairs: list[tuple[int, Any]], table: Any, wanted: str | None, origin: str
) -> str | None:
    """The table whose rules apply: Spark-Expectations runs only the rules whose
    ``table_name`` is the target table (``utils/reader.py``, the rules filter)."""
    named = {_table_of(r, table) for _, r in pairs if isinstance(r, dict)} - {""}
    if wanted is not None:
        return wanted
    if len(named) > 1:
        raise RulesetFormatError(
            f"{origin} has rules for the tables {', '.join(sorted(named))}: Spark-Expectations "
            "runs a table's rules only on that table, so name one with --se-table",
            item_kind="ruleset",
        )
    return next(iter(named), None)


def _table_of(rule: dict[str, Any], table: Any) -> str:
    return str(rule.get("table_name") or table or "")


def read(text: str, origin: str, env: str | None = None, table: str | None = None) -> ImportResult:
    """Our ruleset from Spark-Expectations rules (``env``: the ``dq_env`` environment;
    ``table``: the target table whose rules apply, needed when the rules name several)."""
    pairs, defaults, product, unknown, file_table = _rows(text, origin, env)
    draft = Draft(origin)
    for key in unknown:
        draft.skip(1, key, "not a key of a Spark-Expectations rules file")
    chosen = _chosen_table(pairs, file_table, table, origin)
    kept = []
    for line, raw in pairs:
        other = _table_of(raw, file_table) if isinstance(raw, dict) else ""
        if chosen is not None and other not in ("", chosen):
            draft.skip(line, raw.get("rule"), f"a rule of the table {other}, not {chosen}")
        else:
            kept.append((line, raw))
    each_item(draft, kept, "this rule", partial(_rule, draft, defaults))
    name = product or origin.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    result = assemble(draft, str(name) or "spark_expectations")
    return result.with_note(f"the rules of table {chosen}") if chosen else result
