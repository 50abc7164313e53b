"""Where each rule's text stands in its YAML file, so that a problem found inside the text
(``line 1, col 8`` of the expression) is reported where the author's editor shows it
(``orders.yaml:14:27``), as YAML errors already are.

A value written on one line (plain or quoted, without escapes) and a literal block (``|``) map
exactly; any other form (a folded block, a value spread over lines, escapes) maps to where its
text begins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from quality_py.errors import Span
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite
from quality_py.validation.report import Finding


@dataclass(frozen=True)
class TextPlace:
    """Where one text value stands in a file: its first character's line and column (1-based),
    and how the value's own lines and columns map onto the file's."""

    origin: str
    line: int
    col: int
    #: True when every character of the value is the file's character at the mapped place
    exact: bool
    #: a literal block's indentation (its lines start on the line after ``line``), else None
    block_indent: int | None = None

    def at(self, span: Span | None) -> str:
        """``file:line:col`` of a place (``span``) inside the value.

        >>> place = TextPlace("orders.yaml", 7, 20, True)
        >>> place.at(Span(1, 9, 8, 9)), place.at(None)
        ('orders.yaml:7:28', 'orders.yaml:7:20')
        >>> TextPlace("orders.yaml", 9, 21, True, block_indent=10).at(Span(3, 5, 0, 1))
        'orders.yaml:12:15'
        """
        if span is None or not self.exact:
            return f"{self.origin}:{self.line}:{self.col}"
        if self.block_indent is not None:
            return f"{self.origin}:{self.line + span.line}:{self.block_indent + span.col}"
        if span.line == 1:
            return f"{self.origin}:{self.line}:{self.col + span.col - 1}"
        return f"{self.origin}:{self.line}:{self.col}"


def _place(node: ScalarNode, text: str, origin: str) -> TextPlace:
    start, end = node.start_mark, node.end_mark
    if node.style == "|":
        lines = text.split("\n")
        body = lines[start.line + 1] if start.line + 1 < len(lines) else ""
        indent = len(body) - len(body.lstrip(" "))
        return TextPlace(origin, start.line + 1, start.column + 1, True, indent)
    quote = 1 if node.style in ("'", '"') else 0
    raw = text[start.index + quote : end.index - quote]
    exact = start.line == end.line and raw == node.value
    return TextPlace(origin, start.line + 1, start.column + 1 + quote, exact)


def _field(node: Node, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    return next((v for k, v in node.value if getattr(k, "value", None) == key), None)


def _items(node: Node | None) -> list[Node]:
    return list(node.value) if isinstance(node, SequenceNode) else []


def text_places(
    root: Node, text: str, origin: str, suite: RuleSuite
) -> dict[tuple[str, Id, str], TextPlace]:
    """``{(item kind, id, "expression" | "filter"): place}`` of the suite's rules and lambdas
    as read from the composed YAML ``root`` (in the order the suite holds them)."""
    out: dict[tuple[str, Id, str], TextPlace] = {}
    nodes = [r for rs in _items(_field(root, "rule_sets")) for r in _items(_field(rs, "rules"))]
    rules = [r for _, r in suite.iter_rules()]
    for node, rule in zip(nodes, rules, strict=False):
        for key in ("expression", "filter"):
            value = _field(node, key)
            if isinstance(value, ScalarNode):
                out[("rule", rule.id, key)] = _place(value, text, origin)
    for node, lam in zip(_items(_field(root, "lambdas")), suite.lambdas, strict=False):
        value = _field(node, "expression")
        if isinstance(value, ScalarNode):
            out[("lambda", lam.id, "expression")] = _place(value, text, origin)
    return out


def finding_place(
    places: Mapping[tuple[str, Id, str], TextPlace], texts: Mapping[tuple[str, Id, str], str]
) -> Callable[[Finding], str | None]:
    """Where a finding stands in the file: the place of the text it quotes (``texts``: each
    place's value, to tell a rule's expression from its filter)."""

    def where(finding: Finding) -> str | None:
        if finding.item_id is None:
            return None
        for key in ("expression", "filter"):
            place = places.get((finding.item_kind, finding.item_id, key))
            text = texts.get((finding.item_kind, finding.item_id, key))
            if place is not None and (finding.source is None or finding.source == text):
                return place.at(finding.span if finding.source is not None else None)
        return None

    return where


__all__ = ["TextPlace", "finding_place", "text_places"]
