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

from quality_py.sql.allowed.catalogue import SPECS

#: Every function a rule may call: the names of the catalogue, where each declares its
#: signatures and how its size grows (``sql/allowed/catalogue.py``).
ALLOWED_FUNCTIONS: frozenset[str] = frozenset(SPECS)

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
    "to_char": "its format is a number format or a datetime pattern by the value's type, which "
    "the policy cannot check before the run; use date_format or format_number",
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
