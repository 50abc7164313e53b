"""docs/operations.md's examples, run as far as they can be without a lake: its YAML rule loads
with the tolerances it states, and every command line it shows parses as written (options,
choices, durations). Its Python-free page is otherwise told by the pages it links, whose
examples run in tests/spark/test_doc_examples.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from quality_py.cli import build_parser
from quality_py.io.yaml_rulesets import loads_ruleset
from quality_py.model.times import parse_duration
from quality_py.model.tolerance import parse_tolerance

DOC = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text("utf-8")


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", DOC, re.MULTILINE | re.DOTALL)


def test_its_rule_loads_with_its_tolerances() -> None:
    (block,) = _blocks("yaml")
    rules = "\n".join("    " + line for line in block.splitlines())
    suite = loads_ruleset(f"suite: {{id: 1, version: 1}}\nrule_sets:\n  - id: 5\n{rules}\n")
    (rule,) = suite.rule_sets[0].rules
    assert (rule.action_if_failed, rule.warn_if, rule.fail_if) == ("drop", "> 0.5 %", "> 5 %")
    # by hand: 31 of 5,000 rows (0.62 %) is past the warning, under the failure
    assert parse_tolerance(rule.warn_if).past(31, 5000)
    assert not parse_tolerance(rule.fail_if).past(31, 5000)


def test_its_command_lines_parse_as_written() -> None:
    lines = [
        " ".join(part.split("#")[0].strip() for part in command.split("\\\n"))
        for block in _blocks("bash")
        for command in re.split(r"\n(?=quality-py)", block.strip())
    ]
    parsed = [build_parser().parse_args(shlex.split(line)[1:]) for line in lines]
    assert [a.command for a in parsed] == ["run", "release", "release"]
    run = parsed[0]
    assert (run.alert_when, parse_duration(run.alert_every).days) == ("change", 1)
    assert run.alert == ["slack=QP_SLACK_WEBHOOK_URL", "pagerduty=QP_PAGERDUTY_ROUTING_KEY"]
    assert parsed[1].dry_run and not parsed[2].dry_run
    assert parsed[2].run_id == "2026-11-28" and parsed[2].history == "out/history"
