"""The command line as a job's entry point (issue 26), without a JVM: the version, the help a
person reads, the exit codes, the ``--json`` result of a command that stopped, and the one line a
user gets when no Spark is installed or two Sparks are asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from quality_py.cli import main

pytestmark = pytest.mark.packaging  # what is installed decides its outcome

RULES = (
    "suite: {id: 1}\nrule_sets:\n  - id: 10\n    rules:\n      - {id: 100, expression: 'a > 0'}\n"
)


def _cli(
    *args: str, env: dict[str, str] | None = None, block_spark: bool = False
) -> subprocess.CompletedProcess[str]:
    """The command line in a fresh Python (``block_spark``: as if no PySpark were installed)."""
    prelude = "import sys; sys.modules['pyspark'] = None; " if block_spark else ""
    code = prelude + "from quality_py.cli import main; sys.exit(main(sys.argv[1:]))"
    if not block_spark:
        code = "import sys; " + code
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.split()[-1] == version("quality_py")


def test_help_is_written_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for command in ("run", "validate", "docs", "explain", "convert", "profile", "report"):
        assert f"\n    {command} " in text  # each command with a line saying what it does
    assert "examples:" in text and "exit codes:" in text
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "70 "):
        assert f"\n  {code}" in text
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    run_help = capsys.readouterr().out
    assert "--conf KEY=VALUE" in run_help and "--json FILE" in run_help
    assert "catalog.schema.table" in run_help and "exit codes:" in run_help


def test_the_program_is_named_as_invoked() -> None:
    as_module = subprocess.run(
        [sys.executable, "-m", "quality_py", "--help"], capture_output=True, text=True, check=True
    )
    assert as_module.stdout.startswith("usage: python -m quality_py ")
    script = Path(sys.executable).parent / "quality-py"
    as_script = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    assert as_script.stdout.startswith("usage: quality-py ")


def test_no_spark_installed_is_one_line_and_exit_4(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    done = _cli(
        "run", str(tmp_path / "rules.yaml"), "--input", str(tmp_path / "in.parquet"),
        "--valid", str(tmp_path / "valid"), "--json", str(tmp_path / "r.json"),
        block_spark=True,
    )  # fmt: skip
    assert done.returncode == 4, done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert "needs PySpark" in lines[0] and "quality_py[spark]" in lines[0]
    assert "quality_py[client]" in lines[0]
    result = json.loads((tmp_path / "r.json").read_text())
    assert (result["status"], result["exit_code"], result["error"]["code"]) == (
        "error",
        4,
        "NO_SPARK",
    )


def test_a_master_beside_a_connect_server_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    done = _cli(
        "run", str(tmp_path / "rules.yaml"), "--input", "x.parquet", "--valid", "v",
        "--master", "local[2]",
        env={"SPARK_REMOTE": "sc://127.0.0.1:1"},
    )  # fmt: skip
    assert done.returncode == 4, done.stderr
    (line,) = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
    assert "Traceback" not in done.stderr
    assert "--master local[2]" in line and "sc://127.0.0.1:1" in line and "give one" in line


def test_a_mistake_writes_an_error_result_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "rules.yaml").write_text(
        "suite: {id: 1}\nrule_sets: [{id: 10, rules: [{id: 100, expression: 'a >'}]}]\n"
    )
    out = tmp_path / "r.json"
    code = main(
        ["run", str(tmp_path / "rules.yaml"), "--input", "x", "--valid", "v", "--json", str(out)]
    )
    assert code == 2
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("error:")]
    result = json.loads(out.read_text())
    assert (result["status"], result["exit_code"], result["command"]) == ("error", 2, "run")
    assert result["error"]["code"] == "RULE_SYNTAX" and "100" in line
    assert not list(tmp_path.glob(".r.json.*"))  # no temporary file left beside it


def test_a_bad_conf_is_a_mistake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "rules.yaml").write_text(RULES)
    args = [
        "run",
        str(tmp_path / "rules.yaml"),
        "--input",
        "x",
        "--valid",
        "v",
        "--conf",
        "novalue",
    ]
    assert main(args) == 2
    assert "--conf takes KEY=VALUE, not 'novalue'" in capsys.readouterr().err


def test_a_bug_of_ours_exits_70_with_its_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:  # a fault injected where a command's code would fail
        raise KeyError("a bug")

    monkeypatch.setattr("quality_py.cli.parser.validate_command", broken)
    assert main(["validate", "rules.yaml", "--schema", "a INT"]) == 70
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'a bug'" in err
    assert err.strip().splitlines()[-1].startswith("internal error of quality_py")
