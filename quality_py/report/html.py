"""The one-page HTML report of a metrics history: one self-contained file (inline CSS and SVG,
no script, nothing fetched), readable in any browser.

Built from the site's page model (:mod:`quality_py.report.site_model`) with the site's own
renderers (:mod:`quality_py.report.pages`, :mod:`quality_py.report.charts`), so the two say the
same thing in the same words: rule names beside their ids, shares as percentages, time charts
whose value axis starts at zero, and a failed run marked as not published (its counts are what
it would have written; the latest published run is named).

Sections: the latest quality run of the dataset it belongs to (counts that add up, rules, checks,
failed checks and anomalies, top failing values, sample failing rows), that dataset's trends per
run with anomalies marked, every run, the latest verification and its metrics' trends, and the
latest profile with the value counts of its categorical columns. Numbers carry ``data-*``
attributes so that tests read them from the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path

from quality_py.history.records import RunRecord
from quality_py.model.glossary import percent
from quality_py.report.charts import Point, _fmt, bars, time_chart
from quality_py.report.layout import CSS, status, table
from quality_py.report.pages import (
    COMPACT,
    ROWS,
    _check_rows,
    _counts,
    _rule_rows,
    sample_table,
    top_values_table,
)
from quality_py.report.site_model import Dataset, Run, datasets

#: the report's own few styles, on top of the site's style sheet
_EXTRA_CSS = "ul.problems li{color:#8a1c21} section{margin-bottom:8px}"
RULE_HEADINGS = [("rule", "text"), ("rule set", "text"), ("action", "text"), ("status", "text"),
                 ("failing rows", "number"), ("failing share", "number"),
                 ("description", "text")]  # fmt: skip
CHECK_HEADINGS = [("kind", "text"), ("check", "text"), ("value", "number"), ("status", "text"),
                  ("message (bound, baseline)", "text")]  # fmt: skip


def _td(value: float | None, attr: str) -> str:
    shown = "-" if value is None else _fmt(value)
    return f'<td class="n" {attr}>{shown}</td>'


def _share(value: float | None) -> str:
    return "-" if value is None else percent(value)


def _marks(ds: Dataset, kind: str, entity: str, name: str) -> set[str]:
    """Runs to mark on the trend of ``(kind, entity, name)`` (a rule id without its version
    matches every version)."""
    runs = set(ds.anomalies.get(f"{kind}.{entity}.{name}", set()))
    if kind == "rule":
        runs |= ds.anomalies.get(f"rule.{entity.split('.')[0]}.{name}", set())
    return runs


def _not_published(runs: Sequence[Run]) -> str:
    """The note a failed latest run carries: nothing published, and which run did last."""
    published = next((r for r in reversed(runs) if r.record.status != "failed"), None)
    since = (
        f"the latest published run is <code data-published>{escape(published.record.run_id)}"
        f"</code> ({published.record.run_time:%Y-%m-%d %H:%M} UTC)"
        if published is not None
        else "no run of this dataset has published yet"
    )
    return (
        '<p class="status-failed" data-not-published>not published: this run changed none of '
        f"its outputs; the counts below are what it would have written; {since}</p>"
    )


def _problems(run: Run) -> list[str]:
    """Failed checks, anomalies and rules past a tolerance; checks not judged yet apart."""
    metrics = run.record.metrics
    problems = [
        m.message or f"{m.entity}: {m.name}"
        for m in metrics
        if m.status == "failed" and m.kind in ("check", "anomaly", "sql", "tolerance")
    ]
    problems += [  # not a problem: said apart from the failures
        f"not judged yet: {m.message}"
        for m in metrics
        if m.kind == "anomaly" and m.status == "not_judged"
    ]
    if run.record.message and run.record.status == "failed" and not problems:
        problems.append(run.record.message)
    if not problems:
        return []
    return [
        '<h3>Failed checks, anomalies and warnings</h3><ul class="problems">',
        *(f"<li>{escape(p)}</li>" for p in problems),
        "</ul>",
    ]


def _latest_run(ds: Dataset, runs: Sequence[Run]) -> list[str]:
    run = runs[-1]
    rec = run.record
    out = [
        f'<section id="latest-run" data-run-id="{escape(rec.run_id)}">',
        f"<h2>Latest quality run: <code>{escape(rec.run_id)}</code> "
        f'<span class="status-{escape(rec.status)}" data-status>{escape(rec.status)}</span></h2>',
        f'<p class="muted">{escape(ds.label)}, suite {escape(rec.suite or "-")}, '
        f"{rec.run_time:%Y-%m-%d %H:%M:%S} UTC"
        + "".join(f", {escape(k)}={escape(v)}" for k, v in rec.tags.items())
        + "</p>",
    ]
    if rec.status == "failed":
        out.append(_not_published(runs))
    rows = {n: run.value("rows", "run", n) for n in ROWS}
    if rows["input_rows"] is not None:
        out.append(_counts(rows))
    rules = _rule_rows(ds, run, None, {}, compact=True)
    if rules:
        out += ["<h3>Rules</h3>", table("rules", RULE_HEADINGS, rules)]
    clean = [e for e in run.rules() if not (run.failing(e) or 0) > 0]
    if len(clean) > COMPACT:  # listed, not tabled
        out.append(
            f'<p class="muted" data-clean="{len(clean)}">{len(clean)} rules failed no row: '
            + ", ".join(escape(e) for e in clean)
            + "</p>"
        )
    checks = _check_rows(ds, run, None)
    if checks:
        out += ["<h3>Checks and anomalies</h3>", table("checks", CHECK_HEADINGS, checks)]
    out += _problems(run)
    out.append(top_values_table(ds, run, None))
    out.append(sample_table(ds, run.samples(), None, None))
    out.append("</section>")
    return out


def _trend_keys(ds: Dataset, runs: Sequence[Run]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The series to chart (row counts, failing rules, dataset metrics) and the rules that
    failed no row in any run (a line, not a chart)."""
    keys = [("rows", "run", n) for n in ROWS[:3]]
    rules = sorted({e for r in runs for e in r.rule_entities.values()})
    failing = {
        e
        for e in rules
        if any((r.value("rule", e, "failed_share") or 0) > 0 for r in runs)
        or _marks(ds, "rule", e, "failed_share")
    }
    keys += [("rule", e, "failed_share") for e in rules if e in failing]
    keys += sorted(
        {
            m.key
            for r in runs
            for m in r.record.metrics
            if m.kind in ("metric", "sql") and m.value is not None
        }
    )
    return keys, [e for e in rules if e not in failing]


def _trends(ds: Dataset, runs: Sequence[Run], section: str, heading: str) -> list[str]:
    out = [f'<section id="{section}"><h2>{escape(heading)}</h2>', '<div class="cards">']
    keys, clean = _trend_keys(ds, runs)
    for kind, entity, name in keys:
        key = f"{kind}.{entity}.{name}"
        marks = _marks(ds, kind, entity, name)
        points = [
            Point(r.when, r.value(kind, entity, name), r.record.run_id,
                  marked=r.record.run_id in marks, band=ds.bands.get((r.record.run_id, key)),
                  ran=r.ran)
            for r in runs
        ]  # fmt: skip
        if all(p.value is None for p in points):
            continue
        title = f"rule {entity} failing share" if kind == "rule" else f"{entity} {name}"
        if kind == "rows":
            title = name.replace("_", " ")
        out.append(
            f'<div class="card"><h3>{escape(title)}</h3>'
            + time_chart(key, points, width=400, height=150)
            + "</div>"
        )
    out.append("</div>")
    if clean:
        out.append(
            f'<p class="muted" id="clean-rules">{len(clean)} rules failed no row in any run: '
            + ", ".join(escape(e) for e in clean)
            + "</p>"
        )
    out.append("</section>")
    return out


def _verification(run: RunRecord) -> list[str]:
    out = [
        f'<section id="latest-verification" data-run-id="{escape(run.run_id)}">',
        f"<h2>Latest verification: {escape(run.suite or run.run_id)} "
        f'<span class="status-{escape(run.status)}">{escape(run.status)}</span></h2>',
        "<table><tr><th>check</th><th>constraint</th><th>metric</th><th>outcome</th></tr>",
    ]
    for m in run.metrics:
        if m.kind == "check":
            out.append(
                f'<tr data-constraint="{escape(m.name)}"><td>{escape(m.entity)}</td>'
                f"<td>{escape(m.name)}</td>{_td(m.value, 'data-metric')}{status(m.status)}</tr>"
            )
    out.append("</table></section>")
    return out


def _profile(run: RunRecord) -> list[str]:
    rows = run.value("profile", "*", "rows")
    out = [
        f'<section id="profile" data-run-id="{escape(run.run_id)}">',
        f'<h2>Profile <span class="muted">{_fmt(rows or 0)} rows, '
        f"{run.run_time:%Y-%m-%d %H:%M} UTC</span></h2>",
        "<table><tr><th>column</th><th>type</th><th>completeness</th><th>~distinct</th>"
        "<th>min</th><th>max</th><th>mean</th><th>stddev</th></tr>",
    ]
    columns = list(
        dict.fromkeys(m.entity for m in run.metrics if m.kind == "profile" and m.entity != "*")
    )
    charts = []
    for c in columns:
        kind = next((m.group for m in run.metrics if m.entity == c and m.group), "")
        inferred = next((m.status for m in run.metrics if m.key == ("profile", c, "type")), None)
        stats = {n: run.value("profile", c, n) for n in ("minimum", "maximum", "mean", "stddev")}
        completeness = run.value("profile", c, "completeness")
        out.append(
            f'<tr data-column="{escape(c)}"><td>{escape(c)}</td>'
            f"<td>{escape(kind or '')}{' (' + escape(inferred) + ')' if inferred else ''}</td>"
            f'<td class="n" data-stat="completeness" data-value="{completeness!r}">'
            f"{_share(completeness)}</td>"
            + _td(run.value("profile", c, "approx_distinct"), 'data-stat="approx_distinct"')
            + "".join(_td(v, f'data-stat="{n}"') for n, v in stats.items())
            + "</tr>"
        )
        values = [
            (m.name[len("value:") :], m.value or 0.0)
            for m in run.metrics
            if m.kind == "profile" and m.entity == c and m.name.startswith("value:")
        ]
        if 1 < len(values) <= 40:
            top = sorted(values, key=lambda kv: -kv[1])[:12]
            charts.append(f'<div class="card"><h3>{escape(c)}</h3>{bars(c, top)}</div>')
    out.append("</table>")
    if charts:
        out.append('<h3>Most frequent values</h3><div class="cards">' + "".join(charts) + "</div>")
    out.append("</section>")
    return out


def _version_changes(runs: Sequence[RunRecord]) -> dict[str, str]:
    """Run id -> the suite version before it, for runs whose suite id was last run at another
    version (a rule edit: the baseline goes on across it, the report says where it changed)."""
    last: dict[str, str] = {}
    out = {}
    for r in runs:
        if r.suite is None:
            continue
        sid = r.suite.split(".")[0]
        if sid in last and last[sid] != r.suite:
            out[r.run_id] = last[sid]
        last[sid] = r.suite
    return out


def _newest(sets: Sequence[Dataset], source: str) -> tuple[Dataset, list[Run]] | None:
    """The dataset whose newest run of ``source`` is the newest of all, with those runs."""
    found = [(ds, [r for r in ds.runs if r.record.source == source]) for ds in sets]
    found = [(ds, runs) for ds, runs in found if runs]
    if not found:
        return None
    return max(found, key=lambda f: (f[1][-1].record.run_time, f[1][-1].record.run_id))


def _runs_table(runs: Sequence[RunRecord]) -> list[str]:
    """Every quality run, newest first; a failed run says it published nothing."""
    out = [
        '<section id="runs"><h2>Runs</h2><table><tr><th>run</th><th>time</th><th>suite</th>'
        "<th>status</th><th>input</th><th>valid</th><th>quarantined</th></tr>"
    ]
    changed = _version_changes(runs)
    for r in reversed(runs):
        suite = escape(r.suite or "-")
        if r.run_id in changed:
            before = escape(changed[r.run_id])
            suite = (
                f'<span class="version-change" data-version-change="{before}">{suite} '
                f"(was {before})</span>"
            )
        said = escape(r.status) + (", not published" if r.status == "failed" else "")
        out.append(
            f'<tr data-run="{escape(r.run_id)}"><td>{escape(r.run_id)}</td>'
            f"<td>{r.run_time:%Y-%m-%d %H:%M:%S}</td><td>{suite}</td>"
            f'<td class="status-{escape(r.status)}" data-status="{escape(r.status)}">{said}</td>'
            + "".join(_td(r.value("rows", "run", n), f'data-metric="{n}"') for n in ROWS[:3])
            + "</tr>"
        )
    out.append("</table></section>")
    return out


def render_report(records: Sequence[RunRecord], title: str = "Data quality report") -> str:
    """The report's HTML for ``records`` (any order; shown oldest to newest).

    >>> from quality_py.history.records import Metric
    >>> run = RunRecord("r1", datetime(2026, 1, 2), "quality_run", "1.1", "failed", {},
    ...                 (Metric("rows", "run", "input_rows", 7.0),))
    >>> "not published" in render_report([run])
    True
    """
    ordered = sorted(records, key=lambda r: (r.run_time, r.run_id))
    runs = [r for r in ordered if r.source == "quality_run"]
    verifications = [r for r in ordered if r.source == "verify"]
    profiles = [r for r in ordered if r.source == "profile"]
    sets = datasets(ordered)
    now = datetime.now(timezone.utc)
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{len(runs)} quality runs, {len(verifications)} verifications, '
        f"{len(profiles)} profiles; generated {now:%Y-%m-%d %H:%M} UTC</p>",
    ]
    quality = _newest(sets, "quality_run")
    if quality is not None:
        ds, its = quality
        body += _latest_run(ds, its)
        body += _trends(ds, its, "trends", f"Trends over runs of {ds.label}")
        body += _runs_table(runs)
    checked = _newest(sets, "verify")
    if checked is not None:
        ds, its = checked
        body += _verification(its[-1].record)
        body += _trends(ds, its, "verification-trends", "Verification metrics over runs")
    if profiles:
        body += _profile(profiles[-1])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}{_EXTRA_CSS}</style></head><body><main>"
        + "\n".join(body)
        + "</main></body></html>\n"
    )


def write_report(
    records: Sequence[RunRecord], out: str | Path, title: str = "Data quality report"
) -> Path:
    """Write :func:`render_report` to ``out`` (atomically: a reader never sees half a page).

    >>> import tempfile
    >>> from quality_py.history.records import Metric
    >>> run = RunRecord("r1", datetime(2026, 1, 2), "quality_run", "1.1", "success", {},
    ...                 (Metric("rows", "run", "input_rows", 7.0),))
    >>> page = write_report([run], f"{tempfile.mkdtemp()}/report.html").read_text()
    >>> '<td class="n" data-metric="input_rows">7</td>' in page
    True
    """
    import os

    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(render_report(records, title), encoding="utf-8")
    os.replace(tmp, path)
    return path
