"""Patterns the regex check accepts run in bounded time on adversarial text (issue 24,
mechanism 3, checked by generation): random patterns from a grammar of everyday pieces, every
accepted one run by Spark's ``rlike`` over long runs of its own characters, which make a
backtracking matcher try every split if it can. And in bounded stack: a pattern Java matches
one nested call per repetition would overflow the executor's stack on a long value, which Spark
treats as fatal (the JVM exits with code 50: it did, on the texts below, before the check
bounded such repetitions)."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from quality_py.sql.allowed.regex_safety import unsafe_reason
from quality_py.sql.library.validators import PATTERNS

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

PIECES = ["a", "b", "ab", "[ab]", "[a-z]", "\\d", "\\w", ".", "x", "(ab)", "(?:a|b)", "(a|xb)", "-",
          # groups ending with a delimiter (issue 58): the texts below repeat their pieces
          "([a-z]{1,3}-)", "(\\d+x)", "(a*-)"]  # fmt: skip
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,5}", "{2,}"]


def _patterns(count: int, quantifiers: list[str] = QUANTIFIERS, anchored: float = 0.3) -> list[str]:
    rng = random.Random(7)
    out = []
    while len(out) < count:
        parts = [rng.choice(PIECES) + rng.choice(quantifiers) for _ in range(rng.randint(1, 5))]
        if rng.random() < 0.3:  # a group of groups, repeated
            parts = ["(?:" + "".join(parts) + ";)" + rng.choice(quantifiers)]
        pattern = (
            ("^" if rng.random() < anchored else "")
            + "".join(parts)
            + ("$" if rng.random() < 0.3 else "")
        )
        if unsafe_reason(pattern) is None:
            out.append(pattern)
    return out


def test_accepted_patterns_stay_fast_on_adversarial_text(spark: Any) -> None:
    patterns = _patterns(60)
    texts = ["a" * 4000 + "!", "ab" * 2000 + "!", "1" * 4000 + "!", "x" * 4000, "ax-" * 1300,
             "aa-" * 1300 + "!", "12x" * 1300 + "!"]  # fmt: skip
    df = spark.createDataFrame([(t,) for t in texts], "s string")
    columns = [
        f"s RLIKE '{p.replace(chr(92), chr(92) * 2)}' AS c{i}" for i, p in enumerate(patterns)
    ]
    started = time.perf_counter()
    rows = df.selectExpr(*columns).collect()
    elapsed = time.perf_counter() - started
    assert len(rows) == len(texts)
    # a backtracking pattern on these texts runs for hours; linear ones take a second
    assert elapsed < 60, (elapsed, patterns)  # time is the subject


#: counts up to what the depth allows for the pieces above, with the unbounded ones
DEEP_QUANTIFIERS = ["*", "+", "{2,}", "{1,50}", "{0,150}", "{1,200}", "{3}", "{20}", "{1,999}"]


def test_accepted_patterns_stay_within_the_stack_on_long_values(spark: Any) -> None:
    """Every accepted pattern of the grammar with long counts (anchored, so each search is one
    attempt) and the library's own patterns, over values of 20,000 repetitions of their
    pieces: far past the 1,168-1,787 repetitions that overflow a 1 MB stack (Java 17), so a
    pattern matched call by call without a bound kills the JVM here, on every run."""
    patterns = _patterns(60, DEEP_QUANTIFIERS, anchored=1.0) + list(PATTERNS)
    units = ["a", "ab", "1", "x", "ax-", "aa-", "12x", "ab;", "a-x-;", "a.", "ab-c.", "1.2;"]
    texts = [u * 20_000 for u in units] + ["a" * 20_000 + "@" + "b." * 10_000 + "com"]
    df = spark.createDataFrame([(t,) for t in texts], "s string")
    columns = [
        f"s RLIKE '{p.replace(chr(92), chr(92) * 2).replace(chr(39), chr(92) + chr(39))}' AS c{i}"
        for i, p in enumerate(patterns)
    ]
    rows = df.selectExpr(*columns).collect()
    assert len(rows) == len(texts)
