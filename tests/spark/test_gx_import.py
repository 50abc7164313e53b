"""Great Expectations suites converted keep GX's verdicts (great_expectations 1.2 read as facts:
expectations/expectation.py, ``ColumnMapExpectation._validate`` and ``_mostly_success``, the
null expectations' own ``_validate``, ``_validate_metric_value_between``). Every verdict below
is worked out by hand from the five rows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quality_py import RulePolicy
from quality_py.actions.sql_checks import run_sql_checks
from quality_py.dataset.checks import verify
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file
from tests.spark.rule_rows import failing_rows

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ROWS = [  # i, id, amount, status, code
    (0, 1, 5.0, "a", "ABC"),
    (1, 2, 150.0, "b", "AB"),
    (2, 2, None, "c", None),
    (3, None, 50.0, "a", "XYZ"),
    (4, 5, -1.0, "z", "abc"),
]
SCHEMA = "i int, id int, amount double, status string, code string"
# (type, kwargs, verdict on ROWS, verdict on no rows), by hand
CASES = [
    ("expect_column_values_to_not_be_null", {"column": "id"}, False, True),  # 4/5 < 1
    ("expect_column_values_to_not_be_null", {"column": "id", "mostly": 0.8}, True, True),
    ("expect_column_values_to_be_null", {"column": "code", "mostly": 0.2}, True, True),  # 1/5
    ("expect_column_values_to_be_null", {"column": "code", "mostly": 0.21}, False, True),
    # non-null amounts 5, 150, 50, -1: two outside [0, 100], 2/4 expected
    ("expect_column_values_to_be_between",
     {"column": "amount", "min_value": 0, "max_value": 100, "mostly": 0.5}, True, True),
    ("expect_column_values_to_be_between",
     {"column": "amount", "min_value": 0, "max_value": 100, "mostly": 0.51}, False, True),
    ("expect_column_values_to_be_between",
     {"column": "amount", "min_value": -1, "strict_min": True, "mostly": 0.75}, True, True),
    # only the rows where amount > 0 count: a, b, a
    ("expect_column_values_to_be_in_set",
     {"column": "status", "value_set": ["a", "b"], "row_condition": "amount > 0",
      "condition_parser": "spark"}, True, True),
    ("expect_column_values_to_be_in_set", {"column": "status", "value_set": ["a", "b"]},
     False, True),
    ("expect_column_values_to_not_be_in_set",
     {"column": "status", "value_set": ["z"], "mostly": 0.8}, True, True),  # 4/5
    # ids 1, 2, 2, 5: the two 2s are unexpected, 2/4
    ("expect_column_values_to_be_unique", {"column": "id"}, False, True),
    ("expect_column_values_to_be_unique", {"column": "id", "mostly": 0.5}, True, True),
    # codes ABC, AB, XYZ, abc: AB and abc do not match
    ("expect_column_values_to_match_regex", {"column": "code", "regex": "^[A-Z]{3}$"},
     False, True),
    ("expect_column_values_to_match_regex",
     {"column": "code", "regex": "^[A-Z]{3}$", "mostly": 0.5}, True, True),
    ("expect_column_value_lengths_to_equal", {"column": "code", "value": 3, "mostly": 0.75},
     True, True),
    # the mean of 5, 150, 50, -1 is 51; a mean of no rows is null and fails
    ("expect_column_mean_to_be_between", {"column": "amount", "min_value": 51}, True, False),
    ("expect_column_mean_to_be_between",
     {"column": "amount", "min_value": 51, "strict_min": True}, False, False),
    ("expect_column_max_to_be_between", {"column": "amount", "max_value": 150}, True, False),
    # the non-null amounts sorted: -1, 5, 50, 150; the two middle ones' mean is 27.5 (the null
    # left out); a median of no rows is NaN in GX (np.mean of nothing) and fails
    ("expect_column_median_to_be_between", {"column": "amount", "min_value": 27.5,
     "max_value": 27.5}, True, False),
    ("expect_column_median_to_be_between", {"column": "amount", "min_value": 27.6},
     False, False),
    ("expect_column_unique_value_count_to_be_between",
     {"column": "id", "min_value": 3, "max_value": 3}, True, False),  # 1, 2, 5; none: 0
    # 3 distinct ids of 4 non-null: 0.75; without a value the proportion is none, and fails
    ("expect_column_proportion_of_unique_values_to_be_between",
     {"column": "id", "min_value": 0.7, "max_value": 0.8}, True, False),
    ("expect_table_row_count_to_be_between", {"min_value": 1, "max_value": 4}, False, False),
    ("expect_table_row_count_to_be_between", {"min_value": 5, "max_value": 5}, True, False),
    ("expect_table_row_count_to_equal", {"value": 5}, True, False),
    # distinct statuses a, b, c, z; distinct ids 1, 2, 5 (the null dropped): Python sets
    ("expect_column_distinct_values_to_be_in_set",
     {"column": "status", "value_set": ["a", "b", "c", "z", "q"]}, True, True),
    ("expect_column_distinct_values_to_be_in_set",
     {"column": "status", "value_set": ["a", "b"]}, False, True),
    ("expect_column_distinct_values_to_be_in_set", {"column": "id", "value_set": [1, 2, 5]},
     True, True),
    ("expect_column_distinct_values_to_be_in_set", {"column": "id", "value_set": []},
     True, True),  # an empty set: any values
    ("expect_column_distinct_values_to_contain_set",
     {"column": "status", "value_set": ["a", "z"]}, True, False),
    ("expect_column_distinct_values_to_contain_set",
     {"column": "status", "value_set": ["a", "q"]}, False, False),
    ("expect_column_distinct_values_to_equal_set",
     {"column": "status", "value_set": ["z", "c", "b", "a"]}, True, False),
    ("expect_column_distinct_values_to_equal_set",
     {"column": "status", "value_set": ["a", "b", "c"]}, False, False),
    # codes ABC, AB, XYZ, abc: ^A or Z$ finds 3 of 4; both ^[A-Z] and ^.{3} 2 of 4; neither
    # ^A nor c$ 1 of 4
    ("expect_column_values_to_match_regex_list",
     {"column": "code", "regex_list": ["^A", "Z$"], "mostly": 0.75}, True, True),
    ("expect_column_values_to_match_regex_list", {"column": "code", "regex_list": ["^A", "Z$"]},
     False, True),
    ("expect_column_values_to_match_regex_list",
     {"column": "code", "regex_list": ["^[A-Z]", "^.{3}"], "match_on": "all", "mostly": 0.5},
     True, True),
    ("expect_column_values_to_match_regex_list",
     {"column": "code", "regex_list": ["^[A-Z]", "^.{3}"], "match_on": "all", "mostly": 0.51},
     False, True),
    ("expect_column_values_to_not_match_regex_list",
     {"column": "code", "regex_list": ["^A", "c$"], "mostly": 0.25}, True, True),
    ("expect_column_values_to_not_match_regex_list",
     {"column": "code", "regex_list": ["^A", "c$"], "mostly": 0.26}, False, True),
]  # fmt: skip


def _suite(cases: list[tuple[str, dict[str, Any], bool, bool]]) -> str:
    return json.dumps({"name": "s", "expectations": [{"type": t, "kwargs": k}
                                                     for t, k, *_ in cases]})  # fmt: skip


def test_gx_verdicts_on_rows_and_on_none(spark: Any) -> None:
    result = import_text(_suite(CASES), "gx", "suite.json")
    assert result.unmapped == ()
    ruleset = loads_ruleset_file(result.text, variables={})
    assert len(ruleset.sql_checks) == len(CASES)
    for rows, column in ((ROWS, 2), ([], 3)):
        df = spark.createDataFrame(rows, SCHEMA)
        metrics = run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())
        got = [m.status == "passed" for m in metrics]
        assert got == [case[column] for case in CASES], [
            (c[0], c[1]) for c, g in zip(CASES, got, strict=True) if g != c[column]]  # fmt: skip


def test_gx_rules_flag_the_rows_gx_reports_unexpected(spark: Any) -> None:
    cases = [CASES[4], CASES[7], CASES[10], CASES[12]]
    ruleset = loads_ruleset_file(import_text(_suite(cases), "gx", "s.json").text, variables={})
    suite = ruleset.suite
    df = spark.createDataFrame(ROWS, SCHEMA)
    failed = failing_rows(suite, df, "i")
    # amount outside [0, 100]; status not in the set where amount > 0 (none); the repeated
    # id; a code not of three capitals
    assert failed == [[1, 4], [], [1, 2], [1, 4]]


def test_gx_table_structure(spark: Any) -> None:
    """``table.columns`` and ``table.column_count`` (expect_column_to_exist.py,
    expect_table_columns_to_match_ordered_list.py, expect_table_columns_to_match_set.py:
    without exact_match, every listed column present and others allowed), by hand on ROWS'
    five columns i, id, amount, status, code."""
    every = ["i", "id", "amount", "status", "code"]
    cases = [
        ("expect_column_to_exist", {"column": "id"}, True),
        ("expect_column_to_exist", {"column": "nope"}, False),
        ("expect_column_to_exist", {"column": "id", "column_index": 0}, True),  # 0 is none
        ("expect_table_columns_to_match_ordered_list", {"column_list": every}, True),
        ("expect_table_columns_to_match_ordered_list", {"column_list": every[1::-1] + every[2:]},
         False),
        ("expect_table_columns_to_match_ordered_list", {"column_list": every[:4]}, False),
        ("expect_table_columns_to_match_set", {"column_set": every[::-1], "exact_match": True},
         True),
        ("expect_table_columns_to_match_set", {"column_set": ["i", "id"], "exact_match": True},
         False),
        ("expect_table_columns_to_match_set", {"column_set": ["i", "id"]}, True),
        ("expect_table_columns_to_match_set", {"column_set": ["i", "zz"], "exact_match": False},
         False),
        ("expect_table_column_count_to_equal", {"value": 5}, True),
        ("expect_table_column_count_to_equal", {"value": 4}, False),
        ("expect_table_column_count_to_be_between", {"min_value": 5, "max_value": 6}, True),
        ("expect_table_column_count_to_be_between",
         {"min_value": 1, "max_value": 5, "strict_max": True}, False),
        # expect_column_values_to_be_of_type.py, _validate_spark: isinstance of the type class
        ("expect_column_values_to_be_of_type", {"column": "id", "type_": "IntegerType"}, True),
        ("expect_column_values_to_be_of_type", {"column": "amount", "type_": "DoubleType"},
         True),
        ("expect_column_values_to_be_of_type", {"column": "amount", "type_": "FloatType"},
         False),
        ("expect_column_values_to_be_of_type", {"column": "status", "type_": "StringType"},
         True),
        ("expect_column_values_to_be_in_type_list", {"column": "id", "type_list": ["LongType"]},
         False),  # id is an int
    ]  # fmt: skip
    df = spark.createDataFrame(ROWS, SCHEMA)
    got = []
    for kind, kwargs, _ in cases:
        result = import_text(_suite([(kind, kwargs, True, True)]), "gx", "s.json")
        assert result.unmapped == (), result.summary()
        ruleset = loads_ruleset_file(result.text, variables={})
        got.append(verify(df, ruleset.checks).status == "success")
    assert got == [want for *_, want in cases]


PAIR_ROWS = [(0, 1, 1), (1, 2, 1), (2, 1, 2), (3, None, None), (4, None, 5), (5, 3, None)]


def test_gx_column_pairs(spark: Any) -> None:
    """Column pair map expectations (expectation.py, ``ColumnPairMapExpectation._validate``;
    the Spark engine's ``ignore_row_if`` filter; column_pair_values_equal.py and
    column_pair_values_greater.py), by hand on six rows of (a, b)."""
    equal, greater = ("expect_column_pair_values_to_be_equal",
                      "expect_column_pair_values_a_to_be_greater_than_b")  # fmt: skip
    ab = {"column_A": "a", "column_B": "b"}
    cases = [  # (kind, kwargs, verdict, rows failed by its rule)
        # both missing (row 3) left out; 1, 2, 4, 5 differ (null-safely): 1 of 5 expected
        (equal, {**ab, "mostly": 0.2}, True, [1, 2, 4, 5]),
        (equal, ab, False, [1, 2, 4, 5]),
        (equal, {**ab, "ignore_row_if": "either_value_is_missing", "mostly": 0.34}, False,
         [1, 2]),  # 1 of 3
        (equal, {**ab, "ignore_row_if": "neither", "mostly": 0.33}, True, [1, 2, 4, 5]),  # 2/6
        # a > b is false for rows 0 and 2, null (neither) for 4 and 5: 3 of 5
        (greater, {**ab, "mostly": 0.6}, True, [0, 2]),
        (greater, {**ab, "mostly": 0.61}, False, [0, 2]),
        (greater, {**ab, "or_equal": True, "mostly": 0.8}, True, [2]),
    ]  # fmt: skip
    df = spark.createDataFrame(PAIR_ROWS, "i int, a int, b int")
    empty = spark.createDataFrame([], "i int, a int, b int")
    for kind, kwargs, verdict, failed in cases:
        ruleset = loads_ruleset_file(
            import_text(_suite([(kind, kwargs, True, True)]), "gx", "s.json").text, variables={}
        )
        (on_rows,) = run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())
        (on_none,) = run_sql_checks(ruleset.sql_checks, {"source": empty}, RulePolicy())
        assert (on_rows.status, on_none.status) == ("passed" if verdict else "failed", "passed")
        assert failing_rows(ruleset.suite, df, "i") == [failed], (kind, kwargs)


def test_gx_compound_columns_unique(spark: Any) -> None:
    """expect_compound_columns_to_be_unique (compound_columns_unique.py; the Spark engine's
    ``ignore_row_if`` for column lists, all values missing by default), by hand."""
    rows = [(0, 1, "x"), (1, 1, "x"), (2, 1, "y"), (3, None, None), (4, None, None),
            (5, 2, None), (6, 2, None)]  # fmt: skip
    kind, cols = "expect_compound_columns_to_be_unique", {"column_list": ["a", "b"]}
    cases = [  # (kwargs, verdict, rows failed by its rule)
        # rows 3, 4 left out; (1, x) twice and (2, null) twice: 1 of 5 expected
        ({**cols, "mostly": 0.2}, True, [0, 1, 5, 6]),
        (cols, False, [0, 1, 5, 6]),
        ({**cols, "ignore_row_if": "any_value_is_missing", "mostly": 0.34}, False, [0, 1]),
        ({**cols, "ignore_row_if": "never", "mostly": 0.14}, True, [0, 1, 3, 4, 5, 6]),  # 1/7
    ]  # fmt: skip
    df = spark.createDataFrame(rows, "i int, a int, b string")
    empty = spark.createDataFrame([], "i int, a int, b string")
    for kwargs, verdict, failed in cases:
        ruleset = loads_ruleset_file(
            import_text(_suite([(kind, kwargs, True, True)]), "gx", "s.json").text, variables={}
        )
        (on_rows,) = run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())
        (on_none,) = run_sql_checks(ruleset.sql_checks, {"source": empty}, RulePolicy())
        assert (on_rows.status, on_none.status) == ("passed" if verdict else "failed", "passed")
        assert failing_rows(ruleset.suite, df, "i") == [failed], kwargs
