"""DQX check functions as SQL: each function's *failure condition* written as DQX's own source
builds it (``databricks/labs/dqx/check_funcs.py``), so a converted check flags exactly the rows
DQX flags.

DQX reports a row when its condition is true: a null condition (a null value, a null limit) is
not a failure. A check's ``filter`` is applied around every condition (DQX's
``F.when(filter & condition ...)`` in ``manager.py``): a row whose filter is not true is not
checked. So a converted rule passes where ``(filter AND condition) IS NOT TRUE``.

Values (limits, list entries, ``value``) are resolved as DQX resolves them (``get_limit_expr``):
a number or boolean is a literal; a string of digits is a number; an ISO date or timestamp
string is a date or timestamp; any other string is a **SQL expression** (a column, ``col2 *
2``, or a quoted text literal ``'active'``). Before DQX 0.16 the entries of ``allowed`` /
``forbidden`` lists were literals (``F.lit``); from 0.16 (DQX #1419) they are resolved like
limits. :data:`DEFAULT_VERSION` is the version applied unless the user names another.

>>> limit_sql("'active'"), limit_sql("col2 * 2"), limit_sql("2024-01-31"), limit_sql(3)
("'active'", '(col2 * 2)', "DATE '2024-01-31'", '3')
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from quality_py.sql.library.validators import ipv4_block, ipv6_block

#: The DQX version whose meaning is applied when the user names none (the newest read).
DEFAULT_VERSION = (0, 16)
#: The oldest version whose value rules the converter reproduces (DQX #997, in 0.13.0, made
#: digit strings numbers and ISO strings dates; before, every string limit was an expression).
OLDEST_VERSION = (0, 13)


_SIMPLE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|`[^`]+`|-?\d+(?:\.\d+)?|'[^'\\]*'")


def wrap(sql: str) -> str:
    """``sql`` in parentheses unless it is a name, a number or a plain text literal.

    >>> wrap("a"), wrap("a.b"), wrap("col2 * 2"), wrap("'x'")
    ('a', 'a.b', '(col2 * 2)', "'x'")
    """
    sql = sql.strip()
    return sql if _SIMPLE.fullmatch(sql) else f"({sql})"


class Unmappable(Exception):
    """A check that cannot be converted with DQX's meaning (the reason is the message)."""


@dataclass
class Mapped:
    """What one DQX check becomes: a rule (its passing condition), a SQL check over the source
    (an aggregate that must be true), a dataset check's constraint, or nothing."""

    rule: str | None = None
    sql_check: str | None = None
    notes: list[str] = field(default_factory=list)
    constraint: tuple[str, dict[str, Any]] | None = None  # a dataset check's, with arguments


def text_literal(v: str) -> str:
    """A SQL string literal (Spark's escapes).

    >>> print(text_literal("it's"))
    'it\\'s'
    """
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def plain_literal(v: object) -> str:
    """A Python value as DQX's ``F.lit(v)`` makes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):  # a malformed file (one error with its line), not a listing
            raise ValueError("a limit must be a finite number")
        return repr(v)
    if isinstance(v, Decimal):  # F.lit of a Decimal: a decimal literal of its digits
        return f"{format(v, 'f')}BD"
    if isinstance(v, dt.datetime):
        return f"TIMESTAMP '{v.isoformat(sep=' ')}'"
    if isinstance(v, dt.date):
        return f"DATE '{v.isoformat()}'"
    if isinstance(v, str):
        return text_literal(v)
    raise Unmappable(f"the value {v!r} is not a number, date or text")


def limit_sql(v: object) -> str:
    """A limit or value as DQX's ``get_limit_expr`` resolves it (see the module docs)."""
    if v is None:
        raise Unmappable("a limit or value is missing")
    if not isinstance(v, str):
        return plain_literal(v)
    if v.isdigit():
        return v
    try:
        parsed = dt.datetime.fromisoformat(v)
    except ValueError:
        return wrap(v)  # an expression: the compiler checks it like any rule text
    if ":" in v:
        return f"TIMESTAMP '{parsed.isoformat(sep=' ')}'"
    return f"DATE '{parsed.date().isoformat()}'"


@dataclass(frozen=True)
class Context:
    """What a function's translation needs besides its arguments."""

    version: tuple[int, int]
    filter: str | None


def _col(a: dict[str, Any]) -> str:
    c = a.get("column", a.get("col_name"))
    if c is None or isinstance(c, list | dict):
        raise Unmappable("it names no column")
    return wrap(str(c))


def _entries(a: dict[str, Any], key: str, ctx: Context) -> list[str]:
    values = a.get(key)
    if not isinstance(values, list) or not values:
        raise Unmappable(f"{key} must be a non-empty list")
    if any(isinstance(v, list | dict) for v in values):
        raise Unmappable(f"{key} holds lists (array values are not converted)")
    if ctx.version >= (0, 16):
        return [limit_sql(v) for v in values]
    return [plain_literal(v) for v in values]


def _listed(a: dict[str, Any], key: str, ctx: Context) -> tuple[str, str]:
    """The column and the ``IN`` list, lower-cased on both sides when not case-sensitive."""
    c, values = _col(a), _entries(a, key, ctx)
    if a.get("case_sensitive", True) is False:
        return f"lower({c})", ", ".join(f"lower({v})" for v in values)
    return c, ", ".join(values)


def _text(a: dict[str, Any]) -> str:
    c = _col(a)
    return f"trim(CAST({c} AS STRING))" if a.get("trim_strings") else f"CAST({c} AS STRING)"


def _tolerance(a: dict[str, Any]) -> None:
    for key in ("abs_tolerance", "rel_tolerance"):
        if a.get(key) not in (None, 0, 0.0):
            raise Unmappable(f"{key} is not converted")


def _in_list(a: dict[str, Any], ctx: Context) -> str:
    c, values = _listed(a, "allowed", ctx)
    return f"NOT ({c} IN ({values}))"


def _not_null_in_list(a: dict[str, Any], ctx: Context) -> str:
    c, values = _listed(a, "allowed", ctx)
    return f"{_col(a)} IS NULL OR NOT ({c} IN ({values}))"


def _not_in_list(a: dict[str, Any], ctx: Context) -> str:
    c, values = _listed(a, "forbidden", ctx)
    return f"{c} IN ({values})"


def _equal(a: dict[str, Any], ctx: Context) -> str:
    _tolerance(a)
    return f"{_col(a)} <> {limit_sql(a.get('value'))}"


def _not_equal(a: dict[str, Any], ctx: Context) -> str:
    _tolerance(a)
    return f"{_col(a)} = {limit_sql(a.get('value'))}"


def _regex(a: dict[str, Any], ctx: Context) -> str:
    regex = a.get("regex")
    if not isinstance(regex, str):
        raise Unmappable("regex_match needs a regex")
    test = f"{_col(a)} RLIKE {text_literal(regex)}"
    return test if a.get("negate") else f"NOT ({test})"


#: a DQX check's failure condition from its arguments and the version read
Validator = Callable[[dict[str, Any], Context], str]
#: one final line break, which Java's ``$`` lets a value end with (DQX before 0.16, #1454)
FINAL_BREAK = r"(?:\r\n|[\n\r\u0085\u2028\u2029])\z"


def _since(fn: str, ctx: Context, version: tuple[int, int]) -> None:
    if ctx.version < version:
        raise Unmappable(f"{fn} is DQX {version[0]}.{version[1]}'s (the file is read as "
                         f"{ctx.version[0]}.{ctx.version[1]})")  # fmt: skip


def _anchored(a: dict[str, Any], ctx: Context) -> str:
    """The column as DQX's ``\\A...\\z`` patterns of 0.16 see it: before 0.16 they were
    anchored by ``^...$``, which accept one final line break, so it is removed first."""
    if ctx.version >= (0, 16):
        return _col(a)
    return f"regexp_replace({_col(a)}, {text_literal(FINAL_BREAK)}, '')"


def _uuid(a: dict[str, Any], ctx: Context) -> str:
    """``is_valid_uuid`` (DQX 0.16): our function of the name, DQX's patterns."""
    _since("is_valid_uuid", ctx, (0, 16))
    strict = a.get("strict", False)
    if not isinstance(strict, bool):
        raise Unmappable("strict must be true or false")
    return f"NOT is_valid_uuid({_col(a)}, {'true' if strict else 'false'})"


def _format(fn: str, since: tuple[int, int], anchored: bool) -> Validator:
    """A DQX format check (since DQX ``since``): our function of the same name, DQX's language
    (``anchored``: see :func:`_anchored` for the versions before 0.16)."""

    def condition(a: dict[str, Any], ctx: Context) -> str:
        _since(fn, ctx, since)
        return f"NOT {fn}({_anchored(a, ctx) if anchored else _col(a)})"

    return condition


def _in_block(fn: str, since: tuple[int, int], anchored: bool) -> Validator:
    """``is_ipv4_address_in_cidr`` / ``is_ipv6_address_in_cidr``: an invalid address, or one
    outside the block, is flagged; a block DQX refuses (its own test) is listed."""
    reads = ipv4_block if "ipv4" in fn else ipv6_block

    def condition(a: dict[str, Any], ctx: Context) -> str:
        _since(fn, ctx, since)
        block = a.get("cidr_block")
        if not isinstance(block, str) or reads(block) is None:
            raise Unmappable(f"the CIDR block {block!r} is one DQX refuses")
        return f"NOT {fn}({_anchored(a, ctx) if anchored else _col(a)}, {text_literal(block)})"

    return condition


def _iso_code(fn: str, default: str) -> Validator:
    """``is_valid_country_code`` / ``is_valid_currency_code`` (DQX 0.16): our functions of the
    names, the codes DQX ships; a format DQX refuses is listed."""

    def condition(a: dict[str, Any], ctx: Context) -> str:
        _since(fn, ctx, (0, 16))
        kind, sensitive = a.get("code_format", default), a.get("case_sensitive", True)
        if not isinstance(kind, str) or not isinstance(sensitive, bool):
            raise Unmappable("code_format is a text and case_sensitive true or false")
        return f"NOT {fn}({_col(a)}, {text_literal(kind)}, {str(sensitive).lower()})"

    return condition


def _whole(a: dict[str, Any], key: str, default: int | None = None) -> int:
    value = a.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Unmappable(f"{key} must be a whole number")
    return value


def _clock(a: dict[str, Any], key: str) -> None:
    if a.get(key) is not None:
        raise Unmappable(f"{key} is a column in DQX's Python API; a file cannot give one")


def _older_than(a: dict[str, Any], ctx: Context) -> str:
    """``is_older_than_n_days``: the date is not before ``days`` days ago (the query's clock)."""
    _clock(a, "curr_date")
    test = f"to_date({_col(a)}) >= date_sub(current_date(), {_whole(a, 'days')})"
    return f"NOT ({test})" if a.get("negate") else test


def _older_than_col2(a: dict[str, Any], ctx: Context) -> str:
    """``is_older_than_col2_for_n_days``: column1's date not ``days`` before column2's."""
    one, two = ({**a, "column": a.get(k)} for k in ("column1", "column2"))
    test = f"to_date({_col(one)}) >= date_sub(to_date({_col(two)}), {_whole(a, 'days', 0)})"
    return f"NOT ({test})" if a.get("negate") else test


def _before_ahead(a: dict[str, Any], op: str) -> str:
    """The column ``op`` DQX's ``from_unixtime(unix_timestamp(now) + offset)``, a text to the
    second that Spark casts to the column's type for the comparison: a date for a date column,
    else a timestamp (the cast is written, as the rule policy asks)."""
    _clock(a, "curr_timestamp")
    ahead = f"from_unixtime(unix_timestamp(current_timestamp()) + {_whole(a, 'offset', 0)})"
    c = _col(a)
    return (
        f"CASE WHEN typeof({c}) = 'date' THEN {c} {op} CAST({ahead} AS DATE) "
        f"ELSE {c} {op} CAST({ahead} AS TIMESTAMP) END"
    )


def _fresh(a: dict[str, Any], ctx: Context) -> str:
    """``is_data_fresh``: older than ``max_age_minutes`` before the base (the clock, or a value
    read as DQX's ``get_limit_expr`` reads it)."""
    base = a.get("base_timestamp")
    base_sql = "current_timestamp()" if base is None else limit_sql(base)
    return f"{_col(a)} < {base_sql} - INTERVAL {_whole(a, 'max_age_minutes')} MINUTES"


def _string_case(a: dict[str, Any], ctx: Context) -> str:
    """``has_valid_string_case`` (0.16): the text differs from DQX's normalised form of it. For
    ``title`` (``sentence``) DQX upper-cases the first character (the first after the leading
    white space) of each part split at spaces (periods) and joins them again, which changes the
    text exactly when some part's such character changes: that is what is tested, so no new
    text is built."""
    _since("has_valid_string_case", ctx, (0, 16))
    case, text = a.get("case"), f"CAST({_col(a)} AS STRING)"
    first = "substring(s, length(regexp_extract(s, '^(\\\\s*)', 1)) + 1, 1)"
    forms = {
        "upper": f"{text} <> upper({text})",
        "lower": f"{text} <> lower({text})",
        "title": f"exists(split({text}, ' '), w -> upper(substring(w, 1, 1)) <> "
        "substring(w, 1, 1))",
        "sentence": f"exists(split({text}, '\\\\.'), s -> upper({first}) <> {first})",
    }
    if case not in forms:
        raise Unmappable(f"the case {case!r} is not one DQX accepts: {', '.join(forms)}")
    return forms[str(case)]


def _json_keys(a: dict[str, Any], ctx: Context) -> str:
    """``has_json_keys``: a value that is not JSON, or whose outermost object lacks the keys
    (all of them, or any with ``require_all: false``), is flagged; a null is not."""
    keys = a.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise Unmappable("keys must be a non-empty list of texts, as DQX requires")
    c, wanted = _col(a), f"array_distinct(array({', '.join(text_literal(k) for k in keys)}))"
    if a.get("require_all", True):
        present = f"size(array_except({wanted}, json_object_keys({c}))) = 0"
    else:
        present = f"arrays_overlap(json_object_keys({c}), {wanted})"
    invalid = f"coalesce(NOT is_valid_json({c}), false)"
    return f"NOT ({c} IS NULL OR CASE WHEN {invalid} THEN false ELSE {present} END)"


def _sql(a: dict[str, Any], ctx: Context) -> str:
    body = a.get("expression")
    if not isinstance(body, str) or not body.strip():
        raise Unmappable("sql_expression without an expression")
    return f"({body})" if a.get("negate") else f"NOT ({body})"


def _timestamp(key: str) -> Validator:
    """``is_valid_date`` / ``is_valid_timestamp``: a value that is not null and that
    ``try_to_timestamp`` (with the format, when given) cannot read."""

    def condition(a: dict[str, Any], ctx: Context) -> str:
        fmt = a.get(key)
        if fmt is not None and not isinstance(fmt, str):
            raise Unmappable(f"{key} must be a text")
        read = f"try_to_timestamp({_col(a)}{', ' + text_literal(fmt) if fmt else ''})"
        return f"{_col(a)} IS NOT NULL AND {read} IS NULL"

    return condition


def _limits(a: dict[str, Any]) -> tuple[str, str, str]:
    return _col(a), limit_sql(a.get("min_limit")), limit_sql(a.get("max_limit"))


def _within(bound: float) -> Validator:
    """``is_latitude`` / ``is_longitude`` (DQX's geo module): the value read as a double is
    outside [-bound, bound] (a text that is no number is not checked, as DQX's ``try_cast``)."""
    return lambda a, ctx: f"NOT (TRY_CAST({_col(a)} AS DOUBLE) BETWEEN {-bound} AND {bound})"


#: Each row-level function: its failure condition (``check_funcs.py`` of DQX, the function of
#: the same name) and the arguments it reads.
ROW_FUNCTIONS: dict[str, tuple[Validator, frozenset[str]]] = {
    "is_not_null": (lambda a, c: f"{_col(a)} IS NULL", frozenset()),
    "is_null": (lambda a, c: f"{_col(a)} IS NOT NULL", frozenset()),
    "is_not_empty": (lambda a, c: f"{_text(a)} = ''", frozenset({"trim_strings"})),
    "is_empty": (lambda a, c: f"{_text(a)} <> ''", frozenset({"trim_strings"})),
    "is_not_null_and_not_empty": (
        lambda a, c: f"{_text(a)} IS NULL OR {_text(a)} = ''",
        frozenset({"trim_strings"}),
    ),
    "is_null_or_empty": (
        lambda a, c: f"{_text(a)} IS NOT NULL AND {_text(a)} <> ''",
        frozenset({"trim_strings"}),
    ),
    "is_in_list": (_in_list, frozenset({"allowed", "case_sensitive"})),
    "is_not_null_and_is_in_list": (_not_null_in_list, frozenset({"allowed", "case_sensitive"})),
    "is_not_in_list": (_not_in_list, frozenset({"forbidden", "case_sensitive"})),
    "is_not_less_than": (lambda a, c: f"{_col(a)} < {limit_sql(a.get('limit'))}",
                         frozenset({"limit"})),
    "is_not_greater_than": (lambda a, c: f"{_col(a)} > {limit_sql(a.get('limit'))}",
                            frozenset({"limit"})),
    "is_in_range": (lambda a, c: "{0} < {1} OR {0} > {2}".format(*_limits(a)),
                    frozenset({"min_limit", "max_limit"})),
    "is_not_in_range": (lambda a, c: "{0} >= {1} AND {0} <= {2}".format(*_limits(a)),
                        frozenset({"min_limit", "max_limit"})),
    "is_equal_to": (_equal, frozenset({"value", "abs_tolerance", "rel_tolerance"})),
    "is_not_equal_to": (_not_equal, frozenset({"value", "abs_tolerance", "rel_tolerance"})),
    "regex_match": (_regex, frozenset({"regex", "negate"})),
    "is_valid_ipv4_address": (_format("is_valid_ipv4_address", (0, 13), True), frozenset()),
    "is_valid_uuid": (_uuid, frozenset({"strict"})),
    "is_valid_email": (_format("is_valid_email", (0, 15), True), frozenset()),
    "is_ipv4_address_in_cidr": (_in_block("is_ipv4_address_in_cidr", (0, 13), True),
                                frozenset({"cidr_block"})),
    "is_valid_ipv6_address": (_format("is_valid_ipv6_address", (0, 9), False), frozenset()),
    "is_valid_country_code": (_iso_code("is_valid_country_code", "alpha-2"),
                              frozenset({"code_format", "case_sensitive"})),
    "is_valid_currency_code": (_iso_code("is_valid_currency_code", "alphabetic"),
                               frozenset({"code_format", "case_sensitive"})),
    "is_ipv6_address_in_cidr": (_in_block("is_ipv6_address_in_cidr", (0, 9), False),
                                frozenset({"cidr_block"})),
    "is_valid_json": (_format("is_valid_json", (0, 13), False), frozenset()),
    "is_latitude": (_within(90.0), frozenset()),
    "is_longitude": (_within(180.0), frozenset()),
    "has_valid_string_case": (_string_case, frozenset({"case"})),
    "has_json_keys": (_json_keys, frozenset({"keys", "require_all"})),
    "is_not_null_and_not_empty_array": (
        lambda a, c: f"{_col(a)} IS NULL OR size({_col(a)}) = 0", frozenset()),
    "is_older_than_n_days": (_older_than, frozenset({"days", "curr_date", "negate"})),
    "is_older_than_col2_for_n_days": (
        _older_than_col2, frozenset({"column1", "column2", "days", "negate"})),
    "is_not_in_future": (lambda a, c: _before_ahead(a, ">"),
                         frozenset({"offset", "curr_timestamp"})),
    "is_not_in_near_future": (
        lambda a, c: f"{_col(a)} > current_timestamp() AND {_before_ahead(a, '<')}",
        frozenset({"offset", "curr_timestamp"})),
    "is_data_fresh": (_fresh, frozenset({"max_age_minutes", "base_timestamp"})),
    "sql_expression": (_sql, frozenset({"expression", "negate", "msg", "name", "columns"})),
    "is_valid_date": (_timestamp("date_format"), frozenset({"date_format"})),
    "is_valid_timestamp": (_timestamp("timestamp_format"), frozenset({"timestamp_format"})),
}  # fmt: skip
#: Earlier names of DQX functions (renamed in 0.2).
RENAMED = {
    "value_is_in_list": "is_in_list",
    "value_is_not_null_and_is_in_list": "is_not_null_and_is_in_list",
    "not_less_than": "is_not_less_than",
    "not_greater_than": "is_not_greater_than",
}


def row_rule(fn: str, a: dict[str, Any], ctx: Context) -> str:
    """The passing condition of a row-level check (filter included)."""
    condition = ROW_FUNCTIONS[fn][0](a, ctx)
    return flagged_unless(condition, ctx.filter)


def flagged_unless(condition: str, row_filter: str | None) -> str:
    """A rule passing where DQX does not flag the row.

    >>> flagged_unless("x < 0", None), flagged_unless("x < 0", "kind = 'a'")
    ('(x < 0) IS NOT TRUE', "((kind = 'a') AND (x < 0)) IS NOT TRUE")
    """
    if row_filter:
        return f"(({row_filter}) AND ({condition})) IS NOT TRUE"
    return f"({condition}) IS NOT TRUE"


def _key_list(a: dict[str, Any], key: str) -> list[str]:
    values = a.get(key)
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise Unmappable(f"{key} must be a list of column names")
    return values


def unique(a: dict[str, Any], ctx: Context) -> str:
    """``is_unique``: DQX counts, per key, the rows inside the filter whose key has no null
    (with ``nulls_distinct``, the default) and flags those rows when the count is over 1."""
    keys = [wrap(k) for k in _key_list(a, "columns")]
    distinct = a.get("nulls_distinct", True) is not False
    inside = [f"({ctx.filter})"] if ctx.filter else []
    inside += [f"{k} IS NOT NULL" for k in keys] if distinct else []
    if not ctx.filter:
        name = "is_unique" if distinct else "is_unique_nulls_equal"
        return f"{name}({', '.join(keys)})"
    counted = " AND ".join(inside)
    over = f"count_if({counted}) OVER (PARTITION BY {', '.join(keys)})"
    return f"({counted} AND {over} > 1) IS NOT TRUE"


def reference(a: dict[str, Any], ctx: Context) -> str:
    """``foreign_key``: the row rule of membership in the reference (a view the policy must
    allow). Nulls, ``negate`` and ``null_safe`` as DQX's join: a key with a null part passes
    unless ``null_safe``."""
    table = a.get("ref_table") or a.get("ref_df_name")
    if not isinstance(table, str) or not table:
        raise Unmappable("foreign_key needs ref_table or ref_df_name")
    columns, refs = _key_list(a, "columns"), _key_list(a, "ref_columns")
    if len(columns) != len(refs):
        raise Unmappable("columns and ref_columns differ in length")
    name = "not_in_reference" if a.get("negate") else "in_reference"
    name += "_null_safe" if a.get("null_safe") else ""
    pairs = ", ".join(f"{text_literal(r)}, {wrap(c)}" for c, r in zip(columns, refs, strict=True))
    call = f"{name}({text_literal(table)}, {pairs})"
    return f"({ctx.filter}) IS NOT TRUE OR {call}" if ctx.filter else call


#: Aggregates a window computes per group (the window catalogue's), and their SQL.
WINDOW_AGGREGATES = {
    "count": "count({})",
    "sum": "sum({})",
    "avg": "avg({})",
    "min": "min({})",
    "max": "max({})",
    "count_distinct": "count(DISTINCT {})",
    "count_if": "count_if({})",
}
#: Aggregates over the whole table (a SQL check), DQX's curated ones that Spark SQL names alike.
TABLE_AGGREGATES = {
    **WINDOW_AGGREGATES,
    "stddev": "stddev({})",
    "stddev_samp": "stddev_samp({})",
    "stddev_pop": "stddev_pop({})",
    "variance": "variance({})",
    "var_samp": "var_samp({})",
    "var_pop": "var_pop({})",
    "median": "median({})",
    "mode": "mode({})",
    "approx_count_distinct": "approx_count_distinct({})",
}
AGGREGATE_COMPARISONS = {
    "is_aggr_not_greater_than": ">",
    "is_aggr_not_less_than": "<",
    "is_aggr_equal": "<>",
    "is_aggr_not_equal": "=",
}


def aggregate(fn: str, a: dict[str, Any], ctx: Context) -> Mapped:
    """``is_aggr_*``: per group (``group_by``) a window over the group flags its rows; over the
    whole table a SQL check (DQX flags every row in the check's scope then; the check fails the
    table), which passes when no row is in scope (an empty batch), as DQX reports nothing."""
    _tolerance(a)
    if a.get("aggr_params"):
        raise Unmappable("aggr_params is not converted")
    if a.get("null_safe_limit_compare"):
        raise Unmappable("null_safe_limit_compare is not converted")
    kind = str(a.get("aggr_type", "count"))
    column = a.get("column", a.get("col_name"))
    if not isinstance(column, str):
        raise Unmappable("it names no column")
    groups = a.get("group_by") or []
    table = TABLE_AGGREGATES if not groups else WINDOW_AGGREGATES
    if kind not in table:
        where = "per group (a window)" if groups else "over the table"
        raise Unmappable(f"the aggregate {kind} is not converted {where}")
    star = column.strip() == "*"
    if star and kind != "count":
        raise Unmappable(f"{kind} of '*' is refused by DQX too")
    value = "*" if star and not ctx.filter else ("1" if star else wrap(column))
    if ctx.filter:
        value = f"CASE WHEN {ctx.filter} THEN {value} END"
    metric = table[kind].format(value)
    condition = f"{metric} {AGGREGATE_COMPARISONS[fn]} {limit_sql(a.get('limit'))}"
    if not groups:
        # DQX flags the rows in the check's scope (its filter's, else every row: manager.py,
        # F.when(filter_condition & ...)); with none, it reports nothing, as an empty batch
        scope = f"count_if({ctx.filter})" if ctx.filter else "count(*)"
        return Mapped(sql_check=f"{scope} = 0 OR ({condition}) IS NOT TRUE")
    keys = [wrap(g) for g in _key_list({"g": groups}, "g")]
    windowed = f"{metric} OVER (PARTITION BY {', '.join(keys)}) {AGGREGATE_COMPARISONS[fn]} "
    windowed += limit_sql(a.get("limit"))
    return Mapped(rule=flagged_unless(windowed, ctx.filter))


#: Arguments of the dataset-level functions converted.
DATASET_FUNCTIONS: dict[str, frozenset[str]] = {
    "is_unique": frozenset({"columns", "nulls_distinct", "row_filter"}),
    "foreign_key": frozenset({"columns", "ref_columns", "ref_table", "ref_df_name", "negate",
                              "null_safe", "row_filter"}),
    **{fn: frozenset({"column", "col_name", "limit", "aggr_type", "group_by", "row_filter",
                      "aggr_params", "abs_tolerance", "rel_tolerance", "null_safe_limit_compare"})
       for fn in AGGREGATE_COMPARISONS},
    "has_valid_schema": frozenset({"expected_schema", "strict", "columns", "exclude_columns",
                                   "ref_table", "ref_df_name"}),
    "sql_query": frozenset({"query", "merge_columns", "msg", "name", "negate", "row_filter",
                            "condition_column", "input_placeholder"}),
}  # fmt: skip


def dataset_check(fn: str, a: dict[str, Any], ctx: Context) -> Mapped:
    """A dataset-level function (see :data:`DATASET_FUNCTIONS`)."""
    if a.get("row_filter"):
        raise Unmappable("row_filter is set by DQX from the check's filter: write filter")
    if fn == "is_unique":
        return Mapped(rule=unique(a, ctx))
    if fn == "foreign_key":
        return Mapped(rule=reference(a, ctx))
    return aggregate(fn, a, ctx)
