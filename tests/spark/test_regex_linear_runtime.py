"""Patterns the regex check accepts run in bounded time on adversarial text (issue 24,
mechanism 3, checked by generation): random patterns from a grammar of everyday pieces, every
accepted one run by Spark's ``rlike`` over long runs of its own characters, which make a
backtracking matcher try every split if it can."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from quality_py.sql.allowed.regex_safety import unsafe_reason

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

PIECES = ["a", "b", "ab", "[ab]", "[a-z]", "\\d", "\\w", ".", "x", "(ab)", "(?:a|b)", "(a|xb)", "-",
          # groups ending with a delimiter (issue 58): the texts below repeat their pieces
          "([a-z]{1,3}-)", "(\\d+x)", "(a*-)"]  # fmt: skip
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,5}", "{2,}"]


def _patterns(count: int) -> list[str]:
    rng = random.Random(7)
    out = []
    while len(out) < count:
        parts = [rng.choice(PIECES) + rng.choice(QUANTIFIERS) for _ in range(rng.randint(1, 5))]
        pattern = (
            ("^" if rng.random() < 0.3 else "")
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
