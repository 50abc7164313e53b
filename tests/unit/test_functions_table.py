"""docs/functions.md lists every SQL function of the original, and its statuses are true.

The original's names are read from its documentation's chapter 6 table of contents (the shared
seed), not from our code; a function marked works or differs must be one the compiler handles.
"""

from __future__ import annotations

import re
from pathlib import Path

from quality_py.sql.library import canonical, lookup

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT.parent / "shared" / "seeds" / "quality-library-docs.txt"
#: Handled by passes other than library_functions (lambdas, schema preparation), or read by
#: agg_expr as its arguments.
BY_PASSES = {"", "lambda", "callfun", "coalesceifattributesmissing",
             "coalesceifattributesmissingdisable", "sumwith", "inc", "resultswith", "returnsum",
             "meanf"}  # fmt: skip


#: Functions the original has in SQL that are Python functions here (building a bloom is an
#: offline job over a whole DataFrame, not an expression of a rule).
PYTHON_REPLACEMENTS = {"smallbloom": "build_bloom", "bigbloom": "build_bloom"}


def table() -> dict[str, str]:
    text = (ROOT / "docs" / "functions.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([^`]+)` \| ([a-z ]+) \|", text, re.MULTILINE))


def test_every_function_of_the_original_is_listed() -> None:
    listed = {canonical(n) for n in table()}
    assert len(table()) == len(listed) == 67
    if SEED.exists():  # the seed sits beside the repository on the development machine
        body = SEED.read_text(encoding="utf-8").split("6. SQL Functions Documentation\n", 1)[1]
        headings = dict(re.findall(r"^6\.(\d+) (.+)$", body, re.MULTILINE))
        assert len(headings) == 67
        assert {canonical(n.replace(" ", "")) for n in headings.values()} == listed


def test_working_functions_are_implemented() -> None:
    for name, status in table().items():
        key = canonical(name)
        if key in PYTHON_REPLACEMENTS:
            import quality_py.io.blooms as blooms

            assert status == "differs" and hasattr(blooms, PYTHON_REPLACEMENTS[key])
        elif status in ("works", "differs"):
            assert lookup(name) is not None or key in BY_PASSES, name
        elif status == "not yet":
            assert lookup(name) is None, f"{name} is implemented: update docs/functions.md"
