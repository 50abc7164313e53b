"""The report site's page per rule and per check: the definition, the history as a chart over
time (thresholds and anomaly bands drawn) and, for rules, the failing sample rows of the latest
runs with the values of the columns the rule reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from quality_py.history.records import Metric
from quality_py.model.reads import columns_read
from quality_py.model.rules import RuleSuite
from quality_py.report.charts import Point, time_chart
from quality_py.report.layout import num, page, share, status
from quality_py.report.pages import sample_table, top_values_table
from quality_py.report.site_model import Dataset, Run, check_key, rule_key

#: how many of the latest runs' samples a rule page shows
SAMPLE_RUNS = 5
#: how many of the latest runs a rule page lists in a table
HISTORY_ROWS = 60
_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
_BETWEEN = re.compile(r"between\s+" + _NUMBER + r"\s+and\s+" + _NUMBER + r"\s*$", re.I)
_BOUND = re.compile(r"(>=|<=|==|=|>|<)\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*\)?\s*$")


@dataclass(frozen=True)
class RuleDefinition:
    """What a ruleset says of a rule."""

    text: str
    rule_set: str
    action: str
    description: str | None
    lambdas: tuple[tuple[str, str], ...]
    reads: tuple[str, ...] | None = None


def definitions(
    suite: RuleSuite | None, columns: tuple[str, ...] = ()
) -> dict[str, RuleDefinition]:
    """Rule id (no version) -> its definition in ``suite`` (empty without one); ``reads``: the
    ``columns`` the rule names, when columns are known."""
    if suite is None:
        return {}
    by_name = {f.name.lower(): f for f in suite.lambdas}
    reads = columns_read(suite, columns) if columns else {}
    out = {}
    for rs, rule in suite.iter_rules():
        words = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", rule.expression)}
        called = tuple(
            (by_name[w].name, by_name[w].expression) for w in sorted(words) if w in by_name
        )
        entity = f"{rule.id.id}.{rule.id.version}"
        out[str(rule.id.id)] = RuleDefinition(
            rule.expression,
            f"{rs.id.id}.{rs.id.version}",
            str(rule.action_if_failed),
            rule.description,
            called,
            reads.get(entity),
        )
    return out


def _anomalous_runs(ds: Dataset, names: set[str]) -> set[str]:
    """Run ids where an anomaly check judging one of ``names`` (``kind.entity.name``) failed."""
    return {run for name in names for run in ds.anomalies.get(name, ())}


def _band(ds: Dataset, run: Run, names: set[str]) -> tuple[float | None, float | None] | None:
    """The band an anomaly check expected for one of ``names`` in ``run``."""
    for name in names:
        found = ds.bands.get((run.record.run_id, name))
        if found is not None:
            return found
    return None


def rule_page(ds: Dataset, key: str, title: str, known: RuleDefinition | None) -> str:
    """The page of rule ``key`` (an id without version) of ``ds``."""
    entities = [(r, _entity(r, key)) for r in ds.runs]
    present = [(r, e) for r, e in entities if e is not None]
    last_run, last = present[-1]
    info = last_run.metrics.get(("rule", last, "action"))
    named = last_run.metrics.get(("rule", last, "name"))
    label = f" {named.message}" if named is not None and named.message else ""
    names = {f"rule.{e}.failed_share" for _, e in present} | {f"rule.{key}.failed_share"}
    marked = _anomalous_runs(ds, names)
    points = [
        Point(
            r.when,
            r.value("rule", e, "failed_share"),
            r.record.run_id,
            "../" + r.page,
            r.record.run_id in marked,
            _band(ds, r, names),
            ran=r.ran,
        )
        for r, e in present
    ]
    rule_set = (info and info.group) or (known and known.rule_set) or "-"
    action = (info and info.status) or (known and known.action) or "-"
    body = [
        f'<h1>Rule <code data-rule="{escape(last)}">{escape(last)}</code>{escape(label)}</h1>',
        f'<p class="muted">rule set {escape(rule_set)}; action '
        f"<span data-action>{escape(action)}</span></p>",
        _definition(known, info),
        "<h2>Failing share over time</h2>",
        time_chart(f"rule.{key}.failed_share", points),
        _history_table(present, "rule"),
    ]
    top = top_values_table(ds, last_run, "../", only=key)
    if top:
        body += [top, *_top_value_charts(present, last_run.top_values().get(last, [])[:3])]
    samples = [
        {**s, "run": r}
        for r, _ in reversed(present[-SAMPLE_RUNS:])
        for s in r.samples()
        if any(rule_key(e) == key for e in s["failed"])
    ]
    reads = known.reads if known is not None else None
    body.append(
        sample_table(ds, samples, reads, "../")
        or '<p class="muted">no sample failing row in the latest runs</p>'
    )
    crumbs = [(title, "index.html"), (ds.label, f"datasets/{ds.slug}.html"), (f"rule {key}", None)]
    return page(f"{ds.label}: rule {key}", body, crumbs, "../")


def _top_value_charts(
    present: list[tuple[Run, str]], top: list[tuple[str, str | None, float]]
) -> list[str]:
    """A chart over runs of each of the latest run's top failing values: its failing rows in
    every run that kept it among its top values (a run that did not has no point)."""
    out = []
    for column, value, _ in top:
        points = []
        for r, e in present:
            rows = next(
                (n for c, v, n in r.top_values().get(e, []) if (c, v) == (column, value)), None
            )
            points.append(Point(r.when, rows, r.record.run_id, "../" + r.page, ran=r.ran))
        shown = "null" if value is None else value
        out += [
            f"<h3>Failing rows with {escape(column)} = {escape(shown)}</h3>",
            time_chart(f"top.{column}={shown}", points),
        ]
    return out


def _entity(run: Run, key: str) -> str | None:
    return run.rule_entities.get(key)


def _definition(known: RuleDefinition | None, info: Metric | None) -> str:
    if known is None:
        described = (info and info.message) or "no description"
        return (
            f"<h2>Definition</h2><p data-description>{escape(described)}</p>"
            '<p class="muted">the rule text is shown when the report is given the ruleset '
            "(report --rules)</p>"
        )
    out = [
        "<h2>Definition</h2>",
        f"<pre data-rule-text>{escape(known.text)}</pre>",
        f"<p data-description>{escape(known.description or 'no description')}</p>",
    ]
    if known.reads:
        out.append(
            "<p>reads " + ", ".join(f"<code>{escape(c)}</code>" for c in known.reads) + "</p>"
        )
    for name, text in known.lambdas:
        out.append(
            f'<h3>calls lambda <code>{escape(name)}</code></h3><pre data-lambda="{escape(name)}">'
            f"{escape(text)}</pre>"
        )
    return "".join(out)


def _history_table(present: list[tuple[Run, str]], kind: str) -> str:
    """The rule's latest :data:`HISTORY_ROWS` runs (the chart has them all)."""
    rows = []
    for r, e in reversed(present[-HISTORY_ROWS:]):
        rows.append(
            f'<tr data-run="{escape(r.record.run_id)}"><td><a href="../{r.page}">'
            f"{escape(r.record.run_id)}</a></td><td>{r.record.run_time:%Y-%m-%d %H:%M}</td>"
            f"<td>{escape(e)}</td>"
            + num(r.failing(e), 'data-count="failing"')
            + share(r.value(kind, e, "failed_share"), 'data-count="failed_share"')
            + "</tr>"
        )
    return (
        f"<details><summary>the latest {min(len(present), HISTORY_ROWS)} runs</summary>"
        "<table><thead><tr><th>run</th><th>time</th>"
        "<th>version</th><th>failing rows</th><th>failing share</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></details>"
    )


def thresholds(constraint: str) -> list[float]:
    """The bounds a constraint's text ends with (``size >= 10`` -> [10.0], ``... between 1 and
    3`` -> [1.0, 3.0]), else none.

    >>> thresholds("Completeness(dep_time) >= 0.9"), thresholds("x between 1 and 3")
    ([0.9], [1.0, 3.0])
    >>> thresholds("is unique")
    []
    """
    found = _BETWEEN.search(constraint)
    if found:
        return [float(found.group(1)), float(found.group(2))]
    found = _BOUND.search(constraint)
    return [float(found.group(2))] if found else []


def _check_bounds(outcomes: list[Metric]) -> list[float]:
    """A constraint's bounds: from its name (``size >= 1000``), else from the latest message of
    a run it failed, which states them (``metric 1864 fails between 2500 and 4500``)."""
    found = thresholds(outcomes[-1].name)
    for m in reversed(outcomes):
        if found:
            break
        if m.status == "failed" and m.message:
            found = thresholds(m.message)
    return found


def check_page(ds: Dataset, key: str, title: str) -> str:
    """The page of check ``key`` (:func:`~quality_py.report.site_model.check_key`) of ``ds``."""
    present = [(r, m) for r in ds.runs for m in r.checks() if check_key(m) == key]
    last = present[-1][1]
    judged = {last.name} if last.kind == "anomaly" else set()
    limits = _check_bounds([m for _, m in present]) if last.kind == "check" else []
    points = [
        Point(
            r.when,
            m.value,
            r.record.run_id,
            "../" + r.page,
            m.status == "failed",
            _band(ds, r, {m.name}) if m.kind == "anomaly" else None,
            ran=r.ran,
        )
        for r, m in present
    ]
    what = {"check": "constraint", "sql": "SQL check", "anomaly": "anomaly check"}[last.kind]
    body = [
        f"<h1>{escape(what.capitalize())}: "
        f'<code data-check="{escape(key)}">{escape(last.entity)}</code></h1>',
        f'<p class="muted">level {escape(last.group or "-")}'
        + (f"; constraint <code>{escape(last.name)}</code>" if last.kind == "check" else "")
        + (f"; judges <code>{escape(last.name)}</code>" if judged else "")
        + "</p>",
        f"<p>latest: {escape(last.message or '-')}</p>",
        "<h2>Value over time</h2>",
        time_chart(key, points, thresholds=limits),
    ]
    rows = [
        f'<tr data-run="{escape(r.record.run_id)}"><td><a href="../{r.page}">'
        f"{escape(r.record.run_id)}</a></td><td>{r.record.run_time:%Y-%m-%d %H:%M}</td>"
        + num(m.value, 'data-value=""')
        + status(m.status)
        + f"<td>{escape(m.message or '')}</td></tr>"
        for r, m in reversed(present)
    ]
    body.append(
        "<table><thead><tr><th>run</th><th>time</th><th>value</th><th>status</th><th>message</th>"
        "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )
    crumbs = [(title, "index.html"), (ds.label, f"datasets/{ds.slug}.html"), (last.entity, None)]
    return page(f"{ds.label}: {last.entity}", body, crumbs, "../")


__all__ = ["RuleDefinition", "check_page", "definitions", "rule_page", "thresholds"]
