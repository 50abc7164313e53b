"""Documentation from rule text: doc comments, Markdown and a static HTML page."""

from __future__ import annotations

from quality_py.docs.comments import Docs, parse_docs, strip_docs
from quality_py.docs.render import to_html, to_markdown

__all__ = ["Docs", "parse_docs", "strip_docs", "to_html", "to_markdown"]
