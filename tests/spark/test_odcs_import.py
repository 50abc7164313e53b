"""ODCS v3 contracts converted: what the contract declares holds on data as the standard
defines it (bitol-io/open-data-contract-standard, docs/data-quality.md and docs/schema.md read
as facts). Every value below is worked out by hand from the five rows."""

from __future__ import annotations

from typing import Any

import pytest

from quality_py import RulePolicy
from quality_py.actions.sql_checks import run_sql_checks
from quality_py.dataset.checks import verify
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file
from tests.spark.rule_rows import failing_rows

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

ROWS = [(0, 1, "a@x", 10.0), (1, 2, None, 60.0), (2, 2, "N/A", 100.0), (3, 3, "", None),
        (4, 4, "b@y", 70.0)]  # fmt: skip
SCHEMA = "i int, order_id bigint, email string, amount double"
CONTRACT = """
apiVersion: v3.0.2
kind: DataContract
id: orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - {name: i, physicalType: int}
      - {name: order_id, physicalType: bigint, required: true, unique: true}
      - name: email
        physicalType: string
        logicalTypeOptions: {pattern: '^[^@]+@[^@]+$', maxLength: 20}
        quality:
%s
      - name: amount
        physicalType: double
        logicalTypeOptions: {minimum: 0, maximum: 100, exclusiveMaximum: true}
    quality:
%s
"""
# (entry, verdict on ROWS, verdict without rows), by hand; the first five are the e-mail's
ENTRIES = [
    # one null e-mail of five: 20 %
    ("{metric: nullValues, unit: percent, mustBeLessThan: 1}", False, True),
    ("{metric: nullValues, unit: percent, mustBeLessThan: 20.5}", True, True),
    # null, 'N/A' and '' are missing: 3
    ("{metric: missingValues, arguments: {missingValues: [null, '', 'N/A']}, mustBeLessOrEqualTo: 1}",
     False, True),
    ("{metric: missingValues, arguments: {missingValues: ['', 'N/A']}, mustBe: 2}", True, False),
    # 'N/A' and '' are not in the valid list (the null is not invalid)
    ("{metric: invalidValues, arguments: {validValues: [a@x, b@y]}, mustBe: 2}", True, False),
    # ids 1, 2, 2, 3, 4: one duplicate, 20 %
    ("{metric: duplicateValues, arguments: {properties: [order_id]}, mustBe: 0}", False, True),
    ("{metric: duplicateValues, arguments: {properties: [order_id]}, unit: percent, "
     "mustBeLessThan: 25}", True, True),
    ("{metric: duplicateValues, arguments: {properties: [order_id, email]}, mustBe: 0}", True, True),
    ("{metric: rowCount, mustBeGreaterThan: 2}", True, False),
    # 60, 100, 70 are over 50: 3, outside the open interval (0, 3), inside (0, 4)
    ("{type: sql, query: 'SELECT COUNT(*) FROM {object} WHERE amount > 50', mustBeBetween: [0, 3]}",
     False, False),
    ("{type: sql, query: 'SELECT COUNT(*) FROM {object} WHERE amount > 50', mustBeBetween: [0, 4]}",
     True, False),
    ("{type: sql, query: 'SELECT COUNT(*) FROM {object} WHERE amount > 50', "
     "mustNotBeBetween: [0, 3]}", True, True),
]  # fmt: skip


def _ruleset(entries: list[str]) -> Any:
    own = "\n".join(f"          - {e}" for e in entries[:5]) or "          []"
    text = CONTRACT % (own, "\n".join(f"      - {e}" for e in entries[5:]) or "      []")
    result = import_text(text, "odcs", "orders.odcs.yaml")
    assert result.unmapped == ()
    return loads_ruleset_file(result.text, variables={})


def test_odcs_quality_entries_as_the_standard_defines_them(spark: Any) -> None:
    ruleset = _ruleset([e for e, *_ in ENTRIES])
    for rows, column in ((ROWS, 1), ([], 2)):
        df = spark.createDataFrame(rows, SCHEMA)
        got = [m.status == "passed" for m in
               run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())]  # fmt: skip
        assert got == [e[column] for e in ENTRIES], [
            e[0] for e, g in zip(ENTRIES, got, strict=True) if g != e[column]]  # fmt: skip


def test_odcs_properties_are_rules_and_a_schema_check(spark: Any) -> None:
    ruleset = _ruleset([])
    suite = ruleset.suite
    names = [r.name for _, r in suite.iter_rules()]
    assert names == ["order_id_required", "order_id_unique", "email_pattern", "email_maxLength",
                     "amount_minimum", "amount_maximum"]  # fmt: skip
    df = spark.createDataFrame(ROWS, SCHEMA)
    failed = failing_rows(suite, df, "i")
    # the repeated id 2; 'N/A' and '' do not match the pattern; 100 is not under 100
    assert failed == [[], [1, 2], [2, 3], [], [], [2]]
    assert verify(df, ruleset.checks).status == "success"
    wrong = spark.createDataFrame([(1, 1, "x", 1)], "i int, order_id int, email string, amount int")
    assert verify(wrong, ruleset.checks).status == "error"


def test_exported_queries_count_what_the_rules_fail(spark: Any) -> None:
    """The contract's queries, run as a tool of the standard runs them (``{object}`` as the
    table), count the rows each rule fails, by hand: one amount is null (not > 0), two rows
    share the id 2; the SQL check's value is 1 (five rows, more than three)."""
    import yaml

    from quality_py.io.odcs_export import export_odcs

    ruleset = """
suite: {id: 1, name: orders}
rule_sets:
  - id: 2
    rules:
      - {id: 3, name: positive, expression: "amount > 0"}
      - {id: 4, name: unique_id, expression: "is_unique(order_id)"}
      - {id: 5, name: few_failures, expression: "amount > 50", fail_if: "> 2"}
sql_checks:
  - {name: enough, sql: "count(*) > 3"}
  - {name: big, sql: "SELECT max(amount) FROM source", assertion: ">= 100"}
"""
    contract, left = export_odcs(ruleset, "r.yaml")
    assert left == []
    spark.createDataFrame(ROWS, SCHEMA).createOrReplaceTempView("odcs_orders")
    entries = yaml.safe_load(contract)["schema"][0]["quality"]
    got = {e["id"]: spark.sql(e["query"].replace("{object}", "odcs_orders")).first()[0]
           for e in entries}  # fmt: skip
    # amounts 10, 60, 100, null, 70: 10 and the null are not over 50
    assert got == {"positive": 1, "unique_id": 2, "few_failures": 2, "enough": 1, "big": 100.0}
    judged = {e["id"]: {k: v for k, v in e.items() if k.startswith("must")} for e in entries}
    assert judged == {"positive": {"mustBe": 0}, "unique_id": {"mustBe": 0},
                      "few_failures": {"mustBeLessOrEqualTo": 2}, "enough": {"mustBe": 1},
                      "big": {"mustBeGreaterOrEqualTo": 100}}  # fmt: skip


BOUNDS = """
apiVersion: v3.1.0
kind: DataContract
id: t
version: 1.0.0
status: active
schema:
  - name: t
    properties:
      - {name: i, physicalType: int}
      - name: n
        physicalType: int
        logicalTypeOptions: {exclusiveMinimum: 2, maximum: 5}
      - name: d
        physicalType: date
        logicalTypeOptions: {exclusiveMinimum: "2020-01-01", maximum: "2021-01-01", format: yyyy-MM-dd}
      - name: ts
        physicalType: timestamp
        logicalTypeOptions: {minimum: "2020-01-01 00:00:00+10:00"}
      - {name: code, physicalType: "varchar(2)"}
"""


def test_odcs_bounds_of_both_versions_and_of_dates_and_times(spark: Any) -> None:
    """ODCS 3.0 excludes ``minimum`` with ``exclusiveMinimum: true`` (the amount above); 3.1
    gives the excluded bound itself, ``values > exclusiveMinimum``
    (schema/odcs-json-schema-v3.1.0.json), and a date or time bound as a string
    (docs/examples/data-types/all-data-types.odcs.yaml). By hand, per row: n 2 is not over 2,
    6 over 5; the date 2020-01-01 is not after itself, 2021-01-02 after 2021-01-01; 10:00 at
    +10:00 is 00:00 UTC, so 23:59:59 UTC the day before is earlier (a null passes). A
    ``varchar(2)`` column is a string in Spark's schema, its values at most 2 long."""
    result = import_text(BOUNDS, "odcs", "t.odcs.yaml")
    assert [u.text for u in result.unmapped] == ["d: format"]
    suite = loads_ruleset_file(result.text, variables={}).suite
    assert [r.name for _, r in suite.iter_rules()] == [
        "n_exclusiveMinimum",
        "n_maximum",
        "d_exclusiveMinimum",
        "d_maximum",
        "ts_minimum",
        "code_length",
    ]
    df = spark.sql(
        "SELECT * FROM VALUES "
        "(0, 2, DATE'2020-01-01', TIMESTAMP'2019-12-31 14:00:00Z', 'ab'), "
        "(1, 3, DATE'2020-01-02', TIMESTAMP'2019-12-31 13:59:59Z', 'abc'), "
        "(2, 6, DATE'2021-01-01', CAST(NULL AS TIMESTAMP), NULL), "
        "(3, 5, DATE'2021-01-02', TIMESTAMP'2020-06-01 00:00:00Z', 'x') AS t(i, n, d, ts, code)"
    )
    assert failing_rows(suite, df, "i") == [[0], [2], [0], [3], [1], [1]]
    checks = loads_ruleset_file(result.text, variables={}).checks
    assert verify(df, checks).status == "success"
