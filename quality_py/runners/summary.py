"""Per-rule counts of a data-quality column, computed alongside a write (no extra pass).

Examples
--------
>>> from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
>>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 1")])])
>>> checked = add_data_quality(spark.createDataFrame([(1,), (2,), (3,)], "a int"), suite)
>>> stats = rule_summary(checked, suite)
>>> stats.rows, stats.overall_passed, stats.rules[0].passed, stats.rules[0].failed
(3, 2, 2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from quality_py.model.glossary import percent
from quality_py.model.ids import Id
from quality_py.model.labels import label, labelled
from quality_py.model.layout import ResultLayout
from quality_py.model.results import DISABLED_RULE, FAILED, PASSED, SOFT_FAILED, Layout
from quality_py.model.rules import RuleSuite
from quality_py.sql.build import bigint, call, field, lit, paren, to_sql
from quality_py.sql.context import PassContext
from quality_py.sql.passes import run_passes

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


@dataclass(frozen=True, slots=True)
class RuleStats:
    """How many rows each result took for one rule."""

    rule_set_id: Id
    rule_id: Id
    passed: int
    failed: int
    soft_failed: int
    disabled: int
    probability: int
    #: rows this rule makes Failed overall (Failed, or a probability below ``probable_pass``):
    #: the rows whose quarantine reasons name the rule
    failing: int | None = None
    #: rows where the rule's value was null: a null input or a contained error (a bad value
    #: that would have aborted the job); quality runs count it
    null_values: int | None = None
    #: the rule's and its rule set's names, when they have them
    name: str | None = None
    rule_set_name: str | None = None

    @property
    def applicable(self) -> int:
        """Rows where the rule was not disabled."""
        return self.passed + self.failed + self.soft_failed + self.probability

    @property
    def pass_rate(self) -> float | None:
        """Passed rows over applicable rows (None when the rule never applied)."""
        return self.passed / self.applicable if self.applicable else None


@dataclass(frozen=True, slots=True)
class SuiteStats:
    """Row count, overall passes and per-rule counts of a checked DataFrame."""

    rows: int
    overall_passed: int
    rules: tuple[RuleStats, ...]


_KINDS = (
    ("passed", PASSED),
    ("failed", FAILED),
    ("soft", SOFT_FAILED),
    ("disabled", DISABLED_RULE),
)


def fails_sql(code: str, probable_pass: float) -> str:
    """True when the rule whose result code is the SQL ``code`` fails the row (makes the overall
    result Failed): Failed, or a probability below ``probable_pass``. Null codes count as
    failures, as in the core.

    >>> fails_sql("c", 0.8)
    'coalesce(c = 0 OR (c NOT IN (100000, -1, -2) AND c < 80000.0D), true)'
    """
    keep = ", ".join(str(v) for v in (PASSED, SOFT_FAILED, DISABLED_RULE))
    threshold = repr(float(probable_pass) * PASSED)
    return (
        f"coalesce({code} = {FAILED} OR ({code} NOT IN ({keep}) AND {code} < {threshold}D), true)"
    )


def failing_sql(
    i: int,
    codes: Sequence[str],
    probable_pass: float,
    values: Sequence[str] | None = None,
    families: Sequence[str | None] | None = None,
) -> str:
    """True when rule ``i`` fails the row, as its counts count it (:func:`code_counts`): a
    boolean rule from its value when given (not true), else from its code.

    >>> failing_sql(0, ["c"], 0.8, ["v"], ["boolean"])
    'NOT coalesce(v, false)'
    >>> failing_sql(0, ["c"], 0.8, None, ["boolean"])
    'c = 0'

    """
    if families is not None and families[i] == "boolean":
        return f"NOT coalesce({values[i]}, false)" if values is not None else f"{codes[i]} = 0"
    return fails_sql(codes[i], probable_pass)


def code_counts(
    codes: Sequence[str],
    probable_pass: float | None = None,
    values: Sequence[str] | None = None,
    families: Sequence[str | None] | None = None,
) -> list[tuple[str, str]]:
    """``(key, aggregate SQL)`` of the row count and each rule's result counts: the one place
    per-rule counts are defined (quality runs count the staged code columns, :func:`rule_summary`
    the codes read from a data-quality column); :func:`stats_from_row` reads them back.

    A rule whose values are booleans (``families``) has only two codes, Passed and Failed
    (null is Failed), so only its failures are counted: every aggregate costs about 10 ns per
    row, and boolean rules are most rules (27 rules: 2.2 s of counts per 1M rows -> 0.8 s).
    Given the rules' ``values``, a boolean rule is counted from its value (not true: Failed;
    null), so a quality run's valid job computes no code of an ``ignore`` rule (500 rules:
    11.5 s -> 5.0 s per 200k rows, benchmarks/README.md).

    >>> code_counts(["c"])[:2]
    [('rows', 'count(1)'), ('r0_passed', 'count_if(c = 100000)')]
    >>> code_counts(["c"], 0.8, families=["boolean"])
    [('rows', 'count(1)'), ('r0_failed', 'count_if(c = 0)')]
    >>> code_counts(["c"], 0.8, ["v"], ["boolean"])[1:]
    [('r0_failed', 'count_if(NOT coalesce(v, false))'), ('r0_null', 'count_if(v IS NULL)')]
    """
    out = [("rows", "count(1)")]
    known = ", ".join(str(v) for _, v in _KINDS)
    for i, code in enumerate(codes):
        if families is not None and families[i] == "boolean":
            fails = failing_sql(i, codes, probable_pass or 0.0, values, families)
            out.append((f"r{i}_failed", f"count_if({fails})"))
        else:
            out += [(f"r{i}_{kind}", f"count_if({code} = {value})") for kind, value in _KINDS]
            out.append((f"r{i}_prob", f"count_if(NOT {code} IN ({known}))"))
            if probable_pass is not None:
                fails = failing_sql(i, codes, probable_pass, None, families)
                out.append((f"r{i}_failing", f"count_if({fails})"))
        if values is not None:
            out.append((f"r{i}_null", f"count_if({values[i]} IS NULL)"))
    return out


def _aggregate_sql(suite: RuleSuite, column: str, layout: ResultLayout) -> list[tuple[str, str]]:
    col = exp.column(column, quoted=True)
    ctx = PassContext(item_kind="summary", layout=layout)
    codes = []
    for rule_set, rule in suite.iter_rules():
        code = call(
            "rule_result",
            col,
            bigint(suite.id.packed),
            bigint(rule_set.id.packed),
            bigint(rule.id.packed),
        )
        codes.append(to_sql(paren(run_passes(code, ctx))))
    overall = call("count_if", exp.EQ(this=field(col, "overallResult"), expression=lit(PASSED)))
    rows, *per_rule = code_counts(codes, suite.probable_pass)
    return [rows, ("overall", to_sql(overall)), *per_rule]


def summary_columns(
    suite: RuleSuite, column: str = "DataQuality", layout: ResultLayout | None = None
) -> list[Column]:
    """Aggregate Columns for :meth:`DataFrame.observe` or :meth:`DataFrame.agg`."""
    from pyspark.sql import functions as F

    lay = layout if layout is not None else Layout.MAP
    return [F.expr(sql).alias(name) for name, sql in _aggregate_sql(suite, column, lay)]


def stats_from_row(suite: RuleSuite, values: dict[str, Any]) -> SuiteStats:
    """Read :func:`summary_columns` results back into :class:`SuiteStats`."""
    rules = []
    rows = int(values["rows"])
    for i, (rule_set, rule) in enumerate(suite.iter_rules()):
        failed = int(values[f"r{i}_failed"])
        counts: tuple[int, int, int, int, int, int | None]
        if values.get(f"r{i}_passed") is None:  # a boolean rule: Passed or Failed only
            counts = (rows - failed, failed, 0, 0, 0, failed)
        else:
            failing = values.get(f"r{i}_failing")
            counts = (
                int(values[f"r{i}_passed"]),
                failed,
                int(values[f"r{i}_soft"]),
                int(values[f"r{i}_disabled"]),
                int(values[f"r{i}_prob"]),
                None if failing is None else int(failing),
            )
        null = values.get(f"r{i}_null")
        nulls = None if null is None else int(null)
        rules.append(RuleStats(rule_set.id, rule.id, *counts, nulls, rule.name, rule_set.name))
    return SuiteStats(rows, int(values["overall"]), tuple(rules))


def layout_of(df: DataFrame, column: str) -> ResultLayout:
    """The layout of ``df[column]`` from its metadata."""
    from quality_py.model.layout import layout_of_field

    return layout_of_field(df.schema[column])


def rule_summary(df: DataFrame, suite: RuleSuite, column: str = "DataQuality") -> SuiteStats:
    """Run one aggregation over ``df`` and return the per-rule counts.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 1")])])
    >>> checked = add_data_quality(spark.createDataFrame([(1,), (2,)], "a int"), suite)
    >>> stats = rule_summary(checked, suite)
    >>> stats.rows, stats.rules[0].passed, stats.rules[0].failed
    (2, 1, 1)
    """
    row = df.agg(*summary_columns(suite, column, layout_of(df, column))).first()
    assert row is not None
    return stats_from_row(suite, row.asDict())


def format_summary(stats: SuiteStats) -> str:
    """A table of the per-rule counts, each rule by its name with its id beside it.

    >>> rule = RuleStats(Id(10, 1), Id(101, 1), 2, 1, 0, 0, 0, 1, name="pos")
    >>> print(format_summary(SuiteStats(3, 2, (rule,))))
    rule          rule set  passed  failed  soft  disabled  prob.  rule pass rate  fails row
    ----------------------------------------------------------------------------------------
    pos (101.1)   10.1           2       1     0         0      0          66.67%          1
    rows: 3, passing: 2 (pass rate 66.67 %), failing: 1
    """
    names = ("passed", "failed", "soft", "disabled", "prob.", "rule pass rate", "fails row")
    rules = [labelled(r.rule_id, r.name) for r in stats.rules]
    sets = [label(r.rule_set_id, r.rule_set_name) for r in stats.rules]
    wide = max([len("rule"), *map(len, rules)]) + 3
    set_wide = max([len("rule set"), *map(len, sets)])
    head = f"{'rule':<{wide}}{'rule set':<{set_wide}}" + "".join(
        f"{n:>{len(n) + 2}}" for n in names
    )
    lines = [head, "-" * len(head)]
    for r, rule, rule_set in zip(stats.rules, rules, sets, strict=True):
        rate = "n/a" if r.pass_rate is None else f"{100 * r.pass_rate:.2f}%"
        fails = "n/a" if r.failing is None else r.failing
        counts = (r.passed, r.failed, r.soft_failed, r.disabled, r.probability, rate, fails)
        cells = "".join(f"{c:>{len(n) + 2}}" for c, n in zip(counts, names, strict=True))
        lines.append(f"{rule:<{wide}}{rule_set:<{set_wide}}{cells}")
    ok = stats.overall_passed
    pct = percent(ok / stats.rows) if stats.rows else "n/a"
    lines.append(f"rows: {stats.rows}, passing: {ok} (pass rate {pct}), failing: {stats.rows - ok}")
    return "\n".join(lines)


__all__ = [
    "RuleStats",
    "SuiteStats",
    "format_summary",
    "rule_summary",
    "stats_from_row",
    "summary_columns",
]
