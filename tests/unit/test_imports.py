"""Rules of other tools read into ours (no JVM). The sources in tests/fixtures/imports/ are
written from DQX's, Spark-Expectations' and SodaCL's public documentation; every expectation
below is read off those files by hand (line numbers counted in the files)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from quality_py.errors import RulesetFormatError
from quality_py.io.imports import import_text
from quality_py.io.imports.soda_metrics import python_round2
from quality_py.io.ruleset_file import loads_ruleset_file
from quality_py.model.ids import id_from_name

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "imports"


def imported(name: str, kind: str) -> tuple[Any, Any]:
    result = import_text((HERE / name).read_text(encoding="utf-8"), kind, name)
    return result, loads_ruleset_file(result.text, name, variables={})


def rules_of(ruleset: Any) -> list[tuple[str, str, str, str | None]]:
    return [
        (r.name, r.expression, str(r.action_if_failed), r.filter)
        for _, r in ruleset.suite.iter_rules()
    ]


#: Each DQX function's failure condition, read off DQX's check_funcs.py (databrickslabs/dqx at
#: 911f68f): is_not_null_and_not_empty line 202 (null, or the text cast empty), is_not_null
#: line 240, is_in_range line 963 (col < min OR col > max), is_in_list line 453 (NOT isin),
#: regex_match line 1039 (NOT rlike), sql_expression line 574 (negate: the expression itself),
#: is_unique line 1903, foreign_key line 2000, _is_aggr_compare line 4343; a check's filter is
#: applied around the condition (manager.py line 219: F.when(filter & condition)).
def test_dqx_checks() -> None:
    result, ruleset = imported("dqx_checks.yml", "dqx")
    assert rules_of(ruleset) == [
        ("col3_is_not_null_and_not_empty",
         "(CAST(col3 AS STRING) IS NULL OR CAST(col3 AS STRING) = '') IS NOT TRUE", "ignore",
         None),
        ("col1_is_not_null", "(col1 IS NULL) IS NOT TRUE", "drop", None),
        ("col2_is_not_null", "(col2 IS NULL) IS NOT TRUE", "drop", None),
        ("col4_when_col1_small",
         "((col1 < 3) AND (CAST(col4 AS STRING) IS NULL OR CAST(col4 AS STRING) = '')) IS NOT "
         "TRUE", "ignore", None),
        ("col5_is_not_null_and_not_empty",
         "(CAST(col5 AS STRING) IS NULL OR CAST(col5 AS STRING) = '') IS NOT TRUE", "ignore",
         None),
        ("col2_is_in_range", "(col2 < 1 OR col2 > 10) IS NOT TRUE", "drop", None),
        ("col6_is_in_list", r"(NOT (col6 IN ('a', 'b', ('it\'s')))) IS NOT TRUE", "drop", None),
        ("col6_regex_match", "(NOT (col6 RLIKE '^[a-z]+$')) IS NOT TRUE", "ignore", None),
        ("col1_not_above_col2", "((col1 > col2)) IS NOT TRUE", "drop", None),
        ("col1_col2_is_unique", "is_unique(col1, col2)", "drop", None),
        ("col6_foreign_key", "in_reference('codes', 'code', col6)", "drop", None),
        ("col2_within_col1_bounds", "(col2 < col1 OR col2 > (col1 * 3)) IS NOT TRUE", "ignore",
         None),
        ("col6_any_case", "(NOT (lower(col6) IN (lower('A'), lower('B')))) IS NOT TRUE",
         "ignore", None),
        ("col3_twice_at_most", "(count(*) OVER (PARTITION BY col3) > 2) IS NOT TRUE", "ignore",
         None),
        ("col4_is_valid_date",
         "(col4 IS NOT NULL AND try_to_timestamp(col4, 'yyyy-MM-dd') IS NULL) IS NOT TRUE",
         "ignore", None),
    ]  # fmt: skip
    assert [(s.name, s.sql, s.level) for s in ruleset.sql_checks] == [
        ("is_aggr_not_greater_than", "count(*) = 0 OR (count(*) > 1000) IS NOT TRUE", "warning")
    ]
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (21, "user_metadata is not kept (the check is converted)"),
        (
            74,
            "the function is_valid_national_id does not convert: DQX's patterns use look-aheads "
            "and a back-reference, which the regex check refuses",
        ),
    ]
    assert "2 item(s) not mapped (DQX 0.16 meaning applied)" in result.summary()


def test_dqx_versions_decide_literals_and_expressions() -> None:
    """DQX CHANGELOG 0.16.0 (#1419): list entries became expressions like the limits (a bare
    string a column, "'x'" a text literal); before, they were literals (F.lit)."""
    text = """- check: {function: is_in_list, arguments: {column: s, allowed: [active, "'x'"]}}\n"""
    new = loads_ruleset_file(import_text(text, "dqx", "c.yml").text, variables={})
    older = import_text(text, "dqx", "c.yml", dqx_version="0.15")
    old = loads_ruleset_file(older.text, variables={})
    (rule,) = [r for _, r in new.suite.iter_rules()]
    assert rule.expression == "(NOT (s IN (active, 'x'))) IS NOT TRUE"
    (rule,) = [r for _, r in old.suite.iter_rules()]
    assert rule.expression == r"(NOT (s IN ('active', '\'x\''))) IS NOT TRUE"
    assert "DQX 0.15 meaning applied" in older.summary()
    with pytest.raises(RulesetFormatError, match=r"0\.13 and later"):
        import_text(text, "dqx", "c.yml", dqx_version="0.12")


def test_dqx_keys_are_honoured_or_listed() -> None:
    """An argument the converter does not read leaves its check out, with its line."""
    text = """\
- check: {function: is_in_list, arguments: {column: s, allowed: ["'a'"], typo: 1}}
- check: {function: is_not_null, arguments: {column: s}}
  criticality: error
  extra_key: 1
- check: {function: is_in_range, arguments: {column: s, min_limit: 1, max_limit: 2}}
  message_expr: concat('bad ', s)
"""
    result = import_text(text, "dqx", "c.yml")
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (1, "the argument(s) typo of is_in_list are not converted"),
        (2, "the key(s) extra_key are not DQX's"),
        (5, "message_expr is not kept (the check is converted)"),
    ]
    assert result.rules == 1


def test_spark_expectations_rules_file() -> None:
    result, ruleset = imported("se_rules.yaml", "spark-expectations")
    assert ruleset.suite.name == "your_product"
    assert rules_of(ruleset) == [
        ("order_id_not_null", "order_id IS NOT NULL", "drop", None),
        ("total_positive", "total > 0", "ignore", None),  # the DEV default action
        ("legacy_flag", "flag IN ('Y', 'N')", "ignore", None),
    ]
    rules = [r for _, r in ruleset.suite.iter_rules()]
    assert [r.active for r in rules] == [True, True, False]
    assert rules[0].tags == ("completeness", "priority:high", "column:order_id")
    assert rules[0].description == "Order ID must not be null"
    assert ruleset.error_rates.rules == {str(id_from_name("total_positive")): 0.10}
    (sql,) = ruleset.sql_checks
    assert (sql.name, sql.sql, sql.on, sql.level) == (
        "row_count (source)",
        "count(*) > 0",
        "source",
        "error",
    )
    assert [(u.line, u.reason.split(":")[0]) for u in result.unmapped] == [
        (43, "query_dq reads tables by name"),
    ]


def test_spark_expectations_rules_table_export() -> None:
    result, ruleset = imported("se_rules.csv", "spark-expectations")
    # an action other than drop, ignore or fail: Spark-Expectations warns (validate_rules.py,
    # validate_action_if_failed, logged only) and the rule neither drops nor fails a row
    assert rules_of(ruleset) == [
        ("customer_id_is_not_null", "customer_id is not null", "drop", None),
        ("sales_greater_than_zero", "sales > 2", "ignore", None),
        ("discount_threshold", "discount*100 < 60", "ignore", None),
    ]
    (sql,) = ruleset.sql_checks  # source only: target validation is off
    assert (sql.sql, sql.on, sql.level) == ("sum(sales)>10000", "source", "warning")
    assert [(u.line, u.reason.split(":")[0]) for u in result.unmapped] == [
        (5, "Spark-Expectations matches drop, ignore and fail exactly"),
    ]


def test_spark_expectations_defaults_environments_and_windows() -> None:
    """_flatten.py (Nike-Inc/spark-expectations): `defaults:` under every rule, the chosen
    dq_env environment's settings over them (matched without regard to case, line 178), a
    rule's own keys over both (line 213); docs/configurations/rules.md line 10: the primary-key
    rule `count(*) over(partition by k order by 1)=1`; spark_expectations_notify.py line 374:
    the alert fires at `>=` the threshold."""
    text = """\
product_id: shop
defaults: {action_if_failed: drop, priority: low}
dq_env:
  DEV: {table_name: dev.orders, action_if_failed: ignore}
  PROD: {table_name: prod.orders, action_if_failed: fail}
rules:
  - {rule: pk, rule_type: row_dq, expectation: "count(*) over(partition by id order by 1)=1"}
  - {rule: kept, rule_type: row_dq, expectation: "a > 0", action_if_failed: drop,
     enable_error_drop_alert: true, error_drop_threshold: 5}
  - {rule: one, rule_type: row_dq, expectation: "row_number() over(partition by id order by 1)=1"}
"""
    with pytest.raises(RulesetFormatError, match="--dq-env"):
        import_text(text, "spark-expectations", "r.yaml")
    result = import_text(text, "spark-expectations", "r.yaml", dq_env="prod")
    ruleset = loads_ruleset_file(result.text, variables={})
    assert rules_of(ruleset) == [
        ("pk", "COUNT(*) OVER (PARTITION BY id) = 1", "fail", None),
        ("kept", "a > 0", "drop", None),
        ("one", "row_number() over(partition by id order by 1)=1", "fail", None),
    ]
    assert ruleset.error_rates.inclusive
    assert ruleset.error_rates.rules == {str(id_from_name("kept")): 0.05}
    assert not result.unmapped
    assert "the rules of table prod.orders" in result.summary()
    no_env = text.replace(
        "dq_env:\n  DEV: {table_name: dev.orders, action_if_failed: ignore}\n"
        "  PROD: {table_name: prod.orders, action_if_failed: fail}\n",
        "",
    )
    ruleset = loads_ruleset_file(
        import_text(no_env, "spark-expectations", "r.yaml").text, variables={}
    )
    assert [r.action_if_failed.value for _, r in ruleset.suite.iter_rules()] == ["drop"] * 3


def test_sodacl_checks() -> None:
    """Each metric as the SQL soda-core v3.5.6 runs: numeric_query_metric.py (conditional
    counts line 60, missing line 150: IS NULL or in missing values or rlike missing regex),
    derived_metric.py line 16 (percent over the row count, 0 without rows, Python's round to 2
    decimals, line 25),
    data_source.py line 736 (duplicates: keys seen more than once, WHERE every key part is not
    null, duplicates_query.py line 18); failed rows are user_defined_failed_rows_expression_check
    .py line 84 (WHERE (condition)); reference_query.py line 63 (a part not null and no match)."""
    result, ruleset = imported("soda_checks.yml", "sodacl")
    assert ruleset.suite.name == "dim_customer"
    assert rules_of(ruleset) == [
        ("no_negative_ages", "(age < 0) IS NOT TRUE", "ignore", None),
        ("country_in_dim_country",
         "(`country` IS NULL) OR in_reference('dim_country', 'code', `country`)", "ignore", None),
    ]  # fmt: skip
    (check,) = ruleset.checks
    assert [k.description for k in check.constraints] == ["schema has age int, email string"]
    sql = {s.name: (s.sql, s.level) for s in ruleset.sql_checks}
    dup = (
        "(SELECT COUNT(*) FROM (SELECT COUNT(*) AS frequency FROM source WHERE `phone` IS NOT "
        "NULL GROUP BY `phone`) AS frequencies WHERE frequency > 1)"
    )
    invalid_address = (
        "COUNT(CASE WHEN NOT (`email_address` IS NULL) AND NOT (`email_address` RLIKE "
        "'[^@]+@[^@]+') THEN 1 END)"
    )
    invalid_country = (
        "COUNT(CASE WHEN NOT (`country` IS NULL) AND NOT (CAST(`country` AS STRING) IN ('DE', 'FR', 'US')) "
        "THEN 1 END)"
    )
    # rounded as Python's round rounds the float (python_round2: tests/spark/test_imported_rules)
    missing_phone = (
        "(SELECT CASE WHEN qp_whole > 0 THEN " + python_round2("qp_part * 100 / qp_whole")
        + " ELSE 0D END FROM (SELECT COUNT(CASE WHEN `phone` IS NULL THEN 1 END) AS qp_part, "
        "COUNT(*) AS qp_whole FROM source) AS qp_counts)"
    )  # fmt: skip
    missing_email = "COUNT(CASE WHEN `email` IS NULL THEN 1 END)"

    def passes(value: str, zone: str) -> str:  # NaN is in no zone; no value is not judged
        return f"isnan({value}) OR ({zone}) IS NOT FALSE"

    def count_passes(zone: str) -> str:  # a count is never NaN
        return f"({zone}) IS NOT FALSE"

    assert sql == {
        "row_count_0": (count_passes("COUNT(*) > 0"), "error"),
        "missing_count_email_0": (count_passes(f"{missing_email} = 0"), "error"),
        "duplicate_count_phone_0": (f"SELECT {count_passes(f'{dup} = 0')}", "error"),
        "invalid_count_email_address_0": (count_passes(f"{invalid_address} = 0"), "error"),
        "invalid_count_country_0": (count_passes(f"{invalid_country} = 0"), "error"),
        "max_age_120": (passes("MAX(`age`)", "MAX(`age`) <= 120"), "error"),
        "avg_age_between_20_and_60": (
            passes("AVG(`age`)", "AVG(`age`) BETWEEN 20 AND 60"), "error"),
        "missing_percent_phone_5": (f"SELECT {count_passes(f'{missing_phone} < 5')}", "error"),
        # threshold_cfg.py: a `fail:` / `warn:` alert names the zone where the value is bad
        "row_count_fail": ("(COUNT(*) < 5) IS NOT TRUE", "error"),
        "row_count_warn": ("(COUNT(*) < 10) IS NOT TRUE", "warning"),
        # freshness_check.py: the scan's time less the newest value (a date at its day's
        # end) over one day (86,400,000,000 microseconds) fails; no newest value fails
        "freshness_created_at_1d": (
            "MAX(`created_at`) IS NOT NULL AND unix_micros(current_timestamp()) - "
            "(unix_micros(CAST(MAX(`created_at`) AS TIMESTAMP)) + CASE WHEN "
            "typeof(MAX(`created_at`)) = 'date' THEN 86399999999 ELSE 0 END) <= 86400000000",
            "error"),
    }  # fmt: skip
    assert result.unmapped == ()


def test_sodacl_failed_rows_thresholds_are_the_rules_tolerance() -> None:
    """soda-core v3.5.6, user_defined_failed_rows_expression_check.py evaluate(): with a
    threshold the check fails when the fail threshold is bad for the failing rows' count, else
    warns when the warn threshold is, else passes: a rule's fail_if and warn_if. A zone a
    tolerance cannot state (fewer than, a percent) is listed with its line."""
    text = (
        "checks for orders:\n"
        "  - failed rows:\n"
        "      name: late\n"
        "      fail condition: days_late > 3\n"
        "      warn: when > 10\n"
        "      fail: when >= 100\n"
        "  - failed rows:\n"
        "      name: few\n"
        "      fail condition: amount < 0\n"
        "      fail: when < 5\n"
    )
    result = import_text(text, "sodacl", "orders.yml")
    ruleset = loads_ruleset_file(result.text, "orders.yml", variables={})
    ((_, late),) = ruleset.suite.iter_rules()
    assert (late.name, late.expression, str(late.action_if_failed)) == (
        "late", "(days_late > 3) IS NOT TRUE", "ignore")  # fmt: skip
    assert (late.warn_if, late.fail_if) == ("> 10", ">= 100")
    (listed,) = result.unmapped
    assert listed.line == 7 and "only 'when > N' and 'when >= N'" in listed.reason


def test_an_unknown_format_and_broken_yaml_are_refused() -> None:
    with pytest.raises(RulesetFormatError):
        import_text("x: 1", "great_expectations")
    with pytest.raises(RulesetFormatError) as err:
        import_text("- criticality: [error\n", "dqx", "bad.yml")
    assert err.value.message.startswith("bad.yml:")


def test_names_are_made_valid_and_unique() -> None:
    text = """
rules:
  - {rule: "order id / not null", rule_type: row_dq, expectation: "a IS NOT NULL"}
  - {rule: "order id / not null", rule_type: row_dq, expectation: "b IS NOT NULL"}
"""
    _, ruleset = (lambda r: (r, loads_ruleset_file(r.text, variables={})))(
        import_text(text, "spark-expectations", "x.yaml")
    )
    assert [r.name for _, r in ruleset.suite.iter_rules()] == [
        "order_id_not_null",
        "order_id_not_null_2",
    ]


def test_the_import_command_of_the_docs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/writing-rules.md: the convert --from line, run as written next to the DQX fixture."""
    import re
    import shlex
    import shutil

    from quality_py.cli import main

    doc = (HERE.parents[2] / "docs" / "writing-rules.md").read_text(encoding="utf-8")
    (line,) = [b for b in re.findall(r"```bash\n(.*?)\n```", doc, re.DOTALL) if "--from" in b]
    words = shlex.split(line)
    shutil.copy(HERE / "dqx_checks.yml", tmp_path / words[4])
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 1  # converted, then refused by validate: the view is not given
    out = capsys.readouterr().out
    assert "mapped 15 rules and 1 dataset or SQL checks; 2 item(s) not mapped" in out
    assert "line 74:" in out
    assert "1 converted item(s) would be refused by validate and run" in out
    assert "no view 'codes' is allowed" in out
    assert (
        loads_ruleset_file((tmp_path / words[5]).read_text(), variables={}).suite.rule_count == 15
    )


def test_spark_expectations_tables_and_text_as_written() -> None:
    """utils/reader.py (Nike-Inc/spark-expectations at 22d5ef8): only the rules whose
    table_name is the target table run; an expectation is filled by str.format from
    se_dq_rules_params only for query_dq rules (line 350 calls _process_rules_df, which formats
    at line 257); row_dq and agg_dq keep row["expectation"] as written (line 336), so ``{4}``
    in a regex and ``{{x}}`` reach Spark as they are."""
    text = """\
product_id: shop
rules:
  - {rule: a, rule_type: row_dq, table_name: db.orders, expectation: "zip RLIKE '^[0-9]{5}$'"}
  - {rule: b, rule_type: row_dq, table_name: db.lines, expectation: "qty > 0"}
  - {rule: c, rule_type: row_dq, table_name: db.orders, expectation: "note <> '{{x}}'"}
  - {rule: e, rule_type: agg_dq, table_name: db.orders, expectation: "count(*) > 0"}
"""
    with pytest.raises(RulesetFormatError, match=r"db\.lines, db\.orders: .*--se-table"):
        import_text(text, "spark-expectations", "r.yaml")
    result = import_text(text, "spark-expectations", "r.yaml", se_table="db.orders")
    ruleset = loads_ruleset_file(result.text, variables={})
    assert [(r.name, r.expression) for _, r in ruleset.suite.iter_rules()] == [
        ("a", "zip RLIKE '^[0-9]{5}$'"),
        ("c", "note <> '{{x}}'"),
    ]
    assert [s.sql for s in ruleset.sql_checks] == ["count(*) > 0", "count(*) > 0"]
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (4, "a rule of the table db.lines, not db.orders"),
    ]


def test_spark_expectations_reads_keys_as_its_loader_does() -> None:
    """rules/plugins/_flatten.py at 22d5ef8: a rule's key overrides the file's defaults even
    when empty (line 213), and an empty value is the built-in default (line 250); a boolean
    string is true for true, 1, yes only (line 255: ``Y`` is false); error_drop_threshold is
    int() (line 259: 2.5 is 2). validate_rules.py line 469: an action other than drop, ignore,
    fail is only warned about, so the rule neither drops nor fails (runs as ignore)."""
    text = """\
product_id: shop
table_name: db.orders
defaults: {action_if_failed: drop, is_active: false}
rules:
  - {rule: empty_keys, rule_type: row_dq, expectation: a > 0, action_if_failed: null, is_active: null}
  - {rule: defaults, rule_type: row_dq, expectation: b > 0}
  - {rule: flags, rule_type: row_dq, expectation: c > 0, action_if_failed: drop, is_active: "Y"}
  - {rule: yes_flag, rule_type: row_dq, expectation: d > 0, action_if_failed: drop, is_active: "YES"}
  - {rule: cased, rule_type: row_dq, expectation: e > 0, action_if_failed: Drop, is_active: true}
  - {rule: alert, rule_type: row_dq, expectation: f > 0, is_active: 1,
     enable_error_drop_alert: "True", error_drop_threshold: 2.5}
"""
    result = import_text(text, "spark-expectations", "r.yaml")
    ruleset = loads_ruleset_file(result.text, variables={})
    got = [(r.name, str(r.action_if_failed), r.active) for _, r in ruleset.suite.iter_rules()]
    assert got == [
        ("empty_keys", "ignore", True),  # the built-in ignore and true, not the file's defaults
        ("defaults", "drop", False),  # the file's defaults
        ("flags", "drop", False),  # "Y" is false
        ("yes_flag", "drop", True),
        ("cased", "ignore", True),  # "Drop" is not drop
        ("alert", "drop", True),
    ]
    assert ruleset.error_rates.rules == {str(id_from_name("alert")): 0.02}
    assert [(u.line, u.reason.split(":")[0]) for u in result.unmapped] == [
        (9, "Spark-Expectations matches drop, ignore and fail exactly"),
    ]


def test_spark_expectations_checks_the_target_only_after_row_rules() -> None:
    """core/expectations.py line 999 at 22d5ef8: the target's agg_dq rules run only when the
    table has an active row_dq rule (``_row_dq``, from the active rules); the source's always."""
    text = """\
product_id: shop
table_name: db.orders
rules:
  - {rule: rows, rule_type: agg_dq, expectation: count(*) > 0}
  - {rule: off, rule_type: row_dq, expectation: a > 0, is_active: false}
"""
    result = import_text(text, "spark-expectations", "r.yaml")
    ruleset = loads_ruleset_file(result.text, variables={})
    assert [(c.name, c.on) for c in ruleset.sql_checks] == [("rows (source)", "source")]
    assert [(u.line, u.reason.split(":")[0]) for u in result.unmapped] == [
        (4, "Spark-Expectations checks the target only after row_dq rules, and this table has "
            "no active one"),
    ]  # fmt: skip
    active = text.replace("is_active: false", "is_active: true")
    ruleset = loads_ruleset_file(import_text(active, "spark-expectations", "r.yaml").text,
                                 variables={})  # fmt: skip
    assert [c.on for c in ruleset.sql_checks] == ["source", "valid"]


def test_a_dqx_reference_that_is_no_table_name_is_listed() -> None:
    """A path or a quoted name (Spark would read a file) is never a reference, as for Soda."""
    text = (
        "- check: {function: foreign_key, arguments: {columns: [a], ref_columns: [b],"
        " ref_table: '/tmp/codes.parquet'}}\n"
    )
    result = import_text(text, "dqx", "c.yml")
    assert result.rules == 0 and [u.line for u in result.unmapped] == [1]


def test_dqx_placeholders_are_variables_filled_where_dqx_fills_them() -> None:
    """DQX 0.14 and later (databrickslabs/dqx at 911f68f, utils.py lines 740-810: every
    ``{{ key }}`` of a check's string values replaced from ``variables`` before the check is
    read; a key that is no value is left as written). So a converted check holding ``${key}``
    and read with ``--var key=value`` is the check DQX reads: the same ruleset as converting
    the file with the values written in by hand. Before 0.14 braces are text."""
    template = """\
- check: {function: is_not_greater_than, arguments: {column: "{{ col }}", limit: "{{ max }}"}}
  filter: "region = '{{region}}'"
- check: {function: sql_expression, arguments: {expression: "amount < {{ max }}"}}
"""
    by_hand = """\
- check: {function: is_not_greater_than, arguments: {column: "amount", limit: "10"}}
  filter: "region = 'EU'"
- check: {function: sql_expression, arguments: {expression: "amount < 10"}}
"""
    values = {"col": "amount", "max": "10", "region": "EU"}

    def rules(text: str, **variables: str) -> list[tuple[str, str]]:
        ruleset = loads_ruleset_file(import_text(text, "dqx", "c.yml").text, variables=variables)
        return [(r.name or "", r.expression) for _, r in ruleset.suite.iter_rules()]

    assert rules(template, **values) == rules(by_hand)
    assert "{{ max }}" in import_text(template, "dqx", "c.yml", dqx_version="0.13").text


def test_documented_forms_that_were_listed_are_converted() -> None:
    """DQX checks_serializer.py (ChecksNormalizer.denormalize_value): ``{__decimal__: "10.50"}``
    is the Decimal 10.50, a decimal literal to F.lit. Soda v3: ``samples limit`` and ``samples
    columns`` choose the failed rows kept as samples (the check converts; the keys are listed),
    and a reference check's ``name`` names it."""
    dqx = (
        "- check: {function: is_not_greater_than,\n"
        "          arguments: {column: price, limit: {__decimal__: '10.50'}}}\n"
    )
    result = import_text(dqx, "dqx", "c.yml")
    ((_, rule),) = loads_ruleset_file(result.text, variables={}).suite.iter_rules()
    assert rule.expression == "(price > 10.50BD) IS NOT TRUE" and result.unmapped == ()
    soda = """\
checks for orders:
  - missing_count(email) = 0:
      samples limit: 5
      samples columns: [id, email]
  - values in (country) must exist in dim_country (code):
      name: Country exists
"""
    result = import_text(soda, "sodacl", "c.yml")
    ruleset = loads_ruleset_file(result.text, variables={})
    assert [r.name for _, r in ruleset.suite.iter_rules()] == ["Country_exists"]
    assert [s.name for s in ruleset.sql_checks] == ["missing_count_email_0"]
    assert [(u.line, u.reason.split(":")[0]) for u in result.unmapped] == [
        (2, "samples columns, samples limit choose the failed rows Soda keeps as samples, not the "
            "outcome"),
    ]  # fmt: skip


#: DQX's registered check functions (``@register_rule`` in databricks/labs/dqx at 911f68f:
#: check_funcs.py, geo/check_funcs.py, pii/pii_detection_funcs.py, anomaly/check_funcs.py),
#: read from its source as facts
DQX_REGISTERED = tuple(
    """
is_not_null_and_not_empty is_not_empty is_not_null is_null is_empty is_null_or_empty
has_valid_string_case is_not_null_and_is_in_list is_in_list is_not_in_list sql_expression
is_older_than_col2_for_n_days is_older_than_n_days is_not_in_future is_not_in_near_future
is_equal_to is_not_equal_to is_not_less_than is_not_greater_than is_in_range is_not_in_range
regex_match is_not_null_and_not_empty_array is_valid_date is_valid_timestamp
is_valid_ipv4_address is_valid_email is_valid_national_id is_valid_uuid is_valid_country_code
is_valid_currency_code is_valid_subdivision_code is_valid_language_code is_ipv4_address_in_cidr
is_valid_ipv6_address is_ipv6_address_in_cidr is_data_fresh has_no_outliers is_unique
foreign_key sql_query is_aggr_not_greater_than is_aggr_not_less_than is_aggr_equal
is_aggr_not_equal has_no_aggr_outliers aggr_matches_dataset compare_datasets
is_data_fresh_per_time_window has_no_gaps_per_time_window has_valid_schema is_valid_json
has_json_keys has_valid_json_schema
is_latitude is_longitude is_geometry is_geography is_point is_linestring is_polygon
is_multipoint is_multilinestring is_multipolygon is_geometrycollection is_ogc_valid
is_non_empty_geometry is_not_null_island has_dimension has_x_coordinate_between
has_y_coordinate_between is_area_equal_to is_area_not_equal_to is_area_not_greater_than
is_area_not_less_than is_num_points_equal_to is_num_points_not_equal_to
is_num_points_not_greater_than is_num_points_not_less_than are_polygons_mutually_disjoint
is_geo_contains is_geo_covers is_geo_intersects is_geo_touches is_geo_within
does_not_contain_pii has_no_row_anomalies
""".split()  # noqa: SIM905 (the source's words, as read)
)


def test_every_dqx_function_converts_or_is_listed_with_its_reason() -> None:
    from quality_py.io.imports.dqx_functions import DATASET_FUNCTIONS, ROW_FUNCTIONS
    from quality_py.io.imports.dqx_unmapped import UNMAPPED_FUNCTIONS

    mapped = set(ROW_FUNCTIONS) | set(DATASET_FUNCTIONS)
    assert len(DQX_REGISTERED) == len(set(DQX_REGISTERED)) == 87
    assert not mapped & set(UNMAPPED_FUNCTIONS)
    assert set(DQX_REGISTERED) == mapped | set(UNMAPPED_FUNCTIONS)
    assert len(mapped) == 46  # of 87 (25 before issue 58)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text()
    dqx = docs.split("## DQX (`--from dqx`)", 1)[1].split("\n## ", 1)[0]
    assert [f for f in DQX_REGISTERED if f"`{f}`" not in dqx] == []


def test_gx_what_does_not_convert_is_listed() -> None:
    import json

    suite = json.dumps({"name": "s", "expectations": [
        {"type": "expect_column_values_to_be_increasing", "kwargs": {"column": "id"}},
        {"type": "expect_column_values_to_be_in_set", "kwargs": {
            "column": "s", "value_set": ["a"], "row_condition": 'col("a")>5',
            "condition_parser": "great_expectations"}},
        {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "s", "x": 1}},
        {"type": "expect_column_values_to_match_regex_list",
         "kwargs": {"column": "s", "regex_list": ["a", "^b"], "match_on": "all"}},
        {"type": "expect_column_values_to_be_of_type",
         "kwargs": {"column": "s", "type_": "DecimalType"}},
    ]})  # fmt: skip
    result = import_text(suite, "gx", "s.json")
    assert [u.reason for u in result.unmapped] == [
        "the expectation expect_column_values_to_be_increasing has no counterpart here",
        "a row_condition maps with condition_parser: spark (Spark SQL) only",
        "x not converted",
        "match_on: all looks every pattern ahead from one position: it maps when each pattern "
        "starts with ^ and has no |",
        "type_ 'DecimalType': only a concrete Spark type class without parameters (IntegerType, "
        "StringType, ...) maps",
    ]


def test_the_gx_section_names_every_expectation_converted() -> None:
    from quality_py.io.imports.gx import EXPECTATIONS

    docs = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text()
    gx = docs.split("## Great Expectations (`--from gx`)", 1)[1].split("\n## ", 1)[0]
    assert [e for e in EXPECTATIONS if f"`{e}`" not in gx] == []


def test_soda_contract_what_does_not_convert_is_listed() -> None:
    text = """dataset: ds/db/s/orders
variables: {START: {default: '2024-01-01'}}
columns:
  - name: id
    checks:
      - invalid:
      - missing: {threshold: {must_be: 0, must_be_less_than: 3}}
      - duplicate: {samples: 5}
      - missing: {filter: "d > '${soda.NOW}'"}
checks:
  - metric: {query: select 1}
  - failed_rows: {expression: a > 1, threshold: {level: warn, additional: {must_be: 1}}}
  - reconciliation: {}
  - {type: no_duplicate_values, columns: [a]}
  - schema:
  - freshness: {column: d, threshold: {unit: week, must_be_less_than: 1}}
"""
    result = import_text(text, "soda-contract", "c.yml")
    assert [u.reason for u in result.unmapped] == [
        "a variable's default is not kept: give --var START=VALUE",
        "an invalid check needs a valid_* or invalid_* key (Soda errors)",
        "Soda evaluates a threshold of exactly one comparison or range",
        "samples not converted",
        "${soda.NOW}: only ${var.NAME} maps",
        "a metric query reads tables by name",
        "an additional threshold needs its own comparison and the other level",
        "the check type 'reconciliation' has no counterpart here",
        "a check of Soda's experimental contracts of 2024 (type: ...); a v4 contract names a "
        "check by its key (- missing:)",
        "unit 'week': Soda's are minute, hour and day",
    ]
    assert (result.rules, result.checks) == (0, 1)  # the schema check (id of any type)


def test_soda_contract_converts_to_our_checks() -> None:
    text = """dataset: ds/db/s/orders
filter: amount > ${var.MIN}
columns:
  - name: amount
    missing_values: [-1]
    checks:
      - missing: {threshold: {metric: percent, must_be_less_than: 5, level: warn}}
checks:
  - row_count:
"""
    from quality_py.io.ruleset_file import loads_ruleset_file

    result = import_text(text, "soda-contract", "c.yml")
    assert result.unmapped == ()
    ruleset = loads_ruleset_file(result.text, variables={"MIN": "0"})
    missing = "`amount` IS NULL OR CASE WHEN typeof(`amount`) LIKE 'string%' THEN `amount` IN " \
        "(CAST(-1 AS STRING)) ELSE `amount` IN (-1) END"  # fmt: skip
    rows = "COUNT(CASE WHEN (amount > 0) THEN 1 END)"
    assert [(c.name, c.level, c.sql) for c in ruleset.sql_checks] == [
        ("amount_missing_warn", "warning",
         f"(CASE WHEN {rows} = 0 THEN 0 ELSE COUNT(CASE WHEN (amount > 0) AND ({missing}) THEN 1 "
         f"END) * 100 / {rows} END) < 5"),
        ("row_count", "error", f"{rows} > 0"),
    ]  # fmt: skip
    (rule,) = [r for _, r in ruleset.suite.iter_rules()]
    assert rule.expression == f"((amount > 0) AND ({missing})) IS NOT TRUE"


def test_the_soda_contract_section_names_every_check_type() -> None:
    from quality_py.io.imports.soda_contract import AGGREGATES, HANDLERS

    docs = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text()
    section = docs.split("## Soda v4 contracts (`--from soda-contract`)", 1)[1].split("\n## ")[0]
    named = [*HANDLERS, "schema", *(f for f in AGGREGATES if "length" not in f or "_" in f)]
    assert [k for k in named if f"`{k}`" not in section] == []


def test_the_soda_contract_reference_example_converts_whole() -> None:
    """The first example of Soda's contract language reference
    (docs.soda.io/reference/contract-language-reference, "Contract YAML document structure"),
    read as a fact: five checks, every one converted."""
    text = """dataset: datasource/db/schema/dataset
checks:
  - schema:
  - row_count:
columns:
  - name: id
    checks:
      - missing:
  - name: name
    checks:
      - missing:
          threshold:
            metric: percent
            must_be_less_than: 10
  - name: size
    checks:
      - invalid:
          valid_values: ['S', 'M', 'L']
"""
    result = import_text(text, "soda-contract", "contract.yml")
    assert result.unmapped == ()
    # missing id, missing name, invalid size as rules and SQL checks; row_count; the schema
    assert (result.rules, result.checks) == (3, 5)


def _section(title: str) -> str:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "migrating.md").read_text()
    return docs.split(title, 1)[1].split("\n## ", 1)[0]


def _named(section: str, key: str) -> bool:
    """``key`` in code text of the section (alone or within, as `valid format: email`)."""
    return re.search(rf"`[^`\n]*(?<![\w ]){re.escape(key)}(?![\w])[^`\n]*`", section) is not None \
        or f"`{key}`" in section  # fmt: skip


def test_the_other_sections_name_every_key_their_importers_read() -> None:
    """Spark-Expectations', SodaCL's and ODCS's sections of docs/migrating.md name each key,
    metric and operator the importers' registries hold (a test keeps docs and code together,
    as for DQX, GX and Soda contracts above)."""
    from quality_py.io.imports import odcs, soda_metrics, spark_expectations

    se = _section("## Spark-Expectations (`--from spark-expectations`)")
    keys = spark_expectations.RULE_KEYS | spark_expectations.FILE_KEYS
    assert [k for k in sorted(keys) if not _named(se, k)] == []
    soda = _section("## Soda (`--from sodacl`)")
    keys = soda_metrics.METRICS | soda_metrics.MISSING_VALID_KEYS
    assert [k for k in sorted(keys) if not _named(soda, k)] == []
    contract = _section("## ODCS data contracts (`--from odcs`, `--to odcs`)")
    keys = {*odcs.METRICS, *odcs.OPERATORS}
    assert [k for k in sorted(keys) if not _named(contract, k)] == []


def test_soda_contract_reference_data_converts_or_is_listed() -> None:
    ref = "valid_reference_data: {dataset: ds/db/s/codes, column: code}"
    text = f"""filter: a > 0
columns:
  - name: c
    checks:
      - invalid: {{{ref}}}
      - invalid: {{{ref}, threshold: {{must_be_greater_than: 1}}}}
      - invalid: {{{ref}, threshold: {{metric: percent, must_be_less_than: 5}}}}
      - invalid: {{valid_reference_data: {{dataset: ds/db/s/codes}}}}
"""
    result = import_text(text, "soda-contract", "c.yml")
    only_below = ("a reference check's threshold maps onto its rule's tolerance only as a bound "
                  "the count stays under (must_be: 0, must_be_less_than, ..._or_equal)")  # fmt: skip
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (6, only_below),
        (7, only_below),  # a percent of the filtered rows is no share of the run's
        (8, "valid_reference_data names a dataset and a column"),
    ]
    ruleset = loads_ruleset_file(result.text, variables={})
    (rule,) = [r for _, r in ruleset.suite.iter_rules()]
    assert rule.fail_if == "> 0" and "in_reference('codes', 'code', `c`)" in rule.expression


def test_gx_suite_parameters_are_variables() -> None:
    """GX 1.x substitutes a kwarg written ``{"$PARAMETER": "name"}`` with the value given when
    the suite is validated (great_expectations/core/suite_parameters.py, build_suite_parameters:
    the whole kwarg is replaced), as the docs' "edit an expectation suite" example writes its
    bounds. Converted, the bound is our ``${name}`` variable: read with a value it is the check
    written with that value by hand; a parameter expression (arithmetic) is listed."""
    import json

    def suite(low: object, high: object) -> str:
        kwargs = {"column": "n", "min_value": low, "max_value": high}
        return json.dumps({"name": "s", "expectations": [
            {"type": "expect_column_max_to_be_between", "kwargs": kwargs}]})  # fmt: skip

    def checks(text: str, **variables: str) -> list[str]:
        ruleset = loads_ruleset_file(import_text(text, "gx", "s.json").text, variables=variables)
        return [c.sql for c in ruleset.sql_checks]

    by_parameter = suite({"$PARAMETER": "low"}, {"$PARAMETER": "high_2"})
    assert checks(by_parameter, low="1", high_2="6") == checks(suite(1, 6))
    with pytest.raises(RulesetFormatError, match="low"):
        checks(by_parameter)
    listed = import_text(suite({"$PARAMETER": "low * 2"}, 6), "gx", "s.json")
    assert [u.reason for u in listed.unmapped] == [
        "min_value: the suite parameter 'low * 2' is an expression; a plain name maps (our "
        "variable)"
    ]


def test_a_listed_item_shows_a_variable_as_the_ruleset_writes_it() -> None:
    """A listed item that holds a placeholder shows it as ``${name}``, never the marker that
    carries it through the conversion (DQX's sql_query example, quality_checks.mdx)."""
    text = """\
- criticality: error
  check:
    function: sql_query
    arguments: {query: "SELECT k, COUNT(*) = 0 AS condition FROM {{ input_view }} GROUP BY k",
                input_placeholder: input_view, condition_column: condition, merge_columns: [k]}
"""
    (item,) = import_text(text, "dqx", "c.yml").unmapped
    assert "FROM ${input_view}" in item.text and "QPVARIABLE" not in str(item)


def test_soda_report_keys_and_a_bare_reference_column() -> None:
    """SodaCL's grammar (SodaCLAntlr.g4, reference_check) writes one reference column with or
    without parentheses: both are the same check. ``attributes`` and ``identity`` name the
    check in Soda Cloud (soda-core v3.5.6 check.py lines 219-220 and 390) and ``collect failed
    rows`` its samples (the docs' failed-row-samples page), not its outcome: the check
    converts and the key is listed."""

    def converted(text: str) -> Any:
        return import_text(f"checks for t:\n{text}", "sodacl", "c.yml")

    bare = converted("  - values in salary must exist in dim_employee salary\n")
    with_parens = converted("  - values in (salary) must exist in dim_employee (salary)\n")
    assert bare.text == with_parens.text and bare.unmapped == ()
    noted = converted(
        "  - row_count > 0:\n      identity: abc\n"
        "  - missing_count(a) < 10:\n      attributes: {department: Marketing}\n"
        "  - duplicate_count(a) < 5:\n      collect failed rows: true\n"
    )
    assert noted.checks == 3
    assert [u.reason for u in noted.unmapped] == [
        "identity choose the check's identity in Soda Cloud, not the outcome: not kept (the "
        "check is converted)",
        "attributes choose the check's attributes in Soda Cloud, not the outcome: not kept (the "
        "check is converted)",
        "collect failed rows choose the failed rows Soda keeps as samples, not the outcome: not "
        "kept (the check is converted)",
    ]


def test_odcs_converts_the_schema_object_the_table_names() -> None:
    """An ODCS contract of several schema objects (docs/examples/all/full-example.odcs.yaml
    declares two): each is converted with its name, by ``name`` or ``physicalName``; a name
    the contract does not hold is refused with the names it does; without a name the first is
    converted and the others listed."""
    from quality_py.cli.parser import build_parser

    text = """apiVersion: v3.0.2
kind: DataContract
id: c
version: 1.0.0
status: active
schema:
  - {name: orders, properties: [{name: id, required: true}]}
  - {name: receivers, physicalName: rcvr_tbl, properties: [{name: rid, unique: true}]}
"""

    def rules(**kw: Any) -> list[str]:
        result = import_text(text, "odcs", "c.yaml", **kw)
        return [
            r.expression
            for _, r in loads_ruleset_file(result.text, variables={}).suite.iter_rules()
        ]

    assert rules(odcs_object="receivers") == rules(odcs_object="rcvr_tbl") == ["is_unique(`rid`)"]
    assert rules() == ["`id` IS NOT NULL"]
    assert [u.reason for u in import_text(text, "odcs", "c.yaml").unmapped] == [
        "one schema object per ruleset: convert it with --table NAME"
    ]
    with pytest.raises(RulesetFormatError, match="the contract's are orders, receivers"):
        import_text(text, "odcs", "c.yaml", odcs_object="customers")
    for flag in ("--table", "--se-table"):  # the older spelling is kept
        args = build_parser().parse_args(
            ["convert", "--from", "odcs", "a.yaml", "b.yaml", flag, "x"]
        )
        assert args.se_table == "x"


def test_a_listed_check_leaves_nothing_of_itself_in_the_ruleset() -> None:
    """A SodaCL schema check whose fail level converts and whose warn level does not (a type
    of another database) is listed whole: none of its levels is kept (Draft.atomic), and a
    forbidden name is a has_no_columns pattern matched from the start of a column's name, as
    soda-core v3.5.6 schema_check.py matches it (``re.match`` of the name with ``%`` and ``*``
    as ``.*``)."""
    text = """checks for t:
  - schema:
      fail:
        when forbidden column present: [pii*, '%SALARY%', ssn]
      warn:
        when wrong column type: {cost: money}
  - schema:
      fail:
        when forbidden column present: [pii*, '%SALARY%', ssn]
        when required column missing: [id]
"""
    result = import_text(text, "sodacl", "c.yml")
    assert [u.reason for u in result.unmapped] == ["warn: cannot read the type 'money'"]
    (check,) = loads_ruleset_file(result.text, variables={}).checks
    assert [c.description for c in check.constraints] == [
        "schema has id any", "no column named pii*, *SALARY*, ssn*"]  # fmt: skip
