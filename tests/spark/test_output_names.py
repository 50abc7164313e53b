"""An output named without a ``/`` (issue 53, point 3): a bare name (``valid``, ``dq.valid``)
is refused where the session's catalog forgets its tables, naming both spellings, and taken
as a table where a metastore keeps it; ``catalog.schema.table`` and ``table:NAME`` are tables
everywhere. The tests' session has Spark's in-memory catalog (its default)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, run_quality
from quality_py.cli import main
from quality_py.outputs import RunOutputError

pytestmark = pytest.mark.wiring  # where outputs are written

SUITE = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0", action_if_failed="drop")])])
RULES = """
suite: {id: 1, version: 1}
rule_sets:
  - id: 2
    rules:
      - {id: 3, expression: "a > 0", action_if_failed: drop}
"""


@pytest.mark.parametrize(
    ("outputs", "label"),
    [({"quarantine": "q"}, "quarantine"), ({"target": "valid"}, "valid"),
     ({"stats": "dq.stats"}, "stats")],
)  # fmt: skip
def test_a_bare_name_is_refused_with_both_spellings(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outputs: dict[str, str],
    label: str,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    run = run_quality(spark.createDataFrame([(1,), (-1,)], "a int"), SUITE, run_id="r1")
    with pytest.raises(RunOutputError) as err:
        run.write(**outputs)  # type: ignore[arg-type]
    name = next(iter(outputs.values()))
    message = err.value.message
    assert message.startswith(f"the {label} output {name!r} is a bare name")
    assert f"./{name}" in message and f"table:{name}" in message
    assert "catalog.schema.table" in message and "in-memory" in message
    assert not (tmp_path / "spark-warehouse").exists()  # nothing written anywhere


def test_the_command_line_refuses_a_bare_name_in_one_paragraph(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.csv").write_text("a\n1\n-1\n")
    args = ["run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.csv"),
            "--valid", "valid"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    (line,) = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert "the valid output 'valid' is a bare name" in line and "table:valid" in line
    assert "Traceback" not in err and "wrote" not in err


def test_a_table_spelled_out_is_written(spark: Any) -> None:
    df = spark.createDataFrame([(1,), (-1,)], "a int")
    try:
        summary = run_quality(df, SUITE, run_id="r1").write(
            "spark_catalog.default.qp_names_valid", "table:qp_names_q"
        )
        assert summary.valid_rows == 1
        assert spark.table("qp_names_valid").count() == 1
        assert spark.table("qp_names_q").count() == 1
    finally:
        spark.sql("DROP TABLE IF EXISTS qp_names_valid")
        spark.sql("DROP TABLE IF EXISTS qp_names_q")


def test_a_bare_name_is_a_table_where_a_metastore_keeps_it(tmp_path: Path) -> None:
    """A fresh command line with a Hive metastore (spark.sql.catalogImplementation=hive): the
    bare name is a table the metastore keeps after the command ends."""
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "in.csv").write_text("a\n1\n-1\n2\n")
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "QP_TRACEBACK")}
    warehouse = tmp_path / "warehouse"
    command = [
        sys.executable, "-m", "quality_py", "run", str(tmp_path / "rules.yaml"),
        "--input", str(tmp_path / "in.csv"), "--valid", "kept_valid",
        "--conf", "spark.sql.catalogImplementation=hive",
        "--conf", f"spark.sql.warehouse.dir={warehouse}",
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "metastore_db").is_dir()  # the metastore that outlives the command
    assert any((warehouse / "kept_valid").glob("*.parquet"))
    assert "wrote valid -> kept_valid" in done.stdout
