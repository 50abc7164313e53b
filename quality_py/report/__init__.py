"""The HTML report of a metrics history: one self-contained page (``html``) or a static site
of pages per dataset, run, rule and check (``site``)."""

from __future__ import annotations

from quality_py.report.html import render_report, write_report
from quality_py.report.site import render_site, write_site

__all__ = ["render_report", "render_site", "write_report", "write_site"]
