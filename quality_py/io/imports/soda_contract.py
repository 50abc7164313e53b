"""Soda v4 data contracts (``dataset:`` / ``columns:`` / ``checks:``; ``convert --from
soda-contract``), with the meaning soda-core 4 gives them (``contracts/impl/check_types/``,
``contract_verification_impl.py``, ``contract_yaml.py``).

Every check becomes an SQL check over ``source`` computing Soda's own value and judging it by
its threshold; ``missing``, ``invalid`` and ``failed_rows`` also become rules failing the rows
Soda counts, with the action ``ignore`` (a contract removes no row):

* **values**: ``row_count`` (rows), ``missing`` (``c IS NULL``, one of ``missing_values``, or a
  find of ``missing_format``'s regex), ``invalid`` (not missing, and outside ``valid_values`` /
  ``valid_min`` / ``valid_max`` / ``valid_format`` / lengths, or one of ``invalid_values`` /
  ``invalid_format``), ``duplicate`` of a column (non-missing rows minus their distinct values)
  or of ``columns`` (rows minus distinct combinations, a null equal to a null), ``aggregate``
  (``avg``, ``sum``, ``min``, ``max`` and the ``*_length`` ones over the values that are not
  both missing and invalid, as Soda writes it), ``metric`` with an ``expression``,
  ``failed_rows`` with an ``expression`` (rows where it is true), ``freshness`` (whole seconds
  from the column's newest value to the run's clock, or to the timestamp of ``now_variable``,
  in ``unit`` hours by default; no value fails). A column's ``missing_*`` / ``valid_*`` keys
  are the defaults of its checks that name none of their own. ``metric: percent`` is the count
  times 100 over the check's rows (0 without rows; a duplicate over the non-missing rows).
* **filters**: the contract's ``filter`` restricts every check, a check's ``filter`` its own
  counts (a ``metric`` expression is computed without it, as Soda computes it).
* **thresholds**: exactly one ``must_be*`` comparison or ``must_be_between`` /
  ``must_be_not_between`` range (Soda evaluates nothing else); ``level: warn`` (only that
  spelling: Soda reads ``warning`` as ``fail``) makes a ``warning`` check, ``additional`` adds
  the other level's check; the defaults are Soda's (``row_count`` more than 0, ``missing``,
  ``invalid``, ``duplicate`` and ``failed_rows`` exactly 0). A value that is null (the average
  of no rows) is not evaluated (passes); NaN fails every comparison but ``must_not_be``.
* **schema**: the contract's columns as a ``has_schema`` check, extra columns refused unless
  ``allow_extra_columns``, order checked unless ``allow_other_column_order``.
* ``${var.NAME}`` becomes our ``${NAME}`` variable (given with ``--var``).

``valid_reference_data`` is a rule reading the view named by the dataset's last part, the
check's threshold its tolerance. Listed with their lines: ``query`` forms (they read tables by
name), ``${soda.*}`` / ``${env.*}``, formats without a regex, types Soda compares by name alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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
    mapping,
    nodes_with_lines,
    value,
)
from quality_py.io.imports.dqx_functions import Unmappable, text_literal
from quality_py.io.imports.soda_contract_values import (
    MISSING_KEYS,
    VALID_KEYS,
    Scope,
    effective,
    invalid_sql,
    judge,
    mapping_of,
    missing_sql,
    percent,
    thresholds,
)
from quality_py.sql.snippets import quoted

#: keys every check may have that decide nothing about its outcome
_QUIET = frozenset({"name", "qualifier", "attributes", "store_failed_rows"})
_COMMON = frozenset({*_QUIET, "filter", "threshold", "column_expression"})
#: Soda's aggregate functions (``sql_dialect.py``, ``supports_function``)
AGGREGATES = {"avg": "AVG({})", "sum": "SUM({})", "min": "MIN({})", "max": "MAX({})",
              "avg_length": "AVG(LENGTH({}))", "avglength": "AVG(LENGTH({}))",
              "min_length": "MIN(LENGTH({}))", "minlength": "MIN(LENGTH({}))",
              "max_length": "MAX(LENGTH({}))", "maxlength": "MAX(LENGTH({}))"}  # fmt: skip
#: seconds of a freshness ``unit`` (``freshness_check.py``)
_UNITS = {"minute": 60, "hour": 3600, "day": 86400}
#: data types whose Spark name is the type Soda's name-and-synonym comparison accepts
_TYPES = {"int": "int", "integer": "int", "bigint": "bigint", "smallint": "smallint",
          "tinyint": "tinyint", "string": "string", "boolean": "boolean", "double": "double",
          "float": "float", "date": "date", "timestamp": "timestamp",
          "timestamp_ntz": "timestamp_ntz", "binary": "binary"}  # fmt: skip
#: ``${ns.NAME}`` as soda-core 4 fills it (``common/yaml.py``, ``VariableResolver.resolve``)
_PLACEHOLDER = re.compile(r"\$\{ *([a-z]+)\.([a-zA-Z_][a-zA-Z_0-9]*) *\}")


def _with_variables(draft: Draft, spec: object) -> object:
    """``spec`` with ``${var.NAME}`` as our ``${NAME}`` in every text value (Soda fills values,
    not keys); ``${soda.NOW}``, ``${env.X}`` and any other namespace are refused.

    >>> _with_variables(Draft("c.yml"), {"filter": "d > '${var.START}'"})
    {'filter': "d > 'QPVARIABLE9F2CSTARTQPVARIABLE9F2C'"}
    """
    if isinstance(spec, str):

        def one(m: re.Match[str]) -> str:
            if m.group(1) != "var":
                raise Unmappable(f"${{{m.group(1)}.{m.group(2)}}}: only ${{var.NAME}} maps")
            return draft.variable(m.group(2))

        return _PLACEHOLDER.sub(one, spec)
    if isinstance(spec, dict):
        return {k: _with_variables(draft, v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_with_variables(draft, v) for v in spec]
    return spec


def _checks(draft: Draft, name: str, value_sql: str, th: object, default: str | None,
            floating: bool = False, query: bool = False) -> None:  # fmt: skip
    """One SQL check per level of ``th`` judging ``value_sql`` (``query``: it reads
    ``source`` in a subquery)."""
    for level, test in thresholds(th, default):
        _emit(draft, name, level, judge(test, value_sql, floating), query)


def _emit(draft: Draft, name: str, level: str, verdict: str, query: bool = False) -> None:
    """An SQL check: ``name`` (the check's, already unique) at ``error``, else a new name."""
    label = name if level == "error" else draft.name(f"{name} (warn)")
    draft.sql_checks.append({"name": label, "on": "source", "level": level,
                             "sql": f"SELECT {verdict}" if query else verdict})  # fmt: skip


@dataclass(frozen=True)
class Where:
    """The check being converted: its name (unique), column (SQL), scope and line."""

    name: str
    column: str | None
    scope: Scope
    line: int


def _metric_of(cfg: dict[str, Any]) -> str:
    th = cfg.get("threshold") or {}
    metric = th.get("metric", "count") if isinstance(th, dict) else "count"
    if metric not in ("count", "percent"):
        raise Unmappable(f"metric {metric!r}: Soda's are count and percent")
    return str(metric)


def _need_column(at: Where) -> str:
    if at.column is not None:
        return at.column
    raise Unmappable("this check type is a column's")


def _missing(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    c = _need_column(at)
    bad = missing_sql(c, cfg)
    count, rows = at.scope.count(bad), at.scope.count()
    value_sql = percent(count, rows) if _metric_of(cfg) == "percent" else count
    _checks(draft, at.name, value_sql, cfg.get("threshold"), "must_be: 0")
    _flag(draft, at, bad)


def _invalid(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    c = _need_column(at)
    bad_value = invalid_sql(c, cfg)
    if cfg.get("valid_reference_data") is not None:
        _invalid_by_reference(draft, at, cfg, bad_value)
        return
    if bad_value is None:
        raise Unmappable("an invalid check needs a valid_* or invalid_* key (Soda errors)")
    bad = f"NOT ({missing_sql(c, cfg)}) AND ({bad_value})"
    count, rows = at.scope.count(bad), at.scope.count()
    value_sql = percent(count, rows) if _metric_of(cfg) == "percent" else count
    _checks(draft, at.name, value_sql, cfg.get("threshold"), "must_be: 0")
    _flag(draft, at, bad)


_BELOW = {"must_be": "> {}", "must_be_less_than": ">= {}", "must_be_less_than_or_equal": "> {}"}
_COMPARISONS = (*_BELOW, "must_not_be", "must_be_greater_than", "must_be_greater_than_or_equal",
                "must_be_between", "must_be_not_between")  # fmt: skip
_ONLY_BELOW = ("a reference check's threshold maps onto its rule's tolerance only as a bound "
               "the count stays under (must_be: 0, must_be_less_than, ..._or_equal)")  # fmt: skip


def _tolerances(th: object, as_percent: bool, scoped: bool) -> dict[str, str]:
    """A count's threshold as a rule's ``fail_if`` / ``warn_if``: the run fails (warns) past
    it as the check fails (warns). A percent maps only when no filter makes the check's rows
    other than the run's.

    >>> _tolerances({"must_be_less_than": 5, "additional": {"level": "warn", "must_be": 0}},
    ...             False, False)
    {'fail_if': '>= 5', 'warn_if': '> 0'}
    """
    th = mapping_of(th, "threshold")
    extra = th.get("additional")
    parts = [th] + ([mapping_of(extra, "additional")] if extra is not None else [])
    out = {}
    for spec in parts:
        given = [k for k in _COMPARISONS if spec.get(k) is not None]
        key, n = (given[0], spec[given[0]]) if given else ("must_be", 0)
        lowest = {"must_be": 0, "must_be_less_than": 1e-300, "must_be_less_than_or_equal": 0}
        if (len(given) > 1 or key not in _BELOW or isinstance(n, bool) or not isinstance(
                n, int | float) or n < lowest[key] or (key == "must_be" and n != 0)
                or (as_percent and scoped)):  # fmt: skip
            raise Unmappable(_ONLY_BELOW)
        out["warn_if" if str(spec.get("level")).lower() == "warn" else "fail_if"] = (
            _BELOW[key].format(n) + (" %" if as_percent else ""))  # fmt: skip
    if len(out) != len(parts):
        raise Unmappable("an additional threshold needs the other level")
    return out


def _invalid_by_reference(draft: Draft, at: Where, cfg: dict[str, Any], other: str | None) -> None:
    """``InvalidReferenceCountQuery``: a value that is not missing fails when the reference
    dataset's column holds no equal value (or another validity key fails it); a rule flags
    those rows and its tolerance is the check's threshold (a count over a reference is a join,
    which a SQL check may not read). The dataset is the view named by its last part (given
    with ``--view``), read where the policy allows it."""
    ref = mapping_of(cfg["valid_reference_data"], "valid_reference_data")
    dataset, column = ref.get("dataset"), ref.get("column")
    if not isinstance(dataset, str) or not isinstance(column, str) or not column:
        raise Unmappable("valid_reference_data names a dataset and a column")
    view = dataset.rsplit("/", 1)[-1]
    refused = draft.reference(view)
    if refused or at.column is None:
        raise Unmappable(refused or "a reference check is a column's")
    tolerance = _tolerances(cfg.get("threshold"), _metric_of(cfg) == "percent",
                            bool(at.scope.dataset or at.scope.check))  # fmt: skip
    found = f"in_reference({text_literal(view)}, {text_literal(column)}, {at.column})"
    bad = f"NOT ({missing_sql(at.column, cfg)}) AND (NOT {found}{f' OR {other}' if other else ''})"
    _flag(draft, at, bad)
    draft.rules[-1].update(tolerance)


def _flag(draft: Draft, at: Where, bad: str) -> None:
    """A rule failing the rows a check counts (``ignore``: a contract removes no row)."""
    passing = f"({at.scope.where(bad)}) IS NOT TRUE"
    draft.rules.append({"name": at.name, "expression": passing, "action_if_failed": "ignore"})


def _duplicate(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    as_percent = _metric_of(cfg) == "percent"
    if at.column is not None:
        c, missing = at.column, missing_sql(at.column, cfg)
        rows, absent = at.scope.count(), at.scope.count(missing)
        distinct = f"COUNT(DISTINCT CASE WHEN {at.scope.where(f'NOT ({missing})')} THEN {c} END)"
        dup, whole = f"({rows} - {absent} - {distinct})", f"({rows} - {absent})"
        value_sql = f"(CASE WHEN {whole} > 0 THEN {dup} * 100 / {whole} ELSE 0 END)" if as_percent \
            else dup  # fmt: skip
    else:
        names = cfg.get("columns")
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise Unmappable("a dataset's duplicate check names its columns")
        key = "named_struct(" + ", ".join(f"{text_literal(n)}, {quoted(n)}" for n in names) + ")"
        rows = at.scope.count()
        dup = f"({rows} - COUNT(DISTINCT CASE WHEN {at.scope.where()} THEN {key} END))"
        value_sql = percent(dup, rows) if as_percent else dup
    _checks(draft, at.name, value_sql, cfg.get("threshold"), "must_be: 0")


def _aggregate(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    c = _need_column(at)
    function = str(cfg.get("function") or "").lower()
    if function not in AGGREGATES:
        raise Unmappable(f"the function {function!r}: Soda's are {', '.join(AGGREGATES)}")
    missing, invalid = missing_sql(c, cfg), invalid_sql(c, cfg)
    kept = f"NOT ({missing})" if invalid is None else f"NOT (({missing}) AND ({invalid}))"
    value_sql = AGGREGATES[function].format(f"CASE WHEN {at.scope.where(kept)} THEN {c} END")
    _checks(draft, at.name, value_sql, cfg.get("threshold"), None, floating=True)


def _metric(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    if cfg.get("query"):
        raise Unmappable("a metric query reads tables by name")
    expression = str(cfg.get("expression") or "").strip()
    if not expression:
        raise Unmappable("a metric check needs an expression")
    if at.scope.check:
        draft.skip(at.line, f"{at.name}: filter", "Soda computes a metric expression without the "
                   "check's filter (metric_check.py): not applied here either")  # fmt: skip
    if at.scope.dataset:
        value_sql = f"(SELECT {expression} FROM source WHERE {at.scope.dataset})"
    else:
        value_sql = f"({expression})"
    query = at.scope.dataset is not None
    _checks(draft, at.name, value_sql, cfg.get("threshold"), None, floating=True, query=query)


def _failed_rows(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    if cfg.get("query") or cfg.get("keys_query"):
        raise Unmappable("a failed rows query reads tables by name")
    expression = str(cfg.get("expression") or "").strip()
    if not expression:
        raise Unmappable("failed_rows needs an expression")
    count, rows = at.scope.count(expression), at.scope.count()
    value_sql = percent(count, rows) if _metric_of(cfg) == "percent" else count
    _checks(draft, at.name, value_sql, cfg.get("threshold"), "must_be: 0")
    _flag(draft, at, expression)


def _freshness(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    """Soda's freshness: no newest value fails at either level (``freshness_check.py``)."""
    if at.column is not None or not isinstance(cfg.get("column"), str):
        raise Unmappable("freshness is a dataset's check naming its column")
    th = mapping_of(cfg.get("threshold"), "threshold")
    unit = th.get("unit") or "hour"
    if unit not in _UNITS:
        raise Unmappable(f"unit {unit!r}: Soda's are minute, hour and day")
    now = "current_timestamp()"
    if cfg.get("now_variable") is not None:
        now = f"CAST('{draft.variable(str(cfg['now_variable']))}' AS TIMESTAMP)"
    column = quoted(cfg["column"])
    newest = f"CAST(MAX(CASE WHEN {at.scope.where()} THEN {column} END) AS TIMESTAMP)"
    age = f"(floor((unix_micros({now}) - unix_micros({newest})) / 1000000) / {_UNITS[unit]})"
    levels = thresholds({k: v for k, v in th.items() if k != "unit"}, None)
    for level, test in levels:
        found = "IS NOT NULL AND" if level == "error" else "IS NULL OR"
        _emit(draft, at.name, level, f"{newest} {found} ({test.sql(age)})")
    if all(level != "error" for level, _ in levels):
        _emit(draft, draft.name(f"{at.name} (newest value)"), "error", f"{newest} IS NOT NULL")


def _row_count(draft: Draft, at: Where, cfg: dict[str, Any]) -> None:
    _checks(draft, at.name, at.scope.count(), cfg.get("threshold"), "must_be_greater_than: 0")


#: each check type with its handler and the keys it reads besides :data:`_COMMON`
HANDLERS: dict[str, tuple[Callable[[Draft, Where, dict[str, Any]], None], frozenset[str]]] = {
    "row_count": (_row_count, frozenset()),
    "missing": (_missing, frozenset(MISSING_KEYS)),
    "invalid": (_invalid, frozenset({*MISSING_KEYS, *VALID_KEYS})),
    "duplicate": (_duplicate, frozenset({*MISSING_KEYS, *VALID_KEYS, "columns"})),
    "aggregate": (_aggregate, frozenset({*MISSING_KEYS, *VALID_KEYS, "function"})),
    "metric": (_metric, frozenset({*MISSING_KEYS, *VALID_KEYS, "expression", "query"})),
    "failed_rows": (_failed_rows, frozenset({"expression", "query", "keys_query",
                                             "rows_tested_query", "key_column_mapping"})),
    "freshness": (_freshness, frozenset({*MISSING_KEYS, *VALID_KEYS, "column",
                                         "now_variable"})),
}  # fmt: skip
_TOP = frozenset({"dataset", "filter", "variables", "columns", "checks", "check_attributes"})
_COLUMN_KEYS = frozenset({"name", "data_type", "checks", "column_expression", *MISSING_KEYS,
                          *VALID_KEYS, "character_maximum_length", "numeric_precision",
                          "numeric_scale", "datetime_precision"})  # fmt: skip
_SIZES = ("character_maximum_length", "numeric_precision", "numeric_scale", "datetime_precision")


def _field(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if k.value == key), None)


def _plain(node: object) -> Any:
    """A composed node's values (each_item hands the nodes on as objects)."""
    return value(node) if isinstance(node, yaml.Node) else None


def _items(node: yaml.Node | None) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


@dataclass(frozen=True)
class Contract:
    """What every check of a contract reads: its filter and its columns."""

    draft: Draft
    filter: str | None
    columns: tuple[dict[str, Any], ...]


def _one(contract: Contract, column: dict[str, Any] | None, line: int, node: object) -> None:
    draft, spec = contract.draft, _plain(node)
    try:
        with draft.atomic():
            spec = _with_variables(draft, spec)
            if isinstance(spec, str):  # Soda: "You forgot the colon"
                raise Unmappable("a check is its type and a colon")
            if isinstance(spec, dict) and "type" in spec:
                raise Unmappable("a check of Soda's experimental contracts of 2024 (type: ...); a "
                                 "v4 contract names a check by its key (- missing:)")  # fmt: skip
            if not isinstance(spec, dict) or len(spec) != 1:
                raise Unmappable("a check is one key, its type")
            kind, body = next(iter(spec.items()))
            cfg = mapping(body, draft.origin, line, str(kind))
            if kind == "schema":
                _schema(contract, cfg)
                return
            if kind not in HANDLERS:
                raise Unmappable(f"the check type {kind!r} has no counterpart here")
            handler, keys = HANDLERS[kind]
            unknown = sorted(set(cfg) - _COMMON - keys)
            if unknown:
                raise Unmappable(f"{', '.join(unknown)} not converted")
            expression = cfg.get("column_expression") or (column or {}).get("column_expression")
            c = None if column is None else quoted(str(column["name"]))
            if expression:
                c = f"({expression})"
            label = "_".join(str(p) for p in ((column or {}).get("name"), kind) if p)
            if cfg.get("qualifier") is not None:
                label = f"{label}_{cfg['qualifier']}"
            name = draft.name(str(cfg.get("name") or label))
            scope = Scope(
                contract.filter, str(cfg["filter"]).strip() if cfg.get("filter") else None
            )
            handler(draft, Where(name, c, scope, line), effective(cfg, column or {}))
    except Unmappable as why:
        draft.skip(line, _plain(node), str(why))


def _schema(contract: Contract, cfg: dict[str, Any]) -> None:
    unknown = sorted(set(cfg) - _QUIET - {"allow_extra_columns", "allow_other_column_order"})
    if unknown:
        raise Unmappable(f"{', '.join(unknown)} not converted")
    expected: dict[str, str] = {}
    for col in contract.columns:
        if any(col.get(k) is not None for k in _SIZES):
            raise Unmappable(f"{col['name']}: Soda compares a type's sizes its own way")
        kind = col.get("data_type")
        if kind is not None and str(kind).lower() not in _TYPES:
            raise Unmappable(f"{col['name']}: the data type {kind!r} is compared by Soda by its "
                             "name alone, not converted")  # fmt: skip
        expected[str(col["name"])] = "any" if kind is None else _TYPES[str(kind).lower()]
    if not expected:
        raise Unmappable("the contract has no columns")
    contract.draft.check("error", "has_schema", {
        "expected": expected, "strict": not cfg.get("allow_extra_columns", False),
        "ordered": not cfg.get("allow_other_column_order", False)})  # fmt: skip


def _column(draft: Draft, line: int, node: object) -> dict[str, Any]:
    spec = mapping(_plain(node), draft.origin, line, "this column")
    if not isinstance(spec.get("name"), str) or not spec["name"]:
        raise malformed(draft.origin, line, "this column", "it has no name")
    unknown = sorted(set(spec) - _COLUMN_KEYS)
    if unknown:
        draft.skip(line, {spec["name"]: unknown}, "column keys not converted")
    try:
        own = {k: v for k, v in spec.items() if k != "checks"}  # checks: one by one
        return mapping(_with_variables(draft, own), draft.origin, line, "this column")
    except Unmappable as why:
        draft.skip(line, spec["name"], str(why))
        return {"name": spec["name"]}


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from a Soda v4 data contract."""
    root = nodes_with_lines(text, origin)
    doc = value(root)
    if not isinstance(doc, dict) or not ("columns" in doc or "checks" in doc):
        raise malformed(origin, 1, "the contract", "it has neither columns nor checks")
    draft = Draft(origin)
    for key in sorted(set(doc) - _TOP):
        draft.skip(1, key, "not a key of a contract's checks: not converted")
    for name, spec in (doc.get("variables") or {}).items():
        if isinstance(spec, dict) and spec.get("default") is not None:
            draft.skip(1, f"{name}: default {spec['default']}",
                       f"a variable's default is not kept: give --var {name}=VALUE")  # fmt: skip
    row_filter = None
    if doc.get("filter"):
        try:
            row_filter = str(_with_variables(draft, str(doc["filter"]).strip()))
        except Unmappable as why:
            raise malformed(origin, 1, "the contract's filter", str(why)) from None
    column_nodes = _items(_field(root, "columns"))
    columns: list[dict[str, Any]] = []
    each_item(draft, ((line_of(n), n) for n in column_nodes), "this column",
              lambda line, n: columns.append(_column(draft, line, n)))  # fmt: skip
    contract = Contract(draft, row_filter, tuple(columns))
    for col, n in zip(columns, column_nodes, strict=True):
        checks = ((line_of(c), c) for c in _items(_field(n, "checks")))
        each_item(draft, checks, "this check", partial(_one, contract, col))
    each_item(draft, ((line_of(c), c) for c in _items(_field(root, "checks"))), "this check",
              partial(_one, contract, None))  # fmt: skip
    dataset = str(doc.get("dataset") or "soda_contract").rsplit("/", 1)[-1]
    return assemble(draft, dataset).with_note("soda-core 4 contract meaning applied")
