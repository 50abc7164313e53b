"""The HTML report of a metrics history (one self-contained file)."""

from __future__ import annotations

from quality_py.report.html import render_report, write_report

__all__ = ["render_report", "write_report"]
