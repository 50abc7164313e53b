"""docs/glossary.md is the glossary the code uses, term for term."""

from __future__ import annotations

import re
from pathlib import Path

from quality_py.model.glossary import TERMS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "glossary.md").read_text("utf-8")


def test_the_doc_table_is_the_code_table() -> None:
    table = DOC.split("<!-- glossary -->")[1].split("\n\n")[0]
    rows = re.findall(r"^\| ([^|]+) \| `([a-z_]+)` \| (.+) \|$", table, re.M)
    assert rows == [(t.name, t.key, t.definition) for t in TERMS]


def test_names_and_keys_are_unique() -> None:
    assert len({t.name for t in TERMS}) == len({t.key for t in TERMS}) == len(TERMS)
