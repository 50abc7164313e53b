"""The job the command line runs is the job a notebook runs (issue 39): the same request gives
the same counts, outputs and result document; a run's plan is inspected without writing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quality_py import Id, Outputs, QualityJob, Rule, RuleSet, RuleSuite, run_quality
from quality_py.actions.plan import RunPlan
from quality_py.cli import main
from quality_py.spark.samples import load_sample

ROOT = Path(__file__).resolve().parents[2]
WHERE = "month = 2 AND day <= 2"


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A result without what differs between two runs of one job (time, ids, timings)."""
    drop = {"elapsed_seconds", "run_id", "run_time", "timings", "outputs", "spark"}
    return {k: v for k, v in document.items() if k not in drop}


def test_the_command_line_and_a_notebook_run_the_same_job(spark: Any, tmp_path: Path) -> None:
    cli_out, lib_out = tmp_path / "cli", tmp_path / "lib"
    argv = ["run", str(ROOT / "rulesets" / "flights.yaml"), "--input", "sample:flights",
            "--where", WHERE, "--valid", str(cli_out / "valid"), "--quarantine",
            str(cli_out / "quarantine"), "--json", str(tmp_path / "cli.json")]  # fmt: skip
    assert main(argv) == 0
    cli = json.loads((tmp_path / "cli.json").read_text())
    job = QualityJob(
        ruleset=str(ROOT / "rulesets" / "flights.yaml"),
        input="sample:flights",
        where=WHERE,
        outputs=Outputs(valid=str(lib_out / "valid"), quarantine=str(lib_out / "quarantine")),
    )
    result = job.run(spark)
    assert _comparable(result.to_dict()) == _comparable(cli)
    # and both against the data itself: every selected row is valid or dropped, once
    selected = load_sample(spark, "flights").where(WHERE).count()
    assert cli["input_rows"] == selected > 0
    for out in (cli_out, lib_out):
        valid = spark.read.parquet(str(out / "valid")).count()
        assert valid == cli["valid_rows"] == selected - cli["dropped_rows"]


def test_a_plan_is_inspected_without_writing(spark: Any, tmp_path: Path) -> None:
    """Three rows: a = 0 fails the drop rule, a = 5 fails the ignore rule (by hand)."""
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [
        Rule(Id(10, 1), "a > 0", action_if_failed="drop"), Rule(Id(11, 1), "a < 3")])])  # fmt: skip
    plan = run_quality(spark.createDataFrame([(0,), (1,), (5,)], "a int"), suite, run_id="p1")
    assert isinstance(plan, RunPlan) and plan.summary is None
    assert sorted(r.a for r in plan.valid.collect()) == [1, 5]
    assert sorted((r.a, r.qp_kept_in_valid) for r in plan.quarantine.collect()) == [
        (0, False), (5, True),
    ]  # fmt: skip
    assert plan.summary is None and list(tmp_path.iterdir()) == []  # nothing written
