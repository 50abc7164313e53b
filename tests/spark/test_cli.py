"""The ``python -m quality_py run`` command on a small CSV and the other commands on the flights
sample (the main job's run of the flights: tests/spark/test_over_time_flights.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py.cli import main

pytestmark = pytest.mark.wiring  # the command line

RULES = """
suite: {id: 7, version: 2}
lambdas:
  - {name: isPositive, id: 1, version: 1, expression: "x -> x > 0"}
rule_sets:
  - id: 10
    rules:
      - {id: 100, expression: "isPositive(amount)"}
      - {id: 101, expression: "CASE WHEN note IS NULL THEN 'maybe' ELSE 'pass' END"}
"""


def test_run_on_csv_writes_results_and_prints_counts(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.csv").write_text("amount,note\n5,a\n-1,b\n3,\n")
    out = tmp_path / "out"
    code = main(
        [
            "run",
            str(tmp_path / "rules.yaml"),
            "--input",
            str(tmp_path / "in.csv"),
            "--output",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "rows: 3, passing: 2 (pass rate 66.67 %)" in printed
    line_100 = next(line for line in printed.splitlines() if "100.1" in line)
    assert line_100.split()[2:5] == ["2", "1", "0"]
    line_101 = next(line for line in printed.splitlines() if "101.1" in line)
    assert line_101.split()[2:5] == ["2", "0", "1"]
    written = spark.read.parquet(str(out))
    assert written.count() == 3
    assert {r.amount: r.DataQuality.overallResult for r in written.collect()} == {
        5: 100000,
        -1: 0,
        3: 100000,
    }


def test_bad_ruleset_exits_2_with_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.yaml").write_text(
        "suite: {id: 1}\nrule_sets:\n  - id: 1\n    rules:\n      - {id: 1, expression: 'a +'}\n"
    )
    code = main(
        ["run", str(tmp_path / "bad.yaml"), "--input", "x.csv", "--output", str(tmp_path / "o")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "[RULE_SYNTAX]" in err and "rule 1.1" in err


def test_convert_validate_and_docs_commands(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ruleset = Path(__file__).parents[2] / "rulesets" / "flights_engine.yaml"
    tables = tmp_path / "tables"
    assert main(["convert", str(ruleset), str(tables)]) == 2  # the suite's description
    assert "--rules-only" in capsys.readouterr().err and not tables.exists()
    assert main(["convert", str(ruleset), str(tables), "--rules-only"]) == 0
    assert "left behind (--rules-only): the description of suite" in capsys.readouterr().out
    assert sorted(p.name for p in tables.iterdir()) == [
        "lambdas",
        "meta_rule_sets",
        "outputs",
        "rules",
    ]
    back = tmp_path / "back.yaml"
    assert main(["convert", str(tables), str(back)]) == 0
    from quality_py.io.yaml_rulesets import load_ruleset

    original = load_ruleset(ruleset)
    reread = load_ruleset(back)
    assert reread.rule_sets == original.rule_sets and reread.lambdas == original.lambdas
    capsys.readouterr()
    assert main(["validate", str(tables), "--input", "sample:flights"]) == 0
    assert "0 error(s)" in capsys.readouterr().out
    broken = tmp_path / "broken.yaml"
    broken.write_text(RULES.replace("isPositive(amount)", "isPositive(amount, 2) OR nope > 1"))
    assert main(["validate", str(broken), "--schema", "amount INT, note STRING"]) == 1
    text = capsys.readouterr().out
    assert "LambdaArityError in rule 100.1" in text
    html = tmp_path / "suite.html"
    assert main(["docs", str(ruleset), "--out", str(html), "--input", "sample:flights"]) == 0
    page = html.read_text()
    assert page.startswith("<!doctype html>") and "Triggers output" in page
    md = tmp_path / "suite.md"
    assert main(["docs", str(ruleset), "--out", str(md)]) == 0
    assert md.read_text().startswith("# Rule suite")


def test_a_failing_quality_run_exits_1_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spark: Any
) -> None:
    rules = RULES.replace(
        '{id: 100, expression: "isPositive(amount)"}',
        '{id: 100, expression: "isPositive(amount)", action_if_failed: fail}',
    )
    (tmp_path / "rules.yaml").write_text(rules)
    (tmp_path / "in.csv").write_text("amount,note\n5,a\n-1,b\n3,\n")
    args = ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.csv")]
    code = main([*args, "--valid", str(tmp_path / "v"), "--quarantine", str(tmp_path / "q")])
    assert code == 1
    err = capsys.readouterr().err
    assert "fail rule" in err and ": 1 rows" in err and "nothing was written" in err
    assert not (tmp_path / "v").exists() and not (tmp_path / "q").exists()
    (tmp_path / "rules.yaml").write_text(
        rules.replace("action_if_failed: fail", "action_if_failed: drop")
    )
    code = main([*args, "--valid", str(tmp_path / "v"), "--quarantine", str(tmp_path / "q")])
    assert code == 0
    assert "3 in, 2 valid, 1 quarantined, 1 dropped" in capsys.readouterr().out
    lean = ["--quarantine", str(tmp_path / "q2"), "--quarantine-detail", "ids"]
    assert main([*args, "--valid", str(tmp_path / "v2"), *lean]) == 0
    from quality_py import read_outputs

    quarantined = read_outputs(spark, quarantine=str(tmp_path / "q2"))[1]
    assert quarantined is not None
    assert [list(r.qp_failed_rule_ids) for r in quarantined.collect()] == [[(100 << 32) | 1]]
    default = read_outputs(spark, quarantine=str(tmp_path / "q"))[1]
    assert default is not None
    assert [list(r.qp_failed_rule_names) for r in default.collect()] == [["100.1"]]
    # another form into a quarantine that holds the ids: one paragraph, nothing written
    named = ["--quarantine", str(tmp_path / "q2"), "--quarantine-detail", "names"]
    capsys.readouterr()
    assert main([*args, "--valid", str(tmp_path / "v3"), *named]) != 0
    err = capsys.readouterr().err
    assert "quarantine_detail='ids'" in err and "Traceback" not in err
    assert not (tmp_path / "v3").exists()


CHECKED = """
suite: {id: 1, version: 1}
rule_sets:
  - id: 10
    rules:
      - {id: 100, expression: "a > 0"}
checks:
  - level: error
    description: fit to publish
    constraints:
      - {is_complete: nope}
"""


@pytest.mark.parametrize(
    ("case", "named"),
    [
        ("missing ruleset", "nofile.yaml"),
        ("missing input", "missing.csv"),
        ("csv read as parquet", "in.csv as parquet"),
        ("unknown sample", "'nope'"),
        ("check on a missing column", "check 'fit to publish', nope is complete"),
        ("missing view file", "lookup.csv"),
        ("unknown sample key", "sample key column(s) nope are not in the input"),
        ("a --where the policy refuses", "the --where condition: reflect(...) is never allowed"),
    ],
)
def test_user_errors_are_one_paragraph_naming_the_culprit(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, named: str
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "checked.yaml").write_text(CHECKED)
    (tmp_path / "in.csv").write_text("a,amount,note\n1,2,x\n")
    rules, data, out = str(tmp_path / "rules.yaml"), str(tmp_path / "in.csv"), str(tmp_path / "o")
    args = {
        "missing ruleset": ["run", str(tmp_path / "nofile.yaml"), "--input", data, "--valid", out],
        "missing input": ["run", rules, "--input", str(tmp_path / "missing.csv"), "--valid", out],
        "csv read as parquet": ["run", rules, "--input", data, "--format", "parquet", "--valid", out],
        "unknown sample": ["run", rules, "--input", "sample:nope", "--valid", out],
        "check on a missing column": [
            "run", str(tmp_path / "checked.yaml"), "--input", data, "--valid", out
        ],
        "missing view file": [
            "run", rules, "--input", data, "--view", f"lookup={tmp_path / 'lookup.csv'}",
            "--valid", out,
        ],
        "unknown sample key": ["run", rules, "--input", data, "--valid", out, "--key", "a,nope"],
        "a --where the policy refuses": [
            "run", rules, "--input", data, "--valid", out,
            "--where", "reflect('java.lang.System', 'getenv', 'HOME') IS NOT NULL",
        ],
    }[case]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, err
    assert named in lines[0], lines[0]
    assert "Traceback" not in err and "\tat " not in err and "java." not in err
    assert not (tmp_path / "o").exists()  # nothing written


def test_json_lines_input_is_read_by_its_suffix(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.json").write_text(
        '{"amount": 5, "note": "a"}\n{"amount": -1, "note": "b"}\n{"amount": 3}\n'
    )
    out = tmp_path / "valid"
    args = ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.json")]
    assert main([*args, "--valid", str(out)]) == 0
    # by hand: rule 100 (isPositive(amount)) is an ignore rule: all 3 rows stay valid
    assert spark.read.parquet(str(out)).count() == 3
    assert "3 in, 3 valid" in capsys.readouterr().out


def test_explain_shows_compiled_sql_and_plan(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    rules = str(tmp_path / "rules.yaml")
    assert main(["explain", rules]) == 0  # no data: the compiled SQL only
    out = capsys.readouterr().out
    assert "rule 100.1 (rule set 10.1)" in out and "rule 101.1 (rule set 10.1)" in out
    assert "written:  isPositive(amount)" in out
    assert "compiled: (amount > 0)" in out  # the lambda inlined
    assert "plan:" not in out
    assert main(["explain", rules, "--rule", "101", "--schema", "amount INT, note STRING"]) == 0
    out = capsys.readouterr().out
    assert "rule 100.1" not in out and "rule 101.1" in out and "Physical Plan" in out
    assert main(["explain", rules, "--rule", "9"]) == 2
    assert "names no rule of suite 7.2: '9'" in capsys.readouterr().err


def test_the_variables_command_of_the_docs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/writing-rules.md: its ruleset saved as orders.yaml, its bash line run as written."""
    import re
    import shlex

    doc = (Path(__file__).resolve().parents[2] / "docs" / "writing-rules.md").read_text()
    ruleset = re.search(r'text = """\n(.*?)"""', doc, re.DOTALL)
    line = re.search(r"```bash\n(.*?)\n```", doc, re.DOTALL)
    assert ruleset is not None and line is not None
    (tmp_path / "orders.yaml").write_text(ruleset.group(1))
    monkeypatch.chdir(tmp_path)
    words = shlex.split(line.group(1))
    env, command = words[0].split("=", 1), words[1:]
    assert command[0] == "quality-py"
    monkeypatch.setenv(*env)
    assert main(command[1:]) == 0
    assert "0 error(s)" in capsys.readouterr().out
    monkeypatch.delenv(env[0])
    assert main(command[1:]) == 2
    err = capsys.readouterr().err
    assert "orders.yaml:17:53: the variable ${MIN_NOTES} is not set" in err


def test_convert_from_another_tool_validates_against_the_data(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What convert reports as mapped passes validate against the input: a DQX check on a
    column the flights lack and a window Spark-Expectations orders by a column (refused by the
    policy, as a run would refuse it) are named; the converted file is written either way."""
    dqx = tmp_path / "checks.yml"
    dqx.write_text(
        "- check: {function: is_not_null, arguments: {column: tailnum}}\n"
        "- check: {function: is_not_null, arguments: {column: tail_number}}\n"
    )
    out = tmp_path / "dqx.yaml"
    assert main(["convert", "--from", "dqx", str(dqx), str(out), "--input", "sample:flights"]) == 1
    text = capsys.readouterr().out
    assert "1 converted item(s) would be refused" in text and "tail_number" in text
    assert out.exists()
    se = tmp_path / "rules.yaml"
    se.write_text(
        "product_id: p\nrules:\n"
        "  - {rule: pk, rule_type: row_dq,"
        " expectation: 'count(*) over(partition by carrier, flight, year, month, day order by 1)"
        " = 1'}\n"
        "  - {rule: running, rule_type: row_dq,"
        " expectation: 'sum(dep_delay) over(partition by carrier order by dep_time) < 1000'}\n"
    )
    argv = ["convert", "--from", "spark-expectations", str(se), str(tmp_path / "se.yaml")]
    assert main([*argv, "--schema", "carrier string, flight int, year int, month int, day int,"
                 " dep_delay double, dep_time int"]) == 1  # fmt: skip
    text = capsys.readouterr().out
    assert "'running'" in text and "'pk'" not in text.split("would be refused")[1]


def test_a_rule_on_a_missing_column_prints_our_paragraph_alone(
    spark: Any, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """pyspark 4 logs each failed analysis as a JSON record with the JVM's stack trace (44 KB
    for this one rule before the fix); the command prints our paragraph: the rule, Spark's
    message with its suggestion, and the rule's text."""
    from quality_py.cli import QUERY_CONTEXT_LOGGERS

    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pyspark 3.5: no such loggers, nothing to quiet
        PySparkLogger = None
    for name in QUERY_CONTEXT_LOGGERS if PySparkLogger is not None else ():
        PySparkLogger.getLogger(name).disabled = False  # as in a fresh process
    rules = tmp_path / "miss.yaml"
    rules.write_text(
        "suite: {name: s, version: 1}\nrule_sets:\n- name: r\n  version: 1\n  rules:\n"
        "  - {name: tail, expression: 'tailnumber IS NOT NULL'}\n"
    )
    capfd.readouterr()
    argv = ["run", str(rules), "--input", "sample:flights", "--valid", str(tmp_path / "v")]
    assert main([*argv, "--quarantine", str(tmp_path / "q")]) == 2
    err = capfd.readouterr().err
    # by hand: "  - {" (cols 1-5), "name: tail, " (6-17), "expression: " (18-29), the quote (30)
    assert f"error: {rules}:6:31: [RULE_ANALYSIS] 1 rule(s) do not analyse" in err
    assert "column tailnumber is missing (did you mean 'tailnum'?)" in err
    assert not [line for line in err.splitlines() if line.startswith("{")]
    assert len(err) < 2_000
