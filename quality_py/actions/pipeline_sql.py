"""SQL checks judged inside a declarative pipeline (:meth:`PipelineChecks.sql_checks`).

A batch run judges a SQL check's value in Python (:mod:`quality_py.actions.sql_checks`); a
pipeline's flow runs no Python on its results, so here the judgement is SQL, written for the
value's type. :func:`judged_checks` learns that type once, where analysis is allowed (the
pipeline file's top level), by analysing each check against the declared schema (the frames
as empty common table expressions: a pipeline allows no temporary view). Per type the SQL
compares as the batch run compares:

* integers and decimals exactly, against the decimal the bound writes (never a float);
* floats as floats: NaN meets no bound, and differs from every one (``!=``);
* dates as dates.

What a batch run fails every time is refused when the checks are built, naming the check: a
value that is not true or false without an assertion, an assertion on text or a boolean.
Timestamps are refused too: a batch run compares them in the driver's time zone, which a
pipeline's server does not share; written into the check's SQL
(``max(ts) >= TIMESTAMP'2024-01-01 00:00:00'``) they need no assertion. The value's type is
also guarded when the flow runs: a table of other types than the declared ones fails the
flow, naming the check.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from quality_py.actions.sql_checks import FRAMES, SqlCheck, compile_check
from quality_py.dataset.checks import split_assertion
from quality_py.errors import CheckDefinitionError
from quality_py.model.ids import Id
from quality_py.model.policy import RulePolicy
from quality_py.model.types import SparkSession
from quality_py.sql.check_queries import bound_sql, bound_to_tables, frames_read
from quality_py.sql.snippets import quoted, string_literal

#: the columns a pipeline's quarantine adds to the input's (``PipelineChecks.quarantine``)
QUARANTINE_COLUMNS = (("qp_kept_in_valid", "BOOLEAN"), ("qp_failed_rule_names", "ARRAY<STRING>"))
#: the columns of the rows :meth:`PipelineChecks.sql_checks` returns
CHECK_ROWS = (
    "run_time TIMESTAMP, suite_id INT, suite_version INT, kind STRING, name STRING, "
    "action STRING, value DOUBLE, status STRING, message STRING"
)
_SQL_OPS = {">=": ">=", "<=": "<=", ">": ">", "<": "<", "==": "=", "=": "=", "!=": "<>"}
#: decimal digits of each integral type (Spark's own widening to a decimal)
_INTEGRAL = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}


@dataclass(frozen=True)
class JudgedCheck:
    """A SQL check with its judgement as SQL over its one row (``n`` rows read, at most 2;
    ``v`` the first column's first value)."""

    check: SqlCheck
    #: the checked query (sqlglot), its frames still named ``source``, ``valid``, ``quarantine``
    query: Any
    #: the name of the query's first column
    first: str
    #: the value's type as ``typeof`` names it
    kind: str
    #: the SQL of "the value meets the check", given one row
    meets: str
    #: the SQL of the value as a double (NULL when it is no number)
    number: str

    def row_sql(self, tables: Mapping[str, str], *, frames: bool = False) -> str:
        """The SQL of this check's one row (name, action, value, status, message), reading the
        tables named (``frames``: the frames' own names, for the analysis).

        >>> (check,) = judged_checks(spark, [SqlCheck("any", "count(*) > 0")], [("id", "INT")],
        ...                          RulePolicy())
        >>> "FROM `orders`" in check.row_sql({"source": "orders"})
        True
        """
        body = bound_sql(self.query, {}) if frames else bound_to_tables(self.query, tables)
        c = self.check
        name = string_literal(c.name)
        guard = string_literal(
            f"quality_py: SQL check {c.name!r} was judged for a value of type {self.kind}; the "
            "tables the flow reads have other types than the schema declared"
        )
        if c.assertion is None:
            said = (
                f"WHEN v IS NULL THEN concat({name}, ': the value None is not true or false "
                f"(give an assertion)') WHEN v THEN concat({name}, ': holds') "
                f"ELSE concat({name}, ': does not hold')"
            )
        else:
            said = (
                f"WHEN v IS NULL THEN concat({name}, ': the value None is not a number, date or "
                f"timestamp') ELSE concat({name}, ': ', CAST(v AS STRING), "
                f"CASE WHEN ({self.meets}) IS TRUE THEN ' meets ' ELSE ' fails ' END, "
                f"{string_literal(c.assertion)})"
            )
        return (
            f"SELECT {name} AS name, {string_literal(c.level)} AS action, "
            f"CASE WHEN n = 1 THEN {self.number} END AS value, "
            f"CASE WHEN typeof(v) <> {string_literal(self.kind)} THEN raise_error({guard}) "
            f"WHEN n <> 1 THEN 'failed' WHEN ({self.meets}) IS TRUE THEN 'passed' "
            f"ELSE 'failed' END AS status, "
            f"CASE WHEN n <> 1 THEN concat({name}, ': the query returned ', n, ' rows, not one') "
            f"{said} END AS message "
            f"FROM (SELECT count(*) AS n, first(__qp_q.{quoted(self.first)}) AS v "
            f"FROM (SELECT * FROM ({body}) AS __qp_q LIMIT 2) AS __qp_q)"
        )


def _refuse(check: SqlCheck, why: str) -> CheckDefinitionError:
    return CheckDefinitionError(
        f"SQL check {check.name!r} in a pipeline: {why}", item_kind="check", source=check.sql
    )


def judged_checks(
    session: SparkSession,
    checks: Sequence[object],
    columns: Sequence[tuple[str, str]],
    policy: RulePolicy,
) -> tuple[JudgedCheck, ...]:
    """Each check with its judgement, analysed against ``columns`` (the declared schema's
    names and SQL types); refused naming the check (see the module).

    >>> checks = judged_checks(spark, [SqlCheck("rows", "count(*)", assertion=">= 2")],
    ...                        [("id", "INT")], RulePolicy())
    >>> checks[0].kind, checks[0].number
    ('bigint', 'CAST(v AS DOUBLE)')
    """
    out = []
    for check in checks:
        if not isinstance(check, SqlCheck):
            what = getattr(check, "description", check)
            raise CheckDefinitionError(
                f"{type(check).__name__} {what!r}: a pipeline's flow "
                "judges SQL checks only (SqlCheck); a dataset check's metric is computed from "
                "analyzer states in Python, which no flow runs. Write what it asks as a "
                "SqlCheck (every row has an id and no id repeats: 'count(*) = count(DISTINCT "
                "id)') or verify the pipeline's tables after its update",
                item_kind="check",
            )
        query = compile_check(check, policy)
        first, kind = _analysed(session, check, query, columns)
        meets, number = _judgement(check, kind)
        judged = JudgedCheck(check, query, first, kind, meets, number)
        _analysed_sql(session, check, _with_frames(judged.row_sql({}, frames=True), columns))
        out.append(judged)
    return tuple(out)


def _with_frames(sql: str, columns: Sequence[tuple[str, str]]) -> str:
    """``sql`` reading the frames as empty common table expressions of the declared columns."""

    def empty(cols: Sequence[tuple[str, str]]) -> str:
        typed = ", ".join(f"CAST(NULL AS {t}) AS {quoted(c)}" for c, t in cols)
        return f"(SELECT {typed} WHERE false)"

    shapes = {"source": columns, "valid": columns, "quarantine": (*columns, *QUARANTINE_COLUMNS)}
    frames = ", ".join(f"{quoted(f)} AS {empty(shapes[f])}" for f in FRAMES)
    return f"WITH {frames} SELECT * FROM ({sql}) AS __qp_checked"


def _analysed_sql(session: SparkSession, check: SqlCheck, sql: str) -> Any:
    try:
        return session.sql(sql).schema
    except Exception as err:  # Spark's analysis errors, by message
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise _refuse(
            check, f"Spark cannot analyse it against the declared schema: {first}"
        ) from None


def _analysed(
    session: SparkSession, check: SqlCheck, query: Any, columns: Sequence[tuple[str, str]]
) -> tuple[str, str]:
    """The name and type (as ``typeof`` names it) of the check's first column."""
    schema = _analysed_sql(session, check, _with_frames(bound_sql(query, {}), columns))
    field = schema.fields[0]
    return field.name, str(field.dataType.simpleString())


def _judgement(check: SqlCheck, kind: str) -> tuple[str, str]:
    """The SQL of "``v`` meets the check" and of ``v`` as a number, for a value of ``kind``."""
    numeric = kind in _INTEGRAL or kind.startswith("decimal") or kind in ("float", "double")
    number = "CAST(v AS DOUBLE)" if numeric else "NULL"
    if check.assertion is None:
        if kind != "boolean":
            raise _refuse(
                check,
                f"its value is of type {kind}, not true or false: give an assertion (a batch "
                "run fails it every time)",
            )
        return "v", number
    if kind in ("timestamp", "timestamp_ntz"):
        raise _refuse(
            check,
            "an assertion on a timestamp is compared in the driver's time zone by a batch run, "
            "which a pipeline's server does not share: write the comparison into the check "
            "(max(ts) >= TIMESTAMP'2024-01-01 00:00:00') without an assertion",
        )
    op, bounds = split_assertion(check.assertion)
    if kind == "date":
        return _compared("v", op, [f"DATE'{_date(check, b)}'" for b in bounds]), number
    if kind in ("float", "double"):
        x = "CAST(v AS DOUBLE)"
        compared = _compared(x, op, [_double(check, b) for b in bounds])
        # NaN meets no bound and differs from each (Python's comparisons; Spark orders NaN last)
        if op == "!=":
            return f"(isnan({x}) OR {compared})", number
        return f"(NOT isnan({x}) AND {compared})", number
    if numeric:
        return _exact(check, kind, op, bounds), number
    raise _refuse(
        check, f"its value is of type {kind}, which an assertion does not compare (a batch run "
        "fails it every time): give a number, a date, or a true-or-false check without one"
    )  # fmt: skip


def _compared(x: str, op: str, bounds: Sequence[str]) -> str:
    if op == "between":
        return f"({bounds[0]} <= {x} AND {x} <= {bounds[1]})"
    return f"({x} {_SQL_OPS[op]} {bounds[0]})"


def _double(check: SqlCheck, text: str) -> str:
    try:
        return f"CAST({string_literal(repr(float(text)))} AS DOUBLE)"
    except ValueError:
        raise _refuse(
            check, f"a float is never compared with {text!r} (a batch run fails it)"
        ) from None


def _date(check: SqlCheck, text: str) -> str:
    try:
        return dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise _refuse(
            check, f"a date is never compared with {text!r} (a batch run fails it)"
        ) from None


def _exact(check: SqlCheck, kind: str, op: str, bounds: Sequence[str]) -> str:
    """Integers and decimals against the bounds' decimals, in one decimal type holding both."""
    if kind in _INTEGRAL:
        precision, scale = _INTEGRAL[kind], 0
    else:
        precision, scale = (int(p) for p in kind[len("decimal(") : -1].split(","))
    whole = precision - scale
    values = []
    for text in bounds:
        try:
            d = Decimal(text)
        except InvalidOperation:
            raise _refuse(check, f"a number is never compared with {text!r}") from None
        exponent = int(d.as_tuple().exponent)
        scale = max(scale, -exponent)
        whole = max(whole, len(d.as_tuple().digits) + exponent)
        values.append(format(d, "f"))
    if whole + scale > 38:
        raise _refuse(
            check, f"its bounds and a value of type {kind} need more than the 38 digits Spark "
            "compares exactly"
        )  # fmt: skip
    typed = f"DECIMAL({whole + scale}, {scale})"
    return _compared(
        f"CAST(v AS {typed})", op, [f"CAST({string_literal(v)} AS {typed})" for v in values]
    )


def check_rows_sql(judged: Sequence[JudgedCheck], tables: Mapping[str, str], suite_id: Id) -> str:
    """One SQL string: each check's row (``CHECK_ROWS``), a failed ``error`` check failing the
    flow with its message, as a batch run fails then.

    >>> checks = judged_checks(spark, [SqlCheck("any", "count(*) > 0")], [("id", "INT")],
    ...                        RulePolicy())
    >>> sql = check_rows_sql(checks, {"source": "main.dq.orders"}, Id(1, 1))
    >>> "FROM `main`.`dq`.`orders`" in sql, "raise_error" in sql
    (True, True)
    """
    missing = {
        f: j.check.name for j in judged for f in frames_read(j.query, FRAMES) if f not in tables
    }
    if missing:
        said = "; ".join(f"SQL check {n!r} reads {f}" for f, n in missing.items())
        names = ", ".join(f"{f}=..." for f in missing)
        raise CheckDefinitionError(
            f"{said}: name the table of each frame the checks read (sql_checks({names}))",
            item_kind="check",
        )
    rows = " UNION ALL ".join(f"({j.row_sql(tables)})" for j in judged)
    stop = (
        "concat('quality_py: an error-level SQL check failed: ', message, '; the flow stops, "
        "as a batch run publishes nothing then')"
    )
    return (
        f"SELECT current_timestamp() AS run_time, {int(suite_id.id)} AS suite_id, "
        f"{int(suite_id.version)} AS suite_version, 'sql' AS kind, name, action, value, "
        f"CASE WHEN status = 'failed' AND action = 'error' THEN raise_error({stop}) "
        f"ELSE status END AS status, message FROM ({rows}) AS __qp_rows"
    )
