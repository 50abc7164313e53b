"""Checks and constraints over analyzer metrics, and ``verify`` (Deequ's verification suite).

A constraint pairs an analyzer with an assertion on its metric: a Python callable or a short
threshold string (``">= 0.95"``, ``"== 1"``, ``"between 10 and 20"``). A ``Check`` groups
constraints under a level (``error`` or ``warning``); ``verify`` runs every analyzer the checks
need in one aggregation query plus one query per set of grouping columns, and reports each
constraint. Dataset results are kept apart from row results.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from quality_py.dataset import constraints as constraints_module
from quality_py.dataset.constraints import Assertion, ConstraintBuilders
from quality_py.dataset.runner import AnalysisResult, AnyAnalyzer
from quality_py.dataset.table_state import TableState
from quality_py.dataset.times import at_data_time, typed_extremes
from quality_py.errors import ModelError
from quality_py.history.over_time import DATA_TIME, OverTime
from quality_py.model.enums import CheckLevel, RowAction
from quality_py.model.policy import RulePolicy
from quality_py.model.times import metric_number, parse_datetime, time_text
from quality_py.model.types import DataFrame, SparkSession

_OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
}
#: A bound: a number, or a date / timestamp (optionally quoted, a timestamp with or without a
#: zone: ``Z``, ``+01:00``), compared in the value's type.
_BOUND = r"""(-?[0-9.eE+-]+|'?\d{4}-\d\d-\d\d(?:[T ][0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)?'?)"""
_THRESHOLD = re.compile(r"^\s*(>=|<=|==|!=|=|>|<)\s*" + _BOUND + r"\s*$")
_BETWEEN = re.compile(r"^\s*between\s+" + _BOUND + r"\s+and\s+" + _BOUND + r"\s*$", re.I)


def _bound_for(value: Any, text: str) -> Any:
    """The bound ``text`` in the type of ``value``, so the comparison is exact: a decimal or an
    integer against the decimal the text writes (never a binary float), a float against the
    float, a date or timestamp against the date or timestamp the text writes."""
    import datetime as dt
    from decimal import Decimal, InvalidOperation

    text = text.strip("'")
    try:
        if isinstance(value, bool):
            raise TypeError("a boolean is no number")
        if isinstance(value, float):
            return float(text)
        if isinstance(value, int | Decimal):
            return Decimal(text)
        if isinstance(value, dt.datetime):
            bound = _time_bound(text)
            if (value.tzinfo is None) == (bound.tzinfo is None):
                return bound
            # one side without a zone is UTC (as every time here): compared as the same instant
            if bound.tzinfo is None:
                return bound.replace(tzinfo=dt.timezone.utc)
            return bound.astimezone(dt.timezone.utc).replace(tzinfo=None)
        if isinstance(value, dt.date):
            return dt.date.fromisoformat(text)
    except (ValueError, InvalidOperation):
        pass
    raise TypeError(f"the value {value!r} cannot be compared with {text!r}")


def _time_bound(text: str) -> Any:
    """A bound for a time: an ISO date or time, or a number of seconds since the epoch (what a
    timestamp's extreme was before it became a time, so a threshold written then still reads
    the same instant).

    >>> _time_bound("86400")
    datetime.datetime(1970, 1, 2, 0, 0, tzinfo=datetime.timezone.utc)
    >>> _time_bound("1970-01-02")
    datetime.datetime(1970, 1, 2, 0, 0)
    """
    import datetime as dt

    try:
        seconds = float(text)
    except ValueError:
        return parse_datetime(text)
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc)


def _parse_bound(text: str) -> None:
    """Refuse a bound no value type could read (when the assertion is defined)."""
    import datetime as dt

    text = text.strip("'")
    try:
        value: float | None = float(text)
    except ValueError:
        value = None
    if value is not None:
        if not math.isfinite(value):  # 1e999: a bound every value meets, or none
            raise ModelError(f"the bound {text!r} is not a finite number")
        return
    for parse in (parse_datetime, dt.date.fromisoformat):
        try:
            parse(text)
            return
        except ValueError:
            continue
    raise ModelError(f"cannot read the bound {text!r}: give a number, a date or a timestamp")


def as_predicate(assertion: Assertion) -> Callable[[Any], bool]:
    """A callable from a callable or a threshold string. The bound is read in the type of the
    value judged (exact for decimals and integers; dates and timestamps by their ISO text).

    >>> as_predicate(">= 0.9")(0.95), as_predicate("between 1 and 3")(4)
    (True, False)
    >>> from decimal import Decimal
    >>> as_predicate("<= 0.3")(Decimal("0.30")), as_predicate("<= 0.3")(0.1 + 0.2)
    (True, False)
    >>> import datetime
    >>> as_predicate(">= 2024-01-01")(datetime.date(2024, 3, 1))
    True
    >>> utc = datetime.timezone.utc
    >>> as_predicate("< 2024-01-01T01:00:00+02:00")(datetime.datetime(2023, 12, 31, 23, tzinfo=utc))
    False
    """
    if callable(assertion):
        return assertion
    op_text, bounds = split_assertion(assertion)
    for bound in bounds:
        _parse_bound(bound)
    if op_text == "between":
        lo, hi = bounds
        return lambda v: _bound_for(v, lo) <= v <= _bound_for(v, hi)
    op, (bound,) = _OPS[op_text], bounds
    return lambda v: op(v, _bound_for(v, bound))


def split_assertion(assertion: str) -> tuple[str, tuple[str, ...]]:
    """A threshold string's operator (``between`` for a range) and bounds, unquoted, as
    :func:`as_predicate` reads them.

    >>> split_assertion(">= 0.9"), split_assertion("between '2024-01-01' and 2024-12-31")
    (('>=', ('0.9',)), ('between', ('2024-01-01', '2024-12-31')))
    """
    if m := _THRESHOLD.match(assertion):
        return m.group(1), (m.group(2).strip("'"),)
    if m := _BETWEEN.match(assertion):
        return "between", (m.group(1).strip("'"), m.group(2).strip("'"))
    raise ModelError(f"cannot read the assertion {assertion!r}; use e.g. '>= 0.9' or a callable")


@dataclass(frozen=True)
class Constraint:
    """An assertion on one analyzer's metric."""

    description: str
    analyzer: AnyAnalyzer
    assertion: Assertion
    pick: Callable[[Any], Any] | None = None  # what the assertion sees of the metric

    def seen(self, metric: Any) -> Any:
        """What the assertion sees of ``metric`` (a histogram's share of one value, ...).

        >>> Constraint("size", None, ">= 1").seen(3.0)
        3.0
        """
        return metric if self.pick is None or metric is None else self.pick(metric)

    def evaluate(self, metric: Any) -> tuple[bool, str]:
        """``(passed, message)``; an undefined metric (e.g. no rows) fails with that reason."""
        value = self.seen(metric)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return False, f"{self.description}: the metric is undefined ({value})"
        try:
            ok = bool(as_predicate(self.assertion)(value))
        except Exception as err:  # a user's callable failing is a failed constraint, not a crash
            return False, f"{self.description}: the assertion raised {type(err).__name__}: {err}"
        shown = self.assertion if isinstance(self.assertion, str) else "the assertion"
        number = f"{value:g}" if isinstance(value, int | float) else time_text(value) or repr(value)
        if isinstance(metric, datetime) and value is not metric:  # a time seen as an age
            when = metric.isoformat().replace("+00:00", "Z")
            number = f"{number} s ({getattr(self.pick, 'label', 'the newest value')}, {when})"
        return ok, f"{self.description}: metric {number} {'meets' if ok else 'fails'} {shown}"


@dataclass(frozen=True)
class Check(ConstraintBuilders):
    """Constraints under one level; builder methods return a new check.

    >>> check = Check("error", "flights").is_complete("carrier").has_size(">= 1")
    >>> [c.description for c in check.constraints]
    ['carrier is complete', 'size >= 1']
    """

    level: CheckLevel | str  # stored as a CheckLevel
    description: str
    constraints: tuple[Constraint, ...] = field(default=())
    #: default: ``fail`` for error checks, ``ignore`` otherwise
    action_if_failed: RowAction | str | None = None  # stored as a RowAction

    def __post_init__(self) -> None:
        if self.level not in tuple(CheckLevel):
            raise ModelError(f"check level must be 'error' or 'warning', got {self.level!r}")
        object.__setattr__(self, "level", CheckLevel(self.level))
        if self.action_if_failed not in (None, RowAction.FAIL, RowAction.IGNORE):
            raise ModelError(
                f"a dataset check's action_if_failed is 'fail' or 'ignore', "
                f"got {self.action_if_failed!r}"
            )
        if self.action_if_failed is not None:
            object.__setattr__(self, "action_if_failed", RowAction(self.action_if_failed))

    @property
    def action(self) -> RowAction:
        """What a failure does in a quality run: ``fail`` stops it, ``ignore`` records it."""
        if self.action_if_failed is not None:
            return RowAction(self.action_if_failed)
        return RowAction.FAIL if self.level is CheckLevel.ERROR else RowAction.IGNORE

    def _add(
        self,
        description: str,
        analyzer: Any,
        assertion: Assertion,
        pick: Callable[[Any], Any] | None = None,
    ) -> Check:
        constraint = Constraint(description, analyzer, assertion, pick)
        return replace(self, constraints=(*self.constraints, constraint))


# The builders' examples say ``Check(...)``: their module gets the name once Check exists (it
# cannot import it: this module imports the builders).
constraints_module.Check = Check  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ConstraintResult:
    """One constraint's outcome."""

    check: str
    level: str
    constraint: str
    passed: bool
    metric: Any
    message: str


@dataclass(frozen=True)
class VerificationResult:
    """Every constraint's outcome; ``status`` is the worst level among failed constraints."""

    results: tuple[ConstraintResult, ...]
    #: the analyzers' states of the data checked, the batch's alone (what a table state keeps
    #: for the batch's partition); not part of the result's value
    state: AnalysisResult | None = field(default=None, compare=False, repr=False)

    @property
    def status(self) -> str:
        """``success``, ``warning`` or ``error``."""
        failed = {r.level for r in self.results if not r.passed}
        return "error" if "error" in failed else "warning" if failed else "success"

    def metrics_frame(self, spark: SparkSession) -> Any:
        """The outcomes as a DataFrame (for storing next to the data).

        >>> df = spark.createDataFrame([(1,)], "a int")
        >>> result = verify(df, [Check("error", "t").has_size("== 1")])
        >>> [(r.constraint, r.passed) for r in result.metrics_frame(spark).collect()]
        [('size == 1', True)]
        """
        rows = [
            (r.check, r.level, r.constraint, r.passed, _as_double(r.metric), r.message)
            for r in self.results
        ]
        ddl = (
            "check string, level string, constraint string, passed boolean, metric double, "
            "message string"
        )
        return spark.createDataFrame(rows, ddl)


def _as_double(metric: Any) -> float | None:
    return metric_number(metric)


def verify(
    df: DataFrame,
    checks: Sequence[Check],
    *,
    policy: RulePolicy | None = None,
    over_time: OverTime | None = None,
    suite: str | None = None,
    run_id: str | None = None,
) -> VerificationResult:
    """Run the checks' analyzers (one shared scan + one query per grouping set) and assess them.

    With ``over_time.table_state`` (:class:`~quality_py.dataset.table_state.TableState`: where
    a growing table's partition states are kept, and which partition ``df`` is) every metric is
    the table's: the other partitions' stored states merged with ``df``'s, the value a
    recomputation over the whole table gives, at the cost of ``df``. ``df``'s state then
    replaces its partition's, unless an ``error`` check failed (a refused batch leaves the
    state as it was).

    With ``over_time`` (:class:`~quality_py.history.over_time.OverTime`: a metrics repository,
    tags and anomaly checks) the metrics and outcomes are kept as a run record of ``suite`` (a
    name for this series of verifications) with the tags; the anomaly checks judge this
    verification's metrics (``metric:Size(*)``, ...) against the earlier ones and are reported
    among the results (check ``anomaly``).

    >>> df = spark.createDataFrame([(1, "a"), (2, None)], "k int, s string")
    >>> result = verify(df, [Check("warning", "t").is_complete("s").has_size("== 2")])
    >>> result.status, [r.passed for r in result.results]
    ('warning', [False, True])
    """
    from quality_py.dataset.runner import run_analyzers
    from quality_py.model.policy import DEFAULT_POLICY

    if over_time is not None:  # freshness judged at the data's time, when it has one
        checks = at_data_time(checks, over_time.tags.get(DATA_TIME))
    checks = typed_extremes(checks, df)  # the smallest or largest time compared as a time
    constraints = [(c, k) for c in checks for k in c.constraints]
    analyzers = [k.analyzer for _, k in constraints]
    table_state = over_time.table_state if over_time is not None else None
    if table_state is not None and not isinstance(table_state, TableState):
        raise ModelError(f"table_state is a quality_py.TableState, not {table_state!r}")
    batch = run_analyzers(df, analyzers, policy=policy or DEFAULT_POLICY)
    table = batch if table_state is None else table_state.table_result(batch)
    metrics = table.metrics
    result = replace(assess(checks, metrics), state=batch)
    # staged first: a batch its partition cannot keep is refused before the history records it
    staged = table_state.stage(batch, rows=df) if table_state is not None else None
    try:
        if over_time is not None and over_time.history is not None:
            result = _recorded(result, metrics, over_time, suite, run_id)
    except BaseException:
        if staged is not None:
            staged.discard()
        raise
    if staged is not None:
        if result.status != "error":
            staged.publish()
        else:
            staged.discard()
    return result


def _recorded(
    result: VerificationResult,
    metrics: Any,
    over_time: OverTime,
    suite: str | None,
    run_id: str | None,
) -> VerificationResult:
    """``result`` with its anomaly checks' outcomes, saved in the history."""
    import uuid
    from datetime import datetime, timezone

    from quality_py.history.anomaly_checks import judge_all
    from quality_py.history.recording import save_or_raise, verification_record

    history, tags = over_time.history, dict(over_time.tags)
    if history is None:
        return result
    run_id = run_id or uuid.uuid4().hex
    now = datetime.now(timezone.utc)
    record = verification_record(result, metrics, run_id, now, suite, tags)
    outcomes = judge_all(over_time.anomaly_checks, record, history)
    result = VerificationResult(
        (
            *result.results,
            *[
                ConstraintResult(
                    "anomaly", o.group or "error", o.entity, o.status == "passed", o.value,
                    o.message or "",
                )
                for o in outcomes if o.kind == "anomaly"  # not the bands they expected
            ],
        )
    )  # fmt: skip
    save_or_raise(history, verification_record(result, metrics, run_id, now, suite, tags))
    return result


def assess(checks: Sequence[Check], metrics: Any) -> VerificationResult:
    """Each constraint of ``checks`` evaluated against already computed ``metrics``."""
    out = []
    for check in checks:
        for constraint in check.constraints:
            passed, message = constraint.evaluate(metrics[constraint.analyzer])
            out.append(
                ConstraintResult(
                    check.description,
                    str(check.level),
                    constraint.description,
                    passed,
                    constraint.seen(metrics[constraint.analyzer]),  # as the message shows it
                    message,
                )
            )
    return VerificationResult(tuple(out))


def format_verification(result: VerificationResult) -> str:
    """A plain-text report: one line per constraint, then what the checks add up to, said as
    the checks' own outcome (never a bare ``status: warning`` that would read as the run's).

    >>> ok = ConstraintResult("basic", "error", "size >= 1", True, 3.0, "ok")
    >>> late = ConstraintResult("fresh", "warning", "max(day) >= 5", False, 4.0, "4 < 5")
    >>> print(format_verification(VerificationResult((ok, late))))
    dataset checks:
      ok   [basic] ok
      warn [fresh] 4 < 5
      1 of 2 dataset checks failed (1 at level warning): the checks warn
    """
    lines = ["dataset checks:"]
    for r in result.results:
        mark = "ok  " if r.passed else ("FAIL" if r.level == "error" else "warn")
        lines.append(f"  {mark} [{r.check}] {r.message}")
    failed = [r for r in result.results if not r.passed]
    if not failed:
        lines.append(f"  every dataset check passed ({len(result.results)})")
        return "\n".join(lines)
    levels = ", ".join(
        f"{n} at level {level}"
        for level in ("error", "warning")
        if (n := sum(1 for r in failed if r.level == level))
    )
    verdict = "the checks fail" if result.status == "error" else "the checks warn"
    lines.append(
        f"  {len(failed)} of {len(result.results)} dataset checks failed ({levels}): {verdict}"
    )
    return "\n".join(lines)
