"""The regex check on rule literals: refusals by kind, and no warning escaping as an error."""

from __future__ import annotations

import warnings

import pytest

from quality_py.sql.allowed.regex_safety import unsafe_reason


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^[A-Z]{2}[0-9]+$", None),
        ("^(a+)+$", "repeated group must be a fixed sequence"),
        ("(x)\\1", "back-references"),
        ("(", "unclosed group"),
    ],
)
def test_reasons(pattern: str, reason: str | None) -> None:
    got = unsafe_reason(pattern)
    assert got is None if reason is None else reason in (got or "")


def test_patterns_java_reads_otherwise_are_refused_without_warnings() -> None:
    """'[[a]]' is a union in Java and a warning in Python; '[0--' a bad range (policy fuzz)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "mean other things in Java" in (unsafe_reason("[[a]]") or "")
        assert unsafe_reason("[0--") is not None


#: Published ReDoS patterns (OWASP's "Regular expression Denial of Service" examples and the
#: classic shapes from the literature), and the cases of issue 24: every one is refused.
REDOS = [
    "(a+)+", "([a-zA-Z]+)*", "(a|aa)+", "(a|a?)+", "(.*a){12}", "^(a+)+$", "(x+x+)+y",
    "^(([a-z])+.)+[A-Z]([a-z])+$",
    "^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|"
    "([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
    "^(\\w+\\s?)*$", "^(\\d+)+$", "(\\w|\\d)+z", "^[a-z]+(a|b)*[a-z]+$",
    "a?" * 32 + "a" * 32, "[\\s\\S]*x[\\s\\S]*y", ".{0,3000}a.{0,3000}b",
    "^a*a*a*a*a*a*a*a*a*a*b$", ".*a.*b", "\\d+\\d*x", "(?P<x>a)", "(?<=a)b", "a*+",
    "\\p{L}+", "\\Qa\\E", "x{", "(?i:a)+",
    # a group whose last part is no delimiter: something else in it matches the same characters
    "(a+a)+", "([a-z]+[.a])+", "(.*[.])+", "([0-9.]{1,3}[.]){3}",
    # a delimited group repeated a varying number of times still competes with what follows
    "([0-9]{1,3}[.]){1,3}[0-9]{1,3}", "([a-z]+-)*[a-z]+",
    # alternatives inside a repeated group that can match the same text: 2^n ways (7.7 s on 26
    # characters in Python's re for ((?:a|a))+b, accepted before this corpus had it)
    "((?:a|a))+b", "((a|a)-)+b", "(?:(?:a|a)b)+c", "((a|)a)+b", "((a|ab)c)+d",
    # alternatives that match the same text, in a row: 2^n tries in Java (measured on Spark:
    # the time doubles with each further (?:ab|ab)), however long the value
    "^" + "(?:ab|ab)" * 24 + "c", "(a.|.b)(a.|.b)(a.|.b)x", "(?:|)(?:|)x",
    "(?:(?:ab|a)c|abc)x", "(?:[a-z]{3}|x[a-z]?[a-z])z",
]  # fmt: skip
#: Everyday patterns that stay allowed.
LINEAR = [
    "^[A-Z]{3}$", "^[0-9]{5}(-[0-9]{4})?$", "^\\d+-\\d+$", "^\\w+@\\w+\\.[a-z]{2,6}$",
    "(?i)^abc", "^(ab)+$", "^(?:\\d{3})*$", "a.*", "^[^,]*,[^,]*$", "^\\s*$", "foo|bar",
    "^[A-Z][a-z]+( [A-Z][a-z]+)?$", "\\bword\\b", "^\\u00e9t\\x41$",
    # groups ending with a delimiter nothing else in them matches (issue 58): IPv4, parts (a
    # most bounds how deep Java's matcher nests: see STACK)
    "^([0-9]{1,3}[.]){3}[0-9]{1,3}$", "^([a-z]+-){0,100}x$", "^(\\d{1,3},){0,150}$",
    "^((a|b)-){1,50}$", "^(?:(?:x|y)[0-9]){1,80}$", "^(ab)+$", "^(?:[ab])*$",
    "^(http|https)://", "^(Mr|Mrs|Ms)\\.? [A-Z]", "^(ACTIVE|ARCHIVED)$", "^(\\d{3}|\\d{4})$",
    "^(?:(?:4\\d|5[1-5]|65)\\d{2}|6011)-\\d{4}$", "^(?:(?:ab|c[0-9]|[d-z].)){1,99}$",
]  # fmt: skip


@pytest.mark.parametrize("pattern", REDOS)
def test_published_redos_patterns_are_refused(pattern: str) -> None:
    assert unsafe_reason(pattern) is not None, pattern


@pytest.mark.parametrize("pattern", LINEAR)
def test_everyday_patterns_are_proven_linear(pattern: str) -> None:
    assert unsafe_reason(pattern) is None, unsafe_reason(pattern)


def test_the_proof_of_alternatives_does_its_work_by_count() -> None:
    """Alternatives are compared by the product of their automata, at most MAX_PAIRS pairs of
    states for the whole pattern: 400 alternatives alike up to their last two characters use
    the count up and are refused as unproven, whatever the machine's speed."""
    from quality_py.sql.allowed.regex_linear import MAX_PAIRS

    alike = "(?:" + "|".join(".{999}" + chr(97 + i % 26) + chr(97 + i // 26) for i in range(400))
    assert MAX_PAIRS < 400 * 399 // 2 * 1000
    assert "can match the same text" in (unsafe_reason(alike[:4000] + ")") or "")


#: Linear, but Java's matcher nests one call per repetition of a group holding a part that
#: varies or an alternative (measured with Java 17 on a 1 MB stack: ([a-z]+-)+ overflows at
#: 1,168-1,475 repetitions, (?:a|b)+ at 1,204, ((?:ab|cd))+ at 867; Spark's executor then
#: exits): without a most, or nesting past the depth allowed, they are refused.
STACK = [
    "^([a-z]+-)*x$", "^(\\d{1,3},)*$", "^((a|b)-)+$", "^(?:(?:x|y)[0-9])+$",
    "^(?:(?:ab|c[0-9]|[d-z].))+$", "((?:ab|cd))+", "(?:a[0-9]?-)+", "(a{1,2}-){2,}",
    "([a-z]+-){1,300}", "(([a-z]+-){1,20};){1,20}", "(?:(?:[a-z]+-){2};){1,150}",
]  # fmt: skip


@pytest.mark.parametrize("pattern", STACK)
def test_patterns_java_matches_by_recursion_without_a_bound_are_refused(pattern: str) -> None:
    reason = unsafe_reason(pattern) or ""
    assert "needs a most" in reason or "calls deep" in reason, (pattern, reason)


def test_the_validators_patterns_stay_within_the_depth() -> None:
    """The library's own patterns (the e-mail's local part and host labels bounded by the
    lengths checked beside them) pass the same check as a rule's."""
    from quality_py.sql.library.validators import PATTERNS

    assert [p for p in PATTERNS if unsafe_reason(p) is not None] == []
