"""The HTML report of a metrics history: one self-contained file (inline CSS and SVG, no
script, nothing fetched), readable in any browser.

Sections: the latest quality run (counts, rules with their passed / failed / soft / disabled
counts and actions, failed checks and anomalies, a few failing rows' keys), trends per run of
the row counts and of each rule's failing share with anomalies marked, the latest verification
and its metrics' trends, and the latest profile with the value counts of its categorical
columns. Numbers carry ``data-*`` attributes so that tests read them from the page.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from quality_py.history.records import RunRecord
from quality_py.report.charts import _fmt, bars, trend

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2733}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d5dbe3}
h3{font-size:14px;margin:12px 0 4px} .muted{color:#5d6b7a}
table{border-collapse:collapse;margin:6px 0 12px}
th,td{padding:3px 10px;border-bottom:1px solid #e6eaef}
th{text-align:left;background:#f3f5f8} td.n{text-align:right;font-variant-numeric:tabular-nums}
.status-success{color:#17803d;font-weight:600}
.status-failed,.status-error{color:#c0262d;font-weight:600}
.status-warning{color:#b26b00;font-weight:600} .grid{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid #e0e5eb;border-radius:6px;padding:6px 8px}
svg .axis{stroke:#8a96a3} svg .line{fill:none;stroke:#2f6db5;stroke-width:2}
svg .point{fill:#2f6db5} svg .point.anomaly{fill:#c0262d;stroke:#fff;stroke-width:1.5}
svg .tick,svg .run{font-size:10px;fill:#5d6b7a} svg .bar{fill:#5b8fd0}
ul.problems li{color:#8a1c21} code{background:#f3f5f8;padding:0 3px}
"""


def _td(value: float | None, attr: str) -> str:
    shown = "-" if value is None else _fmt(value)
    return f'<td class="n" {attr}>{shown}</td>'


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _metric(record: RunRecord, kind: str, entity: str, name: str) -> float | None:
    return record.value(kind, entity, name)


def _anomalous(records: Sequence[RunRecord]) -> dict[str, set[str]]:
    """The runs each judged metric (``kind.entity.name``) was found anomalous in."""
    out: dict[str, set[str]] = {}
    for r in records:
        for m in r.metrics:
            if m.kind == "anomaly" and m.status == "failed":
                out.setdefault(m.name, set()).add(r.run_id)
    return out


def _marks(anomalies: dict[str, set[str]], kind: str, entity: str, name: str) -> set[str]:
    """Runs to mark on the trend of ``(kind, entity, name)`` (a rule id without its version
    matches every version)."""
    runs = set(anomalies.get(f"{kind}.{entity}.{name}", set()))
    if kind == "rule":
        runs |= anomalies.get(f"rule.{entity.split('.')[0]}.{name}", set())
    return runs


def _sample_keys(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A sample row's key columns (``row`` samples hold them under ``keys``; older ``keys``
    samples are the keys themselves)."""
    return dict(data.get("keys") or {}) if name == "row" else data


def _top_values(run: RunRecord) -> list[str]:
    """The latest run's top failing values of each rule (none when it kept none)."""
    tops = [m for m in run.metrics if m.kind == "top" and m.value is not None]
    if not tops:
        return []
    out = [
        "<h3>Top failing values</h3>",
        '<table class="top-values"><tr><th>rule</th><th>column</th><th>value</th>'
        "<th>failing rows</th></tr>",
    ]
    for m in sorted(tops, key=lambda m: (m.entity, int(m.name) if m.name.isdigit() else 0)):
        data = json.loads(m.message or "{}")
        value = data.get("value")
        shown = '<span class="muted">null</span>' if value is None else escape(str(value))
        out.append(
            f'<tr data-top="{escape(m.entity)}"><td>{escape(m.entity)}</td>'
            f"<td>{escape(str(data.get('column')))}</td><td data-value>{shown}</td>"
            f'<td class="n" data-rows>{int(m.value or 0)}</td></tr>'
        )
    out.append("</table>")
    return out


def _latest_run(run: RunRecord) -> list[str]:
    status = escape(run.status)
    out = [
        f'<section id="latest-run" data-run-id="{escape(run.run_id)}">',
        f"<h2>Latest quality run: <code>{escape(run.run_id)}</code> "
        f'<span class="status-{status}" data-status>{status}</span></h2>',
        f'<p class="muted">suite {escape(run.suite or "-")}, '
        f"{run.run_time:%Y-%m-%d %H:%M:%S} UTC"
        + "".join(f", {escape(k)}={escape(v)}" for k, v in run.tags.items())
        + "</p>",
        "<table><tr><th>input</th><th>valid</th><th>quarantined</th><th>dropped</th></tr><tr>",
    ]
    for name in ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows"):
        out.append(_td(_metric(run, "rows", "run", name), f'data-metric="{name}"'))
    out.append("</tr></table>")
    rules = sorted(
        {m.entity: m.group for m in run.metrics if m.kind == "rule"}.items(),
        key=lambda kv: [int(p) for p in kv[0].split(".") if p.isdigit()],
    )
    if rules:
        out.append(
            "<table><tr><th>rule set</th><th>rule</th><th>action</th><th>passed</th>"
            "<th>failed</th><th>soft</th><th>disabled</th><th>failing share</th>"
            "<th>description</th></tr>"
        )
        for entity, group in rules:
            info = next((m for m in run.metrics if m.key == ("rule", entity, "action")), None)
            cells = [
                _td(_metric(run, "rule", entity, n), f'data-count="{n}"')
                for n in ("passed", "failed", "soft_failed", "disabled")
            ]
            share = _metric(run, "rule", entity, "failed_share")
            out.append(
                f'<tr data-rule="{escape(entity)}"><td>{escape(group or "")}</td>'
                f"<td>{escape(entity)}</td><td>{escape((info and info.status) or '')}</td>"
                + "".join(cells)
                + f'<td class="n" data-count="failed_share">{_share(share)}</td>'
                f"<td>{escape((info and info.message) or '')}</td></tr>"
            )
        out.append("</table>")
    out += _top_values(run)
    problems = [
        m.message or f"{m.entity}: {m.name}"
        for m in run.metrics
        if m.status == "failed" and m.kind in ("check", "anomaly", "sql", "tolerance")
    ]
    problems += [  # not a problem: said apart from the failures
        f"not judged yet: {m.message}"
        for m in run.metrics
        if m.kind == "anomaly" and m.status == "not_judged"
    ]
    if run.message and run.status == "failed" and not problems:
        problems.append(run.message)
    if problems:
        out.append('<h3>Failed checks, anomalies and warnings</h3><ul class="problems">')
        out += [f"<li>{escape(p)}</li>" for p in problems]
        out.append("</ul>")
    samples = [m for m in run.metrics if m.kind == "sample"]
    if samples:
        out.append("<h3>Sample failing rows (keys)</h3><table>")
        keys = [_sample_keys(m.name, json.loads(m.message or "{}")) for m in samples]
        columns = list(keys[0]) if keys else []
        out.append("<tr>" + "".join(f"<th>{escape(c)}</th>" for c in columns) + "</tr>")
        for row in keys:
            out.append(
                '<tr class="sample">'
                + "".join(f"<td>{escape(str(row.get(c)))}</td>" for c in columns)
                + "</tr>"
            )
        out.append("</table>")
    out.append("</section>")
    return out


def _trends(runs: Sequence[RunRecord], anomalies: dict[str, set[str]]) -> list[str]:
    out = ['<section id="trends"><h2>Trends over runs</h2>', '<div class="grid">']
    keys = [("rows", "run", n) for n in ("input_rows", "valid_rows", "quarantined_rows")]
    rules = sorted({m.entity for r in runs for m in r.metrics if m.kind == "rule"})
    # a rule that never failed a row gets a line, not a chart
    failing = {e for e in rules for r in runs if (r.value("rule", e, "failed_share") or 0) > 0} | {
        e for e in rules if _marks(anomalies, "rule", e, "failed_share")
    }
    keys += [("rule", e, "failed_share") for e in rules if e in failing]
    keys += sorted(
        {
            m.key
            for r in runs
            for m in r.metrics
            if m.kind in ("metric", "sql") and m.value is not None
        }
    )
    for kind, entity, name in keys:
        points = [(r.run_id, r.value(kind, entity, name)) for r in runs]
        if all(v is None for _, v in points):
            continue
        marks = _marks(anomalies, kind, entity, name)
        title = f"rule {entity} failing share" if kind == "rule" else f"{entity} {name}"
        if kind == "rows":
            title = name.replace("_", " ")
        out.append(
            f'<div class="card"><h3>{escape(title)}</h3>'
            + trend(f"{kind}.{entity}.{name}", points, marks)
            + "</div>"
        )
    out.append("</div>")
    clean = [e for e in rules if e not in failing]
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
                f"<td>{escape(m.name)}</td>{_td(m.value, 'data-metric')}"
                f'<td class="status-{escape(m.status or "")}">{escape(m.status or "")}</td></tr>'
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
        out.append(
            f'<tr data-column="{escape(c)}"><td>{escape(c)}</td>'
            f"<td>{escape(kind or '')}{' (' + escape(inferred) + ')' if inferred else ''}</td>"
            f'<td class="n" data-stat="completeness">'
            f"{_share(run.value('profile', c, 'completeness'))}</td>"
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
        out.append('<h3>Most frequent values</h3><div class="grid">' + "".join(charts) + "</div>")
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


def render_report(records: Sequence[RunRecord], title: str = "Data quality report") -> str:
    """The report's HTML for ``records`` (any order; shown oldest to newest)."""
    ordered = sorted(records, key=lambda r: (r.run_time, r.run_id))
    runs = [r for r in ordered if r.source == "quality_run"]
    verifications = [r for r in ordered if r.source == "verify"]
    profiles = [r for r in ordered if r.source == "profile"]
    anomalies = _anomalous(ordered)
    now = datetime.now(timezone.utc)
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{len(runs)} quality runs, {len(verifications)} verifications, '
        f"{len(profiles)} profiles; generated {now:%Y-%m-%d %H:%M} UTC</p>",
    ]
    if runs:
        body += _latest_run(runs[-1])
        body += _trends(runs, anomalies)
        body.append(
            '<section id="runs"><h2>Runs</h2><table><tr><th>run</th><th>time</th>'
            "<th>suite</th><th>status</th><th>input</th><th>valid</th><th>quarantined</th></tr>"
        )
        changed = _version_changes(runs)
        for r in reversed(runs):
            suite = escape(r.suite or "-")
            if r.run_id in changed:
                before = escape(changed[r.run_id])
                suite = (
                    f'<span class="version-change" data-version-change="{before}">{suite} '
                    f"(was {before})</span>"
                )
            body.append(
                f'<tr data-run="{escape(r.run_id)}"><td>{escape(r.run_id)}</td>'
                f"<td>{r.run_time:%Y-%m-%d %H:%M:%S}</td><td>{suite}</td>"
                f'<td class="status-{escape(r.status)}">{escape(r.status)}</td>'
                + "".join(
                    _td(r.value("rows", "run", n), f'data-metric="{n}"')
                    for n in ("input_rows", "valid_rows", "quarantined_rows")
                )
                + "</tr>"
            )
        body.append("</table></section>")
    if verifications:
        body += _verification(verifications[-1])
        trends = _trends(verifications, anomalies)
        trends[0] = '<section id="verification-trends"><h2>Verification metrics over runs</h2>'
        body += trends
    if profiles:
        body += _profile(profiles[-1])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
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
