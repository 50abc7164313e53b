"""SQL checks: free-form aggregate and query checks on the source or the validated output.

Two forms, both under the rule policy (allowlisted functions, no reflection, files or clocks):

* an **aggregate** over one frame: ``SqlCheck("late flights", "count_if(dep_delay > 600)",
  on="valid", assertion="== 0")``. Without ``assertion`` the aggregate must be true
  (``"count(*) > 0"``).
* a **query** (``SELECT ...``) reading the frames by name, ``source``, ``valid`` and
  ``quarantine`` (and any view the policy names), for comparisons across them:
  ``SELECT (SELECT count(*) FROM valid) = (SELECT count(*) FROM source) - (SELECT count(*) FROM
  quarantine WHERE NOT qp_kept_in_valid)``. Its first column of its one row is the value.

The text is parsed with sqlglot and checked before any job; the frame names are replaced in the
tree by unique temporary views (never by pasting text), which are dropped afterwards. Each check
costs one Spark job over what it reads. In a quality run, SQL checks are judged after the
outputs are written and before they are published: a failed ``error`` check fails the run
(nothing is published), a ``warning`` is reported.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from quality_py.dataset.checks import as_predicate
from quality_py.errors import CheckDefinitionError, QualityError
from quality_py.history.records import Metric
from quality_py.model.policy import RulePolicy
from quality_py.sql.check_queries import bound_sql, checked_query, frames_read, is_query

FRAMES = ("source", "valid", "quarantine")


@dataclass(frozen=True)
class SqlCheck:
    """A named SQL check (see the module docs).

    >>> SqlCheck("rows", "count(*) > 0").is_query, SqlCheck("x", "SELECT 1 = 1").is_query
    (False, True)
    """

    name: str
    sql: str
    on: str = "source"
    assertion: str | None = None
    level: str = "error"

    def __post_init__(self) -> None:
        if self.on not in FRAMES:
            raise CheckDefinitionError(
                f"SQL check {self.name!r}: on is one of {', '.join(FRAMES)}, not {self.on!r}",
                item_kind="check",
            )
        if self.level not in ("error", "warning"):
            raise CheckDefinitionError(
                f"SQL check {self.name!r}: level is error or warning, not {self.level!r}",
                item_kind="check",
            )
        if self.assertion is not None:
            try:
                as_predicate(self.assertion)
            except QualityError as err:
                raise CheckDefinitionError(
                    f"SQL check {self.name!r}: {err.message}", item_kind="check"
                ) from None

    @property
    def is_query(self) -> bool:
        """Whether the text is a whole query (else an aggregate over ``on``)."""
        return is_query(self.sql)


def compile_check(check: SqlCheck, policy: RulePolicy) -> Any:
    """The checked query of ``check`` (its frames still named ``source``, ``valid``,
    ``quarantine``); refused before any job with the check's name."""
    return checked_query(check.name, check.sql, check.on, FRAMES, policy)


def _judge(check: SqlCheck, value: Any) -> tuple[bool, str]:
    if check.assertion is None:
        if not isinstance(value, bool):
            return (
                False,
                f"{check.name}: the value {value!r} is not true or false (give an assertion)",
            )
        return value, f"{check.name}: {'holds' if value else 'does not hold'}"
    if value is None or isinstance(value, bool) or not isinstance(value, _COMPARABLE):
        return False, f"{check.name}: the value {value!r} is not a number, date or timestamp"
    try:
        ok = bool(as_predicate(check.assertion)(value))
    except TypeError as err:
        return False, f"{check.name}: {err}"
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return ok, f"{check.name}: {shown} {'meets' if ok else 'fails'} {check.assertion}"


#: Values an assertion compares exactly in their own type (decimals as decimals).
_COMPARABLE = (int, float, Decimal, dt.date)


def run_sql_checks(
    checks: Sequence[SqlCheck], frames: Mapping[str, Any], policy: RulePolicy
) -> list[Metric]:
    """Each check's outcome as a metric of kind ``sql`` (value, status, message)."""
    if not checks:
        return []
    compiled = [(c, compile_check(c, policy)) for c in checks]
    spark = next(iter(frames.values())).sparkSession
    names: dict[str, str] = {}
    try:
        out = []
        for check, query in compiled:
            for frame in frames_read(query, FRAMES):
                if frame not in names:
                    names[frame] = f"__qp_sql_{frame}_{uuid.uuid4().hex}"
                    frames[frame].createOrReplaceTempView(names[frame])
            sql = bound_sql(query, names)
            try:
                row = spark.sql(sql).limit(2).collect()
            except Exception as err:
                first = str(err).strip().splitlines()[0]
                message = f"SQL check {check.name!r}: Spark cannot run it: {first}"
                raise CheckDefinitionError(message, item_kind="check", source=check.sql) from None
            if len(row) != 1:
                value: Any = None
                ok, message = False, f"{check.name}: the query returned {len(row)} rows, not one"
            else:
                value = row[0][0]
                ok, message = _judge(check, value)
            number = (
                float(value)
                if isinstance(value, int | float | Decimal) and not isinstance(value, bool)
                else None
            )
            out.append(
                Metric("sql", check.name, "value", number, "passed" if ok else "failed", message,
                       group=check.level)
            )  # fmt: skip
        return out
    finally:
        for view in names.values():
            spark.catalog.dropTempView(view)


def sql_checks_from_specs(specs: Sequence[Mapping[Any, Any]]) -> tuple[SqlCheck, ...]:
    """SQL checks from YAML mappings (``name``, ``sql``, ``on``, ``assertion``, ``level``)."""
    out = []
    for i, raw in enumerate(specs):
        # YAML 1.1 reads an unquoted key ``on`` as the boolean true
        spec = {("on" if k is True else str(k)): v for k, v in raw.items()}
        unknown = set(spec) - {"name", "sql", "on", "assertion", "level"}
        if unknown or "sql" not in spec:
            raise CheckDefinitionError(
                f"SQL check {i + 1}: takes sql and optionally name, on, assertion, level"
                + (f" (unknown: {sorted(unknown)})" if unknown else ""),
                item_kind="check",
            )
        out.append(
            SqlCheck(
                str(spec.get("name", f"sql check {i + 1}")),
                str(spec["sql"]),
                str(spec.get("on", "source")),
                None if spec.get("assertion") is None else str(spec["assertion"]),
                str(spec.get("level", "error")),
            )
        )
    return tuple(out)
