"""Spark-Expectations rules: their YAML or JSON rules file (``rules:``, optional ``product_id``
and ``dq_env``) or a CSV export of their rules table (one row per rule, the table's columns).

``row_dq`` rules become our rules with their name, expectation, action (``ignore``, ``drop``,
``fail``: the same meanings), tag, description and ``is_active``; an error drop alert becomes an
error rate of that rule (``error_drop_threshold`` read as a percentage). ``agg_dq`` rules become
SQL checks over the source and/or the valid output (``enable_for_source_dq_validation`` /
``..._target_...``), of level ``error`` when their action is ``fail``. ``query_dq`` rules read
tables by name and are listed, not mapped: write them as SQL checks over ``source``, ``valid``
and ``quarantine``.

Read as Spark-Expectations reads them (``rules/plugins/_flatten.py``, ``utils/reader.py``,
``core/expectations.py``):

* ``row_dq`` and ``agg_dq`` expectations reach Spark as written: only ``query_dq`` ones are
  filled from ``se_dq_rules_params`` (``{4}`` in a regex is a regex's);
* a file's key left empty takes the built-in default, not the file's ``defaults``; a boolean
  is true for ``true``, ``1``, ``yes`` in any case and nothing else (``Y`` is false); a rules
  table's empty cell is null, false wherever a flag is read;
* ``action_if_failed`` is matched exactly: ``Drop`` is none of its actions (it warns and runs
  the rule as ``ignore``);
* ``error_drop_threshold`` is an integer (``2.5`` is 2);
* ``agg_dq`` rules on the target run only after ``row_dq`` rules: a table without an active
  ``row_dq`` rule runs none."""

from __future__ import annotations

import csv
import io
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

#: what a rules file's boolean string means true (``_flatten.py``, ``_cast_value``)
_TRUE = ("true", "1", "yes")
#: the built-in value of each key a rule leaves empty (``_flatten.py``, ``COLUMN_DEFAULTS``)
BUILT_IN: dict[str, Any] = {
    "action_if_failed": "ignore",
    "enable_for_source_dq_validation": True,
    "enable_for_target_dq_validation": True,
    "is_active": True,
    "enable_error_drop_alert": False,
    "error_drop_threshold": 0,
    "enable_querydq_custom_output": False,
    "priority": "medium",
}
#: the actions, matched exactly (``validate_rules.py``, ``ActionIfFailed``)
_ACTIONS = ("ignore", "drop", "fail")
#: a rules table's cells (a CSV export): an empty cell is a null
_TABLE = "__table__"


def _flag(rule: dict[str, Any], key: str) -> bool:
    """A boolean key as Spark-Expectations reads it: a file's value by ``_cast_value``, a
    table's cell as a boolean column (an empty cell is null: false wherever it is read).

    >>> _flag({"is_active": "Y"}, "is_active"), _flag({"is_active": None}, "is_active")
    (False, True)
    >>> _flag({_TABLE: True, "is_active": ""}, "is_active"), _flag({_TABLE: True}, "is_active")
    (False, True)
    """
    v = rule.get(key)
    if rule.get(_TABLE) and v is not None:  # a column the export lacks: the built-in default
        text = str(v).strip().lower()
        if text not in ("true", "false", ""):
            raise Unmappable(f"{key} {v!r} is no boolean a rules table's column holds")
        return text == "true"
    if v is None:
        return bool(BUILT_IN.get(key, False))
    if isinstance(v, bool):
        return v
    return v.lower() in _TRUE if isinstance(v, str) else bool(v)


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
        return rows, {_TABLE: True}, None, [], None
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


def _action(draft: Draft, rule: dict[str, Any], line: int) -> str:
    """The rule's action, matched exactly; anything else (``Drop``) is listed and run as
    ``ignore``, as Spark-Expectations warns and runs it (neither drops nor fails)."""
    action = rule.get("action_if_failed")
    if action is None or action == "":
        return "ignore"
    if action in _ACTIONS:
        return str(action)
    draft.skip(line, {"action_if_failed": action}, "Spark-Expectations matches drop, ignore "
               "and fail exactly: it warns and runs this rule as ignore, as converted")  # fmt: skip
    return "ignore"


def _row_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    name = draft.name(str(rule.get("rule") or "rule"))
    action = _action(draft, rule, line)
    out: dict[str, Any] = {
        "name": name,
        # as written: Spark-Expectations fills placeholders in query_dq rules only (reader.py)
        "expression": peer_windows(str(rule["expectation"])),
        "action_if_failed": action,
    }
    if rule.get("description"):
        out["description"] = str(rule["description"])
    tags = [str(rule[k]) if k == "tag" else f"{k.split('_')[0]}:{rule[k]}"
            for k in ("tag", "priority", "column_name") if rule.get(k)]  # fmt: skip
    if tags:
        out["tags"] = tags
    if not _flag(rule, "is_active"):
        out["active"] = False
    draft.rules.append(out)
    if _flag(rule, "enable_error_drop_alert"):
        # spark_expectations_notify.py: alerts when some row failed and the failed share (in
        # percent, rounded to 2 decimals) is >= the threshold: an inclusive error rate
        threshold = _threshold(rule.get("error_drop_threshold"))
        share = number(threshold, name="error_drop_threshold", low=0, high=100) / 100
        draft.error_rates[id_from_name(name)] = share
        draft.inclusive_rates = True


def _threshold(v: Any) -> int:
    """``error_drop_threshold`` as ``_cast_value`` reads it, ``int()``: a number is truncated
    (2.5 is 2), text must be a whole number (``"2.5"`` stops Spark-Expectations, and this rule
    is malformed here).

    >>> _threshold(2.5), _threshold("10"), _threshold(None)
    (2, 10, 0)
    """
    if v is None or v == "":
        return 0
    if isinstance(v, str):
        return int(number(v, name="error_drop_threshold", integer=True))
    return int(number(v, name="error_drop_threshold"))


def _agg_rule(draft: Draft, rule: dict[str, Any], line: int) -> None:
    if not _flag(rule, "is_active"):  # actions.py: an inactive agg_dq does not run
        draft.skip(line, rule.get("rule"), "an inactive agg_dq rule does not run: not converted")
        return
    level = "error" if _action(draft, rule, line) == "fail" else "warning"
    sides = [
        side
        for side, key in (("source", "source"), ("valid", "target"))
        if _flag(rule, f"enable_for_{key}_dq_validation")
    ]
    if not sides:
        shown = {k: v for k, v in rule.items() if k != _TABLE}
        draft.skip(line, shown, "enabled for neither the source nor the target")
    for side in sides:
        draft.sql_checks.append(
            {
                "name": f"{rule.get('rule') or 'agg'} ({side})",
                "sql": str(rule["expectation"]),  # as written (reader.py)
                "on": side,
                "level": level,
                "line": line,
            }
        )


def _rule(draft: Draft, defaults: dict[str, Any], line: int, raw: Any) -> None:
    """One rule of the file, its environment's defaults under it."""
    given = mapping(raw, draft.origin, line, "this rule")
    unknown = sorted(set(map(str, given)) - RULE_KEYS)
    if unknown:
        draft.skip(line, raw, f"the key(s) {', '.join(unknown)} are not Spark-Expectations'")
        return
    # a key the rule leaves empty takes the built-in default, not the file's (_flatten.py:
    # the rule's None overrides ``defaults``, then _cast_value reads None as COLUMN_DEFAULTS)
    rule = {**defaults, **given}
    kind = str(rule.get("rule_type") or "")
    try:
        with draft.atomic():
            for key in _QUERY_ONLY:
                if kind != "query_dq" and _flag(rule, key):
                    draft.skip(line, {key: rule[key]}, f"{key} applies to query_dq rules only")
            if not str(rule.get("expectation") or "").strip():
                draft.skip(line, raw, "a rule without an expectation")
            elif kind in ("row_dq", "agg_dq"):
                (_row_rule if kind == "row_dq" else _agg_rule)(draft, rule, line)
            elif kind == "query_dq":
                draft.skip(line, raw, "query_dq reads tables by name: write it as a SQL check")
            else:
                draft.skip(line, raw, f"rule_type is row_dq, agg_dq or query_dq, not {kind!r}")
    except Unmappable as why:
        draft.skip(line, raw, str(why))


def _target_needs_row_rules(draft: Draft) -> None:
    """Spark-Expectations checks the target (our valid output) only after its row_dq rules
    (``core/expectations.py``: ``if _row_dq is True and _target_agg_dq is True``, ``_row_dq``
    read from the active rules of the table): without an active one, no target agg_dq runs."""
    active_rows = any(r.get("active", True) for r in draft.rules)
    kept = []
    for check in draft.sql_checks:
        line = check.pop("line")
        if check["on"] == "valid" and not active_rows:
            draft.skip(line, check["name"], "Spark-Expectations checks the target only after "
                       "row_dq rules, and this table has no active one: it never runs")  # fmt: skip
        else:
            kept.append(check)
    draft.sql_checks[:] = kept


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
    _target_needs_row_rules(draft)
    name = product or origin.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    result = assemble(draft, str(name) or "spark_expectations")
    return result.with_note(f"the rules of table {chosen}") if chosen else result
