"""Great Expectations expectation suites (the JSON GX 1.x saves; ``convert --from gx``), with
the meaning GX 1.2 gives them on Spark.

Every expectation becomes a SQL check over ``source`` computing GX's own verdict, an ``error``
check (GX fails the validation):

* **column map expectations** (``expect_column_values_to_be_between`` ...): GX leaves the null
  values out and counts the unexpected ones among the rest; it succeeds when there is no row or
  no non-null value, else when ``(non-null - unexpected) / non-null >= mostly``
  (``expectation.py``, ``ColumnMapExpectation._validate`` and ``_mostly_success``).
  ``expect_column_values_to_(not_)be_null`` count over every row instead. Each also becomes a
  rule failing the rows GX reports unexpected, with the action ``ignore``: GX removes no row.
* **aggregate expectations** (``expect_column_mean_to_be_between`` ...): the metric between
  ``min_value`` and ``max_value`` (``strict_min`` / ``strict_max`` exclude the bound); a metric
  that is null or NaN fails (``_validate_metric_value_between``).
* **table expectations**: the row count between two bounds, or equal to a value.

``row_condition`` with ``condition_parser: spark`` restricts every count to the rows where it
is true (GX filters the batch with it). Anything else (another parser, ``catch_exceptions``
set, an expectation without a counterpart) is listed with its line.
"""

from __future__ import annotations

import math
import re
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
    variable_mark,
)
from quality_py.io.imports.dqx_functions import Unmappable, plain_literal, text_literal
from quality_py.sql.snippets import quoted

#: keys of an expectation that decide nothing about its verdict (kept or ignored)
_QUIET = frozenset({"meta", "id", "notes", "rendered_content", "description", "severity"})
#: kwargs that every expectation reads besides its own
_COMMON = frozenset({"column", "mostly", "row_condition", "condition_parser", "result_format",
                     "include_config", "catch_exceptions", "meta"})  # fmt: skip


#: a suite parameter GX substitutes whole (``suite_parameters.py``: a name begins with a letter)
_PARAMETER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _number(v: object, key: str) -> str:
    """A number bound as SQL, or a suite parameter (``{"$PARAMETER": "name"}``, given when GX
    validates) as our ``${name}`` variable, given where the ruleset runs.

    >>> _number(2.5, "min_value"), _number({"$PARAMETER": "low"}, "low") == variable_mark("low")
    ('2.5', True)
    """
    if isinstance(v, dict) and set(v) == {"$PARAMETER"}:
        name = v["$PARAMETER"]
        if not isinstance(name, str) or not _PARAMETER.fullmatch(name):
            raise Unmappable(f"{key}: the suite parameter {name!r} is an expression; a plain "
                             "name maps (our variable)")  # fmt: skip
        return variable_mark(name)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise Unmappable(f"{key} must be a number (a text bound is parsed by GX only for dates)")
    return plain_literal(v)


def _between(
    metric: str, k: dict[str, Any], low: str = "min_value", high: str = "max_value"
) -> str:
    """``metric`` within GX's bounds (either may be missing; strict bounds excluded)."""
    tests = []
    if k.get(low) is not None:
        tests.append(f"{metric} {'>' if k.get('strict_min') else '>='} {_number(k[low], low)}")
    if k.get(high) is not None:
        tests.append(f"{metric} {'<' if k.get('strict_max') else '<='} {_number(k[high], high)}")
    if not tests:
        raise Unmappable(f"it needs {low} or {high}")
    return " AND ".join(tests)


def _literals(k: dict[str, Any]) -> list[str]:
    values = k.get("value_set")
    if not isinstance(values, list) or not values:
        raise Unmappable("value_set must be a non-empty list")
    if any(isinstance(v, bool | dict | list) or v is None for v in values):
        raise Unmappable("value_set holds booleans, nulls or nested values")
    return [plain_literal(v) for v in values]


def _values(k: dict[str, Any]) -> str:
    return ", ".join(_literals(k))


def _regex(k: dict[str, Any], key: str = "regex") -> str:
    if not isinstance(k.get(key), str):
        raise Unmappable(f"{key} must be a text")
    return text_literal(k[key])


def _regex_list(c: str, k: dict[str, Any], negate: bool = False) -> str:
    """GX's Spark metrics (column_values_match_regex_list.py): ``match_on: any`` is one find
    of the patterns joined by ``|``, the same as a find of any one; ``all`` puts each in a
    look-ahead at one position, which is a find of each only when every pattern starts with
    ``^`` and has no ``|`` (else listed); not matching is no pattern found."""
    patterns = k.get("regex_list")
    if (
        not isinstance(patterns, list)
        or not patterns
        or not all(isinstance(p, str) for p in patterns)
    ):
        raise Unmappable("regex_list must be a non-empty list of texts")
    finds = [f"{c} RLIKE {text_literal(p)}" for p in patterns]
    if negate:
        return " AND ".join(f"NOT ({f})" for f in finds)
    match_on = k.get("match_on", "any")
    if match_on == "all" and all(p.startswith("^") and "|" not in p for p in patterns):
        return " AND ".join(f"({f})" for f in finds)
    if match_on != "any":
        raise Unmappable("match_on: all looks every pattern ahead from one position: it maps "
                         "when each pattern starts with ^ and has no |")  # fmt: skip
    return " OR ".join(f"({f})" for f in finds)


#: column map expectations: the test a non-null value ``{c}`` passes (GX's Spark map metric)
MAP_TESTS: dict[str, Any] = {
    "expect_column_values_to_be_between": (lambda c, k: _between(c, k),
                                           {"min_value", "max_value", "strict_min", "strict_max"}),
    "expect_column_values_to_be_in_set": (lambda c, k: f"{c} IN ({_values(k)})", {"value_set"}),
    "expect_column_values_to_not_be_in_set": (lambda c, k: f"NOT ({c} IN ({_values(k)}))",
                                              {"value_set"}),
    "expect_column_values_to_match_regex": (lambda c, k: f"{c} RLIKE {_regex(k)}", {"regex"}),
    "expect_column_values_to_not_match_regex": (lambda c, k: f"NOT ({c} RLIKE {_regex(k)})",
                                                {"regex"}),
    "expect_column_values_to_match_like_pattern": (
        lambda c, k: f"{c} LIKE {_regex(k, 'like_pattern')}", {"like_pattern"}),
    "expect_column_values_to_not_match_like_pattern": (
        lambda c, k: f"NOT ({c} LIKE {_regex(k, 'like_pattern')})", {"like_pattern"}),
    "expect_column_value_lengths_to_be_between": (
        lambda c, k: _between(f"length({c})", k),
        {"min_value", "max_value", "strict_min", "strict_max"}),
    "expect_column_value_lengths_to_equal": (
        lambda c, k: f"length({c}) = {_number(k.get('value'), 'value')}", {"value"}),
    "expect_column_values_to_match_regex_list": (_regex_list, {"regex_list", "match_on"}),
    "expect_column_values_to_not_match_regex_list": (
        lambda c, k: _regex_list(c, k, negate=True), {"regex_list"}),
}  # fmt: skip
#: aggregate expectations: GX's Spark metric of the column
AGGREGATES = {
    "expect_column_mean_to_be_between": "AVG({})",
    "expect_column_min_to_be_between": "MIN({})",
    "expect_column_max_to_be_between": "MAX({})",
    "expect_column_sum_to_be_between": "SUM({})",
    "expect_column_stdev_to_be_between": "STDDEV_SAMP({})",
    # GX's Spark median (column_median.py): the mean of approxQuantile at 0.5 and just above,
    # relative error 0: the two middle non-null values, or the middle one, exactly
    "expect_column_median_to_be_between": "median({})",
    "expect_column_unique_value_count_to_be_between": "COUNT(DISTINCT {})",
    "expect_column_proportion_of_unique_values_to_be_between":
        "CASE WHEN COUNT({0}) > 0 THEN COUNT(DISTINCT {0}) / COUNT({0}) END",
}  # fmt: skip


def _condition(k: dict[str, Any]) -> str | None:
    rc = k.get("row_condition")
    if rc is None or rc == "":
        return None
    if k.get("condition_parser") != "spark" or not isinstance(rc, str):
        raise Unmappable("a row_condition maps with condition_parser: spark (Spark SQL) only")
    return f"({rc})"


def _mostly(k: dict[str, Any]) -> str:
    m = k.get("mostly", 1.0)
    if isinstance(m, bool) or not isinstance(m, int | float) or not 0 <= m <= 1:
        raise Unmappable("mostly must be a number from 0 to 1")
    return f"{float(m)!r}D"


def _count(*conditions: str | None) -> str:
    kept = [c for c in conditions if c]
    return f"COUNT(CASE WHEN {' AND '.join(kept)} THEN 1 END)" if kept else "COUNT(*)"


def _share(rows: str, considered: str, unexpected: str, mostly: str) -> str:
    """GX's verdict: vacuously true without rows or considered values, else the expected share
    of the considered values at least ``mostly`` (divided only when there is something to
    divide by)."""
    return (
        f"CASE WHEN {rows} = 0 OR {considered} = 0 THEN true ELSE ({considered} - {unexpected}) "
        f"/ {considered} >= {mostly} END"
    )


def _repeated(rc: str | None, keep: str | None, keys: str, mostly: str) -> tuple[str, str]:
    """GX's verdict on the rows whose ``keys`` repeat among the rows considered (``rc`` and
    ``keep`` hold), as a query, and the rule failing those rows."""
    inside = " AND ".join(c for c in (rc, keep) if c) or "true"
    repeated = (f"(SELECT COALESCE(SUM(k), 0) FROM (SELECT COUNT(*) AS k FROM source WHERE "
                f"{inside} GROUP BY {keys} HAVING COUNT(*) > 1))")  # fmt: skip
    rows, considered = (f"(SELECT {_count(rc)} FROM source)",
                        f"(SELECT {_count(rc, keep)} FROM source)")  # fmt: skip
    over = f"count_if({inside}) OVER (PARTITION BY {keys})"
    return (f"SELECT {_share(rows, considered, repeated, mostly)}",
            f"({inside} AND {over} > 1) IS NOT TRUE")  # fmt: skip


def _map(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    c, rc = quoted(str(k["column"])), _condition(k)
    if kind in ("expect_column_values_to_not_be_null", "expect_column_values_to_be_null"):
        bad = f"{c} IS {'' if kind.endswith('not_be_null') else 'NOT '}NULL"
        total, unexpected = _count(rc), _count(rc, bad)
        verdict = _share(total, total, unexpected, _mostly(k))
        rule = f"({rc + ' AND ' if rc else ''}{bad}) IS NOT TRUE"
    elif kind == "expect_column_values_to_be_unique":
        verdict, rule = _repeated(rc, f"{c} IS NOT NULL", c, _mostly(k))
        rule = f"is_unique({c})" if rc is None else rule
    else:
        test = MAP_TESTS[kind][0](c, k)
        inside = f"{rc + ' AND ' if rc else ''}{c} IS NOT NULL"
        total, nonnull = _count(rc), _count(inside)
        unexpected = _count(inside, f"NOT ({test})")
        verdict = _share(total, nonnull, unexpected, _mostly(k))
        rule = f"({inside} AND NOT ({test})) IS NOT TRUE"
    name = draft.name(f"{k['column']}_{kind.removeprefix('expect_')}")
    draft.rules.append({"name": name, "expression": rule, "action_if_failed": "ignore"})
    draft.sql_checks.append({"name": name, "sql": verdict, "on": "source", "level": "error"})


def _aggregate(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    rc = _condition(k)
    c = quoted(str(k["column"]))
    if rc:
        c = f"CASE WHEN {rc} THEN {c} END"
    metric = AGGREGATES[kind].format(c)
    nan = f"CASE WHEN typeof({metric}) IN ('double', 'float') THEN isnan({metric}) ELSE false END"
    verdict = f"{metric} IS NOT NULL AND NOT ({nan}) AND {_between(metric, k)}"
    name = draft.name(f"{k['column']}_{kind.removeprefix('expect_')}")
    draft.sql_checks.append({"name": name, "sql": verdict, "on": "source", "level": "error"})


def _table(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    rows = _count(_condition(k))
    if kind == "expect_table_row_count_to_equal":
        verdict = f"{rows} = {_number(k.get('value'), 'value')}"
    else:
        verdict = _between(rows, k)
    draft.sql_checks.append(
        {"name": draft.name(kind.removeprefix("expect_")), "sql": verdict, "on": "source",
         "level": "error"}
    )  # fmt: skip


def _names(k: dict[str, Any], key: str) -> list[str]:
    names = k.get(key)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise Unmappable(f"{key} must be a non-empty list of column names")
    if len(set(names)) != len(names):
        raise Unmappable(f"{key} names a column twice")
    return names


def _structure(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    """The table's columns (``table.columns``, ``table.column_count``) as dataset checks:
    ``has_schema`` of columns of ``any`` type (``strict``: no other column; ``ordered``: in
    that order), ``has_column_count`` between GX's bounds."""
    if k.get("row_condition") is not None:
        raise Unmappable("a row_condition does not change the table's columns")
    if kind == "expect_column_to_exist":
        if k.get("column_index"):  # GX reads an index of 0 as none
            raise Unmappable("column_index (the column's position) is not converted")
        args: dict[str, Any] = {"expected": {str(k["column"]): "any"}}
    elif kind in ("expect_column_values_to_be_of_type", "expect_column_values_to_be_in_type_list"):
        listed = k.get("type_list")
        if kind.endswith("_type_list") and (not isinstance(listed, list) or len(listed) != 1):
            raise Unmappable("a type_list maps when it names one type (has_schema holds one)")
        kind_name = _SPARK_TYPES.get(str(listed[0] if listed else k.get("type_")))
        if kind_name is None:
            raise Unmappable(f"type_ {k.get('type_')!r}: only a concrete Spark type class without "
                             "parameters (IntegerType, StringType, ...) maps")  # fmt: skip
        args = {"expected": {str(k["column"]): kind_name}}
    elif kind == "expect_table_columns_to_match_ordered_list":
        args = {"expected": dict.fromkeys(_names(k, "column_list"), "any"), "strict": True,
                "ordered": True}  # fmt: skip
    elif kind == "expect_table_columns_to_match_set":
        # without exact_match GX reads it as false: every column present, others allowed
        args = {"expected": dict.fromkeys(_names(k, "column_set"), "any"),
                "strict": k.get("exact_match") is True}  # fmt: skip
    else:
        if kind == "expect_table_column_count_to_equal":
            tests = [f"== {_number(k.get('value'), 'value')}"]
        else:  # each bound its own assertion: "n >= 1 AND n < 5" is ">= 1" and "< 5"
            tests = [t.removeprefix("n ") for t in _between("n", k).split(" AND ")]
        for test in tests:
            draft.check("error", "has_column_count", {"assertion": test})
        return
    draft.check("error", "has_schema", args)


#: rows a column pair expectation leaves out (SparkDFExecutionEngine.get_domain_records)
_IGNORE = {"both_values_are_missing": "NOT ({a} IS NULL AND {b} IS NULL)",
           "either_value_is_missing": "{a} IS NOT NULL AND {b} IS NOT NULL",
           "neither": None}  # fmt: skip
PAIRS = {
    "expect_column_pair_values_to_be_equal": frozenset({"column_A", "column_B", "ignore_row_if"}),
    "expect_column_pair_values_a_to_be_greater_than_b": frozenset(
        {"column_A", "column_B", "ignore_row_if", "or_equal"}
    ),
}


def _pair(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    """A column pair map expectation (``ColumnPairMapExpectation._validate``): the rows
    ``ignore_row_if`` leaves out (both values missing, by default) are not considered; a row
    is unexpected when the condition is false (``column_pair_values_equal.py``: null-safe
    equality; ``column_pair_values_greater.py``: ``a > b``, or ``a >= b`` or both equal
    null-safely with ``or_equal``), a null condition being neither."""
    names = [k.get("column_A"), k.get("column_B")]
    if not all(isinstance(n, str) and n for n in names):
        raise Unmappable("it names column_A and column_B")
    a, b = (quoted(str(n)) for n in names)
    mode = k.get("ignore_row_if", "both_values_are_missing")
    if mode not in _IGNORE:
        raise Unmappable(f"ignore_row_if {mode!r} is not one GX accepts")
    kept = _IGNORE[str(mode)]
    keep = kept.format(a=a, b=b) if kept else None
    if kind == "expect_column_pair_values_to_be_equal":
        test = f"{a} <=> {b}"
    else:
        test = f"({a} >= {b}) OR ({a} <=> {b})" if k.get("or_equal") else f"{a} > {b}"
    rc = _condition(k)
    verdict = _share(_count(rc), _count(rc, keep), _count(rc, keep, f"NOT ({test})"), _mostly(k))
    failing = " AND ".join(c for c in (rc, keep, f"NOT ({test})") if c)
    name = draft.name(f"{names[0]}_{names[1]}_{kind.removeprefix('expect_column_pair_values_')}")
    draft.rules.append({"name": name, "expression": f"({failing}) IS NOT TRUE",
                        "action_if_failed": "ignore"})  # fmt: skip
    draft.sql_checks.append({"name": name, "sql": verdict, "on": "source", "level": "error"})


#: rows a multicolumn expectation leaves out (its default: all values missing)
_IGNORE_ROWS = {"all_values_are_missing": " OR ", "any_value_is_missing": " AND ", "never": None}


def _compound(draft: Draft, k: dict[str, Any]) -> None:
    """``expect_compound_columns_to_be_unique`` (compound_columns_unique.py: a row is
    unexpected when its combination, nulls equal, is on more than one of the rows considered);
    ``MulticolumnMapExpectation``'s verdict, as the column pairs'."""
    names = _names(k, "column_list")
    cols = [quoted(n) for n in names]
    mode = k.get("ignore_row_if", "all_values_are_missing")
    if mode not in _IGNORE_ROWS:
        raise Unmappable(f"ignore_row_if {mode!r} is not one GX accepts")
    joiner = _IGNORE_ROWS[str(mode)]
    keep = f"({joiner.join(f'{c} IS NOT NULL' for c in cols)})" if joiner else None
    verdict, rule = _repeated(_condition(k), keep, ", ".join(cols), _mostly(k))
    name = draft.name(f"{'_'.join(names)}_compound_unique")
    draft.rules.append({"name": name, "expression": rule, "action_if_failed": "ignore"})
    draft.sql_checks.append({"name": name, "sql": verdict, "on": "source", "level": "error"})


DISTINCT_SETS = ("expect_column_distinct_values_to_be_in_set",
                 "expect_column_distinct_values_to_contain_set",
                 "expect_column_distinct_values_to_equal_set")  # fmt: skip


#: an aggregate that holds on every data (a SQL check's value is one row's, even of none)
_ALWAYS = "COUNT(*) >= 0"


def _distinct_set(draft: Draft, kind: str, k: dict[str, Any]) -> None:
    """The column's distinct non-null values (``column.value_counts``, which drops nulls)
    against ``value_set`` as Python sets: a subset (any set of an empty ``value_set``), a
    superset, or equal."""
    c, rc = quoted(str(k["column"])), _condition(k)
    given = k.get("value_set")
    values = [] if given in (None, []) else _literals(k)
    outside = _count(rc, f"{c} IS NOT NULL", f"NOT ({c} IN ({', '.join(values)}))") \
        if values else _count(rc, f"{c} IS NOT NULL")  # fmt: skip
    found = [f"{_count(rc, f'{c} = {v}')} > 0" for v in values]
    if kind.endswith("_in_set"):
        verdict = f"{outside} = 0" if values else _ALWAYS
    elif kind.endswith("_contain_set"):
        verdict = " AND ".join(found) or _ALWAYS
    else:
        verdict = " AND ".join([f"{outside} = 0", *found])
    name = draft.name(f"{k['column']}_{kind.removeprefix('expect_column_')}")
    draft.sql_checks.append({"name": name, "sql": verdict, "on": "source", "level": "error"})


#: pyspark.types classes GX's Spark check names (``isinstance`` of the column's type), each
#: the one type it holds
_SPARK_TYPES = {"IntegerType": "int", "LongType": "bigint", "ShortType": "smallint",
                "ByteType": "tinyint", "StringType": "string", "BooleanType": "boolean",
                "DoubleType": "double", "FloatType": "float", "DateType": "date",
                "TimestampType": "timestamp", "TimestampNTZType": "timestamp_ntz",
                "BinaryType": "binary"}  # fmt: skip
#: the table's structure: each expectation with the kwargs it reads
STRUCTURE = {
    "expect_column_values_to_be_of_type": frozenset({"type_"}),
    "expect_column_values_to_be_in_type_list": frozenset({"type_list"}),
    "expect_column_to_exist": frozenset({"column_index"}),
    "expect_table_columns_to_match_ordered_list": frozenset({"column_list"}),
    "expect_table_columns_to_match_set": frozenset({"column_set", "exact_match"}),
    "expect_table_column_count_to_equal": frozenset({"value"}),
    "expect_table_column_count_to_be_between": frozenset({"min_value", "max_value", "strict_min",
                                                          "strict_max"}),
}  # fmt: skip
_NULLS = {"expect_column_values_to_not_be_null", "expect_column_values_to_be_null"}
_TABLE = {"expect_table_row_count_to_be_between": {"min_value", "max_value", "strict_min",
                                                   "strict_max"},
          "expect_table_row_count_to_equal": {"value"}}  # fmt: skip
#: every expectation converted, with the kwargs it reads besides :data:`_COMMON`
EXPECTATIONS: dict[str, frozenset[str]] = {
    **{kind: frozenset(keys) for kind, (_, keys) in MAP_TESTS.items()},
    **dict.fromkeys((*_NULLS, "expect_column_values_to_be_unique"), frozenset()),
    **dict.fromkeys(AGGREGATES, frozenset({"min_value", "max_value", "strict_min",
                                           "strict_max"})),
    **{kind: frozenset(keys) for kind, keys in _TABLE.items()},
    **STRUCTURE,
    **PAIRS,
    "expect_compound_columns_to_be_unique": frozenset({"column_list", "ignore_row_if"}),
    **dict.fromkeys(DISTINCT_SETS, frozenset({"value_set"})),
}  # fmt: skip


def _one(draft: Draft, line: int, node: Any) -> None:
    spec = value(node)
    kind = spec.get("type", spec.get("expectation_type"))
    k = spec.get("kwargs") or {}
    try:
        with draft.atomic():
            if kind not in EXPECTATIONS:
                raise Unmappable(f"the expectation {kind} has no counterpart here")
            unknown = sorted(set(k) - _COMMON - EXPECTATIONS[kind])
            unknown += sorted(set(spec) - _QUIET - {"type", "expectation_type", "kwargs"})
            if unknown:
                raise Unmappable(f"{', '.join(unknown)} not converted")
            if k.get("catch_exceptions"):
                raise Unmappable("catch_exceptions turns an error into a failed result")
            if kind in _TABLE:
                _table(draft, kind, k)
            elif kind in STRUCTURE and not kind.startswith("expect_column_"):
                _structure(draft, kind, k)
            elif kind in PAIRS:
                _pair(draft, kind, k)
            elif kind == "expect_compound_columns_to_be_unique":
                _compound(draft, k)
            elif not isinstance(k.get("column"), str) or not k["column"]:
                raise Unmappable("it names no column")
            elif kind in (
                "expect_column_to_exist",
                "expect_column_values_to_be_of_type",
                "expect_column_values_to_be_in_type_list",
            ):
                _structure(draft, kind, k)
            elif kind in DISTINCT_SETS:
                _distinct_set(draft, kind, k)
            elif kind in AGGREGATES:
                _aggregate(draft, kind, k)
            else:
                _map(draft, kind, k)
    except Unmappable as why:
        draft.skip(line, kind, str(why))


def read(text: str, origin: str) -> ImportResult:
    """Our ruleset from a GX expectation suite (JSON)."""
    root = nodes_with_lines(text, origin)
    doc = value(root)
    if not isinstance(doc, dict) or not isinstance(doc.get("expectations"), list):
        raise malformed(origin, 1, "the suite", "it has no list of expectations")
    draft = Draft(origin)
    items = next(v for key, v in root.value if key.value == "expectations")  # type: ignore[union-attr]
    if not isinstance(items, yaml.SequenceNode):
        raise malformed(origin, line_of(items), "expectations", "not a list")
    each_item(draft, ((line_of(n), n) for n in items.value), "this expectation",
              lambda line, n: _one(draft, line, n))  # fmt: skip
    name = doc.get("name") or doc.get("expectation_suite_name") or "gx"
    return assemble(draft, str(name)).with_note("great_expectations 1.2 meaning applied")
