"""The "changes since" section of generated documentation: what a new version of a suite
changed, rule by rule (``docs --previous OLD``)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from quality_py.model.changes import RuleChange


def changes_markdown(changes: Sequence[RuleChange], previous: str) -> list[str]:
    """Markdown lines: one item per added, removed or edited rule (nothing when none).

    >>> from quality_py.model import Id, Rule
    >>> change = RuleChange((1, 2), "edited", Rule(Id(2, 1), "a > 0"), Rule(Id(2, 2), "a > 1"))
    >>> print("\\n".join(changes_markdown([change], "1.1")))
    ## Changes since suite 1.1
    <BLANKLINE>
    - rule 2: edited
      - expression: 'a > 0' -> 'a > 1'
      - version: 1 -> 2
    <BLANKLINE>
    """
    moved = [c for c in changes if c.kind != "same"]
    if not moved:
        return []
    lines = [f"## Changes since suite {previous}", ""]
    for c in moved:
        lines.append(f"- {c.label}: {c.kind}")
        lines += [f"  - {d}" for d in c.differences]
        if c.kind in ("added", "removed"):
            rule = c.new or c.old
            assert rule is not None
            lines.append(f"  - `{rule.expression}`")
    return [*lines, ""]


def changes_html(changes: Sequence[RuleChange], previous: str) -> list[str]:
    """The same as an HTML section."""
    moved = [c for c in changes if c.kind != "same"]
    if not moved:
        return []
    items = []
    for c in moved:
        rule = c.new or c.old
        assert rule is not None
        details = c.differences or ([rule.expression] if c.kind != "edited" else [])
        sub = "".join(f"<li><code>{html.escape(d)}</code></li>" for d in details)
        items.append(
            f'<li data-change="{c.kind}">{html.escape(c.label)}: {c.kind}<ul>{sub}</ul></li>'
        )
    return [
        f'<h2 id="changes">Changes since suite {html.escape(previous)}</h2>',
        "<ul>",
        *items,
        "</ul>",
    ]
