"""The row flags of a quality run (actions/flags.py) against the failure rule written in Python.

A code fails its row when it is Failed (0), null, or a probability below ``probable_pass``;
Passed (100000), SoftFailed (-1) and DisabledRule (-2) never do. Boolean rules' codes are only
Passed or Failed, which lets the flag test them with one ``least``: the cases mix both kinds.
"""

from __future__ import annotations

import random

import pytest

from quality_py.actions.flags import fails_any_sql

ANY_CODES = [100000, 0, -1, -2, 79999, 80000, 50000, 1, None]
BOOLEAN_CODES = [100000, 0]


def fails(code: int | None, probable_pass: float) -> bool:
    if code is None or code == 0:
        return True
    if code in (100000, -1, -2):
        return False
    return code < probable_pass * 100000


@pytest.mark.parametrize("seed", range(3))
def test_fails_any_matches_python(spark, seed: int) -> None:
    rng = random.Random(seed)
    width = rng.randint(1, 6)
    families = [rng.choice(["boolean", "number", None]) for _ in range(width)]
    rows = [
        tuple(rng.choice(BOOLEAN_CODES if f == "boolean" else ANY_CODES) for f in families)
        for _ in range(200)
    ]
    names = [f"c{i}" for i in range(width)]
    df = spark.createDataFrame(rows, ", ".join(f"{n} int" for n in names))
    flag = fails_any_sql(names, 0.8, families)
    got = [r.f for r in df.selectExpr(f"{flag} AS f").collect()]
    want = [any(fails(c, 0.8) for c in row) for row in rows]
    assert got == want
    assert any(want) and not all(want)  # both outcomes are exercised
