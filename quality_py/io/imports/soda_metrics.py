"""SodaCL metrics as the SQL Soda itself runs on Spark (soda-core v3.5,
``soda/execution/metric/numeric_query_metric.py``, ``derived_metric.py``,
``query/duplicates_query.py``, ``data_source.py``), so a converted check gets Soda's value:

* ``missing``: ``c IS NULL``, or one of ``missing values``, or a find of ``missing regex``
  (Spark's ``rlike``, unanchored); ``valid``: every ``valid ...`` configuration holds;
  ``invalid_count``: not missing and (not valid, or one of ``invalid values`` / ``invalid
  regex``), with ``include null``;
* ``min`` / ``max`` / ``avg`` / ``sum`` / ``*_length`` over the values that are not missing and
  valid (when such configurations are given) and inside the filter;
* ``*_percent``: the count times 100 over the row count, rounded to 2 decimals as Python rounds
  a float (0.995 % is 0.99); **0 when the table (or the filter) has no rows**;
* ``duplicate_count``: the number of distinct keys seen more than once among the rows whose key
  has **no null part** (and inside the filter, joined to those conditions without parentheses,
  as Soda joins it); ``duplicate_percent`` over the row count;
* ``stddev``, ``variance`` and the like: Spark's function of that name (``stddev`` is the
  *sample* deviation; Soda's own test reads ``stddev`` and ``stddev_samp`` alike:
  ``soda/core/tests/data_source/test_data_source_specific_aggregation_functions.py``, lines
  10 and 12).

Formats (``valid format: email``) are Soda's own regexes, not converted: such a check is listed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from quality_py.io.imports.dqx_functions import Unmappable, plain_literal, text_literal
from quality_py.sql.snippets import quoted as column_sql

#: Configuration keys of missing and valid values (``missing_and_valid_cfg.py``).
MISSING_VALID_KEYS = frozenset(
    {"valid values", "invalid values", "valid format", "invalid format", "valid regex",
     "invalid regex", "valid min", "valid max", "valid min length", "valid max length",
     "valid length", "missing values", "missing format", "missing regex", "include null"}
)  # fmt: skip
#: Soda's own aggregate metrics over a column's values.
VALUE_METRICS = {
    "min": "MIN({})",
    "max": "MAX({})",
    "avg": "AVG({})",
    "sum": "SUM({})",
    "min_length": "MIN(LENGTH({}))",
    "max_length": "MAX(LENGTH({}))",
    "avg_length": "AVG(LENGTH({}))",
}
#: Statistics Soda passes to the data source under their SQL names.
STATISTICS = frozenset({"stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"})
COUNTS = ("row_count", "missing_count", "invalid_count", "valid_count")
PERCENTS = {"missing_percent": "missing_count", "invalid_percent": "invalid_count"}
DUPLICATES = ("duplicate_count", "duplicate_percent")
METRICS = frozenset({*VALUE_METRICS, *STATISTICS, *COUNTS, *PERCENTS, *DUPLICATES})
#: Metrics that count rows (or are a percentage of counts): their value is never NaN.
COUNTED = frozenset({*COUNTS, *PERCENTS, *DUPLICATES})


def number_literal(v: object, key: str) -> str:
    """A number of a foreign file as a SQL literal (a boolean or a text is not one).

    >>> number_literal(2.5, "valid min")
    '2.5'
    """
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise Unmappable(f"{key} must be a number")
    return plain_literal(v)


def _list_literal(x: object, key: str) -> str:
    """One value of a list as Soda writes it (``data_source.py``, ``literal``)."""
    if x is None:
        return "NULL"
    if isinstance(x, bool | dt.datetime):
        # YAML reads unquoted yes/no/on/off/true/false as booleans, which Soda writes as
        # True/False; Soda writes a timestamp as text: neither is what the file meant
        raise Unmappable(f"{key}: {x!r} is read by YAML as a boolean or timestamp; quote it")
    if not isinstance(x, int | float | str | dt.date):
        raise Unmappable(f"{key}: {x!r} is not a number, date or text")
    return plain_literal(x)


def in_list(c: str, v: object, key: str) -> str:
    """``c IN (values)`` as Soda writes it (``literal_list``) and Spark compares it without
    ANSI mode (the default of the Spark 3 releases soda-core v3 runs on), whatever the
    column's type: as text when the column or any value is text (``In``'s widest common type
    is then a string: ``1 IN ('01')`` is false), else as the values' own type. ANSI mode would
    instead cast text to the number and abort on ``'NA'``, so the comparison is written out.

    >>> in_list("c", ["NA", 0], "missing values")
    "CAST(c AS STRING) IN ('NA', CAST(0 AS STRING))"
    >>> in_list("c", [0, 1.5], "valid values")
    "CASE WHEN typeof(c) LIKE 'string%' THEN c IN (CAST(0 AS STRING), CAST(1.5 AS STRING)) \
ELSE c IN (0, 1.5) END"
    """
    if not isinstance(v, list) or not v:
        raise Unmappable(f"{key} must be a non-empty list")
    literals = [_list_literal(x, key) for x in v]
    texts = ", ".join(
        lit if isinstance(x, str) or x is None else f"CAST({lit} AS STRING)"
        for x, lit in zip(v, literals, strict=True)
    )
    if any(isinstance(x, str) for x in v):
        return f"CAST({c} AS STRING) IN ({texts})"
    return (
        f"CASE WHEN typeof({c}) LIKE 'string%' THEN {c} IN ({texts}) "
        f"ELSE {c} IN ({', '.join(literals)}) END"
    )


def missing(c: str, cfg: dict[str, Any]) -> str:
    """Soda's ``build_missing_condition``."""
    if cfg.get("missing format"):
        raise Unmappable("missing format (Soda's named formats) is not converted")
    clauses = [f"{c} IS NULL"]
    if cfg.get("missing values"):
        clauses.append(in_list(c, cfg["missing values"], "missing values"))
    if cfg.get("missing regex"):
        clauses.append(f"{c} RLIKE {text_literal(str(cfg['missing regex']))}")
    return " OR ".join(clauses)


def valid(c: str, cfg: dict[str, Any]) -> str | None:
    """Soda's ``build_valid_condition`` (None: no validity configured)."""
    if cfg.get("valid format"):
        raise Unmappable("valid format (Soda's named formats) is not converted")
    clauses = []
    if cfg.get("valid values"):
        clauses.append(in_list(c, cfg["valid values"], "valid values"))
    if cfg.get("valid regex") is not None:
        clauses.append(f"{c} RLIKE {text_literal(str(cfg['valid regex']))}")
    for key, test in (("valid length", "="), ("valid min length", ">="),
                      ("valid max length", "<=")):  # fmt: skip
        if cfg.get(key) is not None:
            clauses.append(f"LENGTH({c}) {test} {number_literal(cfg[key], key)}")
    for key, test in (("valid min", ">="), ("valid max", "<=")):
        if cfg.get(key) is not None:
            clauses.append(f"{c} {test} {number_literal(cfg[key], key)}")
    return " AND ".join(clauses) if clauses else None


def invalid(c: str, cfg: dict[str, Any]) -> str | None:
    """Soda's ``build_invalid_condition``."""
    if cfg.get("invalid format"):
        raise Unmappable("invalid format (Soda's named formats) is not converted")
    clauses = []
    if cfg.get("invalid values"):
        clauses.append(in_list(c, cfg["invalid values"], "invalid values"))
    if cfg.get("invalid regex") is not None:
        clauses.append(f"{c} RLIKE {text_literal(str(cfg['invalid regex']))}")
    return " OR ".join(clauses) if clauses else None


def _include_null(c: str, cfg: dict[str, Any]) -> str:
    return f" OR {c} IS NULL" if cfg.get("include null") is True else ""


def _configured(cfg: dict[str, Any]) -> bool:
    return any(k in cfg for k in MISSING_VALID_KEYS)


def counted(metric: str, c: str | None, cfg: dict[str, Any]) -> str | None:
    """The row condition a count metric counts (None: every row)."""
    if metric == "row_count":
        return None
    assert c is not None
    miss = missing(c, cfg)
    if metric == "missing_count":
        return miss
    ok, bad, extra = valid(c, cfg), invalid(c, cfg), _include_null(c, cfg)
    if metric == "valid_count":
        if ok:
            return f"NOT ({miss}) AND ({ok}){extra}"
        return f"NOT ({miss}) AND NOT ({bad}){extra}" if bad else f"NOT ({miss})"
    if ok and bad:
        return f"NOT ({miss}) AND (NOT ({ok}) OR ({bad})){extra}"
    if ok:
        return f"NOT ({miss}) AND NOT ({ok}){extra}"
    if bad:
        return f"NOT ({miss}) AND ({bad}){extra}"
    return "false"  # Soda warns: invalid without a validity counts nothing


def _count(condition: str | None, row_filter: str | None) -> str:
    if row_filter:
        condition = f"({row_filter}) AND ({condition})" if condition else row_filter
    return f"COUNT(CASE WHEN {condition} THEN 1 END)" if condition else "COUNT(*)"


def python_round2(q: str) -> str:
    """The SQL of Python's ``round(q, 2)`` for a double ``q`` >= 0, which Soda applies to a
    percentage (``derived_metric.py``): the exact binary value rounded, ties to even. Spark's
    ``round`` rounds the shortest decimal text half up, which differs only when that text is a
    tie (``0.995``, the double just below 0.995): there the sign of ``q - tie`` is found
    exactly (``q`` split in halves of 26 and 27 bits, so each product by 200 is exact).

    >>> "round((q), 2)" in python_round2("q")
    True
    """
    j = f"round(({q}) * 200D)"  # the nearest tie's numerator, when q is one (odd)
    tie = f"(pmod({j}, 2D) = 1D AND ({q}) = {j} / 200D)"
    split = f"(({q}) * 134217729D)"
    hi = f"({split} - ({split} - ({q})))"
    lo = f"(({q}) - {hi})"
    # q * 200 - j, exactly signed: both products are exact and the first difference too
    side = f"(({hi} * 200D - {j}) + {lo} * 200D)"
    k = f"(({j} - 1D) / 2D)"
    decided = (
        f"CASE WHEN {side} < 0 THEN {k} / 100D WHEN {side} > 0 THEN ({k} + 1D) / 100D "
        f"WHEN pmod({k}, 2D) = 0D THEN {k} / 100D ELSE ({k} + 1D) / 100D END"
    )
    return f"CASE WHEN {tie} THEN {decided} ELSE round(({q}), 2) END"


def _percent(part: str, whole: str, source: str = " FROM source") -> str:
    """A percentage as Soda derives it: ``part * 100 / whole`` as a float, rounded by Python's
    ``round`` to 2 decimals; 0 without rows. A scalar subquery, so the counts are written once
    (``source``: what they are counted over; empty when they are subqueries themselves).

    >>> _percent("COUNT(*)", "COUNT(*)").startswith("(SELECT CASE WHEN qp_whole > 0")
    True
    """
    rounded = python_round2("qp_part * 100 / qp_whole")
    return (
        f"(SELECT CASE WHEN qp_whole > 0 THEN {rounded} ELSE 0D END "
        f"FROM (SELECT {part} AS qp_part, {whole} AS qp_whole{source}) AS qp_counts)"
    )


def _duplicates(columns: list[str], row_filter: str | None) -> str:
    # the filter joined without parentheses, as Soda writes it (duplicates_query.py: the
    # clauses joined by AND): a top-level OR in it reads as SQL's precedence says
    where = [f"{c} IS NOT NULL" for c in columns] + ([row_filter] if row_filter else [])
    inner = (
        f"SELECT COUNT(*) AS frequency FROM source WHERE {' AND '.join(where)} "
        f"GROUP BY {', '.join(columns)}"
    )
    return f"(SELECT COUNT(*) FROM ({inner}) AS frequencies WHERE frequency > 1)"


def metric_sql(
    metric: str, columns: list[str], cfg: dict[str, Any], custom: str | None
) -> tuple[str, bool]:
    """The SQL of a metric and whether it is a query (``SELECT ...``) rather than an
    aggregate over ``source``."""
    row_filter = str(cfg["filter"]) if cfg.get("filter") else None
    if custom is not None:  # "<metric> expression": Soda passes it through as the aggregate
        if row_filter:
            raise Unmappable("Soda refuses a filter with a metric expression")
        return f"({custom})", False
    if metric not in METRICS:
        raise Unmappable(f"the metric {metric} is not converted")
    if metric in DUPLICATES:
        if not columns or _configured(cfg):
            raise Unmappable(f"{metric} needs columns and takes no missing or valid settings")
        dup = _duplicates([column_sql(c) for c in columns], row_filter)
        if metric == "duplicate_count":
            return dup, True
        rows = f"(SELECT {_count(None, row_filter)} FROM source)"
        return _percent(dup, rows, source=""), True
    if metric != "row_count" and len(columns) != 1:
        raise Unmappable(f"{metric} takes one column")
    c = column_sql(columns[0]) if columns else None
    if metric in COUNTS:
        return _count(counted(metric, c, cfg), row_filter), False
    if metric in PERCENTS:
        part = _count(counted(PERCENTS[metric], c, cfg), row_filter)
        return _percent(part, _count(None, row_filter)), True
    assert c is not None
    if metric in STATISTICS:
        if row_filter or _configured(cfg):
            raise Unmappable(f"{metric} with a filter or missing and valid settings")
        return f"{metric}({c})", False
    conditions = []
    if _configured(cfg):
        ok = counted("valid_count", c, cfg)
        conditions.append(str(ok))
    if row_filter:
        conditions.append(row_filter)
    values = f"CASE WHEN {' AND '.join(conditions)} THEN {c} END" if conditions else c
    return VALUE_METRICS[metric].format(values), False
