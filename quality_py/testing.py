"""Data quality as a test assertion, for teams that unit test their pipelines.

``assert_quality(df, ruleset)`` runs every rule and dataset check of a ruleset on ``df`` and
fails, like any ``assert``, with the number of rows each failing rule fails and a few failing
rows with the values of their columns and every rule each failed::

    def test_orders_are_clean(spark):
        orders = build_orders(spark)
        assert_quality(orders, "rulesets/orders.yaml")

Rule actions are not applied (nothing is dropped, no run fails early): a test wants every
failure at once. ``allow`` lets a rule fail up to a number of rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from quality_py.actions.outcome import RunSummary
from quality_py.actions.run import run_quality
from quality_py.dataset.checks import Check
from quality_py.errors import item_text
from quality_py.io.ruleset_file import RulesetFile, load_ruleset_file
from quality_py.model.enums import RowAction
from quality_py.model.ids import Id
from quality_py.model.labels import label, resolve_rules, rule_names, short_id
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame

__all__ = ["assert_quality"]


def _ruleset(ruleset: RulesetFile | RuleSuite | str | Path) -> RulesetFile:
    if isinstance(ruleset, RulesetFile):
        return ruleset
    if isinstance(ruleset, RuleSuite):
        return RulesetFile(suite=ruleset)
    return load_ruleset_file(ruleset)


def _reporting_only(suite: RuleSuite) -> RuleSuite:
    """``suite`` with every rule's action ``ignore``: every row is checked and kept."""
    return replace(
        suite,
        rule_sets=[
            replace(s, rules=[replace(r, action_if_failed=RowAction.IGNORE) for r in s.rules])
            for s in suite.rule_sets
        ],
    )


def assert_quality(
    df: DataFrame,
    ruleset: RulesetFile | RuleSuite | str | Path,
    *,
    allow: Mapping[str, int] | None = None,
    checks: tuple[Check, ...] | None = None,
    sample: int = 5,
) -> RunSummary:
    """Assert that every rule and every error-level dataset check of ``ruleset`` (a YAML path, a
    :class:`RulesetFile` or a :class:`RuleSuite`) holds on ``df``; return the run's summary.

    ``allow`` maps a rule (its name, ``"101.1"``, or ``"101"`` for any version) to the rows it
    may fail; a key that names no rule is refused with the closest name (a misspelt allowance
    never passes silently). ``checks`` replaces the ruleset's dataset checks; ``sample`` failing
    rows are shown, each with the names of the rules it failed.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(101, 1), "a > 0")])])
    >>> df = spark.createDataFrame([(1,), (-2,)], "a int")
    >>> assert_quality(df, suite)
    Traceback (most recent call last):
    ...
    AssertionError: data quality: 1 of 1 rules fail on 2 rows (suite 1.1)
      rule 101.1 (set 10.1) fails 1 row: a > 0
    failing rows (1 of 1 shown):
      a=-2  fails 101.1
    >>> assert_quality(df, suite, allow={"101": 1}).input_rows
    2

    A named rule is shown, and allowed, by its name:

    >>> named = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [
    ...     Rule(Id(101, 1), "a > 0", name="positive_a")])], name="numbers")
    >>> assert_quality(df, named)
    Traceback (most recent call last):
    ...
    AssertionError: data quality: 1 of 1 rules fail on 2 rows (suite 'numbers' (1.1))
      rule 'positive_a' (101.1, set 10.1) fails 1 row: a > 0
    failing rows (1 of 1 shown):
      a=-2  fails positive_a
    >>> assert_quality(df, named, allow={"positive_a": 1}).input_rows
    2
    """
    __tracebackhide__ = True  # pytest shows the assertion, not this function
    rules = _ruleset(ruleset)
    suite = _reporting_only(rules.suite)
    allowed = _allowances(suite, allow or {})
    kept = [
        replace(c, action_if_failed=RowAction.IGNORE)
        for c in (rules.checks if checks is None else checks)
    ]  # every check is judged here, by its level, instead of failing the run early
    run = run_quality(df, suite, kept)
    summary = run.write()
    problems = _rule_problems(suite, summary, allowed)
    failed_checks = [c for c in (summary.checks.results if summary.checks else ()) if not c.passed]
    errors = [c for c in failed_checks if c.level == "error"]
    if not problems and not errors:
        return summary
    lines = [
        f"data quality: {len(problems)} of {suite.rule_count} rules fail on "
        f"{summary.input_rows} rows ({item_text('suite', suite.id, suite.name)})"
    ]
    lines += [f"  {p}" for p in problems]
    lines += [f"  check {c.check!r} ({c.level}): {c.message}" for c in errors]
    if problems:
        lines += _failing_rows(run.quarantine.drop(run.column), sample, rule_names(suite))
    raise AssertionError("\n".join(lines))


def _allowances(suite: RuleSuite, allow: Mapping[str, int]) -> dict[Id, int]:
    """``allow`` by rule id: each key resolved as a name or id (an unknown one refused)."""
    out: dict[Id, int] = {}
    for key, rows in allow.items():
        for rule_id in resolve_rules(suite, key, who="assert_quality's allow"):
            out[rule_id] = rows
    return out


def _rule_problems(suite: RuleSuite, summary: RunSummary, allow: Mapping[Id, int]) -> list[str]:
    texts = {(s.id, r.id): (r.expression, r.name) for s in suite.rule_sets for r in s.rules}
    sets = {s.id: label(s.id, s.name) for s in suite.rule_sets}
    out = []
    for stats in summary.rules.rules if summary.rules else ():
        failing = stats.failing or 0
        allowed = allow.get(stats.rule_id, 0)
        if failing > allowed:
            text, name = texts.get((stats.rule_set_id, stats.rule_id), ("", None))
            rows = "row" if failing == 1 else "rows"
            limit = f" (allowed {allowed})" if allowed else ""
            ids = f"{short_id(stats.rule_id)}, set {sets.get(stats.rule_set_id)}"
            rule = f"rule {name!r} ({ids})" if name else f"rule {ids.replace(', ', ' (')})"
            out.append(f"{rule} fails {failing} {rows}{limit}: {text}")
    return out


def _failing_rows(quarantine: DataFrame, sample: int, names: Mapping[Id, str]) -> list[str]:
    """A few failing rows: every column's value, and the rules each failed (by name)."""
    total = quarantine.count()
    rows = quarantine.limit(sample).collect() if sample > 0 else []
    lines = [f"failing rows ({len(rows)} of {total} shown):"]
    for row in rows:
        values = row.asDict()
        failed = values.pop("qp_failed_rules", None) or []
        shown = "  ".join(f"{k}={v!r}" for k, v in values.items() if not k.startswith("qp_"))
        ids = [Id(f["ruleId"], f["ruleVersion"]) for f in failed]
        lines.append(f"  {shown}  fails {', '.join(label(i, names.get(i)) for i in ids)}")
    return lines
