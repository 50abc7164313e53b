"""The Spark functions an untrusted rule may call.

Only deterministic, side-effect-free scalar functions: no reflection, no file or table access,
no identity, secrets or random numbers, no aggregates or windows (those are allowed
inside a subquery over a permitted view), no generators, no ``raise_error``/``assert_true``.
The query's fixed clock (``current_date()`` and friends) is allowed unless the policy refuses
it. Names are matched lower-cased; sqlglot parses many of them into typed nodes, so the typed
classes are derived from these names (one list, one source of truth).
"""

from __future__ import annotations

from functools import cache

import sqlglot
from sqlglot import exp

ALLOWED_FUNCTIONS: frozenset[str] = frozenset(
    """
    abs acos acosh asin asinh atan atan2 atanh bin bround cbrt ceil ceiling conv cos cosh cot
    csc degrees e exp expm1 factorial floor greatest hex hypot least ln log log10 log1p log2
    mod negative pi pmod positive pow power radians rint round sec sign signum sin sinh sqrt
    tan tanh unhex width_bucket try_add try_subtract try_multiply try_divide try_mod div isnan
    nanvl ifnull nullif nvl nvl2 coalesce isnull isnotnull equal_null if nullifzero zeroifnull
    ascii base64 bit_length btrim char char_length character_length chr concat concat_ws
    contains elt endswith find_in_set format_number initcap instr lcase left len
    length levenshtein locate lower lpad ltrim mask octet_length overlay position 
    regexp_count regexp_extract regexp_extract_all regexp_instr regexp_like regexp_replace
    regexp_substr repeat replace reverse right rlike rpad rtrim soundex space split split_part
    startswith substr substring substring_index to_binary to_char to_number to_varchar
    translate trim try_to_binary try_to_number ucase upper luhn_check add_months
    date_add date_diff date_format date_from_unix_date date_part date_sub date_trunc dateadd
    datediff datepart day dayname dayofmonth dayofweek dayofyear extract from_unixtime
    from_utc_timestamp hour last_day make_date make_timestamp
    make_timestamp_ltz make_timestamp_ntz minute month monthname
    months_between next_day quarter second timestamp_micros timestamp_millis timestamp_seconds
    to_date to_timestamp to_timestamp_ltz to_timestamp_ntz to_unix_timestamp to_utc_timestamp
    trunc try_to_timestamp unix_date unix_micros unix_millis unix_seconds unix_timestamp
    weekday weekofyear year convert_timezone cast try_cast date timestamp int bigint smallint
    tinyint double float decimal boolean string binary array array_append array_compact
    array_contains array_distinct array_except array_insert array_intersect array_join
    array_max array_min array_position array_prepend array_remove array_repeat array_size
    array_sort array_union arrays_overlap arrays_zip cardinality element_at exists filter
    flatten forall get map map_concat map_contains_key map_entries map_filter map_from_arrays
    map_keys map_values map_zip_with named_struct reduce aggregate sequence
    size slice sort_array struct transform transform_keys transform_values try_element_at
    zip_with from_json get_json_object json_array_length json_object_keys to_json parse_url
    url_decode url_encode crc32 hash md5 sha sha1 sha2 xxhash64 bit_count bit_get getbit
    shiftleft shiftright shiftrightunsigned typeof
    """.split()  # noqa: SIM905 - a word list is easier to edit
)

#: Functions Spark has but a rule may not call, with the reason: each raises on some value of
#: its input and has no contained form (tests/spark/test_function_containment.py).
REFUSED_FUNCTIONS: dict[str, str] = {
    "format_string": "a format that does not fit its arguments aborts the job; use concat, "
    "format_number or lpad",
    "printf": "a format that does not fit its arguments aborts the job; use concat, "
    "format_number or lpad",
    "format": "a format that does not fit its arguments aborts the job; use concat, "
    "format_number or lpad",  # format_string as sqlglot names it
    "make_dt_interval": "an interval overflow aborts the job; compare timestamps directly",
    "make_ym_interval": "an interval overflow aborts the job; use add_months",
    "map_from_entries": "a duplicate or null key aborts the job; use map_from_arrays",
    "unbase64": "an incomplete or misplaced padding unit aborts the job; use "
    "try_to_binary(s, 'base64')",
    "make_interval": "an interval overflow aborts the job; compare timestamps directly or use "
    "add_months / date_add",
}
#: Nodes whose time-zone arguments must be valid literals (an unknown zone aborts the job).
TIME_ZONE_CLASSES: tuple[type, ...] = (exp.FromTimeZone, exp.AtTimeZone, exp.ConvertTimezone)
#: Capped functions: the argument positions that must be integer literals, and the cap applies.
AMPLIFIERS: dict[str, tuple[int, ...]] = {
    "repeat": (1,),
    "space": (0,),
    "lpad": (1,),
    "rpad": (1,),
    "array_repeat": (1,),
    "sequence": (0, 1),
}
#: Binary arithmetic nodes (their value is a number of fixed size).
ARITHMETIC: tuple[type, ...] = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod)
#: Functions whose second argument is a regular expression.
REGEX_FUNCTIONS = frozenset(
    """
    rlike regexp_like regexp regexp_count regexp_extract regexp_extract_all regexp_instr
    regexp_replace regexp_substr split
    """.split()  # noqa: SIM905 - a word list is easier to edit
)
#: Clock reads Spark fixes once per query (every row of a query sees the same value), so a rule
#: such as ``flight_date <= current_date()`` is deterministic within a run. Allowed unless the
#: policy sets ``allow_clock=False``.
CLOCK_FUNCTIONS = frozenset(
    {"current_date", "curdate", "current_timestamp", "now", "localtimestamp", "current_time"}
)
CLOCK_CLASSES: tuple[type, ...] = (
    exp.CurrentDate,
    exp.CurrentTimestamp,
    exp.Localtimestamp,
    exp.CurrentTime,
)
#: ``unix_timestamp()`` without arguments reads the clock.
NEEDS_ARGUMENTS = frozenset({"unix_timestamp", "unix_seconds", "to_unix_timestamp"})


#: Nodes sqlglot adds while parsing allowed functions: ``date_format(s, f)`` wraps ``s`` in a
#: string-to-timestamp conversion that generates back to ``s``.
PARSE_HELPERS: tuple[type, ...] = (exp.TimeStrToTime, exp.TsOrDsToDate, *TIME_ZONE_CLASSES)


@cache
def allowed_classes() -> frozenset[type]:
    """The sqlglot classes the allowed names parse into (typed function nodes)."""
    from quality_py.sql.dialect import DIALECT

    found: set[type] = set()
    for name in ALLOWED_FUNCTIONS:
        for args in ("a", "a, b", "a, b, c", ""):
            try:
                node = sqlglot.parse_one(f"{name}({args})", dialect=DIALECT)
            except Exception:
                continue
            if isinstance(node, exp.Func) and not isinstance(node, exp.Anonymous):
                found.add(type(node))
    return frozenset(found | set(PARSE_HELPERS))


def function_name(node: exp.Func) -> str:
    """The lower-cased name a typed or anonymous function node is called by."""
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    return node.sql_name().lower()
