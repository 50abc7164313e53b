"""The report site's overview, dataset and run pages (rule and check pages:
:mod:`quality_py.report.detail_pages`). Every number carries a ``data-*`` attribute, so tests
read the page as a browser shows it and compare with the history.
"""

from __future__ import annotations

from html import escape

from quality_py.history.records import Metric
from quality_py.model.glossary import BY_KEY, define, percent
from quality_py.report.charts import Point, time_chart
from quality_py.report.layout import filters, num, page, share, status, table
from quality_py.report.site_model import (
    Changes,
    Dataset,
    Run,
    changes,
    check_key,
    pass_rate,
    rule_key,
    valid_share,
)

#: a run page lists its clean rules apart (not in the table) when it has more than this many
COMPACT = 100
ROWS = ("input_rows", "valid_rows", "quarantined_rows", "dropped_rows")


def link(root: str | None, href: str, inner: str) -> str:
    """``inner`` (HTML) linked to the page ``root + href``; plain where there is no site to
    link into (``root`` None: the one-page report).

    >>> link("../", "rules/r.html", "101.1"), link(None, "rules/r.html", "101.1")
    ('<a href="../rules/r.html">101.1</a>', '101.1')
    """
    return inner if root is None else f'<a href="{escape(root + href)}">{inner}</a>'


def _when(run: Run) -> str:
    ran = f"{run.record.run_time:%Y-%m-%d %H:%M:%S} UTC"
    data = run.record.tags.get("data_time")
    return (
        f'data of <span data-time="{escape(data)}">{escape(data)}</span>, ran {ran}'
        if data
        else ran
    )


def _changes_list(ds: Dataset, found: Changes, root: str) -> str:
    items = []
    for key in found.newly_failing_rules:
        items.append(
            f'<li data-change="rule-failing">rule <a href="{root}{ds.rule_page(key)}">'
            f"{escape(key)}</a> newly fails rows</li>"
        )
    for key in found.newly_passing_rules:
        items.append(
            f'<li data-change="rule-passing">rule <a href="{root}{ds.rule_page(key)}">'
            f"{escape(key)}</a> fails no row any more</li>"
        )
    for key in found.newly_failing_checks:
        text = key.split("|", 1)[1].replace("|", ": ")
        items.append(
            f'<li data-change="check-failing">check <a href="{root}{ds.check_page(key)}">'
            f"{escape(text)}</a> newly fails</li>"
        )
    for key, old, new in found.rule_versions:
        items.append(
            f'<li data-change="rule-version">rule <a href="{root}{ds.rule_page(key)}">'
            f"{escape(key)}</a> version {escape(old)} &rarr; {escape(new)}</li>"
        )
    if found.version:
        old, new = found.version
        items.append(
            f'<li data-change="version">suite version {escape(old)} &rarr; {escape(new)}</li>'
        )
    if not items:
        return '<p class="muted" data-change="none">nothing changed since the previous run</p>'
    return '<ul class="changes">' + "".join(items) + "</ul>"


def _valid_card(run: Run) -> str:
    share = valid_share(run)
    if share is None:
        return ""
    return (
        f'<div class="card"><div class="muted" title="{escape(define("valid_share"))}">'
        f'valid share</div><div class="big" data-valid-share="{share!r}">{percent(share)}'
        "</div></div>"
    )


def _not_published_note(latest: Run, shown: Run | None) -> str:
    """Says that the latest run failed and published nothing, and whose figures are shown."""
    if latest.record.status != "failed":
        return ""
    since = (
        f'the figures below are those of run <a href="{shown.page}">'
        f"{escape(shown.record.run_id)}</a>, the latest published"
        if shown is not None
        else "no run of this dataset has published yet"
    )
    return (
        '<p class="status-failed" data-not-published>the latest run failed: nothing was '
        f"published; {since}</p>"
    )


def overview(sets: list[Dataset], title: str, generated: str) -> str:
    """The site's front page: every dataset's latest status, pass-rate trend, open anomalies
    and what changed since its previous run."""
    body = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="muted">{len(sets)} datasets, {sum(len(d.runs) for d in sets)} runs; '
        f"generated {escape(generated)}</p>",
    ]
    for ds in sets:
        latest = ds.latest
        previous = ds.runs[-2] if len(ds.runs) > 1 else None
        anomalies = [
            m for m in latest.record.metrics if m.kind == "anomaly" and m.status == "failed"
        ]
        # a failed run published nothing: the dataset's figures are its latest published run's
        shown = next((r for r in reversed(ds.runs) if r.record.status != "failed"), None)
        rate = pass_rate(shown) if shown is not None else None
        points = [Point(r.when, pass_rate(r), r.record.run_id, r.page, ran=r.ran) for r in ds.runs]
        body += [
            f'<section class="dataset" data-dataset="{escape(ds.label)}">',
            f'<h2><a href="datasets/{ds.slug}.html">{escape(ds.label)}</a> '
            f'<span class="status-{escape(latest.record.status)}" data-status>'
            f"{escape(latest.record.status)}</span></h2>",
            f'<p class="muted">latest run <a href="{latest.page}">'
            f"{escape(latest.record.run_id)}</a>, {_when(latest)}; suite "
            f"{escape(latest.record.suite or '-')}; {len(ds.runs)} runs</p>",
            _not_published_note(latest, shown),
            '<div class="cards"><div class="card">'
            f'<div class="muted" title="{escape(define("pass_rate"))}">pass rate</div>'
            f'<div class="big" data-pass-rate="{rate!r}">'
            f"{'-' if rate is None else percent(rate)}</div></div>"
            + (_valid_card(shown) if shown is not None else "")
            + f'<div class="card"><div class="muted">open anomalies</div>'
            f'<div class="big" data-open-anomalies>{len(anomalies)}</div></div>'
            f'<div class="card">{time_chart(f"pass-rate.{ds.slug}", points, width=420, height=120)}'
            "</div></div>",
            "<h3>Since the previous run</h3>",
            _changes_list(ds, changes(previous, latest), ""),
        ]
        body += [f"<p>anomaly: {escape(m.message or m.entity)}</p>" for m in anomalies]
        body.append("</section>")
    return page(title, body, [(title, None)], "")


def dataset_page(ds: Dataset, title: str, definitions: dict[str, str]) -> str:
    """A dataset: its rules and checks (latest status, sortable and filterable) and its runs."""
    latest = ds.latest
    body = [f"<h1>{escape(ds.label)}</h1>", _rows_chart(ds)]
    rules = _rule_rows(ds, latest, "../", definitions)
    if rules:
        body += _rules_section(rules)
    checks = _check_rows(ds, latest, "../")
    if checks:
        body += _checks_section("Checks", "message", checks)
    runs = [
        f'<tr data-run="{escape(r.record.run_id)}" data-status="{escape(r.record.status)}">'
        f'<td><a href="../{r.page}">{escape(r.record.run_id)}</a></td>'
        f'<td data-sort="{r.record.run_time.isoformat()}">{_when(r)}</td>'
        f"<td>{escape(r.record.suite or '-')}</td>{status(r.record.status)}"
        + "".join(num(r.value("rows", "run", n), f'data-metric="{n}"') for n in ROWS[:3])
        + "</tr>"
        for r in reversed(ds.runs)
    ]
    body += [
        "<h2>Runs</h2>",
        filters("runs", ["success", "warning", "failed"], len(runs)),
        table(
            "runs",
            [
                ("run", "text"),
                ("time", "text"),
                ("suite", "text"),
                ("status", "text"),
                ("input", "number"),
                ("valid", "number"),
                ("quarantined", "number"),
            ],
            runs,
        ),
    ]
    return page(ds.label, body, [(title, "index.html"), (ds.label, None)], "../")


def _rules_section(rules: list[str]) -> list[str]:
    """The heading, filters and table of rule rows (:func:`_rule_rows`)."""
    headings = [("rule", "text"), ("rule set", "text"), ("action", "text"), ("status", "text"),
                ("failing rows", "number"), ("failing share", "number"),
                ("description", "text")]  # fmt: skip
    return [
        "<h2>Rules</h2>",
        filters("rules", ["failing", "clean"], len(rules)),
        table("rules", headings, rules),
    ]


def _checks_section(heading: str, message: str, checks: list[str]) -> list[str]:
    """The heading, filters and table of check rows (:func:`_check_rows`)."""
    headings = [("kind", "text"), ("check", "text"), ("value", "number"), ("status", "text"),
                (message, "text")]  # fmt: skip
    return [
        f"<h2>{escape(heading)}</h2>",
        filters("checks", ["passed", "failed", "not_judged"], len(checks)),
        table("checks", headings, checks),
    ]


def _rows_chart(ds: Dataset) -> str:
    charts = []
    for name in ROWS[:3]:
        points = [
            Point(r.when, r.value("rows", "run", name), r.record.run_id, "../" + r.page, ran=r.ran)
            for r in ds.runs
        ]
        if any(p.value is not None for p in points):
            charts.append(
                f'<div class="card"><h3>{name.replace("_", " ")}</h3>'
                f"{time_chart(f'rows.run.{name}', points, width=400, height=150)}</div>"
            )
    return '<div class="cards">' + "".join(charts) + "</div>" if charts else ""


def _name_tag(named: Metric | None) -> str:
    """A rule's name beside its id, when it has one."""
    if named is None or not named.message:
        return ""
    return f' <span class="muted" data-name>{escape(named.message)}</span>'


def _rule_rows(
    ds: Dataset, run: Run, root: str | None, definitions: dict[str, str], compact: bool = False
) -> list[str]:
    """A table row per rule; ``compact``: only the failing rules' when there are more than
    :data:`COMPACT` clean ones (those are listed apart)."""
    out = []
    entities = run.rules()
    clean = sum(1 for e in entities if not (run.failing(e) or 0) > 0)
    for entity in entities:
        info = run.metrics.get(("rule", entity, "action"))
        named = run.metrics.get(("rule", entity, "name"))
        failed = run.failing(entity)
        state = "failing" if (failed or 0) > 0 else "clean"
        if compact and clean > COMPACT and state == "clean":
            continue
        key = rule_key(entity)
        description = (info and info.message) or definitions.get(key, "")
        out.append(
            f'<tr data-rule="{escape(entity)}" data-status="{state}">'
            f'<td data-sort="{key.zfill(12)}">{link(root, ds.rule_page(key), escape(entity))}'
            f"{_name_tag(named)}</td>"
            f"<td>{escape((info and info.group) or '')}</td>"
            f"<td>{escape((info and info.status) or '')}</td>{status(state)}"
            + num(failed, 'data-count="failing"')
            + share(run.value("rule", entity, "failed_share"), 'data-count="failed_share"')
            + f"<td>{escape(description)}</td></tr>"
        )
    return out


def _check_rows(ds: Dataset, run: Run, root: str | None) -> list[str]:
    out = []
    for m in run.checks():
        key = check_key(m)
        text = f"{m.entity}: {m.name}" if m.kind in ("check", "tolerance") else m.entity
        out.append(
            f'<tr data-check="{escape(key)}" data-status="{escape(m.status or "")}">'
            f"<td>{escape(m.kind)}</td>"
            f"<td>{link(root, ds.check_page(key), escape(text))}</td>"
            + num(m.value, 'data-value=""')
            + status(m.status)
            + f"<td>{escape(m.message or '')}</td></tr>"
        )
    return out


def run_page(ds: Dataset, run: Run, before: Run | None, title: str) -> str:
    """One run: inputs, outputs and counts that add up, every rule and check, anomalies with
    their baseline, the suite version, the time taken and sample failing rows."""
    rec = run.record
    rows = {n: run.value("rows", "run", n) for n in ROWS}
    body = [
        f'<h1>Run <code>{escape(rec.run_id)}</code> <span class="status-{escape(rec.status)}" '
        f"data-status>{escape(rec.status)}</span></h1>",
        f'<p class="muted">{_when(run)}; {escape(rec.source.replace("_", " "))} of suite '
        f"<span data-suite>{escape(rec.suite or '-')}</span>"
        + "".join(f"; {escape(k)}={escape(v)}" for k, v in rec.tags.items())
        + "</p>",
    ]
    failed = rec.status == "failed"
    if failed:
        body.append(
            '<p class="status-failed" data-not-published>not published: this run changed none '
            "of its outputs; the counts below are what it would have written</p>"
        )
    if rec.message:
        body.append(f"<p data-message>{escape(rec.message)}</p>")
    outputs = [m for m in rec.metrics if m.kind == "output"]
    if outputs:
        verb = "would have written " if failed else "wrote "
        body.append(f"<p>{verb}" + "; ".join(
            f'{escape(m.entity)} to <code data-output="{escape(m.entity)}">'
            f"{escape(m.message or '')}</code>" for m in outputs) + "</p>")  # fmt: skip
    if rows["input_rows"] is not None:
        body.append(_counts(rows))
    timing = [m for m in rec.metrics if m.kind == "timing"]
    if timing:
        body.append(
            "<p>took "
            + ", ".join(
                f'{escape(m.name.replace("_", " "))} <span data-timing="{escape(m.name)}">'
                f"{m.value if m.value is not None else '-'}</span> s"
                for m in timing
            )
            + "</p>"
        )
    body += [
        "<h2>What changed since the previous run</h2>",
        _changes_list(ds, changes(before, run), "../"),
    ]
    rules = _rule_rows(ds, run, "../", {}, compact=True)
    clean = [e for e in run.rules() if not (run.failing(e) or 0) > 0]
    if len(clean) > COMPACT:  # listed, not tabled: a page per run stays small at 1,000 rules
        body.append(
            f'<p class="muted" id="clean-rules" data-clean="{len(clean)}">{len(clean)} rules '
            "failed no row: "
            + ", ".join(f'<a href="../{ds.rule_page(rule_key(e))}">{escape(e)}</a>' for e in clean)
            + "</p>"
        )
    if rules:
        body += _rules_section(rules)
    checks = _check_rows(ds, run, "../")
    if checks:
        body += _checks_section("Checks and anomalies", "message (bound, baseline)", checks)
    body.append(top_values_table(ds, run, "../"))
    body.append(sample_table(ds, run.samples(), None, "../"))
    crumbs = [(title, "index.html"), (ds.label, f"datasets/{ds.slug}.html"), (rec.run_id, None)]
    return page(f"{ds.label}: run {rec.run_id}", body, crumbs, "../")


def _counts(rows: dict[str, float | None]) -> str:
    """The row counts, and whether they add up: every input row is valid or dropped."""
    parts = "".join(num(rows[n], f'data-metric="{n}"') for n in ROWS)
    total, valid, dropped = rows["input_rows"], rows["valid_rows"], rows["dropped_rows"]
    adds = valid is not None and dropped is not None and total == valid + dropped
    note = (
        '<p class="muted" data-adds-up="true">every input row is valid or dropped</p>'
        if adds
        else '<p class="status-failed" data-adds-up="false">the counts do not add up</p>'
    )
    head = "".join(
        f'<th title="{escape(define(n))}">{escape(BY_KEY[n].name)}</th>'
        for n in (*ROWS, "passing_rows", "pass_rate", "valid_share")
    )
    passing = None if total is None or rows["quarantined_rows"] is None else (
        total - rows["quarantined_rows"]
    )  # fmt: skip
    rates = "".join(
        f'<td class="n" data-share="{k}">{_percent(v, total)}</td>'
        for k, v in (("pass_rate", passing), ("valid_share", valid))
    )
    passing_cell = num(passing, 'data-metric="passing_rows"')
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody><tr>{parts}{passing_cell}{rates}</tr>"
        f"</tbody></table>{note}"
    )


def _percent(part: float | None, whole: float | None) -> str:
    return "-" if part is None or not whole else percent(part / whole)


def top_values_table(ds: Dataset, run: Run, root: str | None, only: str | None = None) -> str:
    """The run's most frequent failing values of each rule (``only``: one rule's), with their
    failing rows and share of the rule's failing rows; empty when the run kept none."""
    found = run.top_values()
    if only is not None:
        found = {e: v for e, v in found.items() if rule_key(e) == only}
    if not found:
        return ""
    out = [
        "<h2>Top failing values</h2>",
        '<p class="muted">the most frequent values, among the rows a rule failed, of each column '
        "it reads (counted over every failing row; exact below about 700 distinct values a "
        "rule)</p>",
        '<table class="top-values"><thead><tr><th>rule</th><th>column</th><th>value</th>'
        "<th>failing rows</th><th>of the rule's failing rows</th></tr></thead><tbody>",
    ]
    for entity, values in found.items():
        failing = run.failing(entity)
        linked = link(root, ds.rule_page(rule_key(entity)), escape(entity))
        for column, value, rows in values:
            shown = '<span class="muted">null</span>' if value is None else escape(value)
            share = percent(rows / failing) if failing else "-"
            out.append(
                f'<tr data-top="{escape(entity)}"><td>{linked}</td><td>{escape(column)}</td>'
                f'<td data-value>{shown}</td><td class="n" data-rows>{int(rows)}</td>'
                f'<td class="n">{share}</td></tr>'
            )
    out.append("</tbody></table>")
    return "".join(out)


#: A column a sample row did not capture (its failed rules do not read it)
NOT_CAPTURED = object()


def _cell(value: object) -> str:
    """A sample row's cell: its value, ``null`` for a captured null, and a dash for a column
    the row did not capture (never shown as null: the data may well hold a value there)."""
    if value is NOT_CAPTURED:
        return (
            '<td class="not-captured" data-not-captured title="not captured: the rules this '
            'row failed do not read this column">&ndash;</td>'
        )
    if value is None:
        return "<td><span class=muted>null</span></td>"
    return f"<td>{escape(str(value))}</td>"


def sample_table(
    ds: Dataset,
    samples: list[dict[str, object]],
    columns: tuple[str, ...] | None,
    root: str | None,
) -> str:
    """Sample failing rows: key columns, the values their failed rules read (``columns``: only
    those), and every rule each row failed, linked."""
    if not samples:
        return ""
    keys = list(dict.fromkeys(k for s in samples for k in s["keys"]))  # type: ignore[attr-defined]
    values = [  # a key column read by a rule is shown once, among the keys
        c
        for c in dict.fromkeys(k for s in samples for k in s["values"])  # type: ignore[attr-defined]
        if c not in keys
    ]
    if columns is not None:
        values = [c for c in values if c in columns]
    runs = any("run" in s for s in samples)  # a rule's page: rows of several runs
    names = [*(["run"] if runs else []), *keys, *values]
    head = "".join(f"<th>{escape(c)}</th>" for c in names) + "<th>failed rules</th>"
    out = [
        "<h2>Sample failing rows</h2>",
        '<p class="muted" data-sampling>Rows are chosen by a hash of the run id and the row: '
        "spread over the whole of the failing rows, each failing rule given its share, and the "
        "same rows when the run is repeated. A row shows its key columns and the columns its "
        "failed rules read; &ndash; marks a column it did not capture (not a null).</p>",
        f'<table class="samples"><thead><tr>{head}</tr></thead><tbody>',
    ]
    for s in samples:
        captured: dict[str, object] = {**s["values"], **s["keys"]}  # type: ignore[dict-item]
        cells = [captured.get(c, NOT_CAPTURED) for c in [*keys, *values]]
        failed = ", ".join(
            link(root, ds.rule_page(rule_key(e)), escape(e))
            for e in s["failed"]  # type: ignore[attr-defined]
        )
        run = s.get("run")
        run_cell = (
            f"<td>{link(root, run.page, escape(run.record.run_id))}</td>"  # type: ignore[attr-defined]
            if runs and run is not None
            else "<td></td>" * runs
        )
        out.append(
            '<tr class="sample">'
            + run_cell
            + "".join(_cell(v) for v in cells)
            + f"<td data-failed>{failed}</td></tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


__all__ = ["dataset_page", "overview", "run_page", "sample_table", "top_values_table"]
