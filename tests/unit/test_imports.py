"""Rules of other tools read into ours (no JVM). The sources in tests/fixtures/imports/ are
written from DQX's, Spark-Expectations' and SodaCL's public documentation; every expectation
below is read off those files by hand (line numbers counted in the files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py.errors import RulesetFormatError
from quality_py.io.imports import import_text
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


def test_dqx_checks() -> None:
    result, ruleset = imported("dqx_checks.yml", "dqx")
    assert rules_of(ruleset) == [
        ("col3_is_not_null_and_not_empty", "col3 IS NOT NULL AND CAST(col3 AS STRING) <> ''",
         "ignore", None),
        ("col1_is_not_null", "col1 IS NOT NULL", "drop", None),
        ("col2_is_not_null", "col2 IS NOT NULL", "drop", None),
        ("col4_when_col1_small", "col4 IS NOT NULL AND CAST(col4 AS STRING) <> ''", "ignore",
         "col1 < 3"),
        ("col5_is_not_null_and_not_empty", "col5 IS NOT NULL AND CAST(col5 AS STRING) <> ''",
         "ignore", None),
        ("col2_is_in_range", "col2 IS NULL OR (col2 >= 1 AND col2 <= 10)", "drop", None),
        ("col6_is_in_list", "col6 IS NULL OR col6 IN ('a', 'b', 'it\\'s')", "drop", None),
        ("col6_regex_match", "col6 IS NULL OR col6 RLIKE '^[a-z]+$'", "ignore", None),
        ("col1_not_above_col2", "(col1 > col2) IS NOT TRUE", "drop", None),
    ]  # fmt: skip
    checks = {c.level: [k.description for k in c.constraints] for c in ruleset.checks}
    assert checks == {
        "error": ["['col1', 'col2'] is unique", "[col6] in catalog.schema.codes[code]"],
        "warning": ["size <= 1000"],
    }
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (20, "user metadata is not kept"),
        (73, "the function is_valid_date has no counterpart here"),
    ]
    assert "2 item(s) not mapped" in result.summary()


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
    assert rules[0].tags == ("completeness", "priority:high")
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
        (43, "query_dq reads tables by name")
    ]


def test_spark_expectations_rules_table_export() -> None:
    result, ruleset = imported("se_rules.csv", "spark-expectations")
    assert rules_of(ruleset) == [
        ("customer_id_is_not_null", "customer_id is not null", "drop", None),
        ("sales_greater_than_zero", "sales > 2", "ignore", None),
    ]
    (sql,) = ruleset.sql_checks  # source only: target validation is off
    assert (sql.sql, sql.on, sql.level) == ("sum(sales)>10000", "source", "warning")
    assert [(u.line, u.reason) for u in result.unmapped] == [
        (5, "the action 'remove' is not ignore, drop or fail")
    ]


def test_sodacl_checks() -> None:
    result, ruleset = imported("soda_checks.yml", "sodacl")
    assert ruleset.suite.name == "dim_customer"
    assert rules_of(ruleset) == [("no_negative_ages", "NOT (age < 0)", "ignore", None)]
    (check,) = ruleset.checks
    assert [k.description for k in check.constraints] == [
        "size > 0",
        "email is complete",
        "phone is unique",
        "email_address is valid",
        "country in ['DE', 'FR', 'US']",
        "max(age)",
        "mean(age)",
        "phone completeness",
        "schema has age int, email string",
        "[country] in dim_country[code]",
    ]
    by_name = {k.description: k for k in check.constraints}
    assert by_name["phone completeness"].assertion == "> 0.95"
    assert by_name["mean(age)"].assertion == "between 20 and 60"
    assert by_name["email_address is valid"].analyzer.predicate == (
        "`email_address` IS NULL OR `email_address` RLIKE '^(?:[^@]+@[^@]+)$'"
    )
    assert [(u.line, u.text) for u in result.unmapped] == [
        (22, "freshness(created_at) < 1d"),
        (23, "{row_count: {fail: when < 5, warn: when < 10}}"),
    ]


def test_an_unknown_format_and_broken_yaml_are_refused() -> None:
    with pytest.raises(RulesetFormatError):
        import_text("x: 1", "great_expectations")
    with pytest.raises(RulesetFormatError) as err:
        import_text("- criticality: [error\n", "dqx", "bad.yml")
    assert err.value.message.startswith("bad.yml:")


def test_names_are_made_valid_and_unique() -> None:
    text = """
rules:
  - {rule: "order id / not null", expectation: "a IS NOT NULL"}
  - {rule: "order id / not null", expectation: "b IS NOT NULL"}
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
    assert main(words[1:]) == 0
    out = capsys.readouterr().out
    assert "mapped 9 rules and 3 dataset or SQL checks; 2 item(s) not mapped" in out
    assert "line 73:" in out
    assert loads_ruleset_file((tmp_path / words[5]).read_text(), variables={}).suite.rule_count == 9
