"""Where users run Spark (issue 26): catalog tables in and out through the command line, the
session the environment supplies reused with its settings, outputs whose format is asked of the
server, and paths the atomic publisher cannot prove local refused with the alternatives."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.cli import main
from quality_py.outputs.destination import RunOutputError
from quality_py.spark.capabilities import has_delta, table_format
from quality_py.spark.session import on_this_machine

pytestmark = pytest.mark.wiring  # catalog tables and the session the platform supplies

RULES = """
suite: {id: 3, version: 1}
rule_sets:
  - id: 30
    rules:
      - {id: 301, expression: "amount > 0", action_if_failed: drop}
      - {id: 302, expression: "note IS NOT NULL"}
"""
#: (amount, note): by hand, 301 fails the rows with amount <= 0 (2 rows: dropped), 302 the
#: rows with a null note (2 rows: kept in valid, also quarantined); one row fails both
ROWS = [(5, "a"), (-1, "b"), (3, None), (0, None), (7, "e")]
VALID = 3  # 5, 3, 7
QUARANTINED = 3  # -1, 3 (null note), 0


@pytest.fixture
def schema(spark: Any) -> Iterator[str]:
    name = f"qp_platform_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE DATABASE {name}")
    yield name
    spark.sql(f"DROP DATABASE {name} CASCADE")


def test_catalog_tables_in_and_out_through_the_cli(
    spark: Any, schema: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spark.createDataFrame(ROWS, "amount int, note string").write.saveAsTable(f"{schema}.orders")
    (tmp_path / "rules.yaml").write_text(RULES)
    args = [
        "run", str(tmp_path / "rules.yaml"), "--input", f"{schema}.orders",
        "--valid", f"spark_catalog.{schema}.valid", "--quarantine", f"table:{schema}.quarantine",
        "--stats", f"table:{schema}.stats", "--run-id", "r1", "--json", str(tmp_path / "r.json"),
    ]  # fmt: skip
    assert main(args) == 0, capsys.readouterr().err
    assert spark.table(f"{schema}.valid").count() == VALID
    assert spark.table(f"{schema}.quarantine").count() == QUARANTINED
    # no Delta on this server: new tables are parquet, decided by asking the server
    assert not has_delta(spark)
    assert table_format(spark, f"{schema}.valid") == "parquet"
    result = json.loads((tmp_path / "r.json").read_text())
    assert (result["status"], result["exit_code"], result["input_rows"]) == ("success", 0, 5)
    assert (result["valid_rows"], result["quarantined_rows"], result["dropped_rows"]) == (3, 3, 2)
    by_rule = {r["rule"]: r for r in result["rules"]}
    assert (by_rule["301.1"]["failed"], by_rule["302.1"]["failed"]) == (2, 2)
    assert result["outputs"]["valid"] == f"spark_catalog.{schema}.valid"
    # a re-run of the run id replaces its own partition of the quarantine table
    assert main(args) == 0
    assert spark.table(f"{schema}.quarantine").count() == QUARANTINED


def test_a_missing_table_and_delta_without_delta_are_one_line_mistakes(
    spark: Any, schema: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    base = ["run", str(tmp_path / "rules.yaml")]
    assert main([*base, "--input", f"{schema}.nope", "--valid", f"table:{schema}.v"]) == 2
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error:")]
    assert f"cannot read the table {schema}.nope" in line
    spark.createDataFrame(ROWS, "amount int, note string").write.saveAsTable(f"{schema}.orders")
    args = [*base, "--input", f"{schema}.orders", "--valid", f"table:{schema}.v"]
    assert main([*args, "--output-format", "delta"]) == 2
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error:")]
    assert "needs Delta Lake on the Spark server" in line
    assert not spark.catalog.tableExists(f"{schema}.v")


def test_settings_on_the_supplied_session(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    data = tmp_path / "in"
    spark.createDataFrame(ROWS, "amount int, note string").write.parquet(str(data))
    before = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        args = [
            "run", str(tmp_path / "rules.yaml"), "--input", str(data),
            "--valid", str(tmp_path / "v"), "--conf", "spark.sql.shuffle.partitions=3",
            "--conf", "spark.driver.memory=1g",  # static: a running Spark refuses it
        ]  # fmt: skip
        assert main(args) == 0
        assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
        warnings = [ln for ln in capsys.readouterr().err.splitlines() if "refused" in ln]
        assert len(warnings) == 1 and "spark.driver.memory=1g" in warnings[0]
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)


@pytest.mark.parametrize(
    "destination", ["dbfs:/mnt/dq/valid", "/Volumes/main/dq/valid", "s3a://bucket/dq/valid"]
)
def test_the_atomic_publisher_refuses_what_it_cannot_prove_local(
    spark: Any, destination: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative folder named after the path would appear here
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    run = run_quality(spark.createDataFrame([(1,), (0,)], "a int"), suite)
    with pytest.raises(RunOutputError) as err:
        run.write(destination)
    message = str(err.value)
    assert destination in message and "publish='direct'" in message and "Delta" in message
    assert list(tmp_path.iterdir()) == []
    assert on_this_machine(spark)  # local[2]: a local path is provably local
    run.write(str(tmp_path / "valid"), publish="direct")
    assert spark.read.parquet(str(tmp_path / "valid")).count() == 2


def test_assert_quality_reports_rules_and_error_checks(spark: Any, tmp_path: Path) -> None:
    from quality_py import assert_quality, loads_ruleset_file

    ruleset = loads_ruleset_file(
        RULES + 'checks:\n  - level: error\n    description: "a full batch"\n'
        '    constraints: [{has_size: "== 99"}]\n'
    )
    df = spark.createDataFrame(ROWS, "amount int, note string")
    with pytest.raises(AssertionError) as failure:
        assert_quality(df, ruleset)  # a fail-action check does not stop it early
    text = str(failure.value)
    # by hand: 301 fails -1 and 0, 302 the two null notes; 5 rows is not 99
    assert text.startswith("data quality: 2 of 2 rules fail on 5 rows (suite 3.1)")
    assert "rule 301.1 (set 30.1) fails 2 rows: amount > 0" in text
    assert "rule 302.1 (set 30.1) fails 2 rows: note IS NOT NULL" in text
    assert "check 'a full batch' (error)" in text
    assert "failing rows (3 of 3 shown):" in text and "amount=-1" in text
    summary = assert_quality(df, ruleset, allow={"301": 2, "302": 2}, checks=())
    assert summary.input_rows == 5
