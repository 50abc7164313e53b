"""What an edit of a ruleset would do to real data, before it ships (``quality-py diff``).

Both suites run on the same rows: the old suite's result codes are staged, then the new suite's
on top of them, and **one** aggregation counts, per rule, the rows that fail under each version,
the rows that newly fail and those that newly pass, and for the whole suite the rows each
version would quarantine and drop and whether a ``fail`` rule would stop the run. Sample rows
come from a second job that stops at the first rows that changed (at most ``samples`` per rule
and direction, 200 rows in all), with the row's keys and the columns the rule reads.

>>> from quality_py import Id, Rule, RuleSet, RuleSuite
>>> old = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
>>> new = RuleSuite(Id(1, 2), [RuleSet(Id(2, 2), [Rule(Id(3, 2), "a > 1")])])
>>> preview = preview_edit(spark.createDataFrame([(0,), (1,), (2,)], "a int"), old, new)
>>> change = preview.rules[0]
>>> (change.newly_failing, change.newly_passing, preview.quarantined)
(1, 0, (1, 2))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from quality_py.actions.flags import fails_any_sql, rule_refs
from quality_py.model.changes import RuleChange, suite_changes
from quality_py.model.labels import labelled
from quality_py.model.reads import columns_read
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame
from quality_py.prepare import prepare_for_schema
from quality_py.runners.staging import stage_rule_codes
from quality_py.runners.summary import fails_sql
from quality_py.spark.session import wide_plan_settings
from quality_py.sql.snippets import quoted

#: Rows the sample job reads at most.
SAMPLE_LIMIT = 200


@dataclass(frozen=True)
class RulePreview:
    """One rule's effect: rows failing it under each version (None: absent in that version),
    rows that newly fail and newly pass, and a few of each."""

    change: RuleChange
    failing_old: int | None
    failing_new: int | None
    newly_failing: int
    newly_passing: int
    failing_samples: tuple[dict[str, Any], ...] = ()
    passing_samples: tuple[dict[str, Any], ...] = ()

    @property
    def moved(self) -> bool:
        """Whether any row changed outcome, or the rule was edited, added or removed."""
        return bool(self.newly_failing or self.newly_passing or self.change.kind != "same")


@dataclass(frozen=True)
class EditPreview:
    """The effect of replacing ``old`` with ``new`` on the same rows. Pairs are (old, new)."""

    rows: int
    rules: tuple[RulePreview, ...]
    quarantined: tuple[int, int]
    dropped: tuple[int, int]
    #: rows failing a ``fail`` rule: a quality run stops when there is one
    stopping: tuple[int, int]
    suites: tuple[str, str] = field(default=("", ""))

    @property
    def valid(self) -> tuple[int, int]:
        """Rows a quality run would publish as valid (input minus dropped)."""
        return self.rows - self.dropped[0], self.rows - self.dropped[1]

    def describe(self) -> str:
        """A few lines a reader takes in at a glance."""

        def pair(p: tuple[int, int]) -> str:
            return f"{p[0]} -> {p[1]} ({p[1] - p[0]:+d})"

        lines = [
            f"edit preview on {self.rows} rows: suite {self.suites[0]} -> {self.suites[1]}",
            f"  quarantined {pair(self.quarantined)}; dropped {pair(self.dropped)}; "
            f"valid {pair(self.valid)}",
            f"  rows failing a fail rule (the run stops): {pair(self.stopping)}",
        ]
        moved = [r for r in self.rules if r.moved]
        if not moved:
            lines.append("  no rule changed and no row changed outcome")
        for r in moved:
            lines.append(
                f"  {r.change.label} ({r.change.kind}): failing {_n(r.failing_old)} -> "
                f"{_n(r.failing_new)}; newly failing {r.newly_failing}, "
                f"newly passing {r.newly_passing}"
            )
            lines += [f"      {d}" for d in r.change.differences]
            lines += [f"      newly fails: {s}" for s in r.failing_samples]
            lines += [f"      newly passes: {s}" for s in r.passing_samples]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "rows": self.rows,
            "suites": list(self.suites),
            "quarantined": list(self.quarantined),
            "dropped": list(self.dropped),
            "valid": list(self.valid),
            "stopping": list(self.stopping),
            "rules": [
                {
                    "rule_set": r.change.key[0],
                    "rule": r.change.key[1],
                    "name": (r.change.new or r.change.old).name,  # type: ignore[union-attr]
                    "change": r.change.kind,
                    "differences": r.change.differences,
                    "failing_old": r.failing_old,
                    "failing_new": r.failing_new,
                    "newly_failing": r.newly_failing,
                    "newly_passing": r.newly_passing,
                    "newly_failing_samples": list(r.failing_samples),
                    "newly_passing_samples": list(r.passing_samples),
                }
                for r in self.rules
            ],
        }


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


def preview_edit(
    df: DataFrame,
    old: RuleSuite,
    new: RuleSuite,
    *,
    keys: Sequence[str] = (),
    samples: int = 5,
) -> EditPreview:
    """The effect on ``df`` of replacing the suite ``old`` with ``new`` (:class:`EditPreview`);
    ``keys`` name the columns sample rows show besides the columns each rule reads."""
    columns = list(df.columns)
    # fitted to the data's own schema first: the second staging sees the first one's codes too
    old, new = prepare_for_schema(old, df.schema), prepare_for_schema(new, df.schema)
    first = stage_rule_codes(df, old)
    kept = [quoted(c) for c in columns]
    olds = [f"{c} AS __qp_old{i}" for i, c in enumerate(first.code_names())]
    second = stage_rule_codes(first.frame.selectExpr(*kept, *olds), new)
    changes = suite_changes(first.compiled.suite, second.compiled.suite)
    old_at = {k: i for i, k in enumerate(_keys(first.compiled.suite))}
    new_at = {k: i for i, k in enumerate(_keys(second.compiled.suite))}
    new_codes = second.code_names()
    tests = [
        (
            None
            if c.key not in old_at
            else fails_sql(f"__qp_old{old_at[c.key]}", old.probable_pass),
            None if c.key not in new_at else fails_sql(new_codes[new_at[c.key]], new.probable_pass),
        )
        for c in changes
    ]
    aggregates = _aggregates(first, second, old, new, tests)
    with wide_plan_settings(second.frame.sparkSession):
        row = second.frame.selectExpr(*aggregates).first()
    values = [int(v or 0) for v in (row or [0] * len(aggregates))]
    rows, totals, per_rule = values[0], values[1:7], values[7:]
    reads = {
        **columns_read(first.compiled.suite, columns),
        **columns_read(second.compiled.suite, columns),
    }
    shown = [_shown_columns(c, keys, reads) for c in changes]
    samples_by_rule = _samples(second.frame, tests, per_rule, shown, samples)
    previews = []
    for i, change in enumerate(changes):
        fo, fn, nf, np_ = per_rule[4 * i : 4 * i + 4]
        failing_samples, passing_samples = samples_by_rule.get(i, ((), ()))
        previews.append(
            RulePreview(
                change,
                fo if tests[i][0] is not None else None,
                fn if tests[i][1] is not None else None,
                nf,
                np_,
                failing_samples,
                passing_samples,
            )
        )
    suites = (labelled(old.id, old.name), labelled(new.id, new.name))
    q, d, s = (totals[0], totals[1]), (totals[2], totals[3]), (totals[4], totals[5])
    return EditPreview(rows, tuple(previews), q, d, s, suites)


def _keys(suite: RuleSuite) -> list[tuple[int, int]]:
    return [(rs.id.id, r.id.id) for rs, r in suite.iter_rules()]


def _aggregates(
    first: Any, second: Any, old: RuleSuite, new: RuleSuite, tests: list[tuple[Any, Any]]
) -> list[str]:
    """count(1); quarantined, dropped and stopping rows under each suite; then per rule:
    failing under old, under new, newly failing, newly passing."""
    out = ["count(1)"]
    sides = (
        (first, old, [f"__qp_old{i}" for i in range(len(first.compiled.rules))]),
        (second, new, second.code_names()),
    )
    per_side: list[list[str]] = [[], []]
    for n, (staged, suite, codes) in enumerate(sides):
        refs = rule_refs(staged.compiled.suite)
        for wanted in (None, "drop", "fail"):  # a fail rule with fail_if drops its rows
            picked = [
                c
                for c, r in zip(codes, refs, strict=True)
                if wanted is None or (r.drops_row if wanted == "drop" else r.stops_run)
            ]
            per_side[n].append(
                f"count_if({fails_any_sql(picked, suite.probable_pass)})" if picked else "0"
            )
    for a, b in zip(*per_side, strict=True):
        out += [a, b]
    for before, after in tests:
        out += [
            f"count_if({before})" if before else "0",
            f"count_if({after})" if after else "0",
            f"count_if(NOT {before} AND {after})" if before and after else "0",
            f"count_if({before} AND NOT {after})" if before and after else "0",
        ]
    return out


def _shown_columns(
    change: RuleChange, keys: Sequence[str], reads: dict[str, tuple[str, ...]]
) -> list[str]:
    """The keys and the columns the rule reads (its new version's, else its old one's)."""
    rule = change.new or change.old
    assert rule is not None
    return list(dict.fromkeys([*keys, *reads.get(f"{rule.id.id}.{rule.id.version}", ())]))[:24]


def _samples(
    frame: DataFrame,
    tests: list[tuple[Any, Any]],
    counts: list[int],
    shown: list[list[str]],
    per_rule: int,
) -> dict[int, tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]]:
    """Up to ``per_rule`` rows per rule and direction, from one job that stops early."""
    wanted = [
        (i, d, f"NOT {b} AND {a}" if d == "fail" else f"{b} AND NOT {a}")
        for i, (b, a) in enumerate(tests)
        if b and a
        for d, n in (("fail", counts[4 * i + 2]), ("pass", counts[4 * i + 3]))
        if n
    ]
    if not wanted or per_rule <= 0:
        return {}
    names = list(dict.fromkeys(c for i, _, _ in wanted for c in shown[i]))
    flags = [f"({cond}) AS __qp_s{j}" for j, (_, _, cond) in enumerate(wanted)]
    picked = frame.where(" OR ".join(f"({c})" for _, _, c in wanted)).selectExpr(
        *[f"{quoted(c)} AS __qp_n{k}" for k, c in enumerate(names)], *flags
    )
    out: dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    with wide_plan_settings(frame.sparkSession):
        collected = picked.limit(SAMPLE_LIMIT).collect()
    for row in collected:
        values = {c: row[f"__qp_n{k}"] for k, c in enumerate(names)}
        for j, (i, d, _) in enumerate(wanted):
            if not row[f"__qp_s{j}"]:
                continue
            failing, passing = out.setdefault(i, ([], []))
            bucket = failing if d == "fail" else passing
            if len(bucket) < per_rule:
                bucket.append({c: values[c] for c in shown[i]})
    return {i: (tuple(f), tuple(p)) for i, (f, p) in out.items()}
