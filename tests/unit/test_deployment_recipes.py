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

from quality_py.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC, re.MULTILINE | re.DOTALL)


def _words(block: str) -> list[str]:
    """A shell command's words, with Airflow's template filled in."""
    return shlex.split(block.replace("\\\n", " ").replace("{{ ds }}", "2026-11-26"))


def test_the_databricks_job_calls_our_entry_point() -> None:
    (job,) = [json.loads(b) for b in _blocks("json")]
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


def test_the_airflow_and_spark_submit_commands_parse() -> None:
    airflow, submit = _blocks("bash")
    words = _words(airflow)
    assert words[0] == "quality-py"
    args = build_parser().parse_args(words[1:])
    assert args.publish == "direct" and args.remote.startswith("sc://")
    assert args.run_id == "orders-2026-11-26"
    words = _words(submit)
    assert words[0] == "spark-submit" and "--master" in words
    app = next(i for i, w in enumerate(words) if "quality_py.__main__" in w)
    args = build_parser().parse_args(words[app + 1 :])
    assert args.command == "run" and args.master is None and args.publish == "direct"
