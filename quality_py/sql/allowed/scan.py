"""The scan of raw rule text, beside the parser: size, nesting and token limits, and the
characters refused anywhere in it, checked before sqlglot sees the text.

sqlglot parses recursively and fails with ``RecursionError`` from about 49 nested parentheses;
Spark's own parser overflows its stack a little later. The scan here is iterative and aware of
string literals, quoted identifiers and comments, so a limit can never be dodged by hiding a
bracket in a string, nor tripped by one.
"""

from __future__ import annotations

import unicodedata

from quality_py.model.limits import Limits

_OPEN = "([{"
_CLOSE = ")]}"


def scan(text: str) -> tuple[int, int, int | None]:
    """``(max bracket depth, approximate token count, offset of a control character)``.

    >>> scan("f(')))', `a)`) -- )")[:2]
    (1, 6)
    """
    depth = deepest = tokens = 0
    bad: int | None = None
    i, n = 0, len(text)
    in_word = False
    while i < n:
        ch = text[i]
        if ch in "'\"`":  # a literal or quoted identifier: skip to its end (doubling escapes)
            j = i + 1
            while j < n:
                if text[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            tokens += 1
            in_word = False
            i = j + 1
            continue
        if text.startswith("--", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if text.startswith("/*", i):  # nested block comments, as Spark reads them
            level, j = 1, i + 2
            while j < n and level:
                if text.startswith("/*", j):
                    level, j = level + 1, j + 2
                elif text.startswith("*/", j):
                    level, j = level - 1, j + 2
                else:
                    j += 1
            i = j
            continue
        if ch in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif ch in _CLOSE:
            depth -= 1
        if (ord(ch) < 32 and ch not in "\t\n\r") or ch == "\x7f":
            bad = i if bad is None else bad
        if ch.isalnum() or ch == "_":
            if not in_word:
                tokens += 1
            in_word = True
        else:
            in_word = False
            if not ch.isspace():
                tokens += 1
        i += 1
    return deepest, tokens, bad


#: Letters that render as nothing (Hangul fillers, the braille blank): a reviewer cannot see them.
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: Unicode categories no rule text needs and that can make text read differently than it runs:
#: controls (but tab and line breaks), format characters (bidirectional overrides and isolates,
#: zero-width spaces and joiners, the soft hyphen), surrogates, private use, unassigned, and the
#: line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def unsafe_character(text: str) -> tuple[int, str] | None:
    """The offset and description of the first character that could make ``text`` read
    differently than it runs (anywhere: in literals, identifiers and comments too), or None.

    >>> unsafe_character("a > 0"), unsafe_character("s = 'x\u202e'")
    (None, (6, 'U+202E RIGHT-TO-LEFT OVERRIDE'))
    """

    for i, ch in enumerate(text):
        if ch in "\t\n\r":
            continue
        if unicodedata.category(ch) in _REFUSED_CATEGORIES or ch in _INVISIBLE_LETTERS:
            name = unicodedata.name(ch, "unnamed")
            return i, f"U+{ord(ch):04X} {name}"
    return None


def check_limits(text: str, limits: Limits, *, control_chars: bool = True) -> str | None:
    """Why ``text`` breaks ``limits``, or None.

    >>> check_limits("(" * 50 + "x" + ")" * 50, Limits())
    'nested 50 brackets deep; the limit is 32'
    """
    if len(text) > limits.max_chars:
        return f"the text has {len(text)} characters; the limit is {limits.max_chars}"
    depth, tokens, _ = scan(text)
    if control_chars:
        unsafe = unsafe_character(text)
        if unsafe is not None:
            return (
                f"the text holds {unsafe[1]} at offset {unsafe[0]}: invisible, control and "
                "direction-changing characters are refused (a reviewer would read other text "
                "than Spark runs)"
            )
    if depth > limits.max_depth:
        return f"nested {depth} brackets deep; the limit is {limits.max_depth}"
    if tokens > limits.max_tokens:
        return f"the text has about {tokens} tokens; the limit is {limits.max_tokens}"
    return None
