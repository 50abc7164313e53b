"""Is a regular-expression or LIKE literal safe to run on every row?

The proof lives in :mod:`quality_py.sql.allowed.regex_linear`: a pattern must belong to a subset
that Java reads as it is written and whose every match attempt is linear (no repeated group that is
not a fixed sequence, no two variable parts competing for the same text). Everything else is
refused with the reason, whatever its spelling: there is no list of bad shapes here.
"""

from __future__ import annotations

from quality_py.sql.allowed.regex_linear import like_linear_reason, linear_reason


def like_unsafe_reason(pattern: str) -> str | None:
    """Why a LIKE pattern is refused: Spark runs LIKE as a regex, ``%`` becoming ``.*``.

    >>> like_unsafe_reason("%otc") is None, like_unsafe_reason("%a%b%") is None
    (True, False)
    """
    return like_linear_reason(pattern)


def unsafe_reason(pattern: str) -> str | None:
    """Why ``pattern`` is refused, or None when it is proven linear per match attempt.

    >>> unsafe_reason("^[A-Z]{2}[0-9]+$") is None
    True
    >>> unsafe_reason("^(a+)+$")[:30], unsafe_reason("(a|b)+")[:30]
    ('a repeated group must be a fix', 'a repeated group must be a fix')
    """
    return linear_reason(pattern)


def capturing_groups(pattern: str) -> int:
    r"""How many capturing groups ``pattern`` has (``(...)``, not ``(?:...)``).

    >>> capturing_groups("(a)(?:b)([c(])"), capturing_groups(r"\(x\)")
    (2, 0)
    """
    count, i, in_class = 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(" and not pattern.startswith("(?", i):
            count += 1
        i += 1
    return count
