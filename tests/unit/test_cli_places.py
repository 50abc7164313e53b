"""Every option of every command is classified as a place read, a place written, or no place,
and a command whose output is, is inside or contains an input or another output is refused
before anything starts (no JVM: the check needs none)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from quality_py.cli import main
from quality_py.cli.parser import build_parser
from quality_py.cli.places import NOT_PLACES, READS, WRITES


def _options() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                for option in sub._actions:
                    found.setdefault(option.dest, set()).add(command)
    return found


def test_every_option_of_every_command_is_classified() -> None:
    options = _options()
    unclassified = sorted(set(options) - set(READS) - set(WRITES) - set(NOT_PLACES))
    assert unclassified == [], f"say whether these name a place read or written: {unclassified}"
    assert not set(READS) & set(WRITES)
    stale = sorted((set(READS) | set(WRITES) | set(NOT_PLACES)) - set(options))
    assert stale == []


RULES = "suite: {id: 1, version: 1}\nrule_sets: [{id: 2, version: 1, rules: [{id: 3, version: 1, expression: 'a > 0'}]}]\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part-0.csv").write_text("a\n1\n")
    (tmp_path / "data.csv").write_text("a\n1\n")
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "x").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        # --valid equal to --input, spelt another way
        ("run {R} --input {D}/in --valid {D}/x/../in", "the --valid output {D}/x/../in is the --input {D}/in"),
        # --json naming the input file
        ("run {R} --input {D}/data.csv --output {D}/o --json {D}/./data.csv", "the --json output {D}/./data.csv is the --input {D}/data.csv"),
        # a quarantine inside the input folder
        ("run {R} --input {D}/in --quarantine {D}/in/q", "the --quarantine output {D}/in/q is inside the --input {D}/in"),
        # an output containing the input
        ("run {R} --input {D}/in --valid {D}", "the --valid output {D} contains the ruleset {R}"),
        # two outputs, one inside the other
        ("run {R} --input {D}/data.csv --valid {D}/o --quarantine {D}/o/q", "the --quarantine output {D}/o/q is inside the --valid output {D}/o"),
        # --json over the ruleset
        ("diff {R} {R} --input {D}/data.csv --json {R}", "the --json output {R} is the old {R}"),
        # the docs over the ruleset, and convert over its source
        ("docs {R} --out {R}", "the --out output {R} is the source {R}"),
        ("convert {R} {R}", "the dest output {R} is the source {R}"),
        # the same table both ways
        ("run {R} --input table:main.s.t --valid main.s.T", "the --valid output main.s.T is the --input table:main.s.t"),
    ],
)  # fmt: skip
def test_outputs_over_inputs_are_refused_naming_both(
    folder: Path, argv: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    places = {"D": str(folder), "R": str(folder / "rules.yaml")}
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    code = main(argv.format(**places).split())
    err = capsys.readouterr().err
    assert code == 2
    assert "[OUTPUT_OVERLAP]" in err and said.format(**places) in err, err
    after = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing replaced


def test_a_symlink_to_the_input_is_the_input(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink(folder / "in", folder / "link")
    code = main(
        [
            "run",
            str(folder / "rules.yaml"),
            "--input",
            str(folder / "in"),
            "--valid",
            str(folder / "link"),
        ]
    )
    assert code == 2 and "is the --input" in capsys.readouterr().err


def test_reference_data_of_a_views_file_is_an_input(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "ref").mkdir()
    (folder / "ref" / "airports.csv").write_text("faa\nJFK\n")
    (folder / "views.yaml").write_text("views: [{name: airports, source: ref/airports.csv}]\n")
    target = folder / "ref" / "airports.csv"
    argv = ["run", str(folder / "rules.yaml"), "--input", str(folder / "data.csv"),
            "--views", str(folder / "views.yaml"), "--valid", str(target)]  # fmt: skip
    assert main(argv) == 2
    assert f"is the view 'airports' of the views file {target}" in capsys.readouterr().err
    assert target.read_text() == "faa\nJFK\n"
