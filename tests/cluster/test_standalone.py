"""The deployed job on a real standalone cluster (a master and two workers in their own JVMs,
executors with their own Python workers): the command line under spark-submit, as
docs/deployment.md runs it, on the first two months of the flights, compared with what pandas
finds in the sample package (tests/flights_truth.py), and the state store's partition states,
written by executors and merged, against an analysis of both months at once. Each runs once;
this test process starts no JVM of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.standalone import Cluster, standalone_cluster

JOB = Path(__file__).with_name("job.py")
#: The flights the deployed job checks: the first two months (about 52,000 rows), a sixth of
#: the sample: enough rows for two executors, at a fraction of the four months' cost
MONTHS = 2
ROOT = Path(__file__).resolve().parents[2]


def _job(cluster: Cluster, out: Path) -> dict[str, Any]:
    env = {**os.environ, **cluster.env, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(JOB), cluster.master, str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.cluster
def test_the_deployed_job_and_the_state_store_on_a_standalone_cluster(tmp_path: Path) -> None:
    from tests.flights_truth import expected_run, failures, soft_failing, tables

    with standalone_cluster(workers=2, cores=1, memory="2g") as cluster:
        submitted = _spark_submit(cluster, tmp_path / "submitted")
        states = _job(cluster, tmp_path / "states")
    master = cluster.master
    # the command line as the job's entry point under spark-submit: it runs in the Spark that
    # spark-submit started, on the cluster
    assert submitted["exit_code"] == 0 and submitted["status"] == "success"
    assert submitted["spark"]["master"] == master  # spark-submit's session, not a local one
    truth = expected_run(MONTHS)
    assert truth["rows"] > 50_000
    found = {k: submitted[f"{k}_rows"] for k in ("input", "valid", "quarantined", "dropped")}
    assert found == {"input": truth["rows"], "valid": truth["valid"],
                     "quarantined": truth["quarantined"], "dropped": truth["dropped"]}  # fmt: skip
    chosen = (tables()["flights"].month <= MONTHS).to_numpy()
    by_rule = {r["rule"]: r for r in submitted["rules"]}
    for rule in (101, 600, 601, 603):  # a column's nulls and the rules over rows, by pandas
        assert by_rule[f"{rule}.1"]["failed"] == int(failures()[rule].to_numpy()[chosen].sum())
    assert by_rule["602.1"]["soft_failed"] == int(soft_failing()[602].to_numpy()[chosen].sum())
    # executors wrote the frequency tables; the merged states equal the two months at once
    assert states.pop("executors") == master
    assert states["merged"] == pytest.approx(states["direct"])


def _spark_submit(cluster: Cluster, out: Path) -> dict[str, Any]:
    """The spark-submit recipe of docs/deployment.md, with this cluster's master."""
    import pyspark

    import quality_py.__main__ as entry

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = {**os.environ, **cluster.env, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}  # fmt: skip
    env.pop("SPARK_REMOTE", None)
    done = subprocess.run(
        [
            str(submit),
            "--master",
            cluster.master,
            "--conf",
            "spark.executor.memory=1g",
            "--conf",
            "spark.log.level=WARN",  # as the recipe: the run's own lines are what one reads
            entry.__file__,
            "run",
            str(ROOT / "rulesets" / "flights.yaml"),
            "--input",
            "sample:flights",
            "--where",
            f"month <= {MONTHS}",
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
    # quiet by default: without the level, 12,533 lines of Spark's INFO (measured 2026-11-29);
    # with it, the run's own lines and spark-submit's few start-up lines
    lines = done.stdout.splitlines() + done.stderr.splitlines()
    assert sum(" INFO " in ln for ln in lines) < 40, done.stderr[-4000:]
    assert len(lines) < 120, "\n".join(lines[-60:])
    return dict(json.loads((out / "run.json").read_text()))
