"""Importers are parsers: whatever a foreign rules file holds (values of the wrong kind where the
tool's format has a mapping, a list or a name; huge fields; deep nesting; aliases; non-finite
numbers), reading it gives our ruleset or one readable error naming the file and line, never a
traceback. Documents are generated from each tool's own keys with values of every kind."""

from __future__ import annotations

import csv
import io
import json

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py.errors import QualityError
from quality_py.io.imports import import_text

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["id", "a > 0", "is_not_null", "error", "warn", "row_dq", "agg_dq", "*"]),
)


def _values(keys: list[str]) -> st.SearchStrategy[object]:
    """Values of any kind, nested, using the tool's own keys for mappings."""
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(keys), inner, max_size=4),
        ),
        max_leaves=12,
    )


DQX_KEYS = ["check", "function", "arguments", "criticality", "name", "filter", "for_each_column",
            "has_valid_schema", "expected_schema", "exclude_columns", "strict",
            "column", "col_name", "columns", "allowed", "limit", "min_limit", "max_limit",
            "regex", "negate", "expression", "ref_table", "ref_columns", "aggr_type", "group_by",
            "user_metadata", "msg", "trim_strings"]  # fmt: skip
SE_KEYS = ["rules", "product_id", "dq_env", "rule", "rule_type", "expectation",
           "action_if_failed", "tag", "description", "is_active", "priority",
           "enable_error_drop_alert", "error_drop_threshold", "enable_for_source_dq_validation",
           "enable_for_target_dq_validation"]  # fmt: skip
SODA_KEYS = ["checks for orders", "row_count > 0", "missing_count(id) = 0", "failed rows",
             "schema", "fail", "warn", "name", "fail condition", "valid values", "valid regex",
             "when wrong column type", "duplicate_count(id) = 0",
             "values in (c) must exist in d (k)", "invalid_count(c) = 0",
             "when required column missing", "freshness(ts) < 1d", "freshness(ts, NOW)",
             "freshness using ts with X < 2d", "values in c must exist in d k", "filter",
             "identity", "attributes", "samples limit"]  # fmt: skip


SODA_CONTRACT_KEYS = ["dataset", "filter", "columns", "checks", "name", "missing", "invalid",
                      "duplicate", "row_count", "freshness", "aggregate", "metric", "schema",
                      "failed_rows", "threshold", "must_be", "must_be_between", "greater_than",
                      "less_than", "level", "additional", "metric", "missing_values",
                      "valid_values", "valid_format", "regex", "columns", "function",
                      "expression", "column", "variables", "default"]  # fmt: skip
GX_KEYS = ["name", "expectations", "type", "expectation_type", "kwargs", "column", "mostly",
           "min_value", "max_value", "strict_min", "value_set", "regex", "value",
           "row_condition", "condition_parser", "meta", "$PARAMETER",
           "expect_column_median_to_be_between", "expect_column_values_to_be_between",
           "expect_table_row_count_to_equal", "expect_column_values_to_be_unique"]  # fmt: skip
ODCS_KEYS = ["apiVersion", "kind", "id", "version", "status", "schema", "name", "physicalName",
             "properties", "physicalType", "logicalType", "logicalTypeOptions", "required",
             "unique", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
             "maxLength", "pattern", "format", "quality", "type", "metric", "rule", "mustBe",
             "mustBeBetween", "unit", "query", "arguments", "severity"]  # fmt: skip
#: values an ODCS contract holds where a type or a bound is read
ODCS_VALUES = st.sampled_from(["serial", "varchar(2)", "varchar(max)", "money", "int",
                               "struct<a:int>", "v3.1.0", "2020-01-01", "00:00:00", "percent",
                               "sql", "library", "nullValues", "rowCount", "{object}"])  # fmt: skip


def _read(text: str, kind: str, origin: str, **options: str | None) -> None:
    try:
        import_text(text, kind, origin, **options)
    except QualityError as err:
        message = err.message
        assert origin in message, message
        assert "does not read back" not in message, message  # that would be our bug
        assert "bug of quality_py" not in message, message  # a converter raised unexpectedly
        assert "Traceback" not in message and "object at 0x" not in message, message


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(_values(DQX_KEYS), max_size=4) | _values(DQX_KEYS))
def test_dqx_files_of_any_shape(doc: object) -> None:
    _read(yaml.safe_dump(doc), "dqx", "checks.yml")


@SETTINGS
@given(_values(SE_KEYS))
def test_spark_expectations_files_of_any_shape(doc: object) -> None:
    _read(yaml.safe_dump(doc), "spark-expectations", "rules.yaml")


@SETTINGS
@given(_values(SODA_KEYS))
def test_soda_files_of_any_shape(doc: object) -> None:
    _read(yaml.safe_dump(doc), "sodacl", "checks.yml")


@SETTINGS
@given(_values(SODA_CONTRACT_KEYS))
def test_soda_contracts_of_any_shape(doc: object) -> None:
    _read(yaml.safe_dump(doc), "soda-contract", "contract.yml")


@SETTINGS
@given(
    _values(GX_KEYS),
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from([*GX_KEYS[-3:], "expect_x"]),
                "kwargs": st.dictionaries(st.sampled_from(GX_KEYS), SCALARS),
            }
        )
        | _values(GX_KEYS),
        max_size=3,
    ),
)
def test_gx_suites_of_any_shape(doc: object, expectations: list[object]) -> None:
    _read(yaml.safe_dump(doc), "gx", "suite.json")
    _read(json.dumps({"name": "s", "expectations": expectations}), "gx", "suite.json")


@SETTINGS
@given(st.recursive(
    st.one_of(SCALARS, ODCS_VALUES),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(ODCS_KEYS), inner, max_size=5)),
    max_leaves=16,
))  # fmt: skip
def test_odcs_contracts_of_any_shape(doc: object) -> None:
    if isinstance(doc, dict):
        doc = {"apiVersion": "v3.1.0", **doc}
    _read(yaml.safe_dump(doc), "odcs", "contract.yaml")


_ODCS_VALUE = st.one_of(SCALARS, ODCS_VALUES, st.lists(st.one_of(SCALARS, ODCS_VALUES), max_size=3))
_ODCS_ENTRIES = st.lists(st.dictionaries(st.sampled_from(ODCS_KEYS), _ODCS_VALUE, max_size=5),
                         max_size=2)  # fmt: skip
_ODCS_PROPERTY = st.fixed_dictionaries(
    {"name": st.sampled_from(["a", "b", "c d", "`e`"])},
    optional={"physicalType": st.one_of(SCALARS, ODCS_VALUES), "required": SCALARS,
              "unique": SCALARS, "quality": _ODCS_ENTRIES,
              "logicalTypeOptions": st.dictionaries(st.sampled_from(ODCS_KEYS), _ODCS_VALUE,
                                                    max_size=4)},
)  # fmt: skip


@SETTINGS
@given(
    st.lists(
        st.fixed_dictionaries(
            {"name": st.sampled_from(["t", "u", "t"])},
            optional={"properties": st.lists(_ODCS_PROPERTY, max_size=3),
                      "quality": _ODCS_ENTRIES, "physicalName": st.sampled_from(["p", "t"])},
        ),
        min_size=1, max_size=2,
    ),
    st.sampled_from([None, "t", "u", "p", "x"]),
)  # fmt: skip
def test_odcs_contracts_of_the_standard_shape_with_any_values(
    objects: list[object], table: str | None
) -> None:
    text = yaml.safe_dump({"apiVersion": "v3.1.0", "kind": "DataContract", "schema": objects})
    _read(text, "odcs", "contract.yaml", odcs_object=table)


@SETTINGS
@given(
    st.lists(
        st.lists(st.one_of(st.text(max_size=8), st.sampled_from(['"', "\n", "a > 0"])),
                 min_size=3, max_size=3),
        max_size=4,
    )
)  # fmt: skip
def test_spark_expectations_csv_of_any_shape(rows: list[list[str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["rule", "rule_type", "expectation"])
    writer.writerows(rows)
    _read(out.getvalue(), "spark-expectations", "rules.csv")


# the shapes the issue names, each one error with the file and line
@pytest.mark.parametrize(
    ("text", "kind", "origin", "said"),
    [
        ("- criticality: error\n  check: {function: is_not_null, arguments: [1, 2]}\n",
         "dqx", "c.yml", "c.yml:1: this check's arguments is malformed: it must be a mapping"),
        ("- check: {function: is_not_null, for_each_column: id}\n", "dqx", "c.yml",
         "c.yml:1: this check is malformed: for_each_column must be a list"),
        ("rule,rule_type,expectation\nr1,row_dq,\"" + "x" * 200_000 + "\"\n",
         "spark-expectations", "r.csv", "r.csv:2: this CSV row is malformed: field larger"),
        ("rules: {rule: r}\n", "spark-expectations", "r.yaml", "r.yaml:1: rules is malformed"),
        ("- 1\n- 2\n", "spark-expectations", "r.yaml", "r.yaml:1: the rules file is malformed"),
        ("rules:\n  - {rule: r, rule_type: row_dq, expectation: a > 0, enable_error_drop_alert: true, "
         "error_drop_threshold: .nan}\n", "spark-expectations", "r.yaml",
         "r.yaml:2: this rule is malformed: error_drop_threshold must be a finite number"),
        ("checks for t: {row_count > 0: x}\n", "sodacl", "s.yml",
         "s.yml:1: checks for t is malformed: not a list"),
        ("- check: {function: is_not_less_than, arguments: {column: a, limit: .nan}}\n",
         "dqx", "d.yml", "d.yml:1: this check is malformed: a limit must be a finite number"),
        ("a: " + "[" * 100 + "]" * 100 + "\n", "dqx", "d.yml", "d.yml"),
        ("a: &x [1]\nb: *x\n", "sodacl", "s.yml", "aliases"),
        ("dataset: d\nchecks: [row_count: ]\ncolumns:\n  - {checks: [missing: ]}\n",
         "soda-contract", "c.yml", "c.yml:4: this column is malformed: it has no name"),
        ("dataset: d\n", "soda-contract", "c.yml",
         "c.yml:1: the contract is malformed: it has neither columns nor checks"),
    ],
)  # fmt: skip
def test_malformed_files_are_one_error_with_file_and_line(
    text: str, kind: str, origin: str, said: str
) -> None:
    with pytest.raises(QualityError) as caught:
        import_text(text, kind, origin)
    assert said in caught.value.message, caught.value.message
