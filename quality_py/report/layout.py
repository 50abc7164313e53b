"""The frame every page of the report site shares: the style sheet, the one small inline script
(sorting and filtering of tables, no network) and the page skeleton with its breadcrumbs.

The script keeps a table's filter in the address's fragment (``#q=...&status=failed&sort=3d``):
a filtered view is a link, and a reload keeps it. It marks the body ``data-ready`` when it has
run, so tests know it ran without error.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from quality_py.model.glossary import status_word
from quality_py.report.charts import _fmt


def _asset(name: str) -> str:
    from importlib.resources import files

    return files("quality_py.report").joinpath(name).read_text(encoding="utf-8")


#: the style sheet and the script of every page (package files ``site.css`` and ``site.js``)
CSS = _asset("site.css")
SCRIPT = _asset("site.js")


def page(
    title: str, body: Sequence[str], crumbs: Sequence[tuple[str, str | None]], root: str
) -> str:
    """A whole page: ``crumbs`` are ``(text, href)`` from the overview down (href None: here);
    ``root`` is the way from this page to the site's root (``""`` or ``"../"``)."""
    trail = " / ".join(
        f'<a href="{escape(root + href)}">{escape(text)}</a>' if href else escape(text)
        for text, href in crumbs
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<header><nav class="crumbs">{trail}</nav></header><main>'
        + "\n".join(body)
        + f"</main><script>{SCRIPT}</script></body></html>\n"
    )


def num(value: float | None, attr: str = "") -> str:
    """A right-aligned number cell (``-`` when missing), sortable by its value."""
    shown = "-" if value is None else _fmt(value)
    key = "" if value is None else f' data-sort="{value!r}"'
    return f'<td class="n"{key} {attr}>{shown}</td>'


def share(value: float | None, attr: str = "") -> str:
    """A share as a percentage cell with four decimals of the fraction kept for sorting."""
    if value is None:
        return f'<td class="n" {attr}>-</td>'
    return f'<td class="n" data-sort="{value!r}" {attr}>{100 * value:.2f} %</td>'


def status(text: str | None) -> str:
    """A status cell, coloured by the stored status and said in words
    (:func:`~quality_py.model.glossary.status_word`).

    >>> status("not_judged")
    '<td class="status-not_judged">not judged yet</td>'
    """
    stored = escape(text or "-")
    return f'<td class="status-{stored}">{escape(status_word(text or "-"))}</td>'


def filters(table: str, statuses: Sequence[str], total: int) -> str:
    """The filter box and status choice of table ``table`` (ids), with the count shown."""
    options = "".join(
        f'<option value="{escape(s)}">{escape(status_word(s))}</option>' for s in statuses
    )
    return (
        f'<div class="filters"><input type="search" placeholder="filter by text" '
        f'data-filter="{table}" aria-label="filter"><select data-filter="{table}" '
        f'aria-label="status"><option value="">any status</option>{options}</select>'
        f'<span class="muted"><span data-count-for="{table}">{total}</span> of {total} shown; '
        "click a heading to sort</span></div>"
    )


def table(table_id: str, headings: Sequence[tuple[str, str]], rows: Sequence[str]) -> str:
    """A filterable, sortable table: ``headings`` are ``(text, "number" | "text")``."""
    head = "".join(f'<th data-type="{kind}">{escape(text)}</th>' for text, kind in headings)
    return (
        f'<table class="filtered" id="{table_id}"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )


__all__ = ["CSS", "SCRIPT", "filters", "num", "page", "share", "status", "table"]
