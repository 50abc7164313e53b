"""How deep Java's regex matcher nests its calls on a pattern, bounded whatever the value.

Java matches a pattern by calling one node from the next, so a match attempt is as deep as the
nodes it has passed through. Most quantifiers loop (``[a-z]+``, ``a{3,5}``, and a group whose
text has one fixed shape, ``(ab)+``, ``(?:\\d{3})*``), but a repeated group holding a part that
varies (a quantifier whose least and most differ, ``?``, an alternative) is matched **one nested
call per repetition**: ``([a-z]+-)+`` on a value of 1,400 repetitions (about 3 KB) overflows a
1 MB thread stack (measured with Java 17), and Spark treats the ``StackOverflowError`` as fatal:
the executor exits (in local mode, the whole application). No value may decide that, so the
depth is bounded by the pattern alone: every such group needs a most, and the pattern's calls,
counted as below, stay within :data:`MAX_DEPTH`.

A unit is one call (about 130 bytes of stack, interpreted): a run of literal characters, a
character set with or without its quantifier and an anchor are 1; a group adds 2 (3 with
alternatives) to its deepest alternative; a group Java loops over adds 1 more; a group matched
call by call costs its most times (5 + its body), nested counts multiplying. 2,000 units (about
a quarter of a 1 MB stack at the rate measured) leave the rest to Spark's own frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

#: the most calls a match attempt may nest (see the module)
MAX_DEPTH = 2000


class _Part(Protocol):
    """What the depth reads of a parsed pattern's item (``regex_linear``'s nodes)."""

    @property
    def literal(self) -> bool: ...
    @property
    def least(self) -> int: ...
    @property
    def most(self) -> int | None: ...
    @property
    def branches(self) -> Sequence[Sequence[_Part]]: ...


def _fixed_shape(seq: Sequence[_Part]) -> bool:
    """Whether Java loops over a group of this body: no varying count and no alternative
    anywhere inside (Java's own test for its looping group matcher)."""
    for node in seq:
        if node.least != node.most or len(node.branches) > 1:
            return False
        if node.branches and not _fixed_shape(node.branches[0]):
            return False
    return True


def _group_depth(node: _Part) -> float:
    body = max(_sequence_depth(b) for b in node.branches)
    own = 2 + (1 if len(node.branches) > 1 else 0) + (1 if node.least == 0 else 0)
    if node.most == 1:
        return own + body
    if len(node.branches) == 1 and _fixed_shape(node.branches[0]):
        return own + 1 + body
    if node.most is None:
        return float("inf")
    return node.most * (5 + own + body)


def _sequence_depth(seq: Sequence[_Part]) -> float:
    """The calls a match of ``seq`` may nest (``inf`` past any bound)."""
    total = 0.0
    in_literal = False
    for node in seq:
        plain = node.literal and node.least == node.most == 1
        if node.branches:
            total += _group_depth(node)
        elif not (plain and in_literal):
            total += 1
        in_literal = plain
    return total


def depth_reason(branches: Sequence[Sequence[_Part]]) -> str | None:
    """Why a parsed pattern may nest too deep in Java's matcher, or None.

    >>> from quality_py.sql.allowed.regex_linear import parse_pattern
    >>> depth_reason(parse_pattern("^([a-z]+-){1,50}x$")) is None
    True
    >>> depth_reason(parse_pattern("([a-z]+-)+"))[:40]
    'a repeated group holding a part that var'
    >>> depth_reason(parse_pattern("(([a-z]+-){1,20};){1,20}"))[:45]
    "the pattern's repetitions nest about 3760 cal"
    """
    depth = max(_sequence_depth(b) for b in branches)
    if depth == float("inf"):
        return (
            "a repeated group holding a part that varies or an alternative (like ([a-z]+-)+ or "
            "(a|b)*) needs a most, like {1,50}: Java matches it one nested call per "
            "repetition, so a long value overflows the stack and kills Spark's executor"
        )
    if depth > MAX_DEPTH:
        return (
            f"the pattern's repetitions nest about {int(depth)} calls deep in Java's matcher, "
            f"over the {MAX_DEPTH} allowed (a repeated group holding a part that varies or an "
            "alternative costs one call per repetition, nested counts multiplying): lower "
            "their most"
        )
    return None
