"""Issue 42, the light authoring loop: ``validate`` without PySpark and without a JVM (as in a
pre-commit hook or an editor), rule tables read without Spark, names against a DDL schema or a
sample file's header, and every finding at its place in the file.

Each command runs in a fresh Python in which ``import pyspark`` fails, as in an environment
holding ``quality_py`` alone. Expected ids come from the documented formula (hashlib); file
positions are counted by hand in the YAML text.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from quality_py.errors import InputError
from quality_py.gate.ddl import ddl_paths

pytestmark = pytest.mark.packaging  # what is installed decides its outcome

#: A Python with no PySpark: ``import pyspark`` raises ImportError.
NO_SPARK = (
    "import sys\n"
    "sys.modules['pyspark'] = None\n"
    "sys.modules['py4j'] = None\n"
    "from quality_py.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def documented_id(name: str) -> int:
    """docs/rulesets.md: 1,000,000 + first 4 bytes of SHA-256(name) mod (2**31 - 1 - 1,000,000)."""
    head = hashlib.sha256(name.encode()).digest()[:4]
    return 1_000_000 + int.from_bytes(head, "big") % (2**31 - 1 - 1_000_000)


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_SPARK, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# line numbers and columns of the mistakes, counted by hand:
#   line 6:  8 spaces, 'expression: ' (12), the quote at col 21: 'amout' at col 22
#   line 9:  8 spaces, 'filter: ' (8), the quote at col 17: 'regoin' at col 18
#   line 11: 'lenght' at col 22
#   line 13: 'amount >': the '>' is the rule's col 8, the file's col 22 + 7 = 29
RULES = """\
suite: {name: orders}
rule_sets:
  - name: basics
    rules:
      - name: positive_amount
        expression: "amout > 0"
      - name: known_region
        expression: "region IS NOT NULL"
        filter: "regoin <> 'XX'"
      - name: short_text
        expression: "lenght(customer) < 10"
      - name: broken
        expression: "amount >"
"""


def expected_report() -> str:
    ids = {n: documented_id(n) for n in ("orders", "positive_amount", "known_region")}
    ids |= {n: documented_id(n) for n in ("short_text", "broken")}
    return (
        f"suite 'orders' ({ids['orders']}.1): 4 error(s), 0 warning(s) (checked without Spark: "
        "column types were not analysed)\n"
        "errors:\n"
        f"  - orders.yaml:6:22: NameError in rule 'positive_amount' ({ids['positive_amount']}.1)"
        " line 1, col 1: column amout is missing (did you mean 'amount'?)\n"
        f"  - orders.yaml:9:18: NameError in rule 'known_region' ({ids['known_region']}.1)"
        " line 1, col 1: column regoin is missing (did you mean 'region'?)\n"
        f"  - orders.yaml:11:22: PolicyError in rule 'short_text' ({ids['short_text']}.1)"
        " line 1, col 1: function lenght is not allowed by the rule policy (did you mean "
        "'length'?)\n"
        f"  - orders.yaml:13:29: SyntaxError in rule 'broken' ({ids['broken']}.1)"
        " line 1, col 8: '>' has nothing on its right\n"
    )


def _sample(tmp_path: Path, kind: str) -> str:
    """The same three columns as a DDL schema or a sample file."""
    if kind == "ddl":
        return "amount DOUBLE, region STRING, customer STRING"
    if kind == "csv":
        (tmp_path / "sample.csv").write_text("amount,region,customer\n1.5,EU,a\n")
        return "sample.csv"
    if kind == "json":
        (tmp_path / "sample.json").write_text('{"amount": 1.5, "region": "EU", "customer": "a"}\n')
        return "sample.json"
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"amount": [1.5], "region": ["EU"], "customer": ["a"]})
    pq.write_table(table, tmp_path / "sample.parquet")
    return "sample.parquet"


@pytest.mark.parametrize("kind", ["ddl", "csv", "json", "parquet"])
def test_validate_without_pyspark_names_each_mistake_at_its_place(
    tmp_path: Path, kind: str
) -> None:
    (tmp_path / "orders.yaml").write_text(RULES)
    done = cli(tmp_path, "validate", "orders.yaml", "--schema", _sample(tmp_path, kind))
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == expected_report()


def test_validate_without_a_schema_says_names_were_not_checked(tmp_path: Path) -> None:
    (tmp_path / "orders.yaml").write_text(RULES)
    done = cli(tmp_path, "validate", "orders.yaml")
    head = done.stdout.splitlines()[0]
    assert head.endswith(
        "2 error(s), 0 warning(s) (no schema given: column names were not checked)"
    )
    assert "NameError" not in done.stdout and done.returncode == 1


def test_a_bad_schema_is_one_line_naming_its_column(tmp_path: Path) -> None:
    (tmp_path / "orders.yaml").write_text(RULES)
    done = cli(tmp_path, "validate", "orders.yaml", "--schema", "amount DOUBLE,, region")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("at column 15: expected a column name")
    assert "Traceback" not in done.stderr
    done = cli(tmp_path, "validate", "orders.yaml", "--schema", "missing.csv")
    assert (done.returncode, done.stderr.strip()) == (
        2,
        "error: [INPUT] --schema missing.csv: no such sample file",
    )


RULE_TABLE = """\
ruleSuiteId,ruleSuiteVersion,ruleSetId,ruleSetVersion,ruleId,ruleVersion,ruleName,RuleExp
1,1,10,1,,,positive_amount,amount > 0
1,1,10,1,101,1,,"customer IS NOT NULL AND customer <> 'a, b'"
"""


def test_rule_tables_are_read_without_a_jvm(tmp_path: Path) -> None:
    (tmp_path / "rules.csv").write_text(RULE_TABLE)
    done = cli(tmp_path, "validate", "rules.csv", "--schema", "amount INT, customer STRING")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [
        "error: [RULE_TABLE] 1 broken row(s), nothing was loaded:",
        "  rules table rules.csv: no column 'ruleExpr' (did you mean 'RuleExp'?)",
    ]
    (tmp_path / "rules.csv").write_text(RULE_TABLE.replace("RuleExp\n", "ruleExpr\n"))
    done = cli(tmp_path, "validate", "rules.csv", "--schema", "amount INT, customer STRING")
    assert (done.returncode, done.stdout.splitlines()[0]) == (
        0,
        "suite 1.1: 0 error(s), 0 warning(s) (checked without Spark: column types were not "
        "analysed)",
    )
    # a blank ruleId beside a ruleName takes the id YAML derives from the name, version 1
    done = cli(tmp_path, "explain", "rules.csv", "--rule", "positive_amount")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        f"rule 'positive_amount' ({documented_id('positive_amount')}.1, rule set 10.1)"
    )
    done = cli(tmp_path, "explain", "rules.csv", "--rule", "positve_amount")
    assert done.returncode == 2
    assert done.stderr.strip().endswith("'positve_amount' (did you mean 'positive_amount'?)")


def test_a_parquet_rule_table_is_read_without_a_jvm(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    ints = {"ruleSuiteId": 2, "ruleSuiteVersion": 1, "ruleSetId": 20, "ruleSetVersion": 1,
            "ruleId": 201, "ruleVersion": 3}  # fmt: skip
    rows = {c: pa.array([v], pa.int32()) for c, v in ints.items()}
    rows["ruleExpr"] = pa.array(["amount > 0"])
    (tmp_path / "rules").mkdir()
    pq.write_table(pa.table(rows), tmp_path / "rules" / "part-0.parquet")
    done = cli(tmp_path, "validate", "rules", "--schema", "amunt INT", "--suite", "2")
    assert done.returncode == 1, done.stderr
    assert (
        "NameError in rule 201.3 line 1, col 1: column amount is missing (did you mean 'amunt'?)"
        in done.stdout
    )


@pytest.mark.parametrize(
    ("ddl", "paths"),
    [
        ("id INT", {"id": False}),
        ("`Odd name` INT NOT NULL COMMENT 'x, y', b STRING",
         {"odd name": False, "b": False}),
        ("s STRUCT<a: INT, t: STRUCT<u DOUBLE>>, m MAP<STRING, STRUCT<x: INT>>",
         {"s": True, "s.a": False, "s.t": True, "s.t.u": False, "m": False}),
        ("d DECIMAL(10, 2), v VARCHAR(3), i INTERVAL DAY TO SECOND, e STRUCT<>",
         {"d": False, "v": False, "i": False, "e": True}),
    ],
)  # fmt: skip
def test_ddl_names_as_spark_reads_them(ddl: str, paths: dict[str, bool]) -> None:
    assert ddl_paths(ddl) == paths


@pytest.mark.parametrize(
    ("ddl", "column"),
    [("id INT,, b", 8), ("id", 3), ("id INT b", 8), ("a STRUCT<b INT", 15), ("a NOPE", 3),
     ("a DECIMAL(x)", 11), ("a INT COMMENT x", 15), ("", 1)],
)  # fmt: skip
def test_a_schema_that_is_not_ddl_is_refused_at_its_column(ddl: str, column: int) -> None:
    with pytest.raises(InputError) as err:
        ddl_paths(ddl)
    if ddl:
        assert f"at column {column}:" in err.value.message
    else:
        assert err.value.message == "--schema names no column"


# --- docs/editors.md: every command and snippet -----------------------------------------------

EDITORS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"


def _blocks(kind: str) -> list[str]:
    import re

    return re.findall(rf"```{kind}\n(.*?)```", EDITORS.read_text(encoding="utf-8"), re.DOTALL)


def test_the_editors_doc_runs_as_written(tmp_path: Path) -> None:
    import shlex

    import yaml

    ruleset, pre_commit, quoted = (yaml.safe_load(b) for b in _blocks("yaml"))
    (tmp_path / "orders.yaml").write_text(_blocks("yaml")[0])
    (tmp_path / "orders.csv").write_text("amount,region\n12.5,EU\n")
    for line in _blocks("bash")[0].strip().splitlines():
        command = shlex.split(line)
        assert command[0] == "quality-py"
        done = cli(tmp_path, *command[1:])
        assert (done.returncode, done.stderr) == (0, ""), line
        assert done.stdout.startswith(f"suite 'orders' ({documented_id('orders')}.1): 0 error(s)")
    # the hook as documented runs the command line on the files it is given
    (hook,) = pre_commit["repos"][0]["hooks"]
    shipped = yaml.safe_load((EDITORS.parents[1] / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == shipped[0]["id"] and shipped[0]["entry"] == "quality-py validate"
    args = [a.replace("rulesets/sample.csv", "orders.csv") for a in hook["args"]]
    done = cli(tmp_path, *shipped[0]["entry"].split()[1:], *args, "orders.yaml", "orders.yaml")
    assert done.returncode == 0 and done.stdout.count("0 error(s)") == 2
    # a quoted "on" is the word under YAML 1.1 (PyYAML) too
    assert quoted["sql_checks"][0]["on"] == "valid"
    assert isinstance(ruleset, dict)


def test_the_doc_shows_what_validate_prints() -> None:
    shown = [ln.strip() for ln in EDITORS.read_text(encoding="utf-8").splitlines()]
    for line in expected_report().splitlines()[2:]:
        text = line.removeprefix("  - ")
        if text.startswith(("orders.yaml:6:", "orders.yaml:11:", "orders.yaml:13:")):
            assert text in shown


def test_rule_table_findings_name_their_row_and_cell(tmp_path: Path) -> None:
    """By hand, on line 3: cells start at cols 1, 3, 5, 8, 10, 14, 16; the quoted ruleExpr at
    17 (its text at 18) is 12 characters, so ruleFilter starts at 30. Line 4's ruleExpr at 17."""
    (tmp_path / "rt.csv").write_text(
        "ruleSuiteId,ruleSuiteVersion,ruleSetId,ruleSetVersion,ruleId,ruleVersion,ruleName,"
        "ruleExpr,ruleFilter\n"
        "1,1,10,1,,,positive_amount,amount > 0,\n"
        "1,1,10,1,101,1,,\"amout < 10\",regoin = 'EU'\n"
        "1,1,10,1,102,2,,amount >,\n"
    )
    done = cli(tmp_path, "validate", "rt.csv", "--schema", "amount INT, region STRING")
    assert done.returncode == 1
    assert done.stdout.splitlines()[2:] == [
        "  - rt.csv:3:18: NameError in rule 101.1 line 1, col 1: column amout is missing (did "
        "you mean 'amount'?)",
        "  - rt.csv:3:30: NameError in rule 101.1 line 1, col 1: column regoin is missing (did "
        "you mean 'region'?)",
        "  - rt.csv:4:17: SyntaxError in rule 102.2 line 1, col 8: '>' has nothing on its right",
    ]
