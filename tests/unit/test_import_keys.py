"""Every key of the tools' documented formats is honoured or listed with its line, never
dropped: each key is tried alone on a minimal check of each function, and the converter either
maps the check (the key is one its translation reads) or lists it at its line.

The keys are facts read off the tools' sources: DQX's check functions and their parameters
(databrickslabs/dqx src/databricks/labs/dqx/check_funcs.py, the line of each function below),
Spark-Expectations' rules columns (spark_expectations/rules/plugins/_flatten.py,
RULES_SCHEMA_COLUMNS, line 52) and file keys (same file, docstring lines 1-38), and SodaCL's
missing and valid configurations (soda/core/soda/sodacl/missing_and_valid_cfg.py lines 5-38)
and check configurations (soda/core/soda/sodacl/sodacl_parser.py lines 600-640)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from quality_py.io.imports import import_text
from quality_py.io.imports.dqx import COLUMN_KEYS
from quality_py.io.imports.dqx_functions import DATASET_FUNCTIONS, ROW_FUNCTIONS
from quality_py.io.imports.spark_expectations import HONOURED_KEYS, LISTED_KEYS

#: DQX's check functions: (line in check_funcs.py, parameters).
DQX_FUNCTIONS: dict[str, tuple[int, tuple[str, ...]]] = {
    "is_not_null_and_not_empty": (202, ("column", "trim_strings")),
    "is_not_empty": (222, ("column", "trim_strings")),
    "is_not_null": (240, ("column",)),
    "is_null": (254, ("column",)),
    "is_empty": (270, ("column", "trim_strings")),
    "is_null_or_empty": (288, ("column", "trim_strings")),
    "has_valid_string_case": (310, ("column", "case")),
    "is_not_null_and_is_in_list": (396, ("column", "allowed", "case_sensitive")),
    "is_in_list": (453, ("column", "allowed", "case_sensitive")),
    "is_not_in_list": (514, ("column", "forbidden", "case_sensitive")),
    "sql_expression": (574, ("expression", "msg", "name", "negate", "columns")),
    "is_older_than_col2_for_n_days": (620, ("column1", "column2", "days", "negate")),
    "is_older_than_n_days": (670, ("column", "days", "curr_date", "negate")),
    "is_not_in_future": (721, ("column", "offset", "curr_timestamp")),
    "is_not_in_near_future": (755, ("column", "offset", "curr_timestamp")),
    "is_equal_to": (792, ("column", "value", "abs_tolerance", "rel_tolerance")),
    "is_not_equal_to": (847, ("column", "value", "abs_tolerance", "rel_tolerance")),
    "is_not_less_than": (903, ("column", "limit")),
    "is_not_greater_than": (933, ("column", "limit")),
    "is_in_range": (963, ("column", "min_limit", "max_limit")),
    "is_not_in_range": (1001, ("column", "min_limit", "max_limit")),
    "regex_match": (1039, ("column", "regex", "negate")),
    "is_not_null_and_not_empty_array": (1062, ("column",)),
    "is_valid_date": (1079, ("column", "date_format")),
    "is_valid_timestamp": (1103, ("column", "timestamp_format")),
    "is_valid_ipv4_address": (1131, ("column",)),
    "is_valid_email": (1144, ("column",)),
    "is_valid_national_id": (1177, ("column", "country")),
    "is_valid_uuid": (1226, ("column", "strict")),
    "is_valid_country_code": (1404, ("column", "code_format", "case_sensitive")),
    "is_valid_currency_code": (1448, ("column", "code_format", "case_sensitive")),
    "is_valid_subdivision_code": (1518, ("column", "case_sensitive", "country_column")),
    "is_valid_language_code": (1597, ("column", "code_format", "case_sensitive")),
    "is_ipv4_address_in_cidr": (1640, ("column", "cidr_block")),
    "is_valid_ipv6_address": (1691, ("column",)),
    "is_ipv6_address_in_cidr": (1722, ("column", "cidr_block")),
    "is_data_fresh": (1782, ("column", "max_age_minutes", "base_timestamp")),
    "has_no_outliers": (1824, ("column", "row_filter")),
    "is_unique": (1903, ("columns", "nulls_distinct", "row_filter")),
    "foreign_key": (
        2000,
        ("columns", "ref_columns", "ref_df_name", "ref_table", "negate", "row_filter", "null_safe"),
    ),
    "sql_query": (
        2129,
        (
            "query",
            "merge_columns",
            "msg",
            "name",
            "negate",
            "condition_column",
            "input_placeholder",
            "row_filter",
        ),
    ),
    "is_aggr_not_greater_than": (
        2260,
        ("column", "limit", "aggr_type", "group_by", "row_filter", "aggr_params"),
    ),
    "is_aggr_not_less_than": (
        2309,
        ("column", "limit", "aggr_type", "group_by", "row_filter", "aggr_params"),
    ),
    "is_aggr_equal": (
        2358,
        (
            "column",
            "limit",
            "aggr_type",
            "group_by",
            "row_filter",
            "aggr_params",
            "abs_tolerance",
            "rel_tolerance",
        ),
    ),
    "is_aggr_not_equal": (
        2413,
        (
            "column",
            "limit",
            "aggr_type",
            "group_by",
            "row_filter",
            "aggr_params",
            "abs_tolerance",
            "rel_tolerance",
        ),
    ),
    "has_no_aggr_outliers": (
        2471,
        (
            "column",
            "time_column",
            "aggr_type",
            "sigma",
            "lookback_num_intervals",
            "warmup_num_intervals",
            "time_interval",
            "group_by",
            "row_filter",
            "aggr_params",
        ),
    ),
    "aggr_matches_dataset": (
        2710,
        (
            "column",
            "ref_table",
            "ref_df_name",
            "ref_column",
            "aggr_type",
            "aggr_params",
            "group_by",
            "ref_group_by",
            "row_filter",
            "ref_row_filter",
            "abs_tolerance",
            "rel_tolerance",
        ),
    ),
    "compare_datasets": (
        2894,
        (
            "columns",
            "ref_columns",
            "ref_df_name",
            "ref_table",
            "check_missing_records",
            "exclude_columns",
            "null_safe_row_matching",
            "null_safe_column_value_matching",
            "row_filter",
            "abs_tolerance",
            "rel_tolerance",
        ),
    ),
    "is_data_fresh_per_time_window": (
        3057,
        (
            "column",
            "window_minutes",
            "min_records_per_window",
            "lookback_windows",
            "row_filter",
            "curr_timestamp",
        ),
    ),
    "has_no_gaps_per_time_window": (
        3171,
        ("column", "window_minutes", "group_by", "trailing_gap", "curr_timestamp"),
    ),
    "has_valid_schema": (
        3327,
        ("expected_schema", "ref_df_name", "ref_table", "columns", "strict", "exclude_columns"),
    ),
    "is_valid_json": (3447, ("column",)),
    "has_json_keys": (3471, ("column", "keys", "require_all")),
    "has_valid_json_schema": (3523, ("column", "schema")),
}
#: A plausible value of each DQX parameter.
VALUES: dict[str, Any] = {
    "column": "a",
    "columns": ["a"],
    "trim_strings": True,
    "case": "upper",
    "allowed": ["'x'"],
    "forbidden": ["'x'"],
    "case_sensitive": False,
    "expression": "a > 0",
    "msg": "m",
    "name": "n",
    "negate": True,
    "limit": 1,
    "min_limit": 1,
    "max_limit": 2,
    "value": 1,
    "abs_tolerance": 0.1,
    "rel_tolerance": 0.1,
    "regex": "x",
    "strict": True,
    "nulls_distinct": False,
    "row_filter": "a > 0",
    "ref_columns": ["b"],
    "ref_table": "t",
    "ref_df_name": "t",
    "null_safe": True,
    "aggr_type": "sum",
    "group_by": ["b"],
    "aggr_params": {"percentile": 0.5},
}
MINIMAL: dict[str, dict[str, Any]] = {
    "sql_expression": {"expression": "a > 0"},
    "is_unique": {"columns": ["a"]},
    "foreign_key": {"columns": ["a"], "ref_columns": ["b"], "ref_table": "t"},
    "is_in_list": {"column": "a", "allowed": ["'x'"]},
    "is_not_null_and_is_in_list": {"column": "a", "allowed": ["'x'"]},
    "is_not_in_list": {"column": "a", "forbidden": ["'x'"]},
    "is_in_range": {"column": "a", "min_limit": 1, "max_limit": 2},
    "is_not_in_range": {"column": "a", "min_limit": 1, "max_limit": 2},
    "is_not_less_than": {"column": "a", "limit": 1},
    "is_not_greater_than": {"column": "a", "limit": 1},
    "is_equal_to": {"column": "a", "value": 1},
    "is_not_equal_to": {"column": "a", "value": 1},
    "regex_match": {"column": "a", "regex": "x"},
    **{f: {"column": "a", "limit": 1, "group_by": ["b"]} for f in
       ("is_aggr_not_greater_than", "is_aggr_not_less_than", "is_aggr_equal",
        "is_aggr_not_equal")},
}  # fmt: skip


def _read(fn: str) -> frozenset[str]:
    if fn in ROW_FUNCTIONS:
        extra = COLUMN_KEYS if fn != "sql_expression" else frozenset()
        return ROW_FUNCTIONS[fn][1] | extra
    return DATASET_FUNCTIONS.get(fn, frozenset())


@pytest.mark.parametrize(
    ("fn", "key"),
    [(fn, key) for fn, (_, keys) in DQX_FUNCTIONS.items() for key in keys],
)
def test_each_dqx_argument_is_honoured_or_listed(fn: str, key: str) -> None:
    args = {**MINIMAL.get(fn, {"column": "a"}), key: VALUES.get(key, "x")}
    text = yaml.safe_dump([{"criticality": "error", "check": {"function": fn, "arguments": args}}])
    result = import_text(text, "dqx", "c.yml")
    listed = [u for u in result.unmapped if u.line == 1]
    if listed:
        return  # listed with its line: the check is not converted
    assert result.rules + result.checks == 1
    assert key in _read(fn), f"{fn}: {key} was converted without being read"


@pytest.mark.parametrize("key", ["criticality", "check", "name", "filter", "user_metadata",
                                 "message_expr", "for_each_column"])  # fmt: skip
def test_each_dqx_check_key_is_honoured_or_listed(key: str) -> None:
    check: dict[str, Any] = {"function": "is_not_null", "arguments": {"column": "a"}}
    spec: dict[str, Any] = {"check": check}
    value = {"criticality": "warn", "name": "n", "filter": "b > 0", "user_metadata": {"k": 1},
             "message_expr": "'bad'", "for_each_column": ["a", "b"]}.get(key)  # fmt: skip
    if key == "for_each_column":
        check[key] = value
    elif key != "check":
        spec[key] = value
    result = import_text(yaml.safe_dump([spec]), "dqx", "c.yml")
    out = result.text
    honoured = {"criticality": "action_if_failed: ignore" in out, "check": result.rules == 1,
                "name": "name: n" in out, "filter": "b > 0" in out,
                "for_each_column": result.rules == 2}  # fmt: skip
    if key in honoured:
        assert honoured[key] and not result.unmapped
    else:  # kept out of the ruleset, and said so at the check's line
        assert [(u.line, key in u.text) for u in result.unmapped] == [(1, True)]


#: Spark-Expectations' rules columns and file keys.
SE_RULE_KEYS = ("product_id", "table_name", "rule_type", "rule", "column_name", "expectation",
                "action_if_failed", "tag", "description", "enable_for_source_dq_validation",
                "enable_for_target_dq_validation", "is_active", "enable_error_drop_alert",
                "error_drop_threshold", "query_dq_delimiter", "enable_querydq_custom_output",
                "priority")  # fmt: skip
SE_FILE_KEYS = ("product_id", "table_name", "dq_env", "defaults", "rules")


def test_spark_expectations_keys_are_declared() -> None:
    assert set(SE_RULE_KEYS) | set(SE_FILE_KEYS) <= HONOURED_KEYS | LISTED_KEYS
    assert not HONOURED_KEYS & LISTED_KEYS


@pytest.mark.parametrize("key", sorted(LISTED_KEYS))
def test_each_listed_spark_expectations_key_is_listed(key: str) -> None:
    rule = {"rule": "r", "rule_type": "row_dq", "expectation": "a > 0", key: "dev.t"}
    if key in ("query_dq_delimiter", "enable_querydq_custom_output"):
        rule[key] = True
    result = import_text(yaml.safe_dump({"rules": [rule]}), "spark-expectations", "r.yaml")
    assert any(key in u.text for u in result.unmapped), result.unmapped


#: SodaCL's missing and valid configurations and the other keys a metric check takes.
SODA_KEYS = ("valid values", "invalid values", "valid format", "invalid format", "valid regex",
             "invalid regex", "valid min", "valid max", "valid min length", "valid max length",
             "valid length", "missing values", "missing format", "missing regex", "include null",
             "name", "filter", "warn", "fail", "samples limit", "samples columns", "identity",
             "attributes", "method", "condition", "missing_count expression",
             "missing_count query", "failed rows query")  # fmt: skip
SODA_VALUES = {"valid values": ["x"], "invalid values": ["x"], "missing values": ["x"],
               "valid min": 1, "valid max": 2, "valid min length": 1, "valid max length": 2,
               "valid length": 1, "include null": True, "samples limit": 5,
               "missing_count expression": "count_if(a IS NULL)"}  # fmt: skip


@pytest.mark.parametrize("key", SODA_KEYS)
def test_each_soda_configuration_is_honoured_or_listed(key: str) -> None:
    check = {"missing_count(a) = 0": {key: SODA_VALUES.get(key, "x")}}
    text = yaml.safe_dump({"checks for t": [check]})
    result = import_text(text, "sodacl", "s.yml")
    if result.unmapped:
        assert [u.line for u in result.unmapped] == [2]
        return
    (sql,) = result.text.split("sql: ")[1:]
    assert key in ("name", "filter") or key.startswith(("valid", "invalid", "missing", "include"))
    assert sql  # the configuration shaped the metric's SQL (see test_imports for the values)
