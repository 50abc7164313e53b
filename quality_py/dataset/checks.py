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
from typing import Any

from quality_py.dataset.analyzers import (
    Analyzer,
    Completeness,
    Compliance,
    Correlation,
    Maximum,
    Mean,
    Minimum,
    Size,
    StandardDeviation,
    Sum,
)
from quality_py.dataset.grouping import (
    CountDistinct,
    Distinctness,
    Entropy,
    GroupingAnalyzer,
    Uniqueness,
)
from quality_py.errors import ModelError
from quality_py.sql.build import lit, to_sql

Assertion = Callable[[float], bool] | str
_OPS = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
    "=": operator.eq,
    "!=": operator.ne,
}
_THRESHOLD = re.compile(r"^\s*(>=|<=|==|!=|=|>|<)\s*(-?[0-9.eE+-]+)\s*$")
_BETWEEN = re.compile(r"^\s*between\s+(-?[0-9.eE+-]+)\s+and\s+(-?[0-9.eE+-]+)\s*$", re.I)


def as_predicate(assertion: Assertion) -> Callable[[float], bool]:
    """A callable from a callable or a threshold string.

    >>> as_predicate(">= 0.9")(0.95), as_predicate("between 1 and 3")(4)
    (True, False)
    """
    if callable(assertion):
        return assertion
    if m := _THRESHOLD.match(assertion):
        op, bound = _OPS[m.group(1)], float(m.group(2))
        return lambda v: op(v, bound)
    if m := _BETWEEN.match(assertion):
        lo, hi = float(m.group(1)), float(m.group(2))
        return lambda v: lo <= v <= hi
    raise ModelError(f"cannot read the assertion {assertion!r}; use e.g. '>= 0.9' or a callable")


@dataclass(frozen=True)
class Constraint:
    """An assertion on one analyzer's metric."""

    description: str
    analyzer: Analyzer | GroupingAnalyzer
    assertion: Assertion

    def evaluate(self, metric: float | None) -> tuple[bool, str]:
        """``(passed, message)``; an undefined metric (e.g. no rows) fails with that reason."""
        if metric is None or (isinstance(metric, float) and math.isnan(metric)):
            return False, f"{self.description}: the metric is undefined ({metric})"
        ok = bool(as_predicate(self.assertion)(metric))
        shown = self.assertion if isinstance(self.assertion, str) else "the assertion"
        return ok, f"{self.description}: metric {metric:g} {'meets' if ok else 'fails'} {shown}"


def _in_list(column: str, values: Sequence[Any]) -> str:
    from sqlglot import exp

    return to_sql(
        exp.In(this=exp.column(column, quoted=True), expressions=[lit(v) for v in values])
    )


def _quoted(column: str) -> str:
    from sqlglot import exp

    return to_sql(exp.column(column, quoted=True))


@dataclass(frozen=True)
class Check:
    """Constraints under one level; builder methods return a new check.

    >>> check = Check("error", "flights").is_complete("carrier").has_size(">= 1")
    >>> [c.description for c in check.constraints]
    ['carrier is complete', 'size >= 1']
    """

    level: str
    description: str
    constraints: tuple[Constraint, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.level not in ("error", "warning"):
            raise ModelError(f"check level must be 'error' or 'warning', got {self.level!r}")

    def _add(self, description: str, analyzer: Any, assertion: Assertion) -> Check:
        return replace(
            self, constraints=(*self.constraints, Constraint(description, analyzer, assertion))
        )

    def has_size(self, assertion: Assertion) -> Check:
        return self._add(
            f"size {assertion}" if isinstance(assertion, str) else "size", Size(), assertion
        )

    def is_complete(self, column: str) -> Check:
        return self._add(f"{column} is complete", Completeness(column), "== 1")

    def has_completeness(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"{column} completeness", Completeness(column), assertion)

    def is_unique(self, column: str | Sequence[str]) -> Check:
        return self._add(f"{column} is unique", Uniqueness(column), "== 1")

    def has_uniqueness(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        return self._add(f"{column} uniqueness", Uniqueness(column), assertion)

    def has_distinctness(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        return self._add(f"{column} distinctness", Distinctness(column), assertion)

    def has_count_distinct(self, column: str | Sequence[str], assertion: Assertion) -> Check:
        return self._add(f"{column} count distinct", CountDistinct(column), assertion)

    def has_entropy(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"{column} entropy", Entropy(column), assertion)

    def satisfies(self, predicate: str, name: str, assertion: Assertion = "== 1") -> Check:
        return self._add(name, Compliance(name, predicate), assertion)

    def is_contained_in(self, column: str, values: Sequence[Any]) -> Check:
        pred = f"{_quoted(column)} IS NULL OR {_in_list(column, values)}"
        return self._add(
            f"{column} in {list(values)}", Compliance(f"{column} contained", pred), "== 1"
        )

    def is_in_range(self, column: str, low: float, high: float) -> Check:
        c = _quoted(column)
        pred = f"{c} IS NULL OR ({c} >= {low!r} AND {c} <= {high!r})"
        return self._add(
            f"{column} in [{low}, {high}]", Compliance(f"{column} range", pred), "== 1"
        )

    def is_non_negative(self, column: str) -> Check:
        c = _quoted(column)
        return self._add(
            f"{column} >= 0",
            Compliance(f"{column} non-negative", f"{c} IS NULL OR {c} >= 0"),
            "== 1",
        )

    def is_less_than(self, first: str, second: str) -> Check:
        pred = f"{_quoted(first)} < {_quoted(second)}"
        return self._add(f"{first} < {second}", Compliance(f"{first} < {second}", pred), "== 1")

    def has_min(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"min({column})", Minimum(column), assertion)

    def has_max(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"max({column})", Maximum(column), assertion)

    def has_mean(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"mean({column})", Mean(column), assertion)

    def has_sum(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"sum({column})", Sum(column), assertion)

    def has_standard_deviation(self, column: str, assertion: Assertion) -> Check:
        return self._add(f"stddev({column})", StandardDeviation(column), assertion)

    def has_correlation(self, first: str, second: str, assertion: Assertion) -> Check:
        return self._add(f"corr({first}, {second})", Correlation(first, second), assertion)


@dataclass(frozen=True)
class ConstraintResult:
    """One constraint's outcome."""

    check: str
    level: str
    constraint: str
    passed: bool
    metric: float | None
    message: str


@dataclass(frozen=True)
class VerificationResult:
    """Every constraint's outcome; ``status`` is the worst level among failed constraints."""

    results: tuple[ConstraintResult, ...]

    @property
    def status(self) -> str:
        """``success``, ``warning`` or ``error``."""
        failed = {r.level for r in self.results if not r.passed}
        return "error" if "error" in failed else "warning" if failed else "success"

    def metrics_frame(self, spark: Any) -> Any:
        """The outcomes as a DataFrame (for storing next to the data)."""
        rows = [
            (r.check, r.level, r.constraint, r.passed, r.metric, r.message) for r in self.results
        ]
        ddl = (
            "check string, level string, constraint string, passed boolean, metric double, "
            "message string"
        )
        return spark.createDataFrame(rows, ddl)


def verify(df: Any, checks: Sequence[Check], *, policy: Any = None) -> VerificationResult:
    """Run the checks' analyzers (one shared scan + one query per grouping set) and assess them.

    >>> df = spark.createDataFrame([(1, "a"), (2, None)], "k int, s string")
    >>> result = verify(df, [Check("warning", "t").is_complete("s").has_size("== 2")])
    >>> result.status, [r.passed for r in result.results]
    ('warning', [False, True])
    """
    from quality_py.dataset.runner import run_analyzers, run_grouping_analyzers
    from quality_py.policy import DEFAULT_POLICY

    constraints = [(c, k) for c in checks for k in c.constraints]
    scans = [k.analyzer for _, k in constraints if isinstance(k.analyzer, Analyzer)]
    groups = [k.analyzer for _, k in constraints if isinstance(k.analyzer, GroupingAnalyzer)]
    metrics: dict[Any, float | None] = {}
    if scans:
        metrics.update(run_analyzers(df, scans, policy=policy or DEFAULT_POLICY).metrics)
    if groups:
        metrics.update(run_grouping_analyzers(df, groups)[0])
    out = []
    for check, constraint in constraints:
        metric = metrics[constraint.analyzer]
        passed, message = constraint.evaluate(metric)
        out.append(
            ConstraintResult(
                check.description, check.level, constraint.description, passed, metric, message
            )
        )
    return VerificationResult(tuple(out))
