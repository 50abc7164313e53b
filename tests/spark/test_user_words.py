"""Issue 42 on Spark: names wherever a person reads about a rule, the quarantine read with its
failed rules' names, Spark's mistakes in our words with no Java on the console, and the readers
that work without Spark checked against Spark's own.

Counts are by hand from the five rows below; Spark's own DDL and CSV readers are the
independent source for the readers.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, quarantine_with_names
from quality_py.cli import main
from quality_py.errors import InputError, ModelError
from quality_py.gate.ddl import TYPE_NAMES, ddl_paths
from quality_py.io.tables.local import read_local_table
from quality_py.testing import assert_quality
from quality_py.validation.static_checks import schema_paths
from tests.jvm import QUICK_JVM

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

RULES = """\
suite: {name: orders}
rule_sets:
  - name: basics
    rules:
      - name: positive_amount
        expression: "amount > 0"
        description: an order has a positive amount
      - {name: known_customer, expression: "customer IS NOT NULL", action_if_failed: drop}
      - {name: old_rule, expression: "amount < 1000000", active: false}
      - {name: eu_small, expression: "amount < 100", filter: "region = 'EU'"}
"""
#: (amount, customer, region). By hand: positive_amount fails row 2; known_customer row 3
#: (dropped); old_rule checks no row; eu_small applies to rows 1, 3 and 5 (EU) and fails 3 and 5
ROWS = [(10, "a", "EU"), (-1, "b", "US"), (500, None, "EU"), (7, "d", "US"), (200, "e", "EU")]


def _data(spark: Any, tmp_path: Path) -> Path:
    path = tmp_path / "in"
    spark.createDataFrame(ROWS, "amount int, customer string, region string").write.parquet(
        str(path)
    )
    (tmp_path / "orders.yaml").write_text(RULES)
    return path


def test_a_run_names_its_rules_everywhere(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(spark, tmp_path)
    out = tmp_path / "out"
    args = [
        "run", str(tmp_path / "orders.yaml"), "--input", str(data), "--valid", str(out / "v"),
        "--quarantine", str(out / "q"), "--stats", str(out / "s"), "--run-id", "r1",
        "--json", str(tmp_path / "r.json"),
    ]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("suite 'orders' (") and printed[0].endswith(
        "): 4 rules in 1 rule sets"
    )
    table = {line.split()[0]: line.split()[-8:] for line in printed[3:7]}
    # passed, failed, soft, disabled, prob., pass rate, fails row (the rule set's name first)
    assert table == {
        "positive_amount": ["basics", "4", "1", "0", "0", "0", "80.00%", "1"],
        "known_customer": ["basics", "4", "1", "0", "0", "0", "80.00%", "1"],
        "old_rule": ["basics", "0", "0", "0", "5", "0", "n/a", "0"],
        "eu_small": ["basics", "1", "2", "0", "2", "0", "33.33%", "2"],
    }
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["suite_name"] == "orders"
    named = {r["name"]: (r["rule_set_name"], r["failed"]) for r in document["rules"]}
    assert named == {
        "positive_amount": ("basics", 1),
        "known_customer": ("basics", 1),
        "old_rule": ("basics", 0),
        "eu_small": ("basics", 2),
    }
    # the default quarantine names its failed rules itself; quarantine_with_names keeps it
    quarantine = spark.read.parquet(str(out / "q"))
    stats = spark.read.parquet(str(out / "s"))
    read = quarantine_with_names(quarantine, stats)
    assert read.columns == quarantine.columns and "qp_failed_rule_names" in read.columns
    names = {r.amount: sorted(r.qp_failed_rule_names) for r in read.collect()}
    assert names == {
        -1: ["positive_amount"],
        500: ["eu_small", "known_customer"],
        200: ["eu_small"],
    }


def test_explain_and_assert_quality_take_names(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(spark, tmp_path)
    assert main(["explain", str(tmp_path / "orders.yaml"), "--rule", "eu_small"]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("rule 'eu_small' (") and shown[1] == "  written:  amount < 100"
    assert main(["explain", str(tmp_path / "orders.yaml"), "--rule", "eu_smal"]) == 2
    assert capsys.readouterr().err.strip().endswith("'eu_smal' (did you mean 'eu_small'?)")
    df = spark.read.parquet(str(data))
    with pytest.raises(AssertionError) as failed:
        assert_quality(df, str(tmp_path / "orders.yaml"))
    report = str(failed.value).splitlines()
    assert report[0].startswith("data quality: 3 of 4 rules fail on 5 rows (suite 'orders' (")
    assert any(line.startswith("  rule 'eu_small' (") and "fails 2 rows" in line for line in report)
    assert any(line.endswith("fails known_customer, eu_small") for line in report)
    allowed = {"positive_amount": 1, "known_customer": 1, "eu_small": 2}
    assert assert_quality(df, str(tmp_path / "orders.yaml"), allow=allowed).input_rows == 5
    with pytest.raises(ModelError, match=r"'eu_smal' \(did you mean 'eu_small'\?\)"):
        assert_quality(df, str(tmp_path / "orders.yaml"), allow={**allowed, "eu_smal": 2})


def test_spark_mistakes_in_our_words_at_their_place(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(spark, tmp_path)
    # line 6 of RULES: 8 spaces, 'expression: ' (12), the quote at col 21: 'amout' at col 22
    (tmp_path / "orders.yaml").write_text(RULES.replace('"amount > 0"', '"amout > 0"'))
    args = [
        "run",
        str(tmp_path / "orders.yaml"),
        "--input",
        str(data),
        "--valid",
        str(tmp_path / "v"),
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    head = next(line for line in err.splitlines() if line.startswith("error:"))
    assert head.startswith(f"error: {tmp_path / 'orders.yaml'}:6:22: [RULE_ANALYSIS] 1 rule(s)")
    assert "rule 'positive_amount' (" in err
    assert "column amout is missing (did you mean 'amount'?)" in err
    assert "UNRESOLVED_COLUMN" not in err and "SQLSTATE" not in err
    # validate against the data: Spark analyses, the same words and place
    assert main(["validate", str(tmp_path / "orders.yaml"), "--input", str(data)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'orders.yaml'}:6:22: NameError in rule 'positive_amount' (" in out


#: Documented mistakes (docs/editors.md, the CLI's exit codes), each with the error's first line
#: and what must follow it; by hand from the files below.
MISTAKES = {
    "misspelt column": (
        ["run", "orders.yaml", "--input", "in.csv", "--valid", "default.orders_valid"],
        "error: orders.yaml:6:22: [RULE_ANALYSIS] 1 rule(s) do not analyse:",
        ["  amout > 0", "  ^"],
    ),
    "missing table": (
        ["run", "fine.yaml", "--input", "default.no_such_orders", "--valid", "default.v"],
        "error: [INPUT] cannot read the table default.no_such_orders: the table or view "
        "default.no_such_orders does not exist",
        [],
    ),
    "syntax error": (
        ["run", "broken.yaml", "--input", "in.csv", "--valid", "default.v"],
        "error: broken.yaml:5:44: [RULE_SYNTAX] '>' has nothing on its right (rule 'broken' (",
        ["  amount >", "         ^"],
    ),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_the_console_holds_our_paragraph_alone(tmp_path: Path, mistake: str) -> None:
    """A fresh command line, its own local Spark and a Hive metastore: a mistake prints the
    steps and our paragraph; nothing of Java, Spark's logging or the JVM reaches stderr."""
    (tmp_path / "in.csv").write_text("amount,customer,region\n1,a,EU\n-2,b,US\n")
    (tmp_path / "orders.yaml").write_text(RULES.replace('"amount > 0"', '"amout > 0"'))
    (tmp_path / "fine.yaml").write_text(RULES)
    # line 5: "      - {name: broken, expression: " is 35 characters, then the quote (36):
    # 'amount >' starts at col 37 and its '>' (the rule's col 8) is at col 44
    (tmp_path / "broken.yaml").write_text(
        "suite: {name: b}\nrule_sets:\n  - name: s\n    rules:\n"
        '      - {name: broken, expression: "amount >"}\n'
    )
    args, first, tail = MISTAKES[mistake]
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "QP_TRACEBACK")}
    command = [
        sys.executable, "-m", "quality_py", *args,
        "--conf", "spark.sql.catalogImplementation=hive",
        "--conf", f"spark.sql.warehouse.dir={tmp_path / 'warehouse'}",
        # JVM options of the user's own (here the tests' quick JIT tier): still nothing of the JVM
        "--conf", f"spark.driver.extraJavaOptions={QUICK_JVM}",
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 2
    steps = [ln for ln in done.stderr.splitlines() if re.match(r"\[\d\d:\d\d:\d\d\] ", ln)]
    rest = [ln for ln in done.stderr.splitlines() if ln not in steps]
    assert rest[0].startswith(first), done.stderr
    if mistake == "misspelt column":
        assert rest[1].startswith("  rule 'positive_amount' (")
        assert (
            "column amout is missing (did you mean 'amount'?) (rule 'positive_amount' ("
            in (rest[1])
        )
        rest = rest[1:]
    assert rest[1:] == tail
    assert len(done.stderr) < 1500


# --- the readers without Spark, against Spark's ------------------------------------------------


def _random_type(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        fields = ", ".join(
            f"{_name(rng)}{rng.choice([': ', ' '])}{_random_type(rng, depth + 1)}"
            for _ in range(rng.randint(1, 3))
        )
        return f"STRUCT<{fields}>"
    if depth < 2 and roll < 0.3:
        return f"ARRAY<{_random_type(rng, depth + 1)}>"
    if depth < 2 and roll < 0.35:
        return f"MAP<STRING, {_random_type(rng, depth + 1)}>"
    if roll < 0.45:
        return rng.choice(["DECIMAL(10, 2)", "DECIMAL(5)", "DEC(3, 1)"])  # VARCHAR: no frame
    simple = sorted(TYPE_NAMES - {"VARCHAR", "CHAR", "CHARACTER", "VOID", "VARIANT"})
    return rng.choice(simple)


def _name(rng: random.Random) -> str:
    # names Spark lexes as identifiers though they start with a digit (2024q1), and names its
    # lexer reads as numbers (1e5, 12L, 7D, 3BD), which it refuses as names
    base = rng.choice(["id", "Amount", "tail_num", "x1", "Odd Name", "a.b", "c`d", "2024q", "_",
                       "1e", "12L", "7D", "3BD", "9y", "0x", ""])  # fmt: skip
    name = f"{base}{rng.randint(0, 99)}" if base[-1:] not in ("L", "D", "y") else base
    plain = name.replace("_", "").isalnum()
    return f"`{name.replace('`', '``')}`" if not plain or rng.random() < 0.1 else name


def test_ddl_names_match_sparks_reading(spark: Any) -> None:
    rng = random.Random(42)
    checked = refused = 0
    for _ in range(300):
        columns, seen = [], set()
        for _ in range(rng.randint(1, 5)):
            name = _name(rng)
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            extra = rng.choice(["", " NOT NULL", " COMMENT 'a, b'", ' COMMENT "it\'s \\"x\\""',
                                " NOT NULL COMMENT \"a\""])  # fmt: skip
            columns.append(f"{name} {_random_type(rng, 0)}{extra}")
        ddl = ", ".join(columns)
        try:
            expected = schema_paths(spark.createDataFrame([], ddl).schema)
        except Exception:  # what Spark refuses, the reader without Spark refuses too
            with pytest.raises(InputError):
                ddl_paths(ddl)
            refused += 1
            continue
        assert ddl_paths(ddl) == expected, ddl
        checked += 1
    assert checked > 60 and refused > 60


CSV_CASES = [
    'ruleId,ruleExpr\n100,"a > 0, b < 1"\n101,\n',
    'ruleId,ruleExpr,description\n100,"x = ""y""","two\nlines"\n\n102, spaced ,z\n',
    "\ufeffruleId,ruleExpr\r\n100,a > 0\r\n",
]


@pytest.mark.parametrize("text", CSV_CASES)
def test_csv_rule_tables_read_as_spark_reads_them(spark: Any, tmp_path: Path, text: str) -> None:
    path = tmp_path / "rules.csv"
    path.write_bytes(text.encode())
    options = {"header": True, "multiLine": True, "escape": '"'}  # io/rule_sources.py's reading
    frame = spark.read.options(**options).csv(str(path))
    table = read_local_table(path)
    assert list(table.columns) == frame.columns
    assert [dict(r) for r in table.rows] == [r.asDict() for r in frame.collect()]


def test_named_rules_in_the_validation_report(spark: Any) -> None:
    from quality_py.validation import validate

    suite = RuleSuite(
        Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "amout > 0", name="positive")])], name="s"
    )
    report = validate(suite, spark.createDataFrame([(1,)], "amount int").schema, spark=spark)
    assert report.format().splitlines()[:3] == [
        "suite 's' (1.1): 1 error(s), 0 warning(s)",
        "errors:",
        "  - NameError in rule 'positive' (3.1) line 1, col 1: column amout is missing (did you "
        "mean 'amount'?)",
    ]
