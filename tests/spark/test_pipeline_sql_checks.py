"""SQL checks inside a declarative pipeline (``PipelineChecks.sql_checks``): judged in SQL for
the value's type, the status and value a batch run (``run_sql_checks``, judged in Python) gives
on the same rows. Every expected status and value is worked out by hand from the three rows
below; the batch run is asked too, so the two judgements are held equal case by case."""

from __future__ import annotations

import math
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, SqlCheck, pipeline_checks
from quality_py.actions.sql_checks import run_sql_checks
from quality_py.errors import CheckDefinitionError

pytestmark = pytest.mark.semantics  # the judgement's SQL against Python's, per Spark type

SCHEMA = "id INT, amount DOUBLE, price DECIMAL(10,2), day DATE, note STRING, flag BOOLEAN"
ROWS = """VALUES
  (1, 2.0D, 1.50BD, DATE'2024-01-01', 'a', true),
  (2, -1.0D, 0.30BD, DATE'2024-03-01', NULL, false),
  (3, double('NaN'), 2.25BD, DATE'2024-02-15', 'c', true)"""
SUITE = RuleSuite(Id(1, 1), [RuleSet(Id(10, 1), [Rule(Id(100, 1), "amount > 0")])])

# (sql, assertion, status, value) by hand; valid holds ids 1 and 2
CASES: list[tuple[str, str | None, str, float | None]] = [
    ("count(*) = 3", None, "passed", None),
    ("count(*)", ">= 4", "failed", 3.0),
    ("count(*)", "between 1 and 3", "passed", 3.0),
    ("count(*)", "> 2.5", "passed", 3.0),  # an integer against a fraction, exactly
    ("sum(price)", "== 4.05", "passed", 4.05),  # 1.50 + 0.30 + 2.25
    # exact: 4.05 is above the bound (as binary floats the two are equal and it would pass)
    ("sum(price)", "<= 4.049999999999999999", "failed", 4.05),
    ("sum(price)", "< 1e1", "passed", 4.05),
    ("max(amount)", ">= 0", "failed", math.nan),  # Spark's max is NaN; NaN meets no bound
    ("max(amount)", "!= 1", "passed", math.nan),  # and differs from every one
    ("min(amount)", "< -0.5", "passed", -1.0),
    # a float's 0.1 is 0.100000001490116..., not the double 0.1
    ("CAST(min(id) / 10 AS FLOAT)", "== 0.1", "failed", 0.10000000149011612),
    ("max(day)", ">= 2024-03-01", "passed", None),
    ("max(day)", "< '2024-03-01'", "failed", None),
    ("min(day)", "between 2024-01-01 and 2024-01-31", "passed", None),
    ("count(note)", "== 2", "passed", 2.0),
    ("count_if(flag) > 1", None, "passed", None),
    ("max(CASE WHEN id > 5 THEN flag END)", None, "failed", None),  # NULL is not true
    ("max(CASE WHEN id > 5 THEN id END)", ">= 0", "failed", None),  # no number
    ("SELECT flag FROM source WHERE id > 1", None, "failed", None),  # two rows, not one
    ("SELECT flag FROM source WHERE id > 5", None, "failed", None),  # no row
    ("SELECT flag FROM source WHERE id = 1", None, "passed", None),
    ("SELECT (SELECT count(*) FROM valid) < (SELECT count(*) FROM source)", None, "passed", None),
]


def _frames(spark: Any) -> dict[str, Any]:
    source = spark.sql(f"SELECT * FROM ({ROWS}) AS t(id, amount, price, day, note, flag)")
    source = source.selectExpr(*[f"CAST({c} AS {t})" for c, t in
                                 (f.split(" ") for f in SCHEMA.split(", "))])  # fmt: skip
    source.createOrReplaceTempView("qp_test_sql_source")
    valid = source.where("id < 3")
    valid.createOrReplaceTempView("qp_test_sql_valid")
    return {"source": source, "valid": valid}


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_each_check_is_judged_as_a_batch_run_judges_it(spark: Any) -> None:
    frames = _frames(spark)
    checks = [
        SqlCheck(f"c{i}", sql, assertion=assertion, level="warning")
        for i, (sql, assertion, _, _) in enumerate(CASES)
    ]
    built = pipeline_checks(SUITE, SCHEMA, spark=spark, checks=checks)
    rows = built.sql_checks("qp_test_sql_source", "qp_test_sql_valid").collect()
    piped = {r.name: r for r in rows}
    batch = {m.entity: m for m in run_sql_checks(checks, dict(frames), SUITE.policy)}
    for i, (sql, assertion, status, value) in enumerate(CASES):
        row, metric = piped[f"c{i}"], batch[f"c{i}"]
        case = f"{sql} {assertion or ''}"
        assert (row.status, metric.status) == (status, status), (case, row.message, metric)
        assert _same(row.value, value) and _same(metric.value, value), (case, row.value)
        assert row.action == "warning" and row.kind == "sql" and row.suite_id == 1
    assert "the query returned 2 rows, not one" in piped["c18"].message
    assert piped["c1"].message == "c1: 3 fails >= 4"


def test_a_failed_error_check_fails_the_flow_naming_it(spark: Any) -> None:
    _frames(spark)
    checks = [SqlCheck("enough rows", "count(*) >= 4"), SqlCheck("any", "count(*) > 0")]
    built = pipeline_checks(SUITE, SCHEMA, spark=spark, checks=checks)
    with pytest.raises(Exception, match="an error-level SQL check failed: enough rows: does not"):
        built.sql_checks(source="qp_test_sql_source").collect()
    passing = pipeline_checks(SUITE, SCHEMA, spark=spark, checks=checks[1:])
    assert [r.status for r in passing.sql_checks("qp_test_sql_source").collect()] == ["passed"]


def test_a_table_of_other_types_fails_naming_the_check(spark: Any) -> None:
    spark.sql("SELECT 'x' AS price").createOrReplaceTempView("qp_test_sql_text")
    built = pipeline_checks(SUITE, SCHEMA, spark=spark,
                            checks=[SqlCheck("sum", "max(price)", assertion="> 0")])  # fmt: skip
    with pytest.raises(Exception, match="SQL check 'sum' was judged for a value of type"):
        built.sql_checks(source="qp_test_sql_text").collect()


@pytest.mark.parametrize(
    ("check", "says"),
    [
        (SqlCheck("n", "count(*)"), "its value is of type bigint, not true or false"),
        (SqlCheck("t", "max(note)", assertion="> 1"), "of type string, which an assertion"),
        (SqlCheck("b", "max(flag)", assertion="> 1"), "of type boolean, which an assertion"),
        (SqlCheck("ts", "max(CAST(day AS TIMESTAMP))", assertion="> 2024-01-01"),
         "write the comparison into the check"),
        (SqlCheck("d", "max(day)", assertion="> 5"), "a date is never compared with '5'"),
        (SqlCheck("f", "max(amount)", assertion="> 2024-01-01"), "a float is never compared"),
        (SqlCheck("x", "max(missing) > 0"), "Spark cannot analyse it against the declared"),
        (SqlCheck("p", "max(price)", assertion="> 0.0000000000000000000000000000001"),
         "more than the 38 digits"),
    ],
)  # fmt: skip
def test_what_a_batch_run_always_fails_is_refused_naming_the_check(
    spark: Any, check: SqlCheck, says: str
) -> None:
    with pytest.raises(CheckDefinitionError, match=f"SQL check {check.name!r} in a pipeline") as e:
        pipeline_checks(SUITE, SCHEMA, spark=spark, checks=[check])
    assert says in e.value.message


def test_dataset_checks_and_unnamed_frames_are_refused(spark: Any) -> None:
    from quality_py import Check

    with pytest.raises(CheckDefinitionError, match="judges SQL checks only"):
        pipeline_checks(SUITE, SCHEMA, spark=spark, checks=[Check("error", "c").is_complete("id")])  # type: ignore[list-item]
    built = pipeline_checks(SUITE, SCHEMA, spark=spark, checks=[SqlCheck("v", "count(*) > 0", on="valid")])  # fmt: skip
    with pytest.raises(CheckDefinitionError, match="'v' reads valid: name the table"):
        built.sql_checks(source="qp_test_sql_source")
