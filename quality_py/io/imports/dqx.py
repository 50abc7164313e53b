"""DQX checks YAML (a list of checks: ``criticality``, ``check: {function, arguments}``,
optional ``name``, ``filter``, ``for_each_column``). Row-level functions become rules that fail
the rows DQX reports (nulls pass where DQX lets them pass); ``criticality: error`` (DQX moves the
row to the invalid output) becomes the action ``drop``, ``warn`` becomes ``ignore``. The
dataset-level ``is_unique``, ``foreign_key`` (to a table), ``is_aggr_not_greater_than`` and
``is_aggr_not_less_than`` become dataset checks. Arguments are read under their current and
their earlier names (``column`` / ``col_name``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

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


def literal(v: object) -> str:
    """A Python value as a SQL literal.

    >>> print(literal("it's"), literal(3), literal(True), literal(None))
    'it\\'s' 3 true NULL
    """
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(number(v, name="a limit"))  # NaN or inf would read as a column name
    return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _in(c: str, a: dict[str, Any]) -> str:
    return f"{c} IN ({', '.join(literal(v) for v in a.get('allowed') or [])})"


def _range(c: str, a: dict[str, Any]) -> str:
    return f"({c} >= {literal(a.get('min_limit'))} AND {c} <= {literal(a.get('max_limit'))})"


def _text(c: str, a: dict[str, Any]) -> str:
    return f"trim(CAST({c} AS STRING))" if a.get("trim_strings") else f"CAST({c} AS STRING)"


def _regex(c: str, a: dict[str, Any]) -> str:
    test = f"{c} RLIKE {literal(a.get('regex'))}"
    return f"{c} IS NULL OR {'NOT ' if a.get('negate') else ''}{test}"


#: Each row-level function: the SQL of the rows that pass it, from its column and arguments.
ROW_CHECKS: dict[str, Callable[[str, dict[str, Any]], str]] = {
    "is_not_null": lambda c, a: f"{c} IS NOT NULL",
    "is_not_empty": lambda c, a: f"{c} IS NULL OR {_text(c, a)} <> ''",
    "is_not_null_and_not_empty": lambda c, a: f"{c} IS NOT NULL AND {_text(c, a)} <> ''",
    "is_in_list": lambda c, a: f"{c} IS NULL OR {_in(c, a)}",
    "is_not_null_and_is_in_list": lambda c, a: f"{c} IS NOT NULL AND {_in(c, a)}",
    "is_in_range": lambda c, a: f"{c} IS NULL OR {_range(c, a)}",
    "is_not_in_range": lambda c, a: f"{c} IS NULL OR NOT {_range(c, a)}",
    "is_not_less_than": lambda c, a: f"{c} IS NULL OR {c} >= {literal(a.get('limit'))}",
    "is_not_greater_than": lambda c, a: f"{c} IS NULL OR {c} <= {literal(a.get('limit'))}",
    "regex_match": _regex,
}
#: Earlier names of DQX functions.
for _old, _new in (
    ("value_is_in_list", "is_in_list"),
    ("value_is_not_null_and_is_in_list", "is_not_null_and_is_in_list"),
    ("not_less_than", "is_not_less_than"),
    ("not_greater_than", "is_not_greater_than"),
):
    ROW_CHECKS[_old] = ROW_CHECKS[_new]
_AGGREGATES = {"min": "has_min", "max": "has_max", "avg": "has_mean", "sum": "has_sum"}


def _column(args: dict[str, Any]) -> str | None:
    found = args.get("column", args.get("col_name"))
    return None if found is None else str(found)


def _dataset(draft: Draft, level: str, fn: str, args: dict[str, Any]) -> str | None:
    """Map a dataset-level function; the reason it cannot be mapped, else None."""
    columns = args.get("columns") or ([_column(args)] if _column(args) else [])
    if fn == "is_unique" and columns:
        draft.check(level, "is_unique", {"column": columns})
        return None
    if fn == "foreign_key" and args.get("ref_table") and columns:
        refused = draft.reference(args["ref_table"])
        if refused:
            return refused
        refs = args.get("ref_columns") or columns
        draft.check(
            level,
            "has_referential_integrity",
            {"columns": columns, "reference": args["ref_table"], "reference_columns": refs},
        )
        return None
    if fn in ("is_aggr_not_greater_than", "is_aggr_not_less_than"):
        op = "<=" if fn.endswith("greater_than") else ">="
        kind = str(args.get("aggr_type", "count"))
        bound = f"{op} {args.get('limit')}"
        if kind == "count" and _column(args) in (None, "*"):
            draft.check(level, "has_size", {"assertion": bound})
            return None
        if kind in _AGGREGATES and _column(args) and not args.get("group_by"):
            draft.check(level, _AGGREGATES[kind], {"column": _column(args), "assertion": bound})
            return None
        return f"aggregate {kind} per group or over a column count has no counterpart"
    return f"the function {fn} has no counterpart here"


def _arguments(draft: Draft, spec: dict[str, Any], line: int) -> dict[str, Any]:
    """A check's ``arguments``: a mapping of names to values (DQX's format)."""
    return dict(
        mapping(spec["check"].get("arguments"), draft.origin, line, "this check's arguments")
    )


def _rule(draft: Draft, spec: dict[str, Any], fn: str, column: str | None, line: int) -> None:
    args = _arguments(draft, spec, line)
    if column is not None:
        args["column"] = column
    if fn == "sql_expression":
        body = args.get("expression")
        if not str(body or "").strip():
            draft.skip(line, spec, "sql_expression without an expression")
            return
        expression = f"({body}) IS NOT {'TRUE' if args.get('negate') else 'FALSE'}"
        label = str(spec.get("name") or args.get("name") or args.get("msg") or "sql_expression")
    else:
        col = _column(args)
        if col is None:
            draft.skip(line, spec, f"{fn} names no column")
            return
        expression = ROW_CHECKS[fn](col, args)
        label = str(spec.get("name") or f"{col}_{fn}")
    rule: dict[str, Any] = {
        "name": draft.name(label),
        "expression": expression,
        "action_if_failed": "drop" if spec.get("criticality", "error") == "error" else "ignore",
    }
    if spec.get("filter"):
        rule["filter"] = str(spec["filter"])
    if args.get("msg"):
        rule["description"] = str(args["msg"])
    draft.rules.append(rule)


def _check(draft: Draft, line: int, spec: Any) -> None:
    """One DQX check: rules for a row-level function, dataset checks for the others."""
    if not isinstance(spec, dict) or not isinstance(spec.get("check"), dict):
        draft.skip(line, spec, "a check needs check: {function: ..., arguments: ...}")
        return
    fn = str(spec["check"].get("function", ""))
    if spec.get("user_metadata"):
        draft.skip(line, {"user_metadata": spec["user_metadata"]}, "user metadata is not kept")
    columns = spec["check"].get("for_each_column") or spec.get("for_each_column") or [None]
    if not isinstance(columns, list):
        raise malformed(draft.origin, line, "this check", "for_each_column must be a list")
    level = "error" if spec.get("criticality", "error") == "error" else "warning"
    for column in columns:
        if fn in ROW_CHECKS or fn == "sql_expression":
            _rule(draft, spec, fn, None if column is None else str(column), line)
            continue
        args = _arguments(draft, spec, line)
        if column is not None:
            args["column"] = str(column)
        if spec.get("filter"):
            draft.skip(line, spec, "a filter on a dataset-level check has no counterpart")
            continue
        reason = _dataset(draft, level, fn, args)
        if reason:
            draft.skip(line, spec, reason)


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from DQX checks YAML."""
    root = nodes_with_lines(text, origin)
    draft = Draft(origin)
    items = list(getattr(root, "value", []) or []) if root is not None else []
    if root is not None and not isinstance(value(root), list):
        draft.skip(1, "the file", "DQX checks are a list of checks")
        items = []
    each_item(draft, ((line_of(n), value(n)) for n in items), "this check", partial(_check, draft))
    stem = origin.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return assemble(draft, stem or "dqx")
