"""Our social security number pattern finds exactly what Deequ's finds: Deequ's regex
(PatternMatch.scala line 116 of awslabs/deequ, with its lookaheads, which Python's re reads as
Java does) is the oracle, run on every boundary of area, group and serial with each separator,
and on random text around them."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.dataset.patterns import SSN, digits_regex

DEEQU = re.compile(
    r"((?!219-09-9999|078-05-1120)(?!666|000|9\d{2})\d{3}-(?!00)\d{2}-(?!0{4})\d{4})|"
    r"((?!219 09 9999|078 05 1120)(?!666|000|9\d{2})\d{3} (?!00)\d{2} (?!0{4})\d{4})|"
    r"((?!219099999|078051120)(?!666|000|9\d{2})\d{3}(?!00)\d{2}(?!0{4})\d{4})"
)
OURS = re.compile(SSN)
AREAS = ["000", "001", "078", "099", "100", "218", "219", "220", "665", "666", "667", "899",
         "900", "999"]  # fmt: skip
GROUPS = ["00", "01", "04", "05", "06", "08", "09", "10", "99"]
SERIALS = ["0000", "0001", "1119", "1120", "1121", "9998", "9999"]


def test_every_boundary_is_judged_as_deequ_judges_it() -> None:
    for sep in ("-", " ", "", "/"):
        for a in AREAS:
            for g in GROUPS:
                for s in SERIALS:
                    text = f"{a}{sep}{g}{sep}{s}"
                    assert bool(OURS.search(text)) == bool(DEEQU.search(text)), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 -x", min_size=0, max_size=30))
def test_random_text_is_judged_as_deequ_judges_it(text: str) -> None:
    assert bool(OURS.search(text)) == bool(DEEQU.search(text))


def test_digit_sets_are_matched_exactly() -> None:
    rng = random.Random(3)
    for _ in range(30):
        values = frozenset(f"{i:03d}" for i in rng.sample(range(1000), rng.randint(1, 999)))
        pattern = re.compile(digits_regex(values))
        assert {f"{i:03d}" for i in range(1000) if pattern.fullmatch(f"{i:03d}")} == values
