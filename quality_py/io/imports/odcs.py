"""Open Data Contract Standard v3 contracts (``convert --from odcs``): what a contract declares
about one schema object, as rules, SQL checks and a schema check.

* **Per property** (column): ``required: true`` is a rule ``c IS NOT NULL``; ``unique: true`` a
  rule ``is_unique(c)``; ``logicalTypeOptions`` ``pattern`` (a find, as every engine of the
  standard reads a pattern), ``minimum`` / ``maximum`` (``exclusiveMinimum`` /
  ``exclusiveMaximum`` exclude the bound), ``minLength`` / ``maxLength`` are rules a null
  passes (``required`` is what refuses a null).
* **Schema**: the properties' ``physicalType`` (when every one is a Spark type; ``any``
  without one; ``string`` and a length rule for ``varchar(n)``) is a ``has_schema`` check of
  those columns. ``--table NAME`` picks the schema object (default: the first).
* **Quality entries** (``quality:`` of a property or of the object), ``error`` SQL checks unless
  ``severity`` says warning: the library metrics ``nullValues``, ``missingValues`` (the listed
  values; a null only when the list holds one), ``invalidValues`` (non-null values outside
  ``validValues`` or not matching ``pattern``), ``duplicateValues`` (non-null values, or key
  combinations without a null part, beyond the first of each), ``rowCount``; ``unit: percent``
  divides by the row count (0 without rows); ``type: sql`` runs its ``query`` with ``{object}``
  as the data and ``{property}`` as the column, a null value failing. The operators: ``mustBe``,
  ``mustNotBe``, ``mustBeGreaterThan``, ``mustBeGreaterOrEqualTo``, ``mustBeLessThan``,
  ``mustBeLessOrEqualTo``, and ``mustBeBetween`` / ``mustNotBeBetween`` whose bounds are
  **excluded**, as the standard defines them (``docs/data-quality.md``: "equivalent to
  mustBeGreaterThan and mustBeLessThan"); several operators must all hold.

``text`` entries (for people), ``custom`` entries (another engine's code), nested properties and
further schema objects are listed with their lines. Our own export
(:mod:`quality_py.io.odcs_export`) keeps each rule or check on its entry and the rest of the
ruleset on the contract: such a contract reads back as that ruleset, any entry added since
converted as above.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

import yaml

from quality_py.errors import QualityError, RulesetFormatError
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
from quality_py.io.imports.dqx_functions import Unmappable, text_literal
from quality_py.io.imports.soda_metrics import in_list, number_literal
from quality_py.io.odcs_export import OWN
from quality_py.io.ruleset_file import loads_ruleset_file
from quality_py.model.times import parse_datetime
from quality_py.model.yaml_text import dump_yaml
from quality_py.sql.snippets import quoted
from quality_py.sql.spark_types import is_text, parse_type

_OPERATORS = {"mustBe": "=", "mustNotBe": "<>", "mustBeGreaterThan": ">",
              "mustBeGreaterOrEqualTo": ">=", "mustBeLessThan": "<",
              "mustBeLessOrEqualTo": "<="}  # fmt: skip
_RANGES = ("mustBeBetween", "mustNotBeBetween")
_ENTRY_KEYS = frozenset({*_OPERATORS, *_RANGES, "id", "name", "description", "type", "metric",
                         "rule", "arguments", "unit", "query", "severity", "dimension", "tags",
                         "businessImpact", "method", "scheduler", "schedule", "customProperties",
                         "authoritativeDefinitions", "engine", "implementation"})  # fmt: skip
_WARNINGS = frozenset({"warning", "warn", "minor", "low", "info"})
#: the standard's library metrics and operators converted (docs/migrating.md names each)
METRICS = ("nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount")
OPERATORS = (*_OPERATORS, *_RANGES)


def judged(metric: str, entry: dict[str, Any]) -> str:
    """``metric`` under every operator of ``entry`` (all must hold).

    >>> judged("m", {"mustBeBetween": [0, 10], "mustNotBe": 5})
    'm <> 5 AND (m > 0 AND m < 10)'
    """
    tests = [
        f"{metric} {op} {number_literal(entry[k], k)}" for k, op in _OPERATORS.items() if k in entry
    ]
    for key in _RANGES:
        if key in entry:
            ends = entry[key]
            if not isinstance(ends, list) or len(ends) != 2:
                raise Unmappable(f"{key} takes two numbers")
            low, high = (number_literal(end, key) for end in ends)
            inside = f"{metric} > {low} AND {metric} < {high}"
            tests.append(f"({inside})" if key == "mustBeBetween" else f"NOT ({inside})")
    if not tests:
        raise Unmappable("it has no operator (mustBe, mustBeLessThan, ...)")
    return " AND ".join(tests)


def _library(entry: dict[str, Any], column: str | None) -> tuple[str, bool]:
    """The metric's SQL and whether it is a query."""
    metric, args = entry.get("metric") or entry.get("rule"), entry.get("arguments") or {}
    c = quoted(column) if column else None
    if metric == "rowCount":
        return "COUNT(*)", False
    if metric == "duplicateValues":
        keys = [quoted(str(k)) for k in args.get("properties") or []] or ([c] if c else [])
        if not keys:
            raise Unmappable("duplicateValues of an object names its properties")
        complete = " AND ".join(f"{k} IS NOT NULL" for k in keys)
        distinct = f"COUNT(DISTINCT {', '.join(keys)})" if len(keys) == 1 else (
            f"(SELECT COUNT(*) FROM (SELECT DISTINCT {', '.join(keys)} FROM source WHERE "
            f"{complete}))")  # fmt: skip
        if len(keys) == 1:
            return f"COUNT({keys[0]}) - {distinct}", False
        return f"(SELECT COUNT(*) FROM source WHERE {complete}) - {distinct}", True
    if c is None:
        raise Unmappable(f"the metric {metric} is a property's")
    if metric == "nullValues":
        return f"COUNT(CASE WHEN {c} IS NULL THEN 1 END)", False
    if metric == "missingValues":
        listed = args.get("missingValues")
        if not isinstance(listed, list) or not listed:
            raise Unmappable("missingValues needs the list of values that are missing")
        rest = [v for v in listed if v is not None]
        parts = ([f"{c} IS NULL"] if None in listed else []) + (
            [in_list(c, rest, "missingValues")] if rest else [])  # fmt: skip
        return f"COUNT(CASE WHEN {' OR '.join(parts)} THEN 1 END)", False
    if metric == "invalidValues":
        valid = []
        if args.get("validValues") is not None:
            valid.append(in_list(c, args["validValues"], "validValues"))
        if args.get("pattern") is not None:
            valid.append(f"{c} RLIKE {text_literal(str(args['pattern']))}")
        if not valid:
            raise Unmappable("invalidValues needs validValues or pattern")
        return f"COUNT(CASE WHEN {c} IS NOT NULL AND NOT ({' AND '.join(valid)}) THEN 1 END)", False
    raise Unmappable(f"the metric {metric!r} is not one of the standard's library")


def _entry(draft: Draft, entry: dict[str, Any], column: str | None) -> None:
    kind = entry.get("type") or ("library" if entry.get("metric") or entry.get("rule") else None)
    unknown = sorted(set(entry) - _ENTRY_KEYS)
    if unknown:
        raise Unmappable(f"{', '.join(unknown)} not converted")
    if kind in ("text", "custom") or kind is None:
        raise Unmappable(f"a {kind or 'typeless'} entry has nothing to run here")
    if kind == "sql":
        query = entry.get("query")
        if not isinstance(query, str) or not query.strip():
            raise Unmappable("an sql entry needs its query")
        for name in ("{object}", "{table}"):
            query = query.replace(name, "source")
        if column:
            for name in ("{property}", "{column}"):
                query = query.replace(name, quoted(column))
        sql, is_query = f"({query.strip().rstrip(';')})", True
    elif kind == "library":
        sql, is_query = _library(entry, column)
    else:
        raise Unmappable(f"the type {kind!r} is not one of the standard's")
    if entry.get("unit", "rows") == "percent":
        sql = f"CASE WHEN COUNT(*) = 0 THEN 0 ELSE {sql} * 100.0D / COUNT(*) END"
        sql, is_query = (f"(SELECT {sql} FROM source)", True) if is_query else (sql, False)
    elif entry.get("unit", "rows") != "rows":
        raise Unmappable(f"the unit {entry['unit']!r} is not rows or percent")
    test = f"coalesce({judged(sql, entry)}, false)"
    what = entry.get("metric") or entry.get("rule") or kind
    label = entry.get("id") or entry.get("name") or f"{column or 'object'}_{what}"
    level = "warning" if str(entry.get("severity", "")).lower() in _WARNINGS else "error"
    draft.sql_checks.append({"name": draft.name(str(label)), "sql": f"SELECT {test}" if is_query
                             else test, "on": "source", "level": level})  # fmt: skip


#: the ``logicalTypeOptions`` read here; any other (``format``, ``timezone``, ``multipleOf``,
#: ``minItems`` ...) is listed with its property
_OPTIONS = frozenset({"pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                      "minLength", "maxLength"})  # fmt: skip
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _bound(v: object, key: str) -> str:
    """A bound as SQL: a number, or (the standard's bounds of dates and times) an ISO date as a
    date, a time with its offset as that instant, one without as Spark reads a time.

    >>> _bound(5, "minimum"), _bound("2020-01-01", "maximum")
    ('5', "DATE '2020-01-01'")
    >>> _bound("2020-01-01 00:00:00+10:00", "minimum"), _bound("2020-01-01T08:00", "minimum")
    ('timestamp_micros(1577800800000000)', "TIMESTAMP '2020-01-01 08:00:00'")
    """
    if not isinstance(v, str):
        return number_literal(v, key)
    text = v.strip()
    try:
        when = parse_datetime(text)
    except QualityError:
        raise Unmappable(f"{key} {v!r} is no number, ISO date or ISO date and time") from None
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return f"DATE '{text}'"
    if when.tzinfo is None:
        return f"TIMESTAMP '{when.isoformat(sep=' ')}'"
    return f"timestamp_micros({(when - _EPOCH) // timedelta(microseconds=1)})"


def _range_tests(opts: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The bounds of ``opts`` as (key, operator, bound key). ODCS 3.0 writes
    ``exclusiveMinimum: true`` beside ``minimum``; 3.1 writes the excluded bound itself
    (``exclusiveMinimum: 5``); both are read, each as its version defines it.

    >>> _range_tests({"minimum": 1, "exclusiveMinimum": True, "exclusiveMaximum": 9})
    [('minimum', '>', 'minimum'), ('exclusiveMaximum', '<', 'exclusiveMaximum')]
    """
    tests = []
    for key, op, strict in (("minimum", ">=", "exclusiveMinimum"),
                            ("maximum", "<=", "exclusiveMaximum")):  # fmt: skip
        flag = opts.get(strict)
        if opts.get(key) is not None:
            tests.append((key, op.rstrip("=") if flag is True else op, key))
        if flag is not None and not isinstance(flag, bool):
            tests.append((strict, op.rstrip("="), strict))
    return tests


def _column_rules(draft: Draft, prop: dict[str, Any], line: int) -> None:
    """The rules of a property: each option that does not map is listed on its own, so the
    property's other rules (``required`` ...) are kept."""
    name = str(prop["name"])
    c, opts = quoted(name), prop.get("logicalTypeOptions") or {}
    if not isinstance(opts, dict):
        raise Unmappable("logicalTypeOptions is not a mapping")
    tests = []
    if prop.get("required") is True:
        tests.append(("required", f"{c} IS NOT NULL"))
    if prop.get("unique") is True:
        tests.append(("unique", f"is_unique({c})"))
    for key in sorted(set(opts) - _OPTIONS):
        draft.skip(line, f"{name}: {key}", "this logicalTypeOptions key is not converted")
    try:
        if isinstance(opts.get("pattern"), str):
            tests.append(("pattern", f"{c} IS NULL OR {c} RLIKE {text_literal(opts['pattern'])}"))
        for key, op, at in _range_tests(opts):
            tests.append((key, f"{c} IS NULL OR {c} {op} {_bound(opts[at], at)}"))
        for key, op in (("minLength", ">="), ("maxLength", "<=")):
            if opts.get(key) is not None:
                tests.append((key, f"{c} IS NULL OR length({c}) {op} "
                                   f"{number_literal(opts[key], key)}"))  # fmt: skip
    except Unmappable as why:
        draft.skip(line, f"{name}: logicalTypeOptions", str(why))
    for what, test in tests:
        draft.rules.append({"name": draft.name(f"{name}_{what}"), "expression": test})


def _schema_check(draft: Draft, props: list[dict[str, Any]], line: int) -> None:
    expected = {}
    for prop in props:
        kind = prop.get("physicalType")
        if kind is None:  # a column the contract declares without its type
            expected[str(prop["name"])] = "any"
            continue
        try:
            parsed = parse_type(str(kind)) if isinstance(kind, str) else None
        except ValueError:
            parsed = None
        sizes = parsed.expressions if parsed is not None and is_text(parsed) else []
        if sizes and (len(sizes) != 1 or not sizes[0].sql().isdigit()):
            parsed = None  # varchar(max) and the like: no Spark type
        if parsed is None:
            draft.skip(line, f"{prop.get('name')}: {kind}", "not a Spark type: no schema check "
                       "of this object")  # fmt: skip
            return
        expected[str(prop["name"])] = str(kind)
        if is_text(parsed) and parsed.expressions:  # varchar(n), char(n)
            # Spark shows such a column as a string (its length kept aside, checked on write),
            # so the schema check expects a string and a rule the length the type bounds
            size = parsed.expressions[0].sql()
            expected[str(prop["name"])] = "string"
            draft.rules.append({"name": draft.name(f"{prop['name']}_length"), "expression":
                                f"{quoted(str(prop['name']))} IS NULL OR length("
                                f"{quoted(str(prop['name']))}) <= {size}"})  # fmt: skip
    if expected:
        draft.check("error", "has_schema", {"expected": expected})


def _object(draft: Draft, node: Any) -> str:
    obj = value(node)
    fields = {str(k.value): v for k, v in node.value}
    props_node = fields.get("properties")
    props = obj.get("properties") or []
    for prop_node, prop in zip(getattr(props_node, "value", []) or [], props, strict=False):
        line = line_of(prop_node)
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str):
            raise malformed(draft.origin, line, "a property", "it has no name")
        if prop.get("properties"):
            draft.skip(line, prop["name"], "nested properties are not converted")
        try:
            _column_rules(draft, prop, line)
        except Unmappable as why:
            draft.skip(line, prop["name"], str(why))
        own = {str(k.value): v for k, v in prop_node.value}
        _entries(draft, own.get("quality"), prop["name"])
    if props and props_node is not None:
        _schema_check(draft, props, line_of(props_node))
    _entries(draft, fields.get("quality"), None)
    return str(obj.get("name") or obj.get("physicalName") or "odcs")


def _ours(entry: Any) -> dict[str, Any] | None:
    """The item our export kept on an entry (or on the contract), if any."""
    for prop in (entry.get("customProperties") if isinstance(entry, dict) else None) or []:
        if isinstance(prop, dict) and prop.get("property") == OWN:
            kept = prop.get("value")
            return kept if isinstance(kept, dict) else None
    return None


def _entries(draft: Draft, node: Any, column: str | None) -> None:
    def one(line: int, item: object) -> None:
        entry = value(item if isinstance(item, yaml.Node) else None)
        if column is None and (kept := _ours(entry)) is not None:
            draft.kept.append(kept)
            return
        try:
            with draft.atomic():
                _entry(draft, entry, column)
        except Unmappable as why:
            draft.skip(line, entry.get("id") or entry.get("metric") or entry.get("type"), str(why))

    each_item(draft, ((line_of(n), n) for n in getattr(node, "value", []) or []), "this quality "
              "entry", one)  # fmt: skip


def _named(objects: list[Any], name: str | None, origin: str) -> int:
    """The index of the schema object ``name`` names (its ``name`` or ``physicalName``; the
    first when None), refused with the names there are when none has it."""
    if name is None:
        return 0
    names = [(str(value(o).get("name")), str(value(o).get("physicalName"))) for o in objects]
    for at, known in enumerate(names):
        if name in known:
            return at
    raise RulesetFormatError(
        f"{origin}: no schema object is named {name!r}; the contract's are "
        f"{', '.join(n for n, _ in names)}",
        item_kind="ruleset",
    )


def read(text: str, origin: str, name: str | None = None) -> ImportResult:
    """Our ruleset from an ODCS v3 contract (YAML or JSON): of its schema object ``name``
    (default: the first, the others listed)."""
    root = nodes_with_lines(text, origin)
    doc = value(root)
    if not isinstance(doc, dict) or not str(doc.get("apiVersion", "")).startswith("v3"):
        raise malformed(origin, 1, "the contract", "it is no ODCS v3 contract (apiVersion v3.x)")
    draft = Draft(origin)
    fields = {str(k.value): v for k, v in root.value}  # type: ignore[union-attr]
    objects = getattr(fields.get("schema"), "value", []) or []
    if not objects:  # valid ODCS (a contract of servers, roles, SLAs), with no check to convert
        raise RulesetFormatError(
            f"{origin}:1: the contract declares no schema object, and ODCS keeps its checks "
            "(properties and quality entries) under schema objects: nothing to convert",
            item_kind="ruleset",
        )
    chosen = _named(objects, name, origin)
    suite_name = _object(draft, objects[chosen])
    if name is None:
        for other in objects[1:]:
            draft.skip(line_of(other), value(other).get("name"), "one schema object per "
                       "ruleset: convert it with --table NAME")  # fmt: skip
    own = _ours(doc)
    if own is not None:
        return _restored(draft, own)
    return assemble(draft, suite_name).with_note("ODCS v3 meaning applied")


def _restored(draft: Draft, own: dict[str, Any]) -> ImportResult:
    """The ruleset our export wrote, from the items its entries kept (in the contract's order),
    with whatever was added to the contract since converted as any contract is."""
    groups = own.get("groups") or {}
    doc = {k: v for k, v in own.items() if k != "groups"}
    doc["rule_sets"] = [dict(g, rules=[]) for g in groups.get("rule_sets") or []]
    checks = [dict(g, constraints=[]) for g in groups.get("checks") or []]
    sql_checks: list[Any] = []
    for kept in draft.kept:
        if "rule" in kept:
            doc["rule_sets"][kept["group"]]["rules"].append(kept["rule"])
        elif "constraint" in kept:
            checks[kept["group"]]["constraints"].append(kept["constraint"])
        elif "sql_check" in kept:
            sql_checks.append(kept["sql_check"])
    if draft.rules:
        doc["rule_sets"].append({"name": "imported", "version": 1, "rules": draft.rules})
    for level, constraint, _ in draft.constraints:
        checks.append({"level": level, "description": "imported", "constraints": [constraint]})
    if checks:
        doc["checks"] = checks
    if sql_checks + draft.sql_checks:
        doc["sql_checks"] = sql_checks + draft.sql_checks
    text = dump_yaml(doc)
    named = dict.fromkeys(re.findall(r"(?<!\$)\$\{(\w+)\}", text), "0")
    loads_ruleset_file(text, f"{draft.origin} (read back)", variables=named)
    count = sum(len(c["constraints"]) for c in checks) + len(doc.get("sql_checks") or [])
    rules = sum(len(rs["rules"]) for rs in doc["rule_sets"])
    return ImportResult(text, tuple(draft.unmapped), rules, count).with_note(
        "read back from quality_py's export"
    )
