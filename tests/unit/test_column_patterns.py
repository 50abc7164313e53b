"""``has_no_columns`` patterns against Python's own glob (fnmatch, on patterns of letters and
stars, where the two languages agree), and a hostile pattern answered by a few scans."""

from __future__ import annotations

import fnmatch

from hypothesis import given
from hypothesis import strategies as st

from quality_py.dataset.comparisons import MatchingColumns

NAMES = st.text(alphabet="abA_", max_size=12)
PATTERNS = st.text(alphabet="ab_*", max_size=8)


@given(st.lists(PATTERNS, min_size=1, max_size=3), st.lists(NAMES, max_size=5))
def test_patterns_match_as_fnmatch_does(patterns: list[str], names: list[str]) -> None:
    found = MatchingColumns(tuple(patterns)).matches(names, sensitive=True)
    assert found == [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    folded = MatchingColumns(tuple(patterns)).matches(names, sensitive=False)
    assert folded == [
        n for n in names if any(fnmatch.fnmatchcase(n.lower(), p.lower()) for p in patterns)
    ]


def test_a_pattern_that_makes_a_regex_backtrack_is_a_few_scans() -> None:
    """Written as a regex, ``.*a`` twelve times then ``b`` against forty ``a`` takes minutes
    (each star tries every split); the glob finds no ``b`` and stops."""
    hostile = "*a" * 12 + "*b"
    assert MatchingColumns((hostile,)).matches(["a" * 40, "a" * 39 + "b"], True) == ["a" * 39 + "b"]
