"""Typed rows of the rule tables, checked one by one, and a suite written as rows.

Reading goes: raw values (from a DataFrame, CSV, anything) -> :func:`check_rows` (every broken
row is collected, never the first only) -> typed rows -> ``versioning`` -> ``assemble``.
Nothing here needs Spark.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any, TypeVar

from quality_py.errors import BrokenRow, ModelError, QualityError, RuleTableError
from quality_py.model.ids import INT_MAX, INT_MIN, Id, id_from_name
from quality_py.model.rules import ROW_ACTIONS, OutputExpression, Rule, RuleSuite
from quality_py.model.tolerance import TOLERANCE_FIELDS, parse_tolerance

#: A row whose text is exactly this removes the item from that version on (contract 5.2).
DELETED = "DELETED"


@dataclass(frozen=True, slots=True)
class RuleRow:
    """One version of one rule."""

    rule_suite_id: int
    rule_suite_version: int
    rule_set_id: int
    rule_set_version: int
    rule_id: int
    rule_version: int
    rule_expr: str
    rule_engine_salience: int = INT_MAX
    rule_engine_id: int | None = None
    rule_engine_version: int | None = None
    description: str | None = None
    owner: str | None = None
    tags: tuple[str, ...] = ()
    action_if_failed: str = "ignore"
    name: str | None = None
    filter: str | None = None
    active: bool = True
    warn_if: str | None = None
    fail_if: str | None = None
    report_columns: tuple[str, ...] = ()

    @property
    def output_key(self) -> tuple[int, int] | None:
        """``(id, version)`` of the linked output expression; None (also for the original's
        INT_MIN and (0, 0) markers) when the rule has none."""
        oid, ov = self.rule_engine_id, self.rule_engine_version
        if oid is None or ov is None or oid == INT_MIN or (oid, ov) == (0, 0):
            return None
        return oid, ov


@dataclass(frozen=True, slots=True)
class LambdaRow:
    """One version of one lambda."""

    name: str
    rule_expr: str
    function_id: int
    function_version: int
    rule_suite_id: int
    rule_suite_version: int
    description: str | None = None


@dataclass(frozen=True, slots=True)
class OutputRow:
    """One version of one output expression."""

    rule_expr: str
    function_id: int
    function_version: int
    rule_suite_id: int
    rule_suite_version: int
    description: str | None = None


@dataclass(frozen=True, slots=True)
class MetaRuleSetRow:
    """One version of one meta rule set."""

    rule_suite_id: int
    rule_suite_version: int
    rule_set_id: int
    rule_set_version: int
    column_filter: str
    rule_expr: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class SuiteTables:
    """The four tables' rows."""

    rules: tuple[RuleRow, ...] = ()
    lambdas: tuple[LambdaRow, ...] = ()
    outputs: tuple[OutputRow, ...] = ()
    meta_rule_sets: tuple[MetaRuleSetRow, ...] = ()


Row = TypeVar("Row", RuleRow, LambdaRow, OutputRow, MetaRuleSetRow)

_INT = re.compile(r"^\s*[+-]?\d+\s*$")
# (required int fields, required text fields, the key whose text must be unique)
_Spec = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_SPECS: dict[type, _Spec] = {
    RuleRow: (
        (
            "rule_suite_id",
            "rule_suite_version",
            "rule_set_id",
            "rule_set_version",
            "rule_id",
            "rule_version",
        ),
        ("rule_expr",),
        ("rule_suite_id", "rule_set_id", "rule_set_version", "rule_id", "rule_version"),
    ),
    LambdaRow: (
        ("function_id", "function_version", "rule_suite_id", "rule_suite_version"),
        ("name", "rule_expr"),
        ("rule_suite_id", "function_id", "function_version"),
    ),
    OutputRow: (
        ("function_id", "function_version", "rule_suite_id", "rule_suite_version"),
        ("rule_expr",),
        ("rule_suite_id", "function_id", "function_version"),
    ),
    MetaRuleSetRow: (
        ("rule_suite_id", "rule_suite_version", "rule_set_id", "rule_set_version"),
        ("rule_expr",),
        ("rule_suite_id", "rule_set_id", "rule_set_version"),
    ),
}
_TABLE_NAMES = {
    RuleRow: "rules",
    LambdaRow: "lambdas",
    OutputRow: "outputs",
    MetaRuleSetRow: "meta rule sets",
}


def required_fields(kind: type) -> set[str]:
    """The fields a table of ``kind`` rows must have (ids and text).

    >>> sorted(required_fields(OutputRow))[:2]
    ['function_id', 'function_version']
    """
    spec: _Spec = _SPECS[kind]
    return {*spec[0], *spec[1]}


def table_name(kind: type) -> str:
    """How errors name the table of ``kind`` rows."""
    return _TABLE_NAMES[kind]


def _as_int(value: Any) -> int | None:
    """The value as a 32-bit int, or None when it is not one."""
    if isinstance(value, bool):
        return None
    integral = (isinstance(value, float) and math.isfinite(value) and value.is_integer()) or (
        isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value()
    )
    if isinstance(value, int):
        out = value
    elif integral or (isinstance(value, str) and _INT.match(value)):
        out = int(value)
    else:
        return None
    return out if INT_MIN <= out <= INT_MAX else None


def _tags(value: Any) -> tuple[str, ...] | None:
    """Tags from an array column, or from text (a CSV cell): a JSON list, or comma-separated
    words; None when it is neither. (Text is never split into its characters.)

    >>> _tags(["a", "b"]), _tags('["a", "b"]'), _tags("a, b"), _tags(""), _tags(None)
    (('a', 'b'), ('a', 'b'), ('a', 'b'), (), ())
    """
    if value is None:
        return ()
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text) if len(text) < 100_000 else None
            except (ValueError, RecursionError):  # not JSON, or nested past the parser
                return None
            return _tags(parsed) if isinstance(parsed, list) else None
        return tuple(t.strip() for t in text.split(",") if t.strip())
    if isinstance(value, list | tuple) and all(isinstance(t, str) for t in value):
        return tuple(value)
    return None


def _tolerance_problems(name: str, text: str | None) -> list[str]:
    """Why a row's ``warn_if`` / ``fail_if`` does not parse (nothing when it does)."""
    if text is None:
        return []
    try:
        parse_tolerance(text, field=name)
    except ModelError as err:
        return [err.message]
    return []


def _as_bool(value: object) -> bool | None:
    """A table's active flag: null (an old table) is true; booleans, 0/1 and true/false text."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return {"true": True, "false": False, "1": True, "0": False}.get(text)


def _named_id(values: Mapping[str, Any], problems: list[str]) -> Mapping[str, Any]:
    """A rule row with a blank ``ruleId`` and a ``ruleName`` takes the id YAML derives from
    the name (:func:`quality_py.model.ids.id_from_name`) and, when blank too, version 1.

    >>> _named_id({"rule_id": None, "name": "carrier_known"}, [])["rule_id"]
    284750657
    """
    name = values.get("name")
    blank = values.get("rule_id") is None or not str(values.get("rule_id")).strip()
    if not blank or not isinstance(name, str) or not name.strip():
        return values
    try:
        derived = id_from_name(name.strip())
    except QualityError as err:
        problems.append(f"ruleId is blank and the name cannot give one: {err.message}")
        return values
    version = values.get("rule_version")
    if version is None or not str(version).strip():
        version = 1
    return {**values, "rule_id": derived, "rule_version": version}


def rule_row_id(values: Mapping[str, Any]) -> Id | None:
    """The id and version a raw rule row gives (derived from its name as :func:`check_rows`
    derives it), or None for a row the table reader refuses.

    >>> rule_row_id({"rule_id": "7", "rule_version": "2"}), rule_row_id({"rule_id": "x"})
    (Id(7, 2), None)
    """
    problems: list[str] = []
    named = _named_id(values, problems)
    rid, version = _as_int(named.get("rule_id")), _as_int(named.get("rule_version"))
    if problems or rid is None or version is None:
        return None
    try:
        return Id(rid, version)
    except ModelError:
        return None


def _optional(kind: type[Row], name: str, value: Any, problems: list[str]) -> Any:
    """An optional field's typed value; what is wrong with it goes to ``problems``."""
    if name in ("tags", "report_columns"):
        tags = _tags(value)
        if tags is None:
            problems.append(f"{name} is not a list of texts ({value!r})")
        return tags or ()
    if name == "action_if_failed":
        action = "ignore" if value is None else str(value).strip().lower()
        if action not in ROW_ACTIONS:
            problems.append(f"{name} must be one of {', '.join(ROW_ACTIONS)} ({value!r})")
        return action
    if name == "active" and kind is RuleRow:
        flag = _as_bool(value)
        if flag is None:
            problems.append(f"active is not true or false ({value!r})")
        return flag
    if name in ("name", "filter", *TOLERANCE_FIELDS) and kind is RuleRow:
        text = None if value is None or not str(value).strip() else str(value)
        if name in TOLERANCE_FIELDS:
            problems += _tolerance_problems(name, text)
        return text
    if name.startswith("rule_engine") and value is not None:
        got = _as_int(value)
        if got is None:
            problems.append(f"{name} is not a 32-bit integer ({value!r})")
        return got
    return value


def check_rows(kind: type[Row], raw: Iterable[Mapping[str, Any]]) -> list[Row]:
    """Typed rows from raw ``{field: value}`` mappings; every broken row raises together.

    >>> check_rows(OutputRow, [{"rule_expr": "1", "function_id": "7", "function_version": 1,
    ...     "rule_suite_id": 1, "rule_suite_version": 1}])[0].function_id
    7
    >>> try:
    ...     check_rows(OutputRow, [{"rule_expr": None, "function_id": "x",
    ...         "function_version": 1, "rule_suite_id": 1, "rule_suite_version": 1}])
    ... except RuleTableError as err:
    ...     print(err.broken[0].problems)
    ("function_id is not a 32-bit integer ('x')", 'rule_expr is null or blank')
    """
    spec: _Spec = _SPECS[kind]
    ints: tuple[str, ...] = spec[0]
    texts: tuple[str, ...] = spec[1]
    key: tuple[str, ...] = spec[2]
    table = _TABLE_NAMES[kind]
    names = {f.name for f in fields(kind)}
    typed: list[tuple[dict[str, Any], Row | None, list[str]]] = []
    for values in raw:
        problems: list[str] = []
        clean: dict[str, Any] = {}
        values = _named_id(values, problems) if kind is RuleRow else values
        for name in ints:
            got = _as_int(values.get(name))
            if values.get(name) is None:
                problems.append(f"{name} is null")
            elif got is None:
                problems.append(f"{name} is not a 32-bit integer ({values.get(name)!r})")
            clean[name] = got
        for name in texts:
            text = values.get(name)
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{name} is null or blank")
            clean[name] = text
        for name in names - set(ints) - set(texts):
            if name in values:
                clean[name] = _optional(kind, name, values[name], problems)
        if clean.get("rule_engine_salience", 0) is None:
            clean["rule_engine_salience"] = INT_MAX
        action, warn, fail = (clean.get(k) for k in ("action_if_failed", "warn_if", "fail_if"))
        if action == "fail" and warn and not fail:
            problems.append("warn_if on a fail rule with no fail_if could never warn")
        typed.append((dict(values), None if problems else kind(**clean), problems))
    by_key: dict[tuple[Any, ...], set[str]] = {}
    for _, row, _ in typed:
        if row is not None:
            by_key.setdefault(tuple(getattr(row, k) for k in key), set()).add(row.rule_expr)
    broken: list[BrokenRow] = []
    listed: list[str] = [*ints, *texts, *key]
    for given, typed_row, found in typed:
        if typed_row is not None and len(by_key[tuple(getattr(typed_row, k) for k in key)]) > 1:
            found.append(f"({', '.join(key)}) repeats with a different rule_expr")
        if found:
            shown = tuple({k: given.get(k) for k in listed if k in given}.items())
            broken.append(BrokenRow(table, shown, tuple(found)))
    if broken:
        raise RuleTableError(broken)
    return [row for _, row, _ in typed if row is not None]


def _rule_row(sid: int, sv: int, set_id: Id, rule: Rule, out: OutputExpression | None) -> RuleRow:
    return RuleRow(
        sid,
        sv,
        set_id.id,
        set_id.version,
        rule.id.id,
        rule.id.version,
        rule.expression,
        rule.salience,
        None if out is None else out.id.id,
        None if out is None else out.id.version,
        rule.description,
        rule.owner,
        tuple(rule.tags),
        str(rule.action_if_failed),
        rule.name,
        rule.filter,
        rule.active,
        rule.warn_if,
        rule.fail_if,
        tuple(rule.report_columns),
    )


def suite_to_tables(suites: RuleSuite | Iterable[RuleSuite]) -> SuiteTables:
    """Every rule, lambda, output expression and meta rule set of ``suites`` as rows.

    Each distinct output expression is written once per suite; two different texts under one
    output id, and an output whose id is the tables' "no output" marker ((0, 0), or the id
    INT_MIN), are refused (they could not be read back).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 2), [RuleSet(Id(5, 1), [Rule(Id(9, 3), "a > 0")])])
    >>> tables = suite_to_tables(suite)
    >>> tables.rules[0].rule_id, tables.rules[0].rule_version, tables.rules[0].rule_suite_version
    (9, 3, 2)
    """
    if isinstance(suites, RuleSuite):
        suites = [suites]
    rules: list[RuleRow] = []
    lambdas: list[LambdaRow] = []
    outputs: list[OutputRow] = []
    metas: list[MetaRuleSetRow] = []
    for suite in suites:
        sid, sv = suite.id.id, suite.id.version
        written: dict[tuple[int, int], str] = {}
        described: dict[tuple[int, int], str | None] = {}
        for rule_set, rule in suite.iter_rules():
            out = rule.output
            if out is not None:
                key = (out.id.id, out.id.version)
                if key == (0, 0) or out.id.id == INT_MIN:
                    raise ModelError(
                        f"output expression {out.id!r} of rule {rule.id!r} cannot be kept in "
                        "rule tables, where that id means 'no output' (the original's marker); "
                        "give the output another id",
                        item_id=out.id,
                        item_kind="output",
                        code="RULE_TABLE",
                    )
                described.setdefault(key, out.description)
                if written.setdefault(key, out.expression) != out.expression:
                    raise ModelError(
                        f"output expression {out.id!r} has two different texts in suite "
                        f"{suite.id!r}",
                        item_id=out.id,
                        item_kind="output",
                        code="DUPLICATE_ID",
                    )
            rules.append(_rule_row(sid, sv, rule_set.id, rule, out))
        outputs += [
            OutputRow(text, oid, ov, sid, sv, described.get((oid, ov)))
            for (oid, ov), text in written.items()
        ]
        lambdas += [
            LambdaRow(lam.name, lam.expression, lam.id.id, lam.id.version, sid, sv, lam.description)
            for lam in suite.lambdas
        ]
        _one_version_each(suite)
        metas += [
            MetaRuleSetRow(
                sid, sv, m.id.id, m.id.version, m.column_filter, m.expression, m.description
            )
            for m in suite.meta_rule_sets
        ]
    return SuiteTables(tuple(rules), tuple(lambdas), tuple(outputs), tuple(metas))


def _one_version_each(suite: RuleSuite) -> None:
    """Refuse two versions of one meta rule set in a suite: rule tables read the latest version
    of each, so the older one would vanish on the way back (a round trip must be exact)."""
    seen: dict[int, int] = {}
    for meta in suite.meta_rule_sets:
        other = seen.setdefault(meta.id.id, meta.id.version)
        if other != meta.id.version:
            raise ModelError(
                f"meta rule set {meta.id.id} is in suite {suite.id!r} in versions {other} and "
                f"{meta.id.version}: rule tables keep the latest version of each meta rule set, "
                "so the other would be lost; give one of them another id",
                item_id=meta.id,
                item_kind="meta rule set",
                code="DUPLICATE_ID",
            )
