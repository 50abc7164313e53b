"""``validate``, ``run``, ``docs`` and ``convert`` on rule tables wherever analysts keep them:
a CSV export, a parquet folder, a Delta folder, a catalog table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quality_py.cli import main

pytestmark = pytest.mark.wiring  # the command line on rule tables wherever they are kept

HEADER = "ruleSuiteId,ruleSuiteVersion,ruleSetId,ruleSetVersion,ruleId,ruleVersion,ruleExpr"
RULES_CSV = "\n".join(
    [
        HEADER,
        '1,1,10,1,100,1,"isPositive(amount)"',
        "1,1,10,1,101,1,\"note IS NOT NULL AND note <> ''\"",
    ]
)
LAMBDAS_CSV = "name,ruleExpr,functionId,functionVersion,ruleSuiteId,ruleSuiteVersion\n" + (
    'isPositive,"x -> x > 0",1,1,1,1'
)
DATA = "amount,note\n5,a\n-1,b\n3,\n"


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "rules.csv").write_text(RULES_CSV + "\n")
    (tmp_path / "lambdas.csv").write_text(LAMBDAS_CSV + "\n")
    (tmp_path / "in.csv").write_text(DATA)
    return tmp_path


def test_validate_and_run_a_spreadsheet_export(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    assert main(["validate", str(folder / "rules.csv"), "--input", str(folder / "in.csv")]) == 0
    assert "0 error(s)" in capsys.readouterr().out
    out = tmp_path / "valid"
    code = main(
        ["run", str(folder / "rules.csv"), "--input", str(folder / "in.csv"),
         "--valid", str(out), "--quarantine", str(tmp_path / "q")]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr()
    # by hand: rows (5,a) pass; (-1,b) fails 100; (3,'') fails 101: 3 in, 2 quarantined
    assert "rows: 3 in, 3 valid, 2 quarantined, 0 dropped" in printed.out
    assert "reading the rule tables" in printed.err


def test_a_broken_spreadsheet_row_is_named(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    (folder / "rules.csv").write_text(RULES_CSV + "\n1,1,10,1,x102,1,a > 0\n")
    assert main(["validate", str(folder / "rules.csv")]) == 2
    err = capsys.readouterr().err
    assert "rule_id is not a 32-bit integer ('x102')" in err and "Traceback" not in err


def test_convert_to_csv_and_back_through_parquet_and_a_table(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ruleset = Path(__file__).parents[2] / "rulesets" / "flights.yaml"
    csv_rules = tmp_path / "csv" / "rules.csv"
    assert main(["convert", str(ruleset), str(csv_rules)]) == 2  # checks, anomalies, ...
    err = capsys.readouterr().err
    assert "checks (dataset checks)" in err and "anomalies (anomaly checks)" in err
    assert not csv_rules.parent.exists()  # nothing written
    assert main(["convert", str(ruleset), str(csv_rules), "--rules-only"]) == 0
    assert sorted(p.name for p in csv_rules.parent.iterdir()) == ["lambdas.csv", "rules.csv"]
    from quality_py.io.yaml_rulesets import load_ruleset

    original = load_ruleset(ruleset)
    back = tmp_path / "back.yaml"
    assert main(["convert", str(csv_rules), str(back)]) == 0
    # rule tables hold rules (names, filters and flags included), not rule-set names
    from dataclasses import replace

    tabled = tuple(replace(rs, name=None) for rs in original.rule_sets)
    assert load_ruleset(back).rule_sets == tabled
    # a parquet table of the rules and a catalog table of the lambdas
    rules = spark.read.option("header", True).csv(str(csv_rules))
    rules.write.mode("overwrite").parquet(str(tmp_path / "rules_parquet"))
    lambdas = spark.read.option("header", True).csv(str(csv_rules.parent / "lambdas.csv"))
    lambdas.write.mode("overwrite").saveAsTable("qp_cli_lambdas")
    try:
        again = tmp_path / "again.yaml"
        code = main(
            ["convert", str(tmp_path / "rules_parquet"), str(again),
             "--lambdas", "table:qp_cli_lambdas"]
        )  # fmt: skip
        assert code == 0
        reread = load_ruleset(again)
        assert reread.rule_sets == tabled and reread.lambdas == original.lambdas
    finally:
        spark.sql("DROP TABLE IF EXISTS qp_cli_lambdas")


def test_a_delta_folder_is_read_from_its_commit_log(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without Delta Lake in the session: the live files are those added and not removed."""
    table = tmp_path / "rules_delta"
    (tmp_path / "src").mkdir()
    good = spark.read.option("header", True).csv(str(_folder(tmp_path / "src") / "rules.csv"))
    good.coalesce(1).write.parquet(str(table / "part-a"))
    stale = (
        good.where("ruleId = '100'")
        .selectExpr("*")
        .withColumn("ruleExpr", good["ruleExpr"].substr(0, 0))
    )  # a blank rule: if read, broken
    stale.coalesce(1).write.parquet(str(table / "part-b"))
    files = {
        name: next(p for p in (table / name).glob("*.parquet")).relative_to(table).as_posix()
        for name in ("part-a", "part-b")
    }
    log = table / "_delta_log"
    log.mkdir()
    adds = [{"add": {"path": files[n], "size": 1, "dataChange": True}} for n in files]
    (log / f"{0:020d}.json").write_text("\n".join(json.dumps(a) for a in adds) + "\n")
    remove = {"remove": {"path": files["part-b"], "dataChange": True}}
    (log / f"{1:020d}.json").write_text(json.dumps(remove) + "\n")
    out = tmp_path / "from-delta.yaml"
    code = main(
        ["convert", str(table), str(out), "--lambdas", str(tmp_path / "src" / "lambdas.csv")]
    )
    assert code == 0
    from quality_py.io.yaml_rulesets import load_ruleset

    suite = load_ruleset(out)
    assert sorted(r.id.id for r in suite.rule_sets[0].rules) == [100, 101]


def test_a_missing_source_is_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path / "nope.csv")]) == 2
    err = capsys.readouterr().err
    assert "no such file, folder or table" in err and "Traceback" not in err
