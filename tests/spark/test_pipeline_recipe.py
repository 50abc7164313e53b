"""docs/recipes/pipeline, the declarative pipeline of docs/pipelines.md, run by ``spark-pipelines``
as a user runs it (its own Spark Connect server on this machine), and its tables read back: the
rows and rule names worked out by hand in the recipe's data (tests/spark/test_pipelines.py says
how). A query function calling ``add_data_quality`` is refused at registration with our
paragraph, not Spark's analysis error. Each ``spark-pipelines`` starts a local Connect server on
Spark's own port: the tests stay in this one file, which one worker runs (``--dist loadfile``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.spark.test_pipelines import FAILED

pytestmark = pytest.mark.wiring  # a recipe run end to end

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "docs" / "recipes" / "pipeline"
DOC = ROOT / "docs" / "pipelines.md"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(RECIPE, project)
    spec = project / "spark-pipeline.yml"
    text = spec.read_text(encoding="utf-8")
    assert "file:///tmp/orders_quality/pipeline-storage" in text
    spec.write_text(text.replace("file:///tmp/orders_quality/pipeline-storage",
                                 (tmp_path / "storage").as_uri()))  # fmt: skip
    return project


def _pipelines(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = Path(sys.executable).with_name("spark-pipelines")
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    env["PYSPARK_PYTHON"] = sys.executable
    return subprocess.run([str(command), *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=900, check=False)  # fmt: skip


def test_the_recipe_runs_and_its_tables_hold_the_hand_counted_rows(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    project = _project(tmp_path)
    done = _pipelines(project, "run")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    tables = project / "spark-warehouse"

    def rows(name: str) -> list[dict[str, object]]:
        return list(pq.read_table(str(tables / name)).to_pylist())

    valid = rows("orders_valid")
    assert sorted(r["id"] for r in valid) == [4, 5, 6, 7, 8, 9]
    assert set(valid[0]) == {"id", "amount", "note"}
    quarantine = {r["amount"]: r for r in rows("orders_quarantine")}
    assert {a: r["qp_failed_rule_names"] for a, r in quarantine.items()} == FAILED
    assert sorted(a for a, r in quarantine.items() if r["qp_kept_in_valid"]) == [1.0, 5.0]
    assert len(rows("orders_checked")) == 12
    # the stats, by hand: 12 in, 6 valid (4..9), 8 quarantined, 6 dropped; the rules' failures
    stats = {(r["kind"], r["name"]): r for r in rows("orders_stats")}
    counts = {n: stats[("rows", n)]["value"] for k, n in stats if k == "rows"}
    assert counts == {"input_rows": 12.0, "valid_rows": 6.0, "quarantined_rows": 8.0,
                      "dropped_rows": 6.0}  # fmt: skip
    failed = {n: r["failed"] for (k, n), r in stats.items() if k == "rule"}
    assert failed == {"positive": 4, "unique_id": 4, "has_note": 3}
    # the SQL checks, by hand: 6 valid of 12 (6 * 2 >= 12); the amounts -3..8 sum to 30; the
    # valid orders (rows 4..9) miss the notes of rows 4 and 8: 4 notes, under 6, a warning
    checks = {r["name"]: (r["action"], r["value"], r["status"]) for r in rows("orders_checks")}
    assert checks == {"half valid": ("error", None, "passed"),
                      "amount total": ("warning", 30.0, "passed"),
                      "valid notes": ("warning", 4.0, "failed")}  # fmt: skip
    # the engine and the folder, by hand: of the valid orders (amounts 1..6) only id 9's amount,
    # 6, is above 5: high, with a discount of 0.1; the others normal, no discount
    priced = {r["id"]: (r["priority"], r["discount"]) for r in rows("orders_priced")}
    assert priced == {i: ("high", 0.1) if i == 9 else ("normal", 0.0) for i in range(4, 10)}


def test_the_doc_shows_the_recipe_as_it_runs() -> None:
    text = DOC.read_text(encoding="utf-8")
    (python,) = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert python == (RECIPE / "transformations" / "orders.py").read_text(encoding="utf-8")
    yaml_blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    assert yaml_blocks == [(RECIPE / "spark-pipeline.yml").read_text(encoding="utf-8"),
                           (RECIPE / "orders.yaml").read_text(encoding="utf-8")]  # fmt: skip


def test_add_data_quality_in_a_query_function_says_what_to_do(tmp_path: Path) -> None:
    project = _project(tmp_path)
    flow = project / "transformations" / "orders.py"
    text = flow.read_text(encoding="utf-8")
    text = text.replace(
        'return CHECKS.apply(spark.read.table("orders_raw"))',
        'return add_data_quality(spark.read.table("orders_raw"), RULES)',
    ).replace(
        "from __future__ import annotations\n",
        "from __future__ import annotations\n\nfrom quality_py import add_data_quality\n",
    )
    flow.write_text(text, encoding="utf-8")
    done = _pipelines(project, "dry-run")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "[INVALID_MODEL] the rules are analysed against the data's schema" in said
    assert "checks = pipeline_checks(suite, 'id INT, amount DOUBLE')" in said
