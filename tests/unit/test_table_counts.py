"""Which windows a growing table's key index answers (no JVM): counts of rows per plain key
columns, and nothing else (issue 55)."""

from __future__ import annotations

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite
from quality_py.sql.compiler import compile_suite
from quality_py.sql.table_counts import add_table_counts, counted_keys

NAMES = {"k": "K", "g": "g", "t": "t", "x": "x"}


def _tree(text: str):  # the compiled tree, as a run sees it
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), text)])])
    return compile_suite(suite).rules[0].tree


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("is_unique(k)", [("K",)]),
        ("is_unique_nulls_equal(g, k)", [("g", "K")]),  # the input's names, in the key's order
        ("count(1) OVER (PARTITION BY g) <= 3", [("g",)]),
        ("count(*) OVER (PARTITION BY g) + count(*) OVER (PARTITION BY k) > 1", [("g",), ("K",)]),
    ],
)
def test_counts_of_rows_per_plain_key_are_answered(text: str, keys: list[tuple[str, ...]]) -> None:
    assert sorted(k for k, _ in counted_keys(_tree(text), NAMES)) == sorted(keys)  # type: ignore[type-var]


@pytest.mark.parametrize(
    "text",
    [
        "row_number() OVER (PARTITION BY k ORDER BY t) = 1",  # keep-one
        "count(x) OVER (PARTITION BY k) = 1",  # a count of values, not rows
        "sum(x) OVER (PARTITION BY k) < 10",
        "count(*) OVER (PARTITION BY lower(g)) = 1",  # a key that is no column
    ],
)
def test_every_other_window_is_unanswerable(text: str) -> None:
    assert [k for k, _ in counted_keys(_tree(text), NAMES)] == [None]


def test_the_table_s_count_is_added_to_the_batch_s_where_it_is_known() -> None:
    tree = _tree("count(*) OVER (PARTITION BY g) <= 3 AND count(*) OVER (PARTITION BY k) = 1")
    sql = add_table_counts(tree, NAMES, {("g",): "c0"}).sql("spark")
    assert "(COUNT(*) OVER (PARTITION BY g) + COALESCE(`c0`, 0)) <= 3" in sql
    assert "COUNT(*) OVER (PARTITION BY k) = 1" in sql  # no stored count of k: left alone
