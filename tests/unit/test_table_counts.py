"""Which windows a growing table's indexes answer (no JVM): counts of rows per plain key
columns, keep-one's ``row_number() ... = 1``, and nothing else (issue 55)."""

from __future__ import annotations

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite
from quality_py.sql.compiler import compile_suite
from quality_py.sql.table_counts import add_table_counts, counted_keys
from quality_py.sql.table_firsts import add_first_rows, first_rows
from quality_py.sql.windows import with_total_order

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


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1", ("K",)),
        ("1 = row_number() OVER (PARTITION BY g, k ORDER BY t)", ("g", "K")),
        ("k IS NULL OR (row_number() OVER (PARTITION BY k ORDER BY t)) = 1", ("K",)),
    ],
)
def test_keep_one_is_answered_by_a_first_row_index(text: str, keys: tuple[str, ...]) -> None:
    found = [f for f, _ in first_rows(_tree(text), NAMES)]
    assert [f.keys if f else None for f in found] == [keys]


@pytest.mark.parametrize(
    "text",
    [
        "row_number() OVER (PARTITION BY k ORDER BY t) <= 2",  # the second row is not kept
        "row_number() OVER (PARTITION BY k ORDER BY t) = 2",
        "row_number() OVER (PARTITION BY k ORDER BY t) + 0 = 1",  # a value read, not compared
        "row_number() OVER (PARTITION BY lower(g) ORDER BY t) = 1",  # a key that is no column
    ],
)
def test_every_other_row_number_is_unanswerable(text: str) -> None:
    assert [f for f, _ in first_rows(_tree(text), NAMES)] == [None]


def test_a_first_row_index_is_named_by_its_whole_order() -> None:
    """The order's terms, each with its direction and null order, name the kept index: a
    column added to the input (a new tie-breaking term) names another one. A key column and a
    term repeated tell no two rows of a key apart, and are not kept."""
    tree = _tree("row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1")
    narrow = with_total_order(tree, [("K", True), ("t", True)])
    wide = with_total_order(tree, [("K", True), ("t", True), ("x", True)])
    (first,), (second,) = ([f for f, _ in first_rows(t, NAMES)] for t in (narrow, wide))
    assert first is not None and second is not None
    assert first.marker == "first row by ORDER BY t DESC NULLS LAST"
    assert second.marker == "first row by ORDER BY t DESC NULLS LAST, `x` ASC NULLS FIRST"
    assert first.keys == second.keys == ("K",)


def test_a_row_first_in_the_batch_must_also_come_before_the_kept_first() -> None:
    tree = _tree("row_number() OVER (PARTITION BY k ORDER BY t DESC) = 1")
    (index,) = [f for f, _ in first_rows(tree, NAMES) if f]
    sql = add_first_rows(tree, NAMES, {index: ("n", ("c0",))}).sql("spark")
    assert sql.startswith(
        "(ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC) = 1 AND (`n` IS NULL"
    )
    assert "COALESCE(t > `c0`, FALSE)" in sql  # descending: a larger t comes first
