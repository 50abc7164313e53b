"""DQX checks YAML (a list of checks: ``criticality``, ``check: {function, arguments,
for_each_column}``, optional ``name``, ``filter``, ``user_metadata``, ``message_expr``).

Every check is translated from DQX's own definition of its function
(:mod:`quality_py.io.imports.dqx_functions`): row-level functions become rules passing where DQX
does not flag the row; ``is_unique``, ``foreign_key`` and ``is_aggr_*`` with ``group_by`` become
rules over more than one row flagging the same rows; ``is_aggr_*`` over the whole table becomes
a SQL check. ``criticality: error`` (DQX moves the row to the invalid output) becomes the action
``drop``; ``warn`` (the row stays valid, with a warning) becomes ``ignore``. Values follow the
rules of the DQX version applied (``version``; :data:`DEFAULT_VERSION` unless named).

Every key is honoured or listed with its line: an argument the converter does not read leaves
its whole check out (converting it without its argument would change its answer); ``msg``
becomes the rule's description; ``user_metadata`` and ``message_expr`` are listed (messages and
metadata are not kept).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from quality_py.dataset.comparisons import SchemaMatch
from quality_py.errors import QualityError, RulesetFormatError
from quality_py.io.imports.common import (
    VARIABLE_MARK,
    Draft,
    ImportResult,
    assemble,
    each_item,
    line_of,
    mapping,
    nodes_with_lines,
    value,
    variable_mark,
)
from quality_py.io.imports.dqx_functions import (
    DATASET_FUNCTIONS,
    DEFAULT_VERSION,
    OLDEST_VERSION,
    RENAMED,
    ROW_FUNCTIONS,
    Context,
    Mapped,
    Unmappable,
    dataset_check,
    row_rule,
)
from quality_py.io.imports.dqx_unmapped import UNMAPPED_FUNCTIONS
from quality_py.sql.snippets import quoted

#: The keys of a check (DQX's ``checks_serializer.py``) and of its ``check`` mapping.
CHECK_KEYS = frozenset({"criticality", "check", "name", "filter", "user_metadata", "message_expr"})
FUNCTION_KEYS = frozenset({"function", "arguments", "for_each_column"})
#: Keys every row-level function reads besides its own (the column, under both its names).
COLUMN_KEYS = frozenset({"column", "col_name"})


def parse_version(text: str | None) -> tuple[int, int]:
    """``"0.15"`` or ``"0.15.2"`` as ``(0, 15)``; None: :data:`DEFAULT_VERSION`.

    >>> parse_version("0.15.2"), parse_version(None)
    ((0, 15), (0, 16))
    """
    if text is None:
        return DEFAULT_VERSION
    m = re.fullmatch(r"v?(\d{1,4})\.(\d{1,4})(?:\.\d{1,6})?", str(text).strip()[:40])
    if not m:
        raise RulesetFormatError(
            f"--dqx-version takes a version such as 0.16, not {text!r}", item_kind="ruleset"
        )
    version = (int(m.group(1)), int(m.group(2)))
    if version < OLDEST_VERSION:
        raise RulesetFormatError(
            f"DQX {text} resolved limits differently (every text was an expression); the "
            f"converter reproduces DQX {OLDEST_VERSION[0]}.{OLDEST_VERSION[1]} and later",
            item_kind="ruleset",
        )
    return version


def _arguments(draft: Draft, spec: dict[str, Any], line: int) -> dict[str, Any]:
    return dict(
        mapping(spec["check"].get("arguments"), draft.origin, line, "this check's arguments")
    )


def _unread(fn: str, args: dict[str, Any]) -> list[str]:
    """The arguments of ``args`` the translation of ``fn`` does not read."""
    if fn in ROW_FUNCTIONS:
        known = ROW_FUNCTIONS[fn][1] | (COLUMN_KEYS if fn != "sql_expression" else frozenset())
    else:
        known = DATASET_FUNCTIONS[fn]
    return sorted(set(args) - known)


def _each(fn: str, args: dict[str, Any], item: object) -> dict[str, Any]:
    """The arguments for one entry of ``for_each_column``."""
    out = dict(args)
    if fn in ("is_unique", "foreign_key"):
        out["columns"] = item if isinstance(item, list) else [item]
    else:
        out["column"] = item
    return out


def _translate(draft: Draft, fn: str, args: dict[str, Any], ctx: Context) -> Mapped:
    unread = _unread(fn, args)
    if unread:
        raise Unmappable(f"the argument(s) {', '.join(unread)} of {fn} are not converted")
    if fn in ROW_FUNCTIONS:
        return Mapped(rule=row_rule(fn, args, ctx))
    if fn == "has_valid_schema":
        return _valid_schema(args)
    if fn == "sql_query":
        return _sql_query(args, ctx)
    if fn == "foreign_key":  # the reference's name passes the gate every importer uses
        refused = draft.reference(args.get("ref_table") or args.get("ref_df_name"))
        if refused:
            raise Unmappable(refused)
    return dataset_check(fn, args, ctx)


def _valid_schema(args: dict[str, Any]) -> Mapped:
    """DQX's ``has_valid_schema`` without ``strict`` (check_funcs.py line 3327 and
    ``_get_permissive_schema_comparison``): every expected column is present with a compatible
    type (``_is_compatible_type``), other columns allowed: ``has_schema`` with ``compatible``.
    ``exclude_columns`` takes columns out of the data only, so it changes nothing unless it
    holds an expected column (then DQX always fails: listed)."""
    if args.get("ref_table") or args.get("ref_df_name"):
        raise Unmappable("a schema read from another table: write its expected_schema")
    if args.get("strict"):
        raise Unmappable("strict also compares order and nullability, which has_schema does not")
    if args.get("columns"):
        raise Unmappable("columns narrows the data's columns (DQX skips the check when one is "
                         "missing)")  # fmt: skip
    if not isinstance(args.get("expected_schema"), str):
        raise Unmappable("expected_schema is a DDL text (a StructType is Python's)")
    try:
        match = SchemaMatch.of(args["expected_schema"])
    except QualityError as err:
        raise Unmappable(f"expected_schema: {err.message}") from None
    excluded = {str(c) for c in args.get("exclude_columns") or []}
    if excluded & {n for n, _ in match.expected}:
        raise Unmappable("exclude_columns holds an expected column, which DQX then never finds")
    expected = dict(match.expected)
    return Mapped(constraint=("has_schema", {"expected": expected, "compatible": True}))


def _sql_query(args: dict[str, Any], ctx: Context) -> Mapped:
    """DQX's dataset-level ``sql_query`` (check_funcs.py line 2129 and
    ``_apply_dataset_level_sql_check``): the query reads the input (its rows in the check's
    filter) through ``{{ input_view }}``; no row back is a condition not met, two rows an error,
    one row its condition column, whose true value (false with ``negate``) flags every row in
    scope; a null flags none, and with no row in scope nothing is flagged. Here a SQL check over
    the source true where DQX flags nothing, reading the query once; two rows back fail it
    (DQX raises)."""
    if args.get("merge_columns"):
        raise Unmappable("merge_columns joins the query's rows back to the input: write the "
                         "condition as a rule")  # fmt: skip
    if args.get("row_filter"):
        raise Unmappable("row_filter is set by DQX from the check's filter: write filter")
    query = str(args.get("query") or "").strip().rstrip(";")
    name = str(args.get("input_placeholder") or "input_view")
    scope = f"(SELECT * FROM source WHERE ({ctx.filter}))" if ctx.filter else "source"
    # DQX fills its placeholder itself, whatever the version (before 0.14 it is still braces)
    read = re.sub(r"\{\{\s*" + re.escape(name) + r"\s*\}\}", lambda _: scope, query)
    read = read.replace(variable_mark(name), scope)
    if read == query:
        raise Unmappable("the query does not read the input through its placeholder")
    if re.search(VARIABLE_MARK, read) or "{{" in read:
        raise Unmappable("the query reads other placeholders (reference data frames)")
    column = quoted(str(args.get("condition_column") or "condition"))
    flags = f"MAX({column})" if args.get("negate") is not True else f"NOT MAX({column})"
    # one pass over the query's rows: their count and (one row) its condition
    verdict = (f"(SELECT CASE WHEN COUNT(*) > 1 THEN false ELSE coalesce(NOT {flags}, true) END "
               f"FROM ({read}) AS qp_query)")  # fmt: skip
    return Mapped(sql_check=f"SELECT NOT EXISTS (SELECT 1 FROM {scope}) OR {verdict}")


def _label(spec: dict[str, Any], fn: str, args: dict[str, Any]) -> str:
    named = spec.get("name") or (args.get("name") if fn == "sql_expression" else None)
    if named:
        return str(named)
    column = args.get("column", args.get("col_name", args.get("columns")))
    shown = "_".join(map(str, column)) if isinstance(column, list) else column
    return f"{shown}_{fn}" if shown else fn


def _emit(
    draft: Draft, spec: dict[str, Any], fn: str, args: dict[str, Any], mapped: Mapped
) -> None:
    label = draft.name(_label(spec, fn, args))
    error = spec.get("criticality", "error") == "error"
    if mapped.rule is not None:
        rule: dict[str, Any] = {
            "name": label,
            "expression": mapped.rule,
            "action_if_failed": "drop" if error else "ignore",
        }
        if args.get("msg"):
            rule["description"] = str(args["msg"])
        draft.rules.append(rule)
    if mapped.constraint is not None:
        draft.check("error" if error else "warning", *mapped.constraint)
    if mapped.sql_check is not None:
        draft.sql_checks.append(
            {"name": label, "sql": mapped.sql_check, "on": "source",
             "level": "error" if error else "warning"}
        )  # fmt: skip


#: a DQX placeholder (utils.py, _UNRESOLVED_PLACEHOLDER_PATTERN; DQX 0.14 and later)
_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")
VARIABLES_SINCE = (0, 14)


def _with_variables(draft: Draft, spec: Any) -> Any:
    """``spec`` with each ``{{ name }}`` of its string values (not its keys) as our ``${name}``
    variable, given with ``--var name=value`` where the ruleset is read, as DQX fills them from
    its ``variables`` before it reads a check (utils.py, _substitute_variables). A placeholder
    whose name is no plain name is left as written (DQX warns and leaves it too).

    >>> spec = _with_variables(Draft("c.yml"), {"check": {"arguments": {"limit": "{{ max }}"}}})
    >>> spec["check"]["arguments"]["limit"].replace("QPVARIABLE9F2C", "|")
    '|max|'
    """
    if isinstance(spec, str):

        def named(m: re.Match[str]) -> str:
            key = m.group(0).strip("{} \t")
            return draft.variable(key) if key.isidentifier() else m.group(0)

        return _PLACEHOLDER.sub(named, spec)
    if isinstance(spec, dict):
        return {k: _with_variables(draft, v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_with_variables(draft, v) for v in spec]
    return spec


def _decimals(spec: Any) -> Any:
    """``spec`` with each ``{__decimal__: "1.50"}`` as the Decimal DQX reads it
    (checks_serializer.py, ``ChecksNormalizer.denormalize_value``: a mapping with that one key).

    >>> _decimals({"limit": {"__decimal__": "10.50"}, "other": {"__decimal__": 1, "x": 2}})
    {'limit': Decimal('10.50'), 'other': {'__decimal__': 1, 'x': 2}}
    """
    if isinstance(spec, dict):
        if set(spec) == {"__decimal__"}:
            try:
                number = Decimal(str(spec["__decimal__"]))
            except InvalidOperation:
                raise ValueError(f"{spec['__decimal__']!r} is not a decimal") from None
            if not number.is_finite():
                raise ValueError("a limit must be a finite number")
            return number
        return {k: _decimals(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_decimals(v) for v in spec]
    return spec


def _check(draft: Draft, version: tuple[int, int], line: int, spec: Any) -> None:
    """One DQX check."""
    spec = _decimals(spec)
    if version >= VARIABLES_SINCE:
        spec = _with_variables(draft, spec)
    if not isinstance(spec, dict) or not isinstance(spec.get("check"), dict):
        draft.skip(line, spec, "a check needs check: {function: ..., arguments: ...}")
        return
    unknown = sorted(set(spec) - CHECK_KEYS) + sorted(set(spec["check"]) - FUNCTION_KEYS)
    if unknown:
        draft.skip(line, spec, f"the key(s) {', '.join(unknown)} are not DQX's")
        return
    criticality = spec.get("criticality", "error")
    if criticality not in ("error", "warn"):
        draft.skip(line, spec, f"criticality is error or warn, not {criticality!r}")
        return
    fn = str(spec["check"].get("function", ""))
    fn = RENAMED.get(fn, fn)
    if fn not in ROW_FUNCTIONS and fn not in DATASET_FUNCTIONS:
        why = UNMAPPED_FUNCTIONS.get(fn, "not a DQX function we know")
        draft.skip(line, spec, f"the function {fn} does not convert: {why}")
        return
    items = spec["check"].get("for_each_column")
    if items is not None and not isinstance(items, list):
        raise ValueError("for_each_column must be a list")
    args = _arguments(draft, spec, line)
    ctx = Context(version, str(spec["filter"]) if spec.get("filter") else None)
    try:
        with draft.atomic():
            every = [_each(fn, args, item) for item in items] if items else [args]
            translated = [(each, _translate(draft, fn, each, ctx)) for each in every]
    except Unmappable as why:
        draft.skip(line, spec, str(why))
        return
    for each, mapped in translated:
        _emit(draft, spec, fn, each, mapped)
    for key in ("user_metadata", "message_expr"):
        if spec.get(key):
            draft.skip(line, {key: spec[key]}, f"{key} is not kept (the check is converted)")


def read(text: str, origin: str, version: tuple[int, int] = DEFAULT_VERSION) -> ImportResult:
    """Our ruleset from DQX checks YAML, with the meaning of DQX ``version``."""
    root = nodes_with_lines(text, origin)
    draft = Draft(origin)
    items = list(getattr(root, "value", []) or []) if root is not None else []
    if root is not None and not isinstance(value(root), list):
        draft.skip(1, "the file", "DQX checks are a list of checks")
        items = []
    each_item(
        draft,
        ((line_of(n), value(n)) for n in items),
        "this check",
        partial(_check, draft, version),
    )
    stem = origin.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    result = assemble(draft, stem or "dqx")
    return result.with_note(f"DQX {version[0]}.{version[1]} meaning applied")
