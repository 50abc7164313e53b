"""Each tool's own documentation examples converted, with their counts (issue 58).

The sources are in tests/fixtures/imports/docs/, each file naming the page and commit it was
taken from: DQX's check reference (every YAML check list of quality_checks.mdx), SodaCL's pages
(every block with a ``checks for`` section), Soda v4's contract example, Spark-Expectations'
file-based rules page and example rules file, the core expectations GX's documentation
constructs, and ODCS's example contracts.

For DQX, GX, Spark-Expectations, Soda v4 and the ODCS contracts that declare no schema, what
is listed is **predicted here from the examples themselves**, by rules written by hand from the
tools' documentation and docs/migrating.md (a DQX function or GX expectation without a
counterpart, an argument that does not map), never from our converter's output. For the SodaCL
pages and the ODCS examples the totals were reviewed item by item by hand (each listed item is a
construct docs/migrating.md lists) and are kept as figures so that a change shows and is
explained.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from quality_py.errors import RulesetFormatError
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "docs"

#: DQX functions without a counterpart here, by docs/migrating.md's DQX table: Databricks'
#: spatial (ST_*) functions, Python models, other tables by name, time windows, Spark types.
#: Written out again on purpose (not imported from dqx_unmapped.py): the prediction must not
#: come from the code under test
_DQX_GEO = {
    "is_geometry", "is_geography", "is_point", "is_linestring", "is_polygon", "is_multipoint",
    "is_multilinestring", "is_multipolygon", "is_geometrycollection", "is_ogc_valid",
    "is_non_empty_geometry", "is_not_null_island", "has_dimension", "has_x_coordinate_between",
    "has_y_coordinate_between", "is_area_not_less_than", "is_area_not_greater_than",
    "is_area_equal_to", "is_area_not_equal_to", "is_num_points_not_less_than",
    "is_num_points_not_greater_than", "is_num_points_equal_to", "is_num_points_not_equal_to",
    "are_polygons_mutually_disjoint", "is_geo_contains", "is_geo_covers", "is_geo_intersects",
    "is_geo_touches", "is_geo_within",
}  # fmt: skip
_DQX_LISTED = _DQX_GEO | {
    "does_not_contain_pii", "has_no_row_anomalies", "is_valid_national_id",
    "is_valid_subdivision_code", "is_valid_language_code", "has_valid_json_schema",
    "has_no_aggr_outliers", "aggr_matches_dataset", "compare_datasets",
    "is_data_fresh_per_time_window", "has_no_gaps_per_time_window", "has_no_outliers",
}  # fmt: skip


def _dqx_listed(check: dict[str, Any]) -> bool:
    """Whether DQX's check is listed: its function has no counterpart, or an aggregate check
    takes ``aggr_params`` or a deviation or variance per group (a window)."""
    function, args = check["function"], check.get("arguments") or {}
    if function in _DQX_LISTED:
        return True
    if function == "sql_query":  # the dataset-level form only
        return bool(args.get("merge_columns"))
    if function == "has_valid_schema":  # only a DDL schema, not strict, on all the columns
        return "expected_schema" not in args or bool(args.get("strict") or args.get("columns"))
    if function.startswith("is_aggr_"):
        if "aggr_params" in args:
            return True
        return args.get("aggr_type") in {"stddev", "variance"} and bool(args.get("group_by"))
    return False


def test_dqx_check_reference_examples() -> None:
    text = (DOCS / "dqx_quality_checks.yml").read_text(encoding="utf-8")
    items = yaml.compose(text).value
    specs = yaml.safe_load(text)
    predicted = {n.start_mark.line + 1 for n, s in zip(items, specs, strict=True)
                 if _dqx_listed(s["check"])}  # fmt: skip
    result = import_text(text, "dqx", "quality_checks.mdx")
    assert len(specs) == 170
    assert {u.line for u in result.unmapped} == predicted
    assert len(predicted) == 61
    # 109 checks convert: 103 rules (a check over several columns is a rule per column) and
    # 11 dataset or SQL checks
    assert (result.rules, result.checks) == (103, 11)
    assert len(loads_ruleset_file(result.text, variables={}).suite.rule_sets[0].rules) == 103


def _gx_listed(kind: str, kwargs: dict[str, Any]) -> bool:
    """Whether GX's expectation is listed: another table's row count, a row condition in the
    pandas or GX parser, a range without bounds (GX refuses it too), a type that is not a
    Spark type class, a list of several types."""
    if kind == "expect_table_row_count_to_equal_other_table":
        return True
    if "row_condition" in kwargs and kwargs.get("condition_parser") != "spark":
        return True
    if kind.endswith("_to_be_between") and {"min_value", "max_value"}.isdisjoint(kwargs):
        return True
    if kind == "expect_column_values_to_be_of_type":
        return not str(kwargs["type_"]).endswith("Type")
    return kind == "expect_column_values_to_be_in_type_list" and len(kwargs["type_list"]) > 1


def test_gx_documentation_examples() -> None:
    text = (DOCS / "gx_documentation_examples.json").read_text(encoding="utf-8")
    expectations = json.loads(text)["expectations"]
    predicted = Counter(e["type"] for e in expectations if _gx_listed(e["type"], e["kwargs"]))
    result = import_text(text, "gx", "gx.json")
    assert len(expectations) == 67
    assert Counter(u.text for u in result.unmapped) == predicted
    assert sum(predicted.values()) == 9
    # the suite parameters of the "edit a suite" example are variables
    variables = {"expect_passenger_max_to_be_above": "1", "expect_passenger_max_to_be_below": "6",
                 "expect_fare_max_to_be_above": "0", "expect_fare_max_to_be_below": "500"}  # fmt: skip
    ruleset = loads_ruleset_file(result.text, variables=variables)
    # each of the 58 converted is a SQL check or a table structure constraint (a column count
    # between two bounds is two constraints); a column map expectation is also a rule
    assert len(ruleset.sql_checks) + len(ruleset.checks[0].constraints) >= 67 - 9


@pytest.mark.parametrize(
    "name", ["se_file_based_rules.yaml", "se_file_based_rules.json", "se_sample_rules.yaml"]
)
def test_spark_expectations_documentation_examples(name: str) -> None:
    """Every rule converts: a ``row_dq`` rule is a rule, an ``agg_dq`` one SQL checks."""
    text = (DOCS / name).read_text(encoding="utf-8")
    rules = yaml.safe_load(text)["rules"]
    for env in ("DEV", "QA", "PROD"):
        result = import_text(text, "spark-expectations", name, dq_env=env)
        assert result.unmapped == ()
        assert result.rules == sum(r["rule_type"] == "row_dq" for r in rules)
        assert result.checks >= sum(r["rule_type"] == "agg_dq" for r in rules)


def test_spark_expectations_yaml_and_json_of_one_page_are_one_ruleset() -> None:
    def converted(name: str) -> str:
        text = (DOCS / name).read_text(encoding="utf-8")
        return import_text(text, "spark-expectations", "rules", dq_env="PROD").text

    assert converted("se_file_based_rules.yaml") == converted("se_file_based_rules.json")


def test_soda_contract_example() -> None:
    """Soda v4's example: schema, row count, two missing checks and an invalid one."""
    text = (DOCS / "soda_contract_readme.yml").read_text(encoding="utf-8")
    result = import_text(text, "soda-contract", "contract.yml")
    assert (result.checks, result.unmapped) == (5, ())


def _documents(name: str) -> list[tuple[str, str]]:
    """The (source, text) documents of a fixture of several, each after ``--- # source``."""
    text = (DOCS / name).read_text(encoding="utf-8")
    return [tuple(d.split("\n", 1)) for d in text.split("\n--- # ")[1:]]  # type: ignore[misc]


def _totals(name: str, kind: str) -> tuple[Counter[str], list[str]]:
    totals: Counter[str] = Counter()
    refused = []
    for source, body in _documents(name):
        try:
            result = import_text(body, kind, source)
        except RulesetFormatError:
            refused.append(source)
            continue
        loads_ruleset_file(result.text, variables=dict.fromkeys(_variables(result.text), "1"))
        totals.update(rules=result.rules, checks=result.checks, listed=len(result.unmapped))
    return totals, refused


def _variables(text: str) -> set[str]:
    return set(re.findall(r"\$\{(\w+)\}", text))


def test_sodacl_pages() -> None:
    """215 blocks of the SodaCL pages with 272 checks under ``checks for`` sections: every
    block converts and reads back. Reviewed by hand: the listed items are anomaly, change,
    distribution, group-by and group-evolution checks, failed rows by query, ``same as``
    counts in another data source or of a quoted name, named formats, indexed schema columns
    or changes, types of other databases, user-defined metric queries, templates, sections other than ``checks for`` (``for each``, filters,
    configurations), and keys that choose what Soda reports while their check converts."""
    docs = _documents("sodacl_pages.yml")
    checks = sum(len(v) for _, body in docs for k, v in yaml.safe_load(body).items()
                 if str(k).startswith("checks for") and isinstance(v, list))  # fmt: skip
    totals, refused = _totals("sodacl_pages.yml", "sodacl")
    assert (len(docs), checks, refused) == (215, 272, [])
    assert totals == Counter(rules=16, checks=140, listed=169)


def test_odcs_examples() -> None:
    """ODCS's 17 example contracts (the AdventureWorks one left out for its size): the four
    that declare no schema object (servers, roles, SLAs, stakeholders) are refused as having
    nothing to convert; the others convert and read back. Reviewed by hand: listed are
    further schema objects, custom entries, ``format``, time-zone, item and property options,
    and a time-of-day bound (Spark has no time of day)."""
    docs = _documents("odcs_examples.yml")
    no_schema = [s for s, body in docs if not yaml.safe_load(body).get("schema")]
    totals, refused = _totals("odcs_examples.yml", "odcs")
    assert refused == no_schema and len(no_schema) == 4
    assert totals == Counter(rules=22, checks=16, listed=20)
