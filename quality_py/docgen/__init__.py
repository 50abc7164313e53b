"""Documentation from rule text: doc comments, Markdown and a static HTML page."""

from __future__ import annotations

from quality_py.docgen.render import to_html, to_markdown
from quality_py.sql.doc_comments import Docs, parse_docs, strip_docs

__all__ = ["Docs", "parse_docs", "strip_docs", "to_html", "to_markdown"]
