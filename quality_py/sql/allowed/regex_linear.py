"""Regular expressions proven to match in linear time per start position, or refused.

Java's regex engine (what Spark runs) backtracks: a pattern that can match one piece of text in
more than one way makes it try every way, exponentially (``(a+)+``, ``a?a?a?...aaa``) or with a
higher power of the text's length (``.*a.*b``, ``a*a*a*b``, ``.{0,3000}x.{0,3000}``). Instead of
listing such shapes, a pattern must belong to a subset whose every match attempt is linear:

* **Syntax**: a subset that Java reads the way it is written here: literals, ``.``, classes
  (``[a-z0-9_]``, ``[^,]``; no nested classes or ``&&``), the escapes ``\\d \\w \\s \\D \\W \\S
  \\b \\B \\A \\z \\t \\n \\r \\f \\xhh \\uhhhh`` and escaped punctuation, groups ``(...)`` and
  ``(?:...)``, alternation, anchors ``^ $``, quantifiers ``* + ? {n} {n,} {n,m}`` (greedy or
  lazy, bounds up to 1000), and inline flags ``(?i) (?m) (?s)`` at the start. Everything else
  (back-references, lookaround, named groups, possessive quantifiers, ``\\p{..}``, ``\\Q..\\E``,
  Python's ``(?P<x>..)``) is refused with the reason.
* **A repeated group is a fixed sequence**: ``(ab)+`` and ``(?:\\d{3})*`` are fine; a group
  holding a quantifier or an alternative cannot be repeated (``(a+)+``, ``(a|b)*``), unless it
  ends with a **delimiter**: a part of fixed length whose characters nothing else in the group
  matches (``([0-9]{1,3}[.]){3}``, ``([a-z]+-){0,100}``). Each repetition then ends at the
  first delimiter character after its start: the repetitions split a text one way only. Repeated
  a fixed number of times, such a group ends where it must and competes with nothing after it.
  Java matches it one nested call per repetition, so it needs a most: see
  :mod:`quality_py.sql.allowed.regex_depth`, checked last.
* **No two variable parts compete for the same text**: two parts of variable length (a
  quantifier whose least and most differ, or an alternation) whose characters overlap are
  refused when the first can reach the second, i.e. everything between them is optional or
  made of characters the first also matches (``a*a*``, ``\\d+\\d*``, ``.*a.*b``,
  ``a?a?a``). A part that can run to the end of the text and always succeed (``.*`` last) is no
  competitor. ``\\d+-\\d+`` is fine: ``-`` stops the first ``\\d+``.

* **No two alternatives of a group match one same text** (``(ab|ab)``, ``(a.|.b)``): a
  sequence of such groups doubles the tries with each one. Decided exactly, by walking the
  product of the two alternatives' automata (bounded in states and steps: past the bound the
  pattern is refused as unproven). In a repeated group the alternatives must moreover begin
  with different characters.

Each attempt is then linear; Spark's ``rlike`` tries every start position, so a failing search
is at most quadratic in the value's length. (An automaton-based matcher would be linear
overall; Java's is not, and that cost is bounded here by the value, never by the pattern.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quality_py.sql.allowed.regex_depth import depth_reason

MAX_REPEAT = 1000
_ALL = ((0, 0x10FFFF),)
_LINE_BREAKS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x85, 0x85), (0x2028, 0x2029))
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = ((0x09, 0x0D), (0x20, 0x20))
_PUNCT = frozenset("\\.[]{}()*+?^$|-/,:;!\"#%&'<=>@`~_ ")
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}

Ranges = tuple[tuple[int, int], ...]


class RegexRefused(ValueError):
    """A pattern outside the linear subset, with the reason."""


def _norm(ranges: list[tuple[int, int]] | Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in _norm(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return tuple(out)


def _overlap(a: Ranges, b: Ranges) -> bool:
    return any(lo1 <= hi2 and lo2 <= hi1 for lo1, hi1 in a for lo2, hi2 in b)


def _subset(a: Ranges, b: Ranges) -> bool:
    return not _overlap(a, _complement(b))


def _caseless(ranges: Ranges) -> Ranges:
    extra = []
    for lo, hi in ranges:
        for c in range(max(lo, 0x41), min(hi, 0x5A) + 1):
            extra.append((c + 32, c + 32))
        for c in range(max(lo, 0x61), min(hi, 0x7A) + 1):
            extra.append((c - 32, c - 32))
    return _norm([*ranges, *extra])


@dataclass
class _Node:
    """An item of a sequence: a character set, an assertion or a group, and its quantifier."""

    chars: Ranges = ()  # the characters it may match (a group: all of its characters)
    zero_width: bool = False
    branches: list[list[_Node]] = field(default_factory=list)  # a group's alternatives
    least: int = 1
    most: int | None = 1  # None: unbounded
    literal: bool = False  # one character written out (Java joins a run of them)

    @property
    def variable(self) -> bool:
        if self.zero_width:
            return False
        if self.least != self.most:
            return True
        return (
            any(_variable_seq(b) for b in self.branches)
            or len({_fixed_length(b) for b in self.branches}) > 1
        )

    @property
    def optional(self) -> bool:
        return self.zero_width or self.least == 0 or any(_can_be_empty(b) for b in self.branches)


def _variable_seq(seq: list[_Node]) -> bool:
    return any(n.variable for n in seq)


def _fixed_length(seq: list[_Node]) -> int | None:
    total = 0
    for n in seq:
        if n.zero_width:
            continue
        if n.variable or n.most is None:
            return None
        inner = 1 if not n.branches else _fixed_length(n.branches[0])
        if inner is None:
            return None
        total += inner * n.most
    return total


def _can_be_empty(seq: list[_Node]) -> bool:
    return all(n.optional for n in seq)


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p, self.i = pattern, 0
        self.caseless = self.dotall = False

    def fail(self, why: str) -> RegexRefused:
        return RegexRefused(f"{why} (at offset {self.i})")

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def parse(self) -> list[list[_Node]]:
        self.flags()
        branches = self.alternation(depth=0)
        if self.i < len(self.p):
            raise self.fail("an unmatched ')'")
        return branches

    def flags(self) -> None:
        while self.p.startswith("(?", self.i) and self.p[self.i + 2 : self.i + 3] in "ims":
            end = self.p.find(")", self.i)
            letters = self.p[self.i + 2 : end] if end > 0 else ""
            if not letters or set(letters) - set("ims"):
                break
            self.caseless |= "i" in letters
            self.dotall |= "s" in letters
            self.i = end + 1

    def alternation(self, depth: int) -> list[list[_Node]]:
        if depth > 32:
            raise self.fail("groups nested deeper than 32")
        branches = [self.sequence(depth)]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence(depth))
        return branches

    def sequence(self, depth: int) -> list[_Node]:
        items: list[_Node] = []
        while self.peek() not in ("", "|", ")"):
            node = self.atom(depth)
            self.quantifier(node)
            items.append(node)
        return items

    def atom(self, depth: int) -> _Node:
        ch = self.peek()
        self.i += 1
        if ch == "(":
            if self.p.startswith("?:", self.i):
                self.i += 2
            elif self.peek() == "?":
                raise self.fail(
                    "lookaround, named groups and inline flags inside a pattern are refused "
                    "(write a plain group (...) or (?:...); flags only at the start)"
                )
            branches = self.alternation(depth + 1)
            if self.peek() != ")":
                raise self.fail("an unclosed group")
            self.i += 1
            chars = _norm([r for b in branches for n in b for r in n.chars])
            return _Node(chars=chars, branches=branches)
        if ch == "[":
            return _Node(chars=self.char_class())
        if ch == ".":
            return _Node(chars=_ALL if self.dotall else _complement(_LINE_BREAKS))
        if ch in "^$":
            return _Node(zero_width=True)
        if ch == "\\":
            return self.escape(in_class=False)
        if ch in "*+?":
            raise self.fail(f"a quantifier {ch!r} with nothing to repeat")
        if ch in "{}":
            raise self.fail("a brace that is not a quantifier (Java refuses it; escape it)")
        if ch == "]":
            raise self.fail("an unescaped ']' (escape it)")
        return self.literal(ord(ch))

    def literal(self, code: int) -> _Node:
        chars: Ranges = ((code, code),)
        return _Node(chars=_caseless(chars) if self.caseless else chars, literal=True)

    def escape(self, in_class: bool) -> _Node:
        ch = self.peek()
        self.i += 1
        sets = {"d": _DIGIT, "w": _WORD, "s": _SPACE}
        if ch.lower() in sets:
            base = sets[ch.lower()]
            return _Node(chars=base if ch.islower() else _complement(base))
        if ch in "bBAz" and not in_class:  # word boundaries; the input's start and end
            return _Node(zero_width=True)
        if ch in _SIMPLE_ESCAPES:
            return self.literal(ord(_SIMPLE_ESCAPES[ch]))
        if ch in "xu":
            width = 2 if ch == "x" else 4
            digits = self.p[self.i : self.i + width]
            if len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.fail(f"\\{ch} needs {width} hex digits")
            self.i += width
            return self.literal(int(digits, 16))
        if ch and ch in _PUNCT:
            return self.literal(ord(ch))
        shown = ch or "at the end"
        raise self.fail(
            f"the escape \\{shown} is refused (back-references, \\p{{..}}, \\Q..\\E, \\Z "
            "and the like mean other things in Java or cannot be proven linear)"
        )

    def char_class(self) -> Ranges:
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            ch = self.peek()
            if not ch:
                raise self.fail("an unclosed character class")
            if ch == "]" and not first:
                self.i += 1
                break
            if ch == "]" or ch == "[" or self.p.startswith("&&", self.i):
                raise self.fail("'[', ']' first, and '&&' inside a class mean other things in Java")
            first = False
            lo = self.class_char()
            if lo is None:
                continue
            if self.peek() == "-" and self.p[self.i + 1 : self.i + 2] not in ("]", ""):
                self.i += 1
                hi = self.class_char()
                if hi is None or hi[0][0] < lo[0][0] or len(hi) > 1 or len(lo) > 1:
                    raise self.fail("a bad character range")
                ranges.append((lo[0][0], hi[0][1]))
            else:
                ranges.extend(lo)
        out = _norm(ranges)
        if self.caseless:
            out = _caseless(out)
        return _complement(out) if negated else out

    def class_char(self) -> Ranges | None:
        ch = self.peek()
        self.i += 1
        if ch == "\\":
            node = self.escape(in_class=True)
            return node.chars
        return ((ord(ch), ord(ch)),)

    def quantifier(self, node: _Node) -> None:
        ch = self.peek()
        if ch not in ("*", "+", "?", "{"):
            return
        if node.zero_width:
            raise self.fail("a quantifier on an anchor")
        self.i += 1
        if ch == "*":
            node.least, node.most = 0, None
        elif ch == "+":
            node.least, node.most = 1, None
        elif ch == "?":
            node.least, node.most = 0, 1
        else:
            end = self.p.find("}", self.i)
            body = self.p[self.i : end] if end > 0 else ""
            parts = body.split(",")
            if (
                not body
                or len(parts) > 2
                or not parts[0].isdigit()
                or (len(parts) == 2 and parts[1] and not parts[1].isdigit())
            ):
                raise self.fail("a brace that is not a quantifier (Java refuses it; escape it)")
            node.least = int(parts[0])
            node.most = node.least if len(parts) == 1 else (int(parts[1]) if parts[1] else None)
            if max(node.least, node.most or 0) > MAX_REPEAT:
                raise self.fail(f"a repetition over {MAX_REPEAT}")
            if node.most is not None and node.most < node.least:
                raise self.fail("a repetition whose most is below its least")
            self.i = end + 1
        if self.peek() == "?":
            self.i += 1  # lazy: the same choices in another order
        elif self.peek() == "+":
            raise self.fail("possessive quantifiers are refused")
        if node.branches and node.most != 1:
            if len(node.branches) == 1 and not _one_way(node.branches[0]):
                raise self.fail(
                    "a repeated group holds alternatives that can match the same text (like "
                    "((a|a))+): each repetition doubles the ways to try (catastrophic "
                    "backtracking); make the alternatives begin differently"
                )
            fixed = len(node.branches) == 1 and not _variable_seq(node.branches[0])
            if not fixed and not _delimited(node):
                raise self.fail(
                    "a repeated group must be a fixed sequence, or end with a delimiter nothing "
                    "else in it matches: a quantifier or an alternative inside it can match one "
                    "text in many ways (catastrophic backtracking)"
                )


def _one_way(seq: list[_Node]) -> bool:
    """Whether every alternation inside ``seq`` (at any depth) chooses its alternative by the
    next character: no alternative can be empty, and no two begin with the same character. A
    repeated group's text then parses one way where its parts do not compete."""
    for node in seq:
        if len(node.branches) > 1:
            firsts = [_seq_first(b) for b in node.branches]
            if any(_can_be_empty(b) for b in node.branches):
                return False
            for i, a in enumerate(firsts):
                if any(_overlap(a, b) for b in firsts[i + 1 :]):
                    return False
        if not all(_one_way(b) for b in node.branches):
            return False
    return True


def _delimited(node: _Node) -> bool:
    """Whether a group is one sequence ending in a **delimiter**: a part of fixed length, at
    least one character, matching characters no other part of the group matches
    (``([0-9]{1,3}[.])``, ``([a-z]+-)``). Each repetition then ends at the first delimiter
    character after its start, so the repetitions split a text in exactly one way; inside one,
    the sequence rules hold (checked with every sequence)."""
    if len(node.branches) != 1 or not node.branches[0]:
        return False
    *body, last = node.branches[0]
    closes = (
        not last.zero_width
        and not last.branches
        and last.least == last.most
        and last.least >= 1
        and bool(last.chars)
    )
    return closes and not any(_overlap(n.chars, last.chars) for n in body)


def _first_chars(node: _Node) -> Ranges:
    """The characters ``node`` can begin with (a group: what its alternatives begin with)."""
    if not node.branches:
        return node.chars
    return _norm([r for branch in node.branches for r in _seq_first(branch)])


def _seq_first(seq: list[_Node]) -> Ranges:
    out: list[tuple[int, int]] = []
    for node in seq:
        if node.zero_width:
            continue
        out.extend(_first_chars(node))
        if not node.optional:
            break
    return _norm(out)


def _check_sequence(seq: list[_Node], budget: list[int]) -> None:
    """Refuse two variable parts of ``seq`` competing for the same text (see the module)."""
    for i, first in enumerate(seq):
        if not first.variable or (first.least == first.most and _delimited(first)):
            continue  # a delimited group repeated a fixed number of times ends where it must
        for j in range(i + 1, len(seq)):
            other = seq[j]
            last = all(n.optional for n in seq[j + 1 :])
            runs_out = other.most is None and _subset(_complement(_LINE_BREAKS), other.chars)
            competes = other.variable and _overlap(first.chars, _first_chars(other))
            if competes and not (last and runs_out):
                raise RegexRefused(
                    "two variable parts can match the same text (like a*a* or .*a.*b): a "
                    "backtracking matcher tries every split, a polynomial or exponential time"
                )
            if not (other.optional or (other.chars and _subset(other.chars, first.chars))):
                break  # ``other`` stops ``first``: nothing after it is reachable
    for node in seq:
        for i, branch in enumerate(node.branches):
            if any(_may_share_text(branch, other, budget) for other in node.branches[i + 1 :]):
                raise RegexRefused(
                    "two alternatives of a group can match the same text (like (ab|ab) or "
                    "(a.|.b)): a backtracking matcher tries both, and each such group in a row "
                    "doubles the tries; write the text once"
                )
            _check_sequence(branch, budget)


#: the most states an alternative's automaton may have, and pairs of states the products of a
#: pattern's alternatives may visit in all, before they are left unproven (the check's own work
#: stays bounded, whatever the pattern)
MAX_STATES, MAX_PAIRS = 2000, 50_000


class _Automaton:
    """A nondeterministic automaton of a sequence (Thompson's construction): transitions on a
    character set or on nothing (an anchor takes no text: ignoring it only finds more)."""

    def __init__(self) -> None:
        self.edges: list[list[tuple[Ranges | None, int]]] = []

    def state(self) -> int:
        if len(self.edges) >= MAX_STATES:
            raise OverflowError
        self.edges.append([])
        return len(self.edges) - 1

    def sequence(self, seq: list[_Node], start: int) -> int:
        for node in seq:
            start = self.node(node, start)
        return start

    def once(self, node: _Node, start: int) -> int:
        end = self.state()
        if node.zero_width:
            self.edges[start].append((None, end))
        elif not node.branches:
            self.edges[start].append((node.chars, end))
        for branch in node.branches:
            self.edges[self.sequence(branch, start)].append((None, end))
        return end

    def node(self, node: _Node, start: int) -> int:
        for _ in range(node.least):
            start = self.once(node, start)
        if node.most is None:
            loop = self.state()
            self.edges[start].append((None, loop))
            self.edges[self.once(node, loop)].append((None, loop))
            return loop
        end = self.state()
        self.edges[start].append((None, end))
        for _ in range(node.most - node.least):
            start = self.once(node, start)
            self.edges[start].append((None, end))
        return end

    def closure(self, states: frozenset[int]) -> frozenset[int]:
        out, todo = set(states), list(states)
        while todo:
            for chars, to in self.edges[todo.pop()]:
                if chars is None and to not in out:
                    out.add(to)
                    todo.append(to)
        return frozenset(out)


def _automaton(seq: list[_Node]) -> tuple[_Automaton, int] | None:
    machine = _Automaton()
    try:
        return machine, machine.sequence(seq, machine.state())
    except OverflowError:
        return None


def _may_share_text(a: list[_Node], b: list[_Node], budget: list[int]) -> bool:
    """Whether two alternatives can match one same text: the product of their automata reaches
    both ends (exact for this subset); when an automaton would be too large, whether they may
    begin alike (unproven, so refused)."""
    built_a, built_b = _automaton(a), _automaton(b)
    if built_a is None or built_b is None:
        empty = _can_be_empty(a) or _can_be_empty(b)
        return empty or _overlap(_seq_first(a), _seq_first(b))
    (ma, end_a), (mb, end_b) = built_a, built_b
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        pair = todo.pop()
        if pair in seen:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return True  # the pattern's pairs of states are used up: unproven, refused
        seen.add(pair)
        here_a, here_b = ma.closure(frozenset([pair[0]])), mb.closure(frozenset([pair[1]]))
        if end_a in here_a and end_b in here_b:
            return True
        for sa in here_a:
            for chars_a, to_a in ma.edges[sa]:
                if chars_a is None:
                    continue
                for sb in here_b:
                    for chars_b, to_b in mb.edges[sb]:
                        if chars_b is not None and _overlap(chars_a, chars_b):
                            todo.append((to_a, to_b))
    return False


def linear_reason(pattern: str) -> str | None:
    """Why ``pattern`` is outside the linear subset, or None.

    >>> linear_reason("^[A-Z]{2}[0-9]+$") is None, linear_reason(r"\\d+-\\d+") is None
    (True, True)
    >>> linear_reason("(a+)+")[:30], linear_reason("a*a*b")[:30]
    ('a repeated group must be a fix', 'two variable parts can match t')
    """
    try:
        branches = parse_pattern(pattern)
        budget = [MAX_PAIRS]  # for the whole pattern
        for branch in branches:
            _check_sequence(branch, budget)
    except RegexRefused as err:
        return str(err)
    return depth_reason(branches)


def parse_pattern(pattern: str) -> list[list[_Node]]:
    """A pattern's alternatives as sequences of items, or :class:`RegexRefused` outside the
    subset Java reads as written.

    >>> [len(seq) for seq in parse_pattern("ab+|[cd](e)")]
    [2, 2]
    """
    return _Parser(pattern).parse()


def like_linear_reason(pattern: str) -> str | None:
    """Why a LIKE pattern is refused (Spark runs LIKE as an anchored regex: ``%`` is ``.*``,
    ``_`` is ``.``, both matching line breaks), or None: the same proof as for regexes.

    >>> like_linear_reason("%otc%") is None, like_linear_reason("ab_%") is None
    (True, True)
    >>> like_linear_reason("%a%b%")[:30]
    'two variable parts can match t'
    """
    seq: list[_Node] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            seq.append(_Node(chars=((ord(pattern[i + 1]), ord(pattern[i + 1])),)))
            i += 2
            continue
        if ch == "%":
            seq.append(_Node(chars=_ALL, least=0, most=None))
        elif ch == "_":
            seq.append(_Node(chars=_ALL))
        else:
            seq.append(_Node(chars=((ord(ch), ord(ch)),)))
        i += 1
    try:
        _check_sequence(seq, [MAX_PAIRS])
    except RegexRefused as err:
        return (
            f"{err}; a LIKE with two % around other text is quadratic: test the parts in "
            "order with locate, e.g. locate('b', s, locate('a', s) + 1) > 0"
        )
    return None
