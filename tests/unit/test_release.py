"""A release as users take it (issue 57, point 4): the pre-commit hook installed from a tag of
the repository, as docs/editors.md writes it, and a wheel and an sdist whose metadata twine
accepts. The tag is made in a scratch clone of this repository's committed tree; pre-commit
clones that at the tag and installs it, as it would from the published repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from quality_py.version import __version__

pytestmark = pytest.mark.long  # installs with pip (the hook), builds (the wheel): seconds each

ROOT = Path(__file__).resolve().parents[2]
EDITORS = ROOT / "docs" / "editors.md"
TAG = f"v{__version__}"
GOOD = """\
suite: {name: orders}
rule_sets:
  - name: amounts
    rules:
      - {name: positive, expression: "amount > ${LIMIT}"}
"""
#: a column the schema lacks, at line 5, column 39 (by hand: 38 characters precede the
#: expression's text, opening quote included)
BAD = GOOD.replace("amount > ${LIMIT}", "amont > ${LIMIT}")


def _run(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=540,
                          env=env)  # fmt: skip


def _git(cwd: Path, *args: str) -> None:
    done = _run(cwd, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args)
    assert done.returncode == 0, done.stderr


def _documented_config() -> dict[str, object]:
    blocks = re.findall(r"```yaml\n(.*?)```", EDITORS.read_text(encoding="utf-8"), re.DOTALL)
    (config,) = [yaml.safe_load(b) for b in blocks if "quality-py-validate" in b]
    assert isinstance(config, dict)
    return config


def test_the_documented_rev_is_this_versions_tag() -> None:
    (repo,) = _documented_config()["repos"]  # type: ignore[misc]
    assert repo["rev"] == TAG
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {__version__}" in changelog


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="a release is tagged in a git checkout")
def test_the_hook_installs_from_a_tag_and_checks_staged_rulesets(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit", path=os.path.dirname(sys.executable))
    assert pre_commit, "pre-commit is a dev dependency"
    upstream = tmp_path / "quality_py"
    _git(tmp_path, "clone", "-q", "--no-hardlinks", str(ROOT), str(upstream))
    _git(upstream, "tag", "-a", TAG, "-m", f"quality_py {__version__}")
    # a user's repository, configured as the doc says, pointing at the scratch clone
    user = tmp_path / "user"
    (user / "rulesets").mkdir(parents=True)
    _git(user, "init", "-q")
    config = _documented_config()
    config["repos"][0]["repo"] = str(upstream)  # type: ignore[index]
    (user / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (user / "rulesets" / "sample.csv").write_text("amount,region\n12.5,EU\n")
    (user / "rulesets" / "orders.yaml").write_text(GOOD)
    (user / "rulesets" / "returns.yaml").write_text(BAD)
    _git(user, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    done = _run(user, pre_commit, "run", "--all-files", env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "quality_py validate" in out and "Failed" in out and "- exit code: 1" in out
    assert "rulesets/returns.yaml:5:39:" in out and "amont" in out
    assert "suite 'orders'" in out and "0 error(s)" in out
    # mended, the commit goes through
    (user / "rulesets" / "returns.yaml").write_text(GOOD.replace("name: orders", "name: returns"))
    _git(user, "add", ".")
    done = _run(user, pre_commit, "run", "--all-files", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "quality_py validate" in done.stdout and "Passed" in done.stdout
    # what pre-commit installed is this version, with no Spark
    (venv,) = (tmp_path / "cache").glob("repo*/py_env-*")
    listed = _run(venv, str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze").stdout
    assert f"quality_py=={__version__}" in listed.replace("-", "_")
    assert "pyspark" not in listed


def test_the_wheel_and_sdist_pass_twine_check(tmp_path: Path) -> None:
    done = _run(ROOT, sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir",
                str(tmp_path / "dist"), str(ROOT))  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    built = sorted(p.name for p in (tmp_path / "dist").iterdir())
    assert built == [
        f"quality_py-{__version__}-py3-none-any.whl",
        f"quality_py-{__version__}.tar.gz",
    ]
    done = _run(tmp_path, sys.executable, "-m", "twine", "check", "--strict",
                *(str(tmp_path / "dist" / name) for name in built))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2
    # the wheel carries the hook's entry point and every file of the package (the ruleset JSON
    # Schema was left out once: the package data named top-level JSON files only)
    with zipfile.ZipFile(tmp_path / "dist" / built[0]) as wheel:
        names = set(wheel.namelist())
        entry = wheel.read(f"quality_py-{__version__}.dist-info/entry_points.txt").decode()
    assert "quality-py = quality_py.cli:main" in entry
    package = ROOT / "quality_py"
    files = {
        f"quality_py/{p.relative_to(package).as_posix()}"
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert "quality_py/io/ruleset.schema.json" in files
    assert files - names == set()
