"""The regex check on rule literals: refusals by kind, and no warning escaping as an error."""

from __future__ import annotations

import warnings

import pytest

from quality_py.sql.regex_safety import unsafe_reason


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^[A-Z]{2}[0-9]+$", None),
        ("^(a+)+$", "nested quantifiers"),
        ("(x)\\1", "back-references"),
        ("(", "invalid regular expression"),
    ],
)
def test_reasons(pattern: str, reason: str | None) -> None:
    got = unsafe_reason(pattern)
    assert got is None if reason is None else reason in (got or "")


def test_patterns_python_warns_about_are_checked_without_raising() -> None:
    """'[0--' and '[[a]' make Python's parser warn (FutureWarning); found by the policy fuzz."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert unsafe_reason("[[a]]") is None
        assert "bad character range" in (unsafe_reason("[0--") or "")
