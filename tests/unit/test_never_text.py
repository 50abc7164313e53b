"""Operands known not to be text skip Spark's type analysis (implicit_casts._never_text).

The shortcut may only ever skip pairs that need no containment: a wrong "never text" answer would
leave a string operand uncontained, so every case here is one Spark would type as written.
"""

from __future__ import annotations

import pytest

from quality_py.runners.implicit_casts import _candidates, _never_text
from quality_py.sql.parse import parse_expression

SCHEMA = {"n": "bigint", "s": "string", "d": "date", "v": "varchar(3)", "st": "struct<a:string>"}


@pytest.mark.parametrize(
    ("sql", "never"),
    [
        ("1", True),
        ("1.5", True),
        ("'x'", False),
        ("n", True),
        ("N", True),  # Spark resolves names case-insensitively
        ("main.n", True),
        ("other.n", False),  # another qualifier: not known from the input's schema
        ("s", False),
        ("v", False),
        ("d", True),
        ("st.a", False),  # a nested field: its type is not looked up
        ("missing", False),
        ("n % 3", True),
        ("s + 1", True),  # arithmetic on text yields a number in Spark
        ("(n)", True),
        ("(s)", False),
        ("concat(n, n)", False),  # functions may return text
        ("substring(n, 1, 2)", False),
        ("abs(s)", True),  # math and date functions return numbers and dates
        ("year(s)", True),
        ("n > 1", True),
    ],
)
def test_never_text(sql: str, never: bool) -> None:
    assert _never_text(parse_expression(sql), SCHEMA) is never


def test_only_pairs_with_possible_text_remain() -> None:
    pairs, args = _candidates(parse_expression("(n % 2) = 0 AND s > 5 AND abs(n) > 1"), SCHEMA)
    assert [(a.sql(), b.sql()) for a, b in pairs] == [("s", "5")]
    assert args == []
    _, args = _candidates(parse_expression("abs(s) > 1 AND year(d) = 2020"), SCHEMA)
    assert [a.sql() for a, _ in args] == ["s"]
