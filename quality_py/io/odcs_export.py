"""A YAML ruleset written as an ODCS v3 data contract (``convert --to odcs``): its rules and
checks as the ``quality`` section of one schema object, for the tools that read contracts, and
the ruleset itself kept in the contract's custom properties, so ``convert --from odcs`` reads
the contract back to the same ruleset.

* a **rule** is an ``sql`` entry counting the rows it fails (the rule compiled into plain Spark
  SQL: lambdas inlined, library functions expanded) that ``mustBe: 0``, or with its tolerance
  (``fail_if: "> N"``) ``mustBeLessOrEqualTo: N``;
* a **SQL check** on the source is an ``sql`` entry over ``{object}``: its value ``mustBe: 1``
  when it is true or false, or under its assertion (``> 5``, ``between 1 and 9``);
* ``has_size`` and ``is_complete`` are the library metrics ``rowCount`` and ``nullValues``.

What has no ODCS form is a ``text`` entry (its description for people) carrying the item, and is
listed: rules whose value is a code or a probability, SQL checks on the valid or quarantined
rows, other dataset checks, assertions other than a comparison. Actions, tags, lambdas, outputs
and the suite's settings have no ODCS form either; they travel in the custom properties.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from quality_py.errors import QualityError, RulesetFormatError
from quality_py.gate import files
from quality_py.io.ruleset_file import loads_ruleset_file
from quality_py.io.yaml_checks import refuse_aliases
from quality_py.model.yaml_text import dump_yaml
from quality_py.sql.exported import failing_rows_query

#: the custom property holding our items (:mod:`quality_py.io.imports.odcs` reads it back)
OWN = "quality_py"
_SECTIONS = ("rule_sets", "checks", "sql_checks")
_ASSERTION = re.compile(r"^\s*(==|=|!=|<>|>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")
_BETWEEN = re.compile(r"^\s*between\s+(-?\d+(?:\.\d+)?)\s+and\s+(-?\d+(?:\.\d+)?)\s*$", re.I)
_OPERATOR = {"==": "mustBe", "=": "mustBe", "!=": "mustNotBe", "<>": "mustNotBe",
             ">": "mustBeGreaterThan", ">=": "mustBeGreaterOrEqualTo", "<": "mustBeLessThan",
             "<=": "mustBeLessOrEqualTo"}  # fmt: skip


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def operators(assertion: str) -> dict[str, Any] | None:
    """An assertion as ODCS operators, or None when it is not a comparison with a number.

    >>> operators(">= 10"), operators("between 1 and 9"), operators("x > 1")
    ({'mustBeGreaterOrEqualTo': 10}, {'mustBeGreaterOrEqualTo': 1, 'mustBeLessOrEqualTo': 9}, None)
    """
    if m := _ASSERTION.match(assertion):
        return {_OPERATOR[m[1]]: _number(m[2])}
    if m := _BETWEEN.match(assertion):  # ours includes its ends; ODCS's mustBeBetween does not
        return {"mustBeGreaterOrEqualTo": _number(m[1]), "mustBeLessOrEqualTo": _number(m[2])}
    return None


def _own(kind: str, item: dict[str, Any], group: int | None = None) -> list[dict[str, Any]]:
    value: dict[str, Any] = {kind: item}
    if group is not None:
        value["group"] = group
    return [{"property": OWN, "value": value}]


def _text(name: str, why: str, custom: list[dict[str, Any]], left: list[str]) -> dict[str, Any]:
    left.append(f"{name}: {why}")
    return {"id": name, "type": "text", "description": why, "customProperties": custom}


def _rule_entry(rule: dict[str, Any], group: int, compiled: Any, left: list[str]) -> dict[str, Any]:
    name = str(rule.get("name") or f"rule_{rule.get('id')}")
    custom = _own("rule", rule, group)
    query = compiled(rule)
    if query is None:
        return _text(name, "its value is a code or a probability, not true or false", custom, left)
    entry: dict[str, Any] = {"id": name, "type": "sql", "query": query}
    if rule.get("description"):
        entry["description"] = str(rule["description"])
    tolerance = str(rule.get("fail_if") or "")
    m = re.fullmatch(r">\s*(\d+)", tolerance.strip())
    if tolerance and m is None:
        return _text(name, f"its tolerance {tolerance!r} has no ODCS form", custom, left)
    entry["mustBeLessOrEqualTo" if m else "mustBe"] = int(m[1]) if m else 0
    entry["customProperties"] = custom
    return entry


def _sql_check_entry(check: dict[str, Any], left: list[str]) -> dict[str, Any]:
    name, sql, custom = str(check["name"]), str(check["sql"]).strip(), _own("sql_check", check)
    if check.get("on", "source") != "source":
        return _text(name, f"a SQL check on the {check['on']} rows, which a contract has not",
                     custom, left)  # fmt: skip
    value = f"({sql})" if sql[:6].upper() == "SELECT" else sql
    assertion = check.get("assertion")
    judged = operators(str(assertion)) if assertion is not None else {"mustBe": 1}
    if judged is None:
        return _text(name, f"its assertion {assertion!r} has no ODCS form", custom, left)
    if assertion is None:
        value = f"CASE WHEN {value} THEN 1 ELSE 0 END"
    entry = {"id": name, "type": "sql",
             "query": f"WITH source AS (SELECT * FROM {{object}}) SELECT {value} FROM source",
             **judged, "customProperties": custom}  # fmt: skip
    if check.get("level") == "warning":
        entry["severity"] = "warning"
    return entry


def _constraint_entry(constraint: dict[str, Any], group: int, level: str, left: list[str]
                      ) -> dict[str, Any]:  # fmt: skip
    (kind, args), custom = next(iter(constraint.items())), _own("constraint", constraint, group)
    name = f"{kind}_{group}"
    entry: dict[str, Any] | None = None
    first = _first(args, "assertion" if kind == "has_size" else "column")
    if kind == "has_size" and first is not None:
        judged = operators(first)
        entry = {"id": name, "metric": "rowCount", **judged} if judged else None
    elif kind == "is_complete" and first is not None:
        entry = {"id": f"{first}_complete", "metric": "nullValues", "mustBe": 0,
                 "arguments": {"properties": [first]}}  # fmt: skip
    if entry is None:
        return _text(name, f"the dataset check {kind} has no ODCS form", custom, left)
    if level == "warning":
        entry["severity"] = "warning"
    return {**entry, "customProperties": custom}


def _first(args: Any, key: str) -> str | None:
    """A constraint's one argument, written positionally or by name (``has_size: ">= 5"``,
    ``[">= 5"]`` or ``{assertion: ">= 5"}``), when it is the only one."""
    if isinstance(args, dict):
        args = [args[key]] if set(args) == {key} else None
    if isinstance(args, list):
        args = args[0] if len(args) == 1 else None
    return args if isinstance(args, str) else None


def _entries(doc: dict[str, Any], compiled: Any, left: list[str]) -> list[dict[str, Any]]:
    out = []
    for group, rule_set in enumerate(doc.get("rule_sets") or []):
        out += [_rule_entry(r, group, compiled, left) for r in rule_set.get("rules") or []]
    for group, check in enumerate(doc.get("checks") or []):
        level = str(check.get("level", "error"))
        out += [_constraint_entry(c, group, level, left) for c in check.get("constraints") or []]
    out += [_sql_check_entry(c, left) for c in doc.get("sql_checks") or []]
    return out


def export_odcs(
    text: str, origin: str, views: Sequence[str] = (), variables: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    """The ODCS contract of YAML ruleset ``text`` and what has no ODCS form (``views``: the
    reference views its rules read; ``variables``: the values of its ``${NAME}``, filled into
    the queries, while the items kept for reading back keep ``${NAME}`` as written).

    >>> contract, left = export_odcs("suite: {id: 1, name: orders}\\nrule_sets: [{id: 2, "
    ...     "rules: [{id: 3, name: positive, expression: 'amount > 0'}]}]", "r.yaml")
    >>> [line.split("FROM")[1].strip() for line in contract.splitlines() if "query" in line]
    ['(SELECT (amount > 0) AS passed']
    >>> left
    []
    """
    refuse_aliases(text, origin)
    loaded = loads_ruleset_file(text, origin, variables=variables)
    doc = files.yaml_value(text) or {}
    suite = loaded.suite
    policy = suite.policy.with_views(*views) if views else suite.policy
    rules = {id(r): rule for (_, rule), r in zip(suite.iter_rules(), _raw_rules(doc), strict=True)}

    def compiled(raw: dict[str, Any]) -> str | None:
        rule = rules[id(raw)]
        try:
            return failing_rows_query(rule.expression, rule.id, tuple(suite.lambdas), policy)
        except QualityError as err:
            raise RulesetFormatError(f"{origin}: the rule {rule.name or rule.id} does not "
                                     f"compile for the export: {err.message}",
                                     item_kind="ruleset") from None  # fmt: skip

    left: list[str] = []
    name = str((doc.get("suite") or {}).get("name") or "ruleset")
    version = (doc.get("suite") or {}).get("version", 1)
    rest = {k: v for k, v in doc.items() if k not in _SECTIONS}
    rest["groups"] = {k: [{x: y for x, y in g.items() if x not in ("rules", "constraints")}
                          for g in doc.get(k) or []] for k in ("rule_sets", "checks")}  # fmt: skip
    contract = {
        "apiVersion": "v3.0.2", "kind": "DataContract", "id": name, "version": f"{version}.0.0",
        "status": "active",
        "schema": [{"name": name, "quality": _entries(doc, compiled, left)}],
        "customProperties": [{"property": OWN, "value": rest}],
    }  # fmt: skip
    return dump_yaml(contract), left


def _raw_rules(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for rs in doc.get("rule_sets") or [] for r in rs.get("rules") or []]
