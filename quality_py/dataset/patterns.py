"""Patterns of the text checks that need more than one line to write: a US social security
number as Deequ's ``Patterns.SOCIAL_SECURITY_NUMBER_US`` defines it, rewritten without the
lookaheads the regex safety check refuses (it proves a pattern's matching time linear, which it
cannot do for lookaround). The language is the same: the numbers Deequ's lookaheads exclude are
left out of the alternatives instead (``tests/unit/test_patterns.py`` compares both on every
area, group and serial boundary).
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache


def digits_regex(values: frozenset[str]) -> str:
    """A regex matching exactly ``values`` (strings of digits of one length), compact: a
    trie whose branches with the same rest share a character class.

    >>> digits_regex(frozenset(f"{i:02d}" for i in range(1, 100)))
    '(?:0[1-9]|[1-9]\\\\d)'
    """
    return _regex(values)


def _class(chars: list[str]) -> str:
    if len(chars) == 10:
        return r"\d"
    if len(chars) == 1:
        return chars[0]
    runs, start = [], 0
    ordered = sorted(chars)
    for i in range(1, len(ordered) + 1):
        if i == len(ordered) or int(ordered[i]) != int(ordered[i - 1]) + 1:
            run = ordered[start:i]
            runs.append(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" if len(run) > 2
                        else "".join(run))  # fmt: skip
            start = i
    return f"[{''.join(runs)}]"


@cache
def _regex(values: frozenset[str]) -> str:
    if not values or "" in values:
        return ""
    rests: dict[str, set[str]] = defaultdict(set)
    for v in values:
        rests[v[0]].add(v[1:])
    by_rest: dict[str, list[str]] = defaultdict(list)
    for first, rest in rests.items():
        by_rest[_regex(frozenset(rest))].append(first)
    parts = [_class(firsts) + rest for rest, firsts in sorted(by_rest.items())]
    return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"


def _numbers(width: int, excluded: set[str]) -> frozenset[str]:
    return frozenset(f"{i:0{width}d}" for i in range(10**width)) - excluded


#: Deequ's excluded areas (000, 666, 900-999), groups (00) and serials (0000).
_AREAS = _numbers(3, {"000", "666", *(str(i) for i in range(900, 1000))})
_GROUPS = _numbers(2, {"00"})
_SERIALS = _numbers(4, {"0000"})
#: The two published sample numbers Deequ excludes.
_SAMPLES = (("219", "09", "9999"), ("078", "05", "1120"))


def _with(sep: str) -> str:
    area, group, serial = digits_regex(_AREAS - {a for a, _, _ in _SAMPLES}), "", ""
    group, serial = digits_regex(_GROUPS), digits_regex(_SERIALS)
    branches = [f"{area}{sep}{group}{sep}{serial}"]
    for a, g, s in _SAMPLES:  # the sample's area with another group, or its group and another
        branches.append(f"{a}{sep}{digits_regex(_GROUPS - {g})}{sep}{serial}")
        branches.append(f"{a}{sep}{g}{sep}{digits_regex(_SERIALS - {s})}")
    return "|".join(branches)


#: A US social security number somewhere in a value (Deequ's pattern read as a fact):
#: ``AAA-GG-SSSS`` with dashes, spaces or nothing between the groups.
SSN = "|".join(f"(?:{_with(sep)})" for sep in ("-", " ", ""))
