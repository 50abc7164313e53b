"""Imported rules mean what they meant in their tool, on data: the DQX fixture's rules fail
exactly the rows DQX flags (each function's condition read off DQX's check_funcs.py, worked out
here in Python row by row), and the SodaCL fixture's checks get the values Soda's SQL gives
(worked out by hand from the rows, per soda-core v3.5.6's definitions cited in
tests/unit/test_imports.py)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

from quality_py import RulePolicy, add_data_quality
from quality_py.actions.sql_checks import run_sql_checks
from quality_py.dataset.checks import verify
from quality_py.io.imports import import_text
from quality_py.io.ruleset_file import loads_ruleset_file
from tests.spark.rule_rows import failing_rows

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
ROWS = [
    # col1, col2, col3, col4, col5, col6
    (1, 5, "x", "2024-01-31", "z", "a"),
    (None, 12, "", None, "z", "it's"),
    (4, None, None, "", " ", "Q"),
    (2, 2, "x", None, "", None),
    (2, 2, "x", "2024-02-30", "z", "B"),
]
CODES = ["a", "b", "Q"]


def dqx_fails(row: tuple[Any, ...]) -> list[bool]:
    """Which imported rule each row fails, by DQX's definitions (a null condition flags
    nothing; a filter that is not true leaves the row unchecked)."""
    c1, c2, c3, c4, c5, c6 = row
    keys = Counter((r[0], r[1]) for r in ROWS if r[0] is not None and r[1] is not None)
    groups = Counter(r[2] for r in ROWS)
    return [
        c3 is None or c3 == "",  # is_not_null_and_not_empty(col3)
        c1 is None,
        c2 is None,  # is_not_null for_each_column
        c1 is not None and c1 < 3 and (c4 is None or c4 == ""),  # filter col1 < 3
        c5 is None or c5 == "",
        c2 is not None and not 1 <= c2 <= 10,  # is_in_range: null passes
        c6 is not None and c6 not in ("a", "b", "it's"),  # is_in_list: null passes
        c6 is not None and not re.search("^[a-z]+$", c6),  # regex_match: null passes
        c1 is not None and c2 is not None and c1 > c2,  # sql_expression negated
        c1 is not None and c2 is not None and keys[(c1, c2)] > 1,  # is_unique, nulls distinct
        c6 is not None and c6 not in CODES,  # foreign_key: a null key is skipped
        c1 is not None and c2 is not None and not c1 <= c2 <= c1 * 3,  # limits from columns
        c6 is not None and c6.lower() not in ("a", "b"),  # case_sensitive: false
        groups[c3] > 2,  # count per col3 (nulls one group) over 2
        c4 is not None and not _is_date(c4),  # is_valid_date: try_to_timestamp reads nothing
    ]


def _is_date(text: str) -> bool:
    import datetime

    try:
        datetime.datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def test_dqx_rules_fail_the_rows_dqx_reports(spark: Any) -> None:
    result = import_text((HERE / "dqx_checks.yml").read_text(), "dqx", "dqx_checks.yml")
    ruleset = loads_ruleset_file(result.text, variables={})
    suite = ruleset.suite.with_policy(RulePolicy().with_views("codes"))
    spark.createDataFrame([(c,) for c in CODES], "code string").createOrReplaceTempView("codes")
    df = spark.createDataFrame(
        [(i, *r) for i, r in enumerate(ROWS)],
        "i int, col1 int, col2 int, col3 string, col4 string, col5 string, col6 string",
    )
    ids = [r.id.packed for _, r in suite.iter_rules()]
    (set_id,) = [rs.id.packed for rs in suite.rule_sets]
    got = []
    checked = df.transform(lambda d: add_data_quality(d, suite))
    for row in checked.orderBy("i").collect():  # windows move rows: align them with ROWS
        codes = row.DataQuality.ruleSetResults[set_id].ruleResults
        got.append([codes[i] == 0 for i in ids])
    assert got == [dqx_fails(r) for r in ROWS]
    (check,) = ruleset.sql_checks  # count(*) = 5 is not over 1000
    (metric,) = run_sql_checks([check], {"source": df}, RulePolicy())
    assert metric.status == "passed"


def test_sodacl_checks_judge_as_soda_does(spark: Any) -> None:
    result = import_text((HERE / "soda_checks.yml").read_text(), "sodacl", "soda_checks.yml")
    ruleset = loads_ruleset_file(result.text, variables={})
    rows = [
        ("a@x.io", "1", "DE", 30, "a@x.io"),
        ("b@x.io", "2", "FR", 25, "not an address"),
        ("c@x.io", "3", "XX", 130, "c@x.io"),
        ("d@x.io", "3", "US", -40, None),
        (None, None, None, 35, "x@y"),
    ]
    schema = "email string, phone string, country string, age int, email_address string"
    df = spark.createDataFrame(rows, schema).withColumn(
        "created_at", F.lit("2020-01-01 00:00:00").cast("timestamp")
    )
    spark.createDataFrame([("DE",), ("FR",), ("US",)], "code string").createOrReplaceTempView(
        "dim_country"
    )
    policy = RulePolicy().with_views("dim_country")
    metrics = run_sql_checks(ruleset.sql_checks, {"source": df}, policy)
    outcome = {m.entity: m.status == "passed" for m in metrics}
    # by hand, per Soda's SQL: 5 rows; one email missing; phone '3' twice (the null phone is
    # no key); 'not an address' has no @ (the null address is missing, not invalid); XX is not
    # a valid country (the null country is missing); max age 130 > 120; mean age 36 in [20, 60];
    # one phone of 5 missing: 20.0 % is not under 5
    assert outcome == {
        "row_count_0": True,
        "missing_count_email_0": False,
        "duplicate_count_phone_0": False,
        "invalid_count_email_address_0": False,
        "invalid_count_country_0": False,
        "max_age_120": False,
        "avg_age_between_20_and_60": True,
        "missing_percent_phone_5": False,
        "row_count_fail": True,  # fail: when < 5; 5 rows are not fewer than 5
        "row_count_warn": False,  # warn: when < 10
        "freshness_created_at_1d": False,  # the newest row is of 2020, more than a day ago
    }
    (schema,) = verify(df, ruleset.checks, policy=policy).results
    assert schema.passed
    suite = ruleset.suite.with_policy(policy)
    ids = [r.id.packed for _, r in suite.iter_rules()]
    (set_id,) = [rs.id.packed for rs in suite.rule_sets]
    checked = df.transform(lambda d: add_data_quality(d, suite)).orderBy("age")
    by_age = {
        row.age: [row.DataQuality.ruleSetResults[set_id].ruleResults[i] == 0 for i in ids]
        for row in checked.collect()
    }
    got = [by_age[r[3]] for r in rows]
    # failed rows WHERE age < 0 (the fourth row); reference: XX is not in dim_country, the null
    # country is skipped
    assert got == [[False, False], [False, False], [False, True], [True, False], [False, False]]


SE_RULES = """\
product_id: shop
defaults: {action_if_failed: ignore}
rules:
  - {rule: id_present, rule_type: row_dq, expectation: "id IS NOT NULL", action_if_failed: drop}
  - {rule: pk, rule_type: row_dq, action_if_failed: drop,
     expectation: "count(*) over(partition by id order by 1)=1"}
  - {rule: amount_positive, rule_type: row_dq, expectation: "amount > 0",
     enable_error_drop_alert: true, error_drop_threshold: 20}
  - {rule: has_rows, rule_type: agg_dq, expectation: "count(*) > 3", action_if_failed: fail,
     enable_for_target_dq_validation: false}
"""


def test_spark_expectations_rules_keep_their_answers(spark: Any, tmp_path: Path) -> None:
    """By Spark-Expectations' definitions (actions.py line 509: a row passes where the
    expectation is true, so a null fails; _flatten.py: `defaults:` under each rule;
    spark_expectations_notify.py line 374: the alert fires when the failed share, in percent,
    is >= the threshold), worked out by hand on ten rows: the null id and both rows of id 3
    are dropped (7 valid rows); 2 of 10 amounts fail (-1 and null): 20 % reaches 20, an
    alert; 10 source rows > 3: the agg_dq check passes."""
    from quality_py import run_quality
    from quality_py.actions.notify import CallbackNotifier

    result = import_text(SE_RULES, "spark-expectations", "rules.yaml")
    ruleset = loads_ruleset_file(result.text, variables={})
    rows = [(1, 5.0), (2, 1.0), (3, 2.0), (3, 3.0), (None, 4.0), (4, -1.0), (5, None),
            (6, 1.0), (7, 1.0), (8, 1.0)]  # fmt: skip
    df = spark.createDataFrame(rows, "id int, amount double")
    alerts: list[dict[str, Any]] = []
    run = run_quality(
        df, ruleset.suite, ruleset.sql_checks, error_rates=ruleset.error_rates,
        notifiers=[CallbackNotifier(on_alert=alerts.append)],
    )  # fmt: skip
    summary = run.write(str(tmp_path / "valid"), str(tmp_path / "quarantine"))
    assert (summary.input_rows, summary.valid_rows) == (10, 7)
    (event,) = alerts
    (rule_id,) = [
        str(r.id.id) for _, r in ruleset.suite.iter_rules() if r.name == "amount_positive"
    ]
    assert event["alerts"] == [
        f"rule 'amount_positive' ({rule_id}.1) fails 0.2000 of the rows, at or over 0.2"
    ]
    assert summary.status != "error"


def test_spark_expectations_braces_reach_spark_as_written(spark: Any) -> None:
    """utils/reader.py line 336 (Nike-Inc/spark-expectations at 22d5ef8): a row_dq expectation
    is not formatted, so ``{5}`` is the regex's own. By hand: 12345 has five digits and is
    kept; 1234 and 123456 do not and are dropped."""
    from quality_py import run_quality

    text = """\
product_id: shop
rules:
  - {rule: zip5, rule_type: row_dq, action_if_failed: drop, expectation: "zip RLIKE '^[0-9]{5}$'"}
"""
    ruleset = loads_ruleset_file(import_text(text, "spark-expectations", "r.yaml").text,
                                 variables={})  # fmt: skip
    df = spark.createDataFrame([("12345",), ("1234",), ("123456",)], "zip string")
    assert [r.zip for r in run_quality(df, ruleset.suite).valid.collect()] == ["12345"]


def test_soda_metrics_of_an_empty_table(spark: Any) -> None:
    """derived_metric.py line 16: a percentage of no rows is 0; metric_check.py line 105: a
    metric without a value (the avg of no rows) is not evaluated, so the check does not fail."""
    text = "checks for t:\n  - missing_percent(a) < 5 %\n  - avg(a) > 3\n  - row_count = 0\n"
    ruleset = loads_ruleset_file(import_text(text, "sodacl", "s.yml").text, variables={})
    empty = spark.createDataFrame([], "a int")
    metrics = run_sql_checks(ruleset.sql_checks, {"source": empty}, RulePolicy())
    assert [m.status for m in metrics] == ["passed", "passed", "passed"]


def test_nan_and_empty_input_as_the_tools_define_them(spark: Any) -> None:
    """DQX's conditions and Soda's SQL run on Spark, whose NaN equals NaN and is above every
    other number (Spark SQL reference, "NaN Semantics"): DQX's is_in_range(0, 10) flags a NaN
    reading (NaN > 10) and is_not_less_than(0) passes it; Soda's missing_count does not count a
    NaN (it is not null). On no rows DQX's whole-table aggregate has no value, so nothing is
    flagged: its SQL check passes."""
    checks = """\
- check: {function: is_in_range, arguments: {column: x, min_limit: 0, max_limit: 10}}
- check: {function: is_not_less_than, arguments: {column: x, limit: 0}}
- check: {function: is_aggr_not_less_than, arguments: {column: x, aggr_type: avg, limit: 3}}
"""
    ruleset = loads_ruleset_file(import_text(checks, "dqx", "c.yml").text, variables={})
    rows = [(0, 1.0), (1, float("nan")), (2, None), (3, 11.0), (4, -1.0)]
    df = spark.createDataFrame(rows, "i int, x double")
    ids = [r.id.packed for _, r in ruleset.suite.iter_rules()]
    (set_id,) = [rs.id.packed for rs in ruleset.suite.rule_sets]
    checked = df.transform(lambda d: add_data_quality(d, ruleset.suite)).orderBy("i").collect()
    got = [[row.DataQuality.ruleSetResults[set_id].ruleResults[i] == 0 for i in ids]
           for row in checked]  # fmt: skip
    assert got == [[False, False], [True, False], [False, False], [True, False], [True, True]]
    empty = spark.createDataFrame([], "x double")
    (metric,) = run_sql_checks(ruleset.sql_checks, {"source": empty}, RulePolicy())
    assert metric.status == "passed"
    # one null (the NaN is no gap); the avg is NaN: Soda judges it in Python, where NaN is in
    # no zone (threshold_cfg.py is_bad), so neither the inline threshold nor the alert fails
    soda = (
        "checks for t:\n  - missing_count(x) = 1\n  - avg(x) < 10\n"
        "  - avg(x):\n      fail: when > 10\n"
    )
    sql = loads_ruleset_file(import_text(soda, "sodacl", "s.yml").text, variables={}).sql_checks
    metrics = run_sql_checks(sql, {"source": df}, RulePolicy())
    assert [m.status for m in metrics] == ["passed", "passed", "passed"]


def _soda_sql_checks(spark: Any, text: str, df: Any) -> dict[str, str]:
    ruleset = loads_ruleset_file(import_text(text, "sodacl", "c.yml").text, variables={})
    return {m.entity: m.status for m in run_sql_checks(ruleset.sql_checks, {"source": df},
                                                       RulePolicy())}  # fmt: skip


def test_soda_percentages_are_rounded_as_python_rounds(spark: Any) -> None:
    """soda-core v3 derived_metric.py lines 21 and 25: ``missing_count * 100 / row_count``,
    then Python's ``round(..., 2)`` of that float. Spark's ``round`` rounds the shortest decimal
    text half up, which differs exactly at the doubles whose text is a tie (0.995 % is the
    double just below 0.995: Python 0.99, Spark 1.0). Every value below is Python's own."""
    from quality_py.io.imports.soda_metrics import python_round2

    pairs = [(c, r) for r in (3, 7, 8, 200, 400, 800, 1000, 8000, 20000, 123457, 200000)
             for c in sorted({*range(0, min(r, 1200) + 1), *range(max(r - 300, 0), r + 1)})]  # fmt: skip
    df = spark.createDataFrame(pairs, "c BIGINT, r BIGINT")
    got = df.selectExpr(
        "c", "r", f"{python_round2('c * 100 / r')} AS ours", "round(c * 100 / r, 2) AS sparks"
    ).collect()
    expected = {(c, r): round(c * 100 / r, 2) for c, r in pairs}
    wrong = [(g.c, g.r, g.ours) for g in got if g.ours != expected[(g.c, g.r)]]
    assert wrong == [] and len(got) == len(pairs)
    # the cases have teeth: Spark's own round differs from Python's on some of them
    assert sum(g.sparks != expected[(g.c, g.r)] for g in got) > 10
    # a check at exactly 0.995 % passes < 1 %, as in Soda: 199 of 20,000 phones missing
    phones = spark.range(20000).selectExpr("IF(id < 199, NULL, id) AS phone")
    checks = "checks for t:\n  - missing_percent(phone) < 1 %\n  - missing_percent(phone) >= 1 %\n"
    assert sorted(_soda_sql_checks(spark, checks, phones).values()) == ["failed", "passed"]
    assert _soda_sql_checks(spark, "checks for t:\n  - missing_percent(phone) < 1 %\n", phones) == {
        "missing_percent_phone_1": "passed"}  # fmt: skip


def test_soda_duplicates_read_the_filter_as_soda_joins_it(spark: Any) -> None:
    """soda-core v3 duplicates_query.py lines 18 and 25-28: the key's ``IS NOT NULL`` and the
    filter joined by AND without parentheses, so ``k IS NOT NULL AND a = 1 OR b = 2`` keeps
    the two rows of a null key with b = 2: one duplicated key, by hand (with parentheses the
    null key would be left out and nothing duplicated)."""
    rows = spark.createDataFrame([(None, 0, 2), (None, 0, 2), (1, 1, 0), (2, 1, 0)],
                                 "k INT, a INT, b INT")  # fmt: skip
    text = "checks for t:\n  - duplicate_count(k) = 0:\n      filter: a = 1 OR b = 2\n"
    assert list(_soda_sql_checks(spark, text, rows).values()) == ["failed"]


def test_dqx_table_aggregates_report_nothing_without_rows_in_scope(spark: Any) -> None:
    """DQX (databrickslabs/dqx at 911f68f) flags the rows of a whole-table aggregate check
    (check_funcs.py _is_aggr_compare: the metric cross-joined to every row) only where the
    check's filter holds (manager.py line 219, F.when(filter_condition & ...)): on an empty
    batch, or when no row is in the filter, nothing is flagged, though 0 rows is less than 1.
    Each case worked out by hand beside it."""
    checks = """\
- check: {function: is_aggr_not_less_than, arguments: {column: '*', aggr_type: count, limit: 1}}
- check: {function: is_aggr_not_less_than, arguments: {column: a, aggr_type: count, limit: 3}}
  filter: b = 1
"""
    ruleset = loads_ruleset_file(import_text(checks, "dqx", "c.yml").text, variables={})

    def statuses(rows: list[tuple[int | None, int]]) -> list[str]:
        df = spark.createDataFrame(rows, "a int, b int")
        return [m.status for m in run_sql_checks(ruleset.sql_checks, {"source": df}, RulePolicy())]

    assert statuses([]) == ["passed", "passed"]  # no row: nothing flagged
    assert statuses([(1, 0), (2, 0)]) == ["passed", "passed"]  # no row with b = 1 in scope
    # two rows with b = 1 count 2 values of a, under 3: DQX flags them
    assert statuses([(1, 1), (2, 1), (3, 0)]) == ["passed", "failed"]
    assert statuses([(1, 1), (2, 1), (3, 1)]) == ["passed", "passed"]


def test_dqx_decimal_limits_compare_exactly(spark: Any) -> None:
    """DQX's ``{__decimal__: "10.50"}`` limit is the Decimal 10.50 (checks_serializer.py): by
    hand, a price of 10.50 is not greater than it and passes; 10.51 fails."""
    text = (
        "- check: {function: is_not_greater_than,\n"
        "          arguments: {column: price, limit: {__decimal__: '10.50'}}}\n"
    )
    ruleset = loads_ruleset_file(import_text(text, "dqx", "c.yml").text, variables={})
    df = spark.createDataFrame([(1, "10.50"), (2, "10.51")], "i int, p string").selectExpr(
        "i", "CAST(p AS DECIMAL(6, 2)) AS price"
    )
    checked = add_data_quality(df, ruleset.suite).orderBy("i").collect()
    assert [r.DataQuality.overallResult == 100000 for r in checked] == [True, False]


def test_dqx_ipv4_addresses_as_dqx_matches_them(spark: Any) -> None:
    """DQX's is_valid_ipv4_address (check_funcs.py at 911f68f, _IPV4_OCTET and DQPattern):
    four octets 0-255 without leading zeros; from 0.16 anchored by \\A and \\z, before by ^ and
    $, which Java lets end before one final line break. By hand: 192.168.0.1 and 0.0.0.0 are
    valid; 256.1.1.1, 01.2.3.4, 1.2.3 and 1.2.3.4.5 are not; '1.2.3.4' + a line break is valid
    only before 0.16; a null is not checked."""
    text = "- check: {function: is_valid_ipv4_address, arguments: {column: ip}}\n"
    values = ["192.168.0.1", "0.0.0.0", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5",
              "1.2.3.4\n", None]  # fmt: skip
    df = spark.createDataFrame(list(enumerate(values)), "i int, ip string")
    for version, newline_passes in (("0.16", False), ("0.15", True)):
        suite = loads_ruleset_file(
            import_text(text, "dqx", "c.yml", dqx_version=version).text, variables={}
        ).suite
        rows = add_data_quality(df, suite).orderBy("i").collect()
        passed = [r.DataQuality.overallResult == 100000 for r in rows]
        assert passed == [True, True, False, False, False, False, newline_passes, True], version


def _dqx_passes(spark: Any, check: str, values: list[Any], version: str) -> list[bool]:
    text = f"- check: {check}\n"
    df = spark.createDataFrame(list(enumerate(values)), "i int, v string")
    suite = loads_ruleset_file(
        import_text(text, "dqx", "c.yml", dqx_version=version).text, variables={}
    ).suite
    rows = add_data_quality(df, suite).orderBy("i").collect()
    return [r.DataQuality.overallResult == 100000 for r in rows]


def test_dqx_format_validators_as_dqx_reads_them(spark: Any) -> None:
    """DQX's is_valid_email (0.15), is_valid_uuid (0.16), is_ipv4_address_in_cidr and
    is_valid_json (check_funcs.py at 911f68f; the languages are tested against DQX's patterns
    in tests/spark/test_validators.py). By hand: before 0.16 the patterns end with ``$``, which
    Java lets a value end one line break early; a quoted local part takes no bare space (DQX's
    qtext); a null is not checked."""
    emails = ["a.b@example.com", "a..b@example.com", "a@b.com\n", "a@b.com\r\n",
              "a@b.com\n\n", '"x@y"@example.org', None]  # fmt: skip
    email = "{function: is_valid_email, arguments: {column: v}}"
    assert _dqx_passes(spark, email, emails, "0.16") == [True, False, False, False, False,
                                                         True, True]  # fmt: skip
    assert _dqx_passes(spark, email, emails, "0.15") == [True, False, True, True, False,
                                                         True, True]  # fmt: skip
    ips = ["10.1.2.3", "11.0.0.1", "10.1.2.3\n", "010.1.2.3", None]
    block = "{function: is_ipv4_address_in_cidr, arguments: {column: v, cidr_block: 10.0.0.0/8}}"
    assert _dqx_passes(spark, block, ips, "0.16") == [True, False, False, False, True]
    assert _dqx_passes(spark, block, ips, "0.15") == [True, False, True, False, True]
    uuids = ["123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-92d3-a456-426614174000",
             "123e4567e89b12d3a456426614174000", None]  # fmt: skip
    for strict, expected in (
        ("true", [True, False, False, True]),
        ("false", [True, True, False, True]),
    ):
        uuid = f"{{function: is_valid_uuid, arguments: {{column: v, strict: {strict}}}}}"
        assert _dqx_passes(spark, uuid, uuids, "0.16") == expected, strict
    if int(__import__("pyspark").__version__.split(".")[0]) >= 4:  # try_parse_json is Spark 4's
        json = "{function: is_valid_json, arguments: {column: v}}"
        assert _dqx_passes(spark, json, ['{"a": [1]}', "{a: 1}", "", None], "0.16") == [
            True, False, False, True]  # fmt: skip


def test_dqx_dates_against_the_clock_as_dqx_reads_them(spark: Any) -> None:
    """DQX's is_older_than_n_days, is_older_than_col2_for_n_days, is_not_in_future,
    is_not_in_near_future and is_data_fresh (check_funcs.py at 911f68f; the same from 0.13):
    the rows are built from the query's own clock, so the data and the rules read one instant.
    By hand, with today T and now N: a date fails ``days: 3`` when it is on or after T-3;
    column1 fails when on or after column2 - 2; a timestamp is in the future past N + 1 h, in
    the near future between N and N + 1 h, stale before N - 90 min; nulls are not checked."""
    df = spark.range(5).selectExpr(
        "id",
        "try_element_at(array(date_sub(current_date(), 5), date_sub(current_date(), 3), "
        "date_sub(current_date(), 2), current_date()), CAST(id AS INT) + 1) AS d",
        "try_element_at(array(current_date(), date_sub(current_date(), 1), current_date(), "
        "current_date()), CAST(id AS INT) + 1) AS d2",
        "try_element_at(array(current_timestamp() - INTERVAL 3 HOURS, current_timestamp() - INTERVAL"
        " 1 HOURS, current_timestamp() + INTERVAL 30 MINUTES, current_timestamp() + INTERVAL 2 "
        "HOURS), CAST(id AS INT) + 1) AS ts",
        "try_element_at(array(current_date(), date_add(current_date(), 1), date_add(current_date()"
        ", 2), date_add(current_date(), 3)), CAST(id AS INT) + 1) AS dd",
    )
    checks = {  # check: which of the five rows pass, by hand
        "{function: is_older_than_n_days, arguments: {column: d, days: 3}}":
            [True, False, False, False, True],
        "{function: is_older_than_n_days, arguments: {column: d, days: 3, negate: true}}":
            [False, True, True, True, True],
        "{function: is_older_than_col2_for_n_days, arguments: {column1: d, column2: d2, days: 2}}":
            [True, False, False, False, True],
        "{function: is_not_in_future, arguments: {column: ts, offset: 3600}}":
            [True, True, True, False, True],
        "{function: is_not_in_near_future, arguments: {column: ts, offset: 3600}}":
            [True, True, False, True, True],
        # a date meets DQX's text as a date: T+2 is not before the date of N + 2 days
        "{function: is_not_in_near_future, arguments: {column: dd, offset: 172800}}":
            [True, False, True, True, True],
        "{function: is_data_fresh, arguments: {column: ts, max_age_minutes: 90}}":
            [False, True, True, True, True],
        "{function: is_data_fresh, arguments: {column: ts, max_age_minutes: 90, "
        "base_timestamp: '2024-01-01 10:00:00'}}": [True] * 5,
    }  # fmt: skip
    for check, expected in checks.items():
        suite = loads_ruleset_file(
            import_text(f"- check: {check}\n", "dqx", "c.yml").text, variables={}
        ).suite
        rows = add_data_quality(df, suite).orderBy("id").collect()
        assert [r.DataQuality.overallResult == 100000 for r in rows] == expected, check


def _dqx_case_form(text: str, case: str) -> str:
    """DQX's normal form (check_funcs.py at 911f68f, has_valid_string_case), in Python."""
    if case == "title":
        return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))
    parts = []
    for part in text.split("."):
        lead = len(part) - len(part.lstrip(" \t\n\x0b\f\r"))  # Java's \s
        parts.append(part[:lead] + part[lead : lead + 1].upper() + part[lead + 1 :])
    return ".".join(parts)


def test_dqx_string_case_json_keys_and_empty_arrays(spark: Any) -> None:
    """DQX's has_valid_string_case (0.16), has_json_keys and is_not_null_and_not_empty_array
    (check_funcs.py at 911f68f): a text fails its case when DQX's normal form of it (computed
    here in Python) differs; JSON keys by hand; a null is not checked."""
    texts = ["Hello World", "hello World", "Hello  world", "HELLO", "", " Hi", "Hi. there",
             "Hi. There.", "  ok.", ".A", "a.B", "x\t. y", None]  # fmt: skip
    for case in ("title", "sentence", "upper", "lower"):
        check = f"{{function: has_valid_string_case, arguments: {{column: v, case: {case}}}}}"
        expected = [v is None or v == (v.upper() if case == "upper" else v.lower()
                                       if case == "lower" else _dqx_case_form(v, case))
                    for v in texts]  # fmt: skip
        assert _dqx_passes(spark, check, texts, "0.16") == expected, case
        assert False in expected and True in expected[:-1]
    if int(__import__("pyspark").__version__.split(".")[0]) >= 4:  # try_parse_json is Spark 4's
        docs = ['{"a": 1, "b": 2}', '{"a": 1}', '{"c": {"a": 1}}', "not json", None]
        keys = "{function: has_json_keys, arguments: {column: v, keys: [a, b]}}"
        assert _dqx_passes(spark, keys, docs, "0.16") == [True, False, False, False, True]
        anyone = (
            "{function: has_json_keys, arguments: {column: v, keys: [a, b], require_all: false}}"
        )
        assert _dqx_passes(spark, anyone, docs, "0.16") == [True, True, False, False, True]
    df = spark.createDataFrame([(0, [1]), (1, []), (2, None)], "i int, v array<int>")
    suite = loads_ruleset_file(import_text(
        "- check: {function: is_not_null_and_not_empty_array, arguments: {column: v}}\n", "dqx",
        "c.yml").text, variables={}).suite  # fmt: skip
    rows = add_data_quality(df, suite).orderBy("i").collect()
    assert [r.DataQuality.overallResult == 100000 for r in rows] == [True, False, False]


def _soda_checks(spark: Any, text: str, df: Any, **variables: str) -> dict[str, str]:
    ruleset = loads_ruleset_file(import_text(text, "sodacl", "c.yml").text, variables=variables)
    return {m.entity: m.status for m in run_sql_checks(ruleset.sql_checks, {"source": df},
                                                       RulePolicy())}  # fmt: skip


def test_soda_value_lists_compare_as_spark_compares_sodas_sql(spark: Any) -> None:
    """soda-core v3 writes ``c IN ('NA', 'n/a', 0)`` (data_source.py, ``literal_list``: text
    quoted, numbers as written) and Spark 3 without ANSI mode compares the list as text when
    the column or a value is text (``In``'s common type is then a string), else by value.
    The counts below are by hand under that rule; Soda's own SQL gives them too with ANSI off
    (the oracle run here), and the converted checks give them with ANSI on and off, where
    Soda's SQL under ANSI aborts on the cast of 'NA'."""
    df = spark.createDataFrame(
        [("a@x", 1, 0.0, "0"), ("NA", 2, 1.0, "0.0"), ("n/a", 3, 2.5, "abc"),
         ("0", None, None, None), (None, 10, 0.0, "x"), ("0.0", 2, 1.0, "0")],
        "email STRING, code INT, v DOUBLE, s STRING",
    )  # fmt: skip
    cases = [  # (check, its options, Soda's SQL of the counted rows, hand count)
        (
            "missing_count(email)",
            "missing values: [NA, n/a, 0]",
            "email IS NULL OR email IN ('NA','n/a',0)",
            4,
        ),  # NA, n/a, '0', NULL; '0.0' is not
        (
            "invalid_count(code)",
            'valid values: [1, 2, "x"]',
            "NOT (code IS NULL) AND NOT (code IN (1,2,'x'))",
            2,
        ),  # 3 and 10
        (
            "invalid_count(code)",
            'valid values: ["01", "2"]',
            "NOT (code IS NULL) AND NOT (code IN ('01','2'))",
            3,
        ),  # '1' is not '01': 1, 3, 10
        ("missing_count(v)", "missing values: [0]", "v IS NULL OR v IN (0)", 3),  # 0.0 twice
        (
            "missing_count(v)",
            "missing values: [NA, 1]",
            "v IS NULL OR v IN ('NA',1)",
            1,
        ),  # the NULL only: '1.0' is not '1'
        ("missing_count(s)", "missing values: [0]", "s IS NULL OR s IN (0)", 3),  # '0' twice
    ]
    ansi = spark.conf.get("spark.sql.ansi.enabled")
    try:
        spark.conf.set("spark.sql.ansi.enabled", "false")
        oracle = [df.where(sql).count() for _, _, sql, _ in cases]
        assert oracle == [count for *_, count in cases]
        for mode in ("false", "true"):
            spark.conf.set("spark.sql.ansi.enabled", mode)
            for check, option, _, count in cases:
                text = f"checks for t:\n  - {check} = {count}:\n      {option}\n"
                assert list(_soda_checks(spark, text, df).values()) == ["passed"], (mode, check)
                wrong = f"checks for t:\n  - {check} = {count + 1}:\n      {option}\n"
                assert list(_soda_checks(spark, wrong, df).values()) == ["failed"], (mode, check)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", ansi)


def test_soda_variables_and_quoted_columns(spark: Any) -> None:
    """soda-core v3 fills ``${ NAME }`` with Jinja in every check text, threshold and query
    (common/jinja.py, scan.py ``jinja_resolve``): ours are the ruleset's variables. A quoted
    column names the column (5 rows, 2 of them without an e-mail address, by hand)."""
    df = spark.createDataFrame(
        [("a", 1), (None, 5), ("c", 9), (None, 2), ("e", 7)], "`Email Address` STRING, n INT"
    )
    text = (
        "checks for t:\n  - row_count > ${ MIN }\n"
        '  - missing_count("Email Address") = 2\n'
        "  - failed rows:\n      name: big\n      fail condition: n > ${LIMIT}\n"
    )
    assert list(_soda_checks(spark, text, df, MIN="4", LIMIT="0").values()) == ["passed"] * 2
    assert list(_soda_checks(spark, text, df, MIN="5", LIMIT="0").values()) == [
        "failed", "passed"]  # fmt: skip
    ruleset = loads_ruleset_file(
        import_text(text, "sodacl", "c.yml").text, variables={"MIN": "0", "LIMIT": "6"}
    )
    assert failing_rows(ruleset.suite, df, "n") == [[7, 9]]  # n > 6 by hand


def test_soda_freshness_as_soda_judges_it(spark: Any) -> None:
    """soda-core v3.5.6 freshness_check.py: the variable's time less the newest value, a date
    being the last microsecond of its day; ``< span`` fails only over the span; ``fail:`` /
    ``warn: when > span``; a check's filter keeps its rows; no newest value fails. By hand at
    2026-01-03 12:00: the newest time 2026-01-02 06:00 is 30 h old; the newest date
    2026-01-02 ends 12 h before; the newest time of the rows of k = 'b' is 48 h old."""
    df = spark.sql(
        "SELECT * FROM VALUES "
        "('a', TIMESTAMP'2026-01-02 06:00:00', DATE'2026-01-02', CAST(NULL AS TIMESTAMP)), "
        "('b', TIMESTAMP'2026-01-01 12:00:00', DATE'2026-01-01', NULL) AS t(k, ts, d, never)"
    )
    text = """checks for t:
  - freshness(ts, SCAN_TIME) < 1d
  - freshness(d, SCAN_TIME) < 1d
  - freshness(ts, SCAN_TIME):
      fail: when > 2d
      warn: when > 1d
  - freshness(ts, SCAN_TIME) < 1d12h:
      name: fresh_b
      filter: k = 'b'
  - freshness using ts with SCAN_TIME < 2d
  - freshness(never, SCAN_TIME) < 1d
"""
    got = _soda_checks(spark, text, df, SCAN_TIME="2026-01-03 12:00:00")
    assert list(got.values()) == [
        "failed",  # 30 h > 24 h
        "passed",  # 12 h: a date is judged at its day's end (at its start, 36 h would fail)
        "passed",  # 30 h is not over 2 days
        "failed",  # warn: 30 h over 1 day
        "failed",  # 48 h over 36 h (without the filter, 30 h would pass)
        "passed",  # 30 h < 48 h
        "failed",  # no newest value
    ]


def test_dqx_valid_schema_as_dqx_compares_types(spark: Any) -> None:
    """DQX's has_valid_schema without strict (check_funcs.py line 3327; _is_compatible_type
    and _is_compatible_atomic_type): every expected column present, any number for a number,
    any text for a text, a date or time for a date or time, arrays by element, structs with
    the same fields in order. Each verdict below by hand from the frame's types."""
    df = spark.sql(
        "SELECT CAST(1 AS BIGINT) AS id, 'a' AS name, 2.5D AS age, TIMESTAMP'2026-01-01' AS ts, "
        "array(1, 2) AS tags, named_struct('email', 'e', 'phone', 'p') AS info, 'x' AS extra"
    )
    cases = [
        ("id INT, name STRING, age INT", [], True),  # bigint and double are numbers
        ("id INT, ts DATE", [], True),  # a timestamp stands for a date
        ("id STRING", [], False),  # a number is no text
        ("tags ARRAY<BIGINT>", [], True),  # int elements for bigint ones
        ("info STRUCT<email: STRING>", [], False),  # two fields, not one
        ("info STRUCT<email: STRING, phone: STRING>", [], True),
        ("missing_col INT", [], False),
        ("id INT", ["extra"], True),  # excluding a column the schema does not name
    ]
    text = "".join(
        f"- check: {{function: has_valid_schema, arguments: {{expected_schema: '{ddl}', "
        f"exclude_columns: {excluded}}}}}\n"
        for ddl, excluded, _ in cases
    )
    result = import_text(text, "dqx", "c.yml")
    assert result.unmapped == ()
    ruleset = loads_ruleset_file(result.text, variables={})
    got = [r.passed for r in verify(df, ruleset.checks).results]
    assert got == [passed for *_, passed in cases]


def test_soda_row_count_same_as_another_table(spark: Any) -> None:
    """soda-core v3.5.6 row_count_comparison_check.py: passes when the two row counts are equal
    (``row_count - other_row_count == 0``), so two empty tables pass. The other table is read
    where the run allows it as a view (by hand: 3 rows against 3, 3 against 2, 0 against 0)."""
    text = "checks for t:\n  - row_count same as other_t\n"
    ruleset = loads_ruleset_file(import_text(text, "sodacl", "c.yml").text, variables={})
    policy = RulePolicy().with_views("other_t")
    got = []
    for rows, other in ((3, 3), (3, 2), (0, 0)):
        spark.range(other).createOrReplaceTempView("other_t")
        (metric,) = run_sql_checks(ruleset.sql_checks, {"source": spark.range(rows)}, policy)
        got.append(metric.status)
    assert got == ["passed", "failed", "passed"]


def test_dqx_dataset_level_sql_query_as_dqx_applies_it(spark: Any) -> None:
    """DQX's sql_query without merge_columns (check_funcs.py line 2129,
    _apply_dataset_level_sql_check): the query over the input (in the check's filter); no row
    back is a condition not met, one row its condition (true flags every row in scope, negate
    flips it, null flags none), two rows an error (a failed check here); with no row in scope
    nothing is flagged. By hand on amounts 10, 20, 30, -5 and null (ids 0-4): the sum is 55."""
    df = spark.createDataFrame([(0, 10.0), (1, 20.0), (2, 30.0), (3, -5.0), (4, None)],
                               "id int, amount double")  # fmt: skip
    view = "{{ input_view }}"
    cases = [  # (query, extra YAML of the check, passes)
        (f"SELECT SUM(amount) > 100 AS condition FROM {view}", "", True),
        (f"SELECT SUM(amount) > 50 AS condition FROM {view}", "", False),
        (f"SELECT SUM(amount) > 50 AS condition FROM {view}", "negate: true", True),
        (f"SELECT MIN(amount) < 0 AS condition FROM {view}", "", False),
        (f"SELECT MIN(amount) < 0 AS condition FROM {view}", "filter: id < 3", True),
        (f"SELECT amount > 0 AS condition FROM {view}", "", False),  # five rows back
        (f"SELECT amount > 1000 AS c2 FROM {view} WHERE id = 4", "condition_column: c2", True),
        (f"SELECT true AS condition FROM {view} WHERE id > 100", "", True),  # no row back
        # a filter holding a backslash reaches the query as written: ids 1 and 3 (odd digits)
        (
            f"SELECT MIN(amount) < 0 AS condition FROM {view}",
            r"filter: id RLIKE '^[13]\\d*$'",
            False,
        ),
    ]
    text = ""
    for query, extra, _ in cases:
        key, _, val = extra.partition(": ")
        args = f'query: "{query}", input_placeholder: input_view'
        if key in ("negate", "condition_column"):
            args += f", {key}: {val}"
        text += f"- check: {{function: sql_query, arguments: {{{args}}}}}\n"
        if key == "filter":
            text += f"  filter: {val}\n"
    result = import_text(text, "dqx", "c.yml")
    assert result.unmapped == ()
    checks = loads_ruleset_file(result.text, variables={}).sql_checks
    got = [m.status == "passed" for m in run_sql_checks(checks, {"source": df}, RulePolicy())]
    assert got == [passes for *_, passes in cases]
    empty = run_sql_checks(checks, {"source": df.limit(0)}, RulePolicy())
    assert [m.status for m in empty] == ["passed"] * len(cases)  # nothing in scope to flag
