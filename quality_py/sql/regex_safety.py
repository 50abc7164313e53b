"""Is a regular-expression literal safe to run on every row?

Java's regex engine backtracks: nested quantifiers (``(a+)+``, ``(.*?,){11}``) take exponential
time, and a quantified group with alternation (``(a|b)+``) recurses per repetition until the
stack overflows, which kills a local-mode JVM. We refuse those shapes, back-references, and
patterns that do not compile; everything else (classes, anchors, single quantifiers, groups
without inner quantifiers) is fine.
"""

from __future__ import annotations

import re
import warnings

_QUANT = re.compile(r"[*+?]|\{\d+(,\d*)?\}")
#: ``.*a.*b`` backtracks in O(n^2) on a long value without a ``b``; each further ``.*`` is one
#: more power of the value's length (``.*a.*a.*a.*b`` on 3,000 characters runs for minutes).
MAX_WILDCARDS = 2


def like_unsafe_reason(pattern: str) -> str | None:
    """Why a LIKE pattern is refused: Spark runs LIKE as a regex, ``%`` becoming ``.*``.

    >>> like_unsafe_reason("%otc") is None, like_unsafe_reason("%a%b%") is None
    (True, True)
    >>> like_unsafe_reason("%a%a%a%b")[:46]
    '4 % wildcards before the last literal characte'
    """
    inner = pattern.replace("\\%", "").rstrip("%")
    count = inner.count("%")
    if count > MAX_WILDCARDS:
        return (
            f"{count} % wildcards before the last literal character; more than {MAX_WILDCARDS} "
            "backtrack polynomially (a long value hangs the job)"
        )
    return None


def _groups(pattern: str) -> list[tuple[int, int]]:
    """(start, end) of every parenthesised group, skipping escapes and character classes."""
    stack: list[int] = []
    out: list[tuple[int, int]] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            out.append((stack.pop(), i))
        i += 1
    return out


def _strip_classes_and_escapes(text: str) -> str:
    out, i, in_class = [], 0, False
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            out.append("e")
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            if not in_class:
                out.append("c")
        elif ch == "[":
            in_class = True
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def unsafe_reason(pattern: str) -> str | None:
    """Why ``pattern`` is refused, or None when it is safe.

    >>> unsafe_reason("^[A-Z]{2}[0-9]+$") is None
    True
    >>> unsafe_reason("^(a+)+$")
    'nested quantifiers (catastrophic backtracking)'
    >>> unsafe_reason("(a|b)+")
    'a repeated group with alternatives (stack overflow on long input)'
    """
    try:
        # Python's parser warns about syntax Java reads differently ("[0--", nested sets): the
        # pattern is still checked, and a warning must never escape as an error of ours
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(pattern)
    except re.error as err:
        return f"invalid regular expression: {err}"
    if re.search(r"\\[1-9]|\\k<", pattern):
        return "back-references are not allowed"
    wildcards = re.findall(r"\.(?:[*+]|\{\d+,\})", _strip_classes_and_escapes(pattern))
    if len(wildcards) > MAX_WILDCARDS:
        return (
            f"{len(wildcards)} unbounded wildcards (.* or .+); more than {MAX_WILDCARDS} "
            "backtrack polynomially (a long value hangs the job)"
        )
    for start, end in _groups(pattern):
        after = pattern[end + 1 : end + 8]
        if not _QUANT.match(after):
            continue
        inner = _strip_classes_and_escapes(pattern[start + 1 : end])
        inner = re.sub(r"^\?(:|=|!|<=|<!)", "", inner)
        if _QUANT.search(inner):
            return "nested quantifiers (catastrophic backtracking)"
        if "|" in inner:
            return "a repeated group with alternatives (stack overflow on long input)"
    return None
