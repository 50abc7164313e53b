"""The recipes of docs/deployment.md are commands our command line takes as written: the
Databricks job's entry point and parameters, the Airflow task's command, spark-submit's
application arguments. (The spark-submit recipe itself runs on a standalone cluster in
tests/cluster/test_standalone.py.)"""

from __future__ import annotations

import json
import re
import shlex
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from quality_py.cli.parser import build_parser

pytestmark = pytest.mark.packaging  # what is installed decides its outcome

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC, re.MULTILINE | re.DOTALL)


def _words(block: str) -> list[str]:
    """A shell command's words, with Airflow's template filled in."""
    return shlex.split(block.replace("\\\n", " ").replace("{{ ds }}", "2026-11-26"))


def test_the_databricks_job_calls_our_entry_point() -> None:
    job, classic = [json.loads(b) for b in _blocks("json")]
    (task,) = job["tasks"]
    wheel = task["python_wheel_task"]
    scripts = {
        e.name for e in entry_points(group="console_scripts") if e.value.startswith("quality_py")
    }
    assert wheel["package_name"] == "quality_py" and wheel["entry_point"] in scripts
    args = build_parser().parse_args(wheel["parameters"])
    assert (args.command, args.input, args.history) == (
        "run", "main.sales.orders", "table:main.dq.history",
    )  # fmt: skip
    assert args.json.endswith(".json") and args.master is None  # the cluster's own Spark
    # the Jobs API's rules for a serverless wheel task: the environment it names is declared
    # by the job, with the wheel as a dependency; no task libraries beside an environment
    environments = {e["environment_key"]: e["spec"] for e in job["environments"]}
    assert task["environment_key"] in environments and "libraries" not in task
    spec = environments[task["environment_key"]]
    assert any(d.endswith(".whl") and d.startswith("/Volumes/") for d in spec["dependencies"])
    assert "environment_version" in spec or "client" in spec
    # a job cluster: the task names it, takes the wheel as a library, and Spark's log level is
    # the cluster's (Spark's spark.log.level, 3.5 and newer)
    (cluster,) = classic["job_clusters"]
    (task,) = classic["tasks"]
    assert task["job_cluster_key"] == cluster["job_cluster_key"] and "environment_key" not in task
    assert cluster["new_cluster"]["spark_conf"] == {"spark.log.level": "WARN"}
    assert task["libraries"][0]["whl"] in spec["dependencies"]
    args = build_parser().parse_args(task["python_wheel_task"]["parameters"])
    assert (args.command, args.input, args.quarantine) == (
        "run", "main.sales.orders", "main.dq.orders_quarantine",
    )  # fmt: skip


def test_the_airflow_and_spark_submit_commands_parse() -> None:
    airflow, submit = _blocks("bash")
    words = _words(airflow)
    assert words[0] == "quality-py"
    args = build_parser().parse_args(words[1:])
    assert args.publish == "direct" and args.remote.startswith("sc://")
    assert args.run_id == "orders-2026-11-26"
    words = _words(submit)
    assert words[0] == "spark-submit" and "--master" in words
    assert "spark.log.level=WARN" in words  # quiet by default (issue 57, point 5)
    app = next(i for i, w in enumerate(words) if "quality_py.__main__" in w)
    args = build_parser().parse_args(words[app + 1 :])
    assert args.command == "run" and args.master is None and args.publish == "direct"


def test_the_airflow_dag_runs_our_command_with_airflows_run_id() -> None:
    """docs/recipes/airflow_quality_dag.py: Python that compiles, builds a DAG with one
    BashOperator, and whose command our parser takes with Airflow's templates filled in as
    Airflow fills them (``{{ run_id }}`` of a scheduled run, ``{{ ds }}``). Airflow itself is
    not installed here: the imports are checked by name against Airflow 2's and 3's modules."""
    import ast

    from quality_py.alerts import alert_kind
    from quality_py.gate.run_ids import require_run_id
    from quality_py.history.over_time import data_time

    path = ROOT / "docs" / "recipes" / "airflow_quality_dag.py"
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    compile(tree, str(path), "exec")
    imported = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert ("airflow", "DAG") in imported
    assert ("airflow.providers.standard.operators.bash", "BashOperator") in imported  # 3.x
    assert ("airflow.operators.bash", "BashOperator") in imported  # 2.x
    command = next(
        node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "COMMAND" for t in node.targets)
        and isinstance(node.value, ast.Constant)
    )
    run_id = "scheduled__2026-11-23T00:00:00+00:00"
    filled = command.replace("{{ run_id }}", run_id).replace("{{ ds }}", "2026-11-23")
    words = shlex.split(filled)
    assert words[0] == "quality-py"
    args = build_parser().parse_args(words[1:])
    assert require_run_id(args.run_id) == run_id
    assert data_time(args.data_time) == "2026-11-23"
    assert [alert_kind(a)[0] for a in args.alert] == ["slack"]
    assert args.history and args.report_url.startswith("https://")
