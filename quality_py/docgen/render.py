"""Render a suite's documentation as Markdown or as one static HTML page."""

from __future__ import annotations

import html
from collections.abc import Sequence

from quality_py.docgen.changes import changes_html, changes_markdown
from quality_py.docgen.checks import DocCheck, SiteLinks
from quality_py.docgen.model import Entry, gather, suite_title
from quality_py.errors import item_text
from quality_py.model.changes import RuleChange
from quality_py.model.ids import INT_MAX
from quality_py.model.rules import RuleSuite
from quality_py.validation.report import ValidationReport

#: what a switched-off rule and a filter mean, said the same way in Markdown and HTML
OFF = "the rule checks no row; every row's result for it is DisabledRule"
FILTERED = "on other rows the rule is neither passed nor failed (DisabledRule)"
VARIABLES = "the rules below show the values given when this page was made"


def _link(kind: str, ident: object) -> str:
    return f"{kind}-{ident.id}-{ident.version}"  # type: ignore[attr-defined]


def _md_entry(e: Entry) -> list[str]:
    out = [f'### {e.title} <a id="{e.anchor}"></a>', ""]
    if e.findings:
        out += [f"> **{f.kind}**: {f.message}" for f in e.findings] + [""]
    if e.docs.description:
        out += [e.docs.description, ""]
    if e.owner or e.tags:
        out += [f"Owner: {e.owner or '-'}; tags: {', '.join(e.tags) or '-'}", ""]
    if not e.active:
        out += [f"**Switched off** (`active: false`): {OFF}", ""]
    if e.filter:
        out += [f"Applies only where `{e.filter}`: {FILTERED}", ""]
    if e.action:
        page = f" ([its history in the report]({e.page}))" if e.page else ""
        out += [f"Action if failed: **{e.action}**{page}", ""]
    if e.tolerance:
        out += [f"Tolerance: {e.tolerance}", ""]
    if e.docs.params:
        out += ["| Parameter | Description |", "|---|---|"]
        out += [f"| {k} | {v} |" for k, v in e.docs.params.items()] + [""]
    if e.docs.returns:
        out += [f"__Returns__: {e.docs.returns}", ""]
    out += ["```sql", e.sql, "```", ""]
    for label, names in (
        ("Lambdas used", e.lambdas_used),
        ("Library functions used", e.library_used),
        ("Spark functions used", e.spark_used),
    ):
        if names:
            out.append(f"- {label}: " + ", ".join(f"`{n}`" for n in names))
    if e.output is not None:
        oid, salience = e.output
        sal = "" if salience == INT_MAX else f", salience {salience}"
        out.append(f"- Triggers output [{oid.id} v{oid.version}](#{_link('output', oid)}){sal}")
    if e.called_by:
        out.append(
            "- Called by: "
            + ", ".join(f"[{k} {i.id} v{i.version}](#{_link(k, i)})" for k, i in e.called_by)
        )
    return [*out, ""]


def _md_checks(checks: Sequence[DocCheck], links: SiteLinks | None) -> list[str]:
    if not checks:
        return []
    out = ["## Checks", "", "| kind | name | what | level / action |", "|---|---|---|---|"]
    for c in checks:
        name = c.name.replace("|", "\\|")
        if links is not None and c.key is not None:
            name = f"[{name}]({links.check(c.key)})"
        detail = c.detail.replace("|", "\\|")
        out.append(f"| {c.kind} | {name} | `{detail}` | {c.level} |")
    return [*out, ""]


def to_markdown(
    suite: RuleSuite,
    report: ValidationReport | None = None,
    checks: Sequence[DocCheck] = (),
    links: SiteLinks | None = None,
    changes: tuple[Sequence[RuleChange], str] | None = None,
    variables: Sequence[str] = (),
) -> str:
    """The suite as Markdown: rules by rule set with their names, actions, filters and whether
    they are switched off, output expressions, lambdas, findings, and the ruleset's ``checks``;
    ``links``: the report site to link into; ``changes``: the rule changes since a previous
    version and that version's label; ``variables``: the ``${NAME}`` variables the file uses.

    >>> from quality_py import Id, Rule, RuleSet
    >>> md = to_markdown(RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
    ...     Rule(Id(9, 1), "/** positive amounts */ amount > 0")])]))
    >>> "positive amounts" in md and "amount > 0" in md
    True
    """
    parts = gather(suite, report, links)
    lines = [f"# {suite_title(suite)}", ""]
    if suite.description:
        lines += [suite.description, ""]
    lines += [
        f"{len(parts['rules'])} rules in {len(suite.rule_sets)} rule sets, "
        f"{len(parts['outputs'])} output expressions, {len(parts['lambdas'])} lambdas.",
        "",
    ]
    if variables:
        used = ", ".join(f"`${{{v}}}`" for v in variables)
        lines += [f"Variables used: {used} ({VARIABLES}).", ""]
    if report is not None:
        lines += [
            f"Validation: **{len(report.errors)} errors, {len(report.warnings)} warnings**.",
            "",
        ]
        lines += [
            f"- [{f.kind}](#{_link(f.item_kind, f.item_id)}) "
            f"{item_text(f.item_kind, f.item_id, report.name_of(f))}: {f.message}"
            for f in report.findings
            if f.item_id
        ]
        if report.notes:
            rules = sorted({f.item_id for f in report.notes if f.item_id}, key=lambda i: i.packed)
            lines.append(
                f"{len(rules)} rule(s) see more than one row (a shuffle of the input on a key "
                "set, or a join with a view): what each costs is written under it."
            )
        lines.append("")
    for section, title in (
        ("rules", "Rules"),
        ("outputs", "Output expressions"),
        ("lambdas", "Lambdas"),
    ):
        if parts[section]:
            lines += [f"## {title}", ""]
            for e in parts[section]:
                lines += _md_entry(e)
    lines += _md_checks(checks, links)
    if changes is not None:
        lines += changes_markdown(*changes)
    return "\n".join(lines).rstrip() + "\n"


_CSS = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
pre{background:#f4f4f4;padding:.6rem;overflow:auto}.finding{color:#a00}.warn{color:#a60}.note{color:#456}
nav a{margin-right:1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem}
input{width:100%;padding:.4rem;margin:.5rem 0}"""
_FILTER = """document.getElementById('q').addEventListener('input',function(e){
var q=e.target.value.toLowerCase();document.querySelectorAll('section.entry').forEach(
function(s){s.style.display=s.textContent.toLowerCase().indexOf(q)<0?'none':''})})"""


def _html_entry(e: Entry) -> str:
    esc = html.escape
    parts = [f'<section class="entry" id="{e.anchor}"><h3>{esc(e.title)}</h3>']
    for f in e.findings:
        css = "finding" if f.is_error else "note" if f.kind == "Cost" else "warn"
        parts.append(f'<p class="{css}"><b>{esc(f.kind)}</b>: {esc(f.message)}</p>')
    if e.docs.description:
        parts.append(f"<p>{esc(e.docs.description)}</p>")
    if e.owner or e.tags:
        parts.append(f"<p>Owner: {esc(e.owner or '-')}; tags: {esc(', '.join(e.tags) or '-')}</p>")
    if not e.active:
        parts.append(f'<p data-active="false"><b>Switched off</b> (active: false): {OFF}</p>')
    if e.filter:
        parts.append(
            f'<p data-filter="{esc(e.filter)}">Applies only where <code>{esc(e.filter)}</code>: '
            f"{FILTERED}</p>"
        )
    if e.action:
        page = f' (<a href="{esc(e.page)}">its history in the report</a>)' if e.page else ""
        parts.append(
            f'<p>Action if failed: <b data-action="{esc(e.action)}">{esc(e.action)}</b>{page}</p>'
        )
    if e.tolerance:
        parts.append(f"<p data-tolerance>Tolerance: {esc(e.tolerance)}</p>")
    if e.docs.params:
        rows = "".join(
            f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in e.docs.params.items()
        )
        parts.append(f"<table><tr><th>Parameter</th><th>Description</th></tr>{rows}</table>")
    if e.docs.returns:
        parts.append(f"<p><b>Returns</b>: {esc(e.docs.returns)}</p>")
    parts.append(f"<pre><code>{esc(e.sql)}</code></pre><ul>")
    for label, names in (
        ("Lambdas used", e.lambdas_used),
        ("Library functions used", e.library_used),
        ("Spark functions used", e.spark_used),
    ):
        if names:
            parts.append(f"<li>{label}: {esc(', '.join(names))}</li>")
    if e.output is not None:
        oid, salience = e.output
        sal = "" if salience == INT_MAX else f", salience {salience}"
        parts.append(
            f'<li>Triggers output <a href="#{_link("output", oid)}">{oid.id} '
            f"v{oid.version}</a>{sal}</li>"
        )
    if e.called_by:
        links = ", ".join(
            f'<a href="#{_link(k, i)}">{k} {i.id} v{i.version}</a>' for k, i in e.called_by
        )
        parts.append(f"<li>Called by: {links}</li>")
    return "".join(parts) + "</ul></section>"


def _html_checks(checks: Sequence[DocCheck], links: SiteLinks | None) -> list[str]:
    esc = html.escape
    rows = []
    for c in checks:
        name = esc(c.name)
        if links is not None and c.key is not None:
            name = f'<a href="{esc(links.check(c.key))}">{name}</a>'
        rows.append(
            f'<tr data-check-kind="{esc(c.kind)}"><td>{esc(c.kind)}</td><td>{name}</td>'
            f"<td><code>{esc(c.detail)}</code></td><td>{esc(c.level)}</td></tr>"
        )
    return (
        [
            '<h2 id="checks">Checks</h2><table><tr><th>kind</th><th>name</th><th>what</th>'
            "<th>level / action</th></tr>" + "".join(rows) + "</table>"
        ]
        if rows
        else []
    )


def to_html(
    suite: RuleSuite,
    report: ValidationReport | None = None,
    checks: Sequence[DocCheck] = (),
    links: SiteLinks | None = None,
    changes: tuple[Sequence[RuleChange], str] | None = None,
    variables: Sequence[str] = (),
) -> str:
    """One self-contained HTML page (no external assets) with a search box over the entries,
    the rules' actions and the ruleset's ``checks``; ``links``: the report site to link into.

    >>> from quality_py import Id, Rule, RuleSet
    >>> page = to_html(RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0")])]))
    >>> page.startswith("<!doctype html>"), "Rule suite 1 v1" in page
    (True, True)
    """
    parts = gather(suite, report, links)
    title = suite_title(suite)
    body = [f"<h1>{html.escape(title)}</h1>"]
    if suite.description:
        body.append(f"<p>{html.escape(suite.description)}</p>")
    if variables:
        used = ", ".join(f"<code>${{{html.escape(v)}}}</code>" for v in variables)
        body.append(
            f'<p data-variables="{len(variables)}">Variables used: {used} ({VARIABLES}).</p>'
        )
    if report is not None:
        body.append(
            f"<p>Validation: <b>{len(report.errors)} errors, {len(report.warnings)} "
            "warnings</b></p>"
        )
    body.append(
        '<nav><a href="#rules">Rules</a><a href="#outputs">Output expressions</a>'
        '<a href="#lambdas">Lambdas</a><a href="#checks">Checks</a></nav>'
        '<input id="q" placeholder="filter...">'
    )
    for section, name in (
        ("rules", "Rules"),
        ("outputs", "Output expressions"),
        ("lambdas", "Lambdas"),
    ):
        body.append(f'<h2 id="{section}">{name}</h2>')
        body += [_html_entry(e) for e in parts[section]]
    body += _html_checks(checks, links)
    if changes is not None:
        body += changes_html(*changes)
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{_CSS}</style></head><body>{''.join(body)}"
        f"<script>{_FILTER}</script></body></html>\n"
    )
