"""Size, nesting and token limits of rule text (the values; ``sql/allowed/scan.py`` checks them on
the raw text before sqlglot sees it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on one rule, lambda or output text."""

    max_chars: int = 4096
    max_depth: int = 32
    max_tokens: int = 2000
    #: syntax-tree nodes a text may grow to once its lambdas are inlined (a chain of lambdas
    #: that each call the previous twice doubles at every level)
    max_expanded_nodes: int = 50_000


#: Always applied by the parser, whatever the policy: beyond these sqlglot itself may fail.
HARD_LIMITS = Limits(max_chars=1_000_000, max_depth=40, max_tokens=200_000)


def strictest(a: Limits, b: Limits) -> Limits:
    """The smaller of each cap (one scan then checks a policy's and the parser's limits).

    >>> strictest(Limits(max_depth=100), HARD_LIMITS).max_depth
    40
    """
    return Limits(
        min(a.max_chars, b.max_chars),
        min(a.max_depth, b.max_depth),
        min(a.max_tokens, b.max_tokens),
        min(a.max_expanded_nodes, b.max_expanded_nodes),
    )
