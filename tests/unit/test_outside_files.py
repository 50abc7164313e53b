"""Files from outside never crash a command (issue 53, point 5): every command-line option that
takes a file, fed a catalogue of bad files (wrong encodings, empty, truncated, huge cells, deep
nesting, wrong shapes, random damage), answers with one paragraph and exit 2 (or 1 for
findings), never a traceback and never exit 70; and every outside file is read through
``quality_py/gate/files.py`` (the architecture test at the end keeps it so).

No Spark starts here: the session is replaced by one that fails the test if it is asked for.
"""

from __future__ import annotations

import ast
import io
import json
import random
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.cli import main

PACKAGE = Path(__file__).resolve().parents[2] / "quality_py"

RULES_YAML = (
    "suite: {id: 1, version: 1, name: orders}\nrule_sets:\n  - id: 2\n    rules:\n"
    "      - {id: 3, name: positive, expression: 'amount > 0', action_if_failed: drop}\n"
)
RULES_CSV = (
    "ruleSuiteId,ruleSuiteVersion,ruleSetId,ruleSetVersion,ruleId,ruleVersion,ruleExpr\n"
    "1,1,2,1,3,1,amount > 0\n"
)
RULES_JSONL = json.dumps(
    {"ruleSuiteId": 1, "ruleSuiteVersion": 1, "ruleSetId": 2, "ruleSetVersion": 1,
     "ruleId": 3, "ruleVersion": 1, "ruleExpr": "amount > 0"}
) + "\n"  # fmt: skip
DQX_YAML = "- criticality: error\n  check:\n    function: is_not_null\n    arguments: {column: a}\n"
SE_JSON = json.dumps({"rules": [{"product_id": "p", "table_name": "t", "rule_type": "row_dq",
                                 "rule": "r", "column_name": "a", "expectation": "a > 0",
                                 "action_if_failed": "drop"}]})  # fmt: skip
SODA_YAML = "checks for orders:\n  - row_count > 0\n"
SODA_CONTRACT_YAML = "dataset: ds/db/s/orders\ncolumns:\n  - {name: a, checks: [missing: ]}\n"
GX_JSON = json.dumps({"name": "s", "expectations": [
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "a"}}]})  # fmt: skip
ODCS_YAML = ("apiVersion: v3.0.2\nkind: DataContract\nid: c\nversion: 1.0.0\nstatus: active\n"
             "schema:\n  - name: t\n    properties:\n      - {name: a, required: true}\n")  # fmt: skip
JOB_YAML = "ruleset: rules.yaml\ninput: {path: in.parquet}\noutputs: {valid: out/valid}\n"
SAMPLE_CSV = "amount,note\n1,a\n"
SAMPLE_JSON = '{"amount": 1, "note": "a"}\n'


def _parquet_bytes(tmp: Path) -> bytes:
    path = tmp / "_good.parquet"
    pq.write_table(pa.table({"amount": [1, 2], "note": ["a", "b"]}), str(path))
    return path.read_bytes()


#: what each corruption makes of a good file's bytes (the suffix decides the reader)
CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "windows-1252": lambda good: good.replace(b"a", "é".encode("cp1252"), 1) + b"caf\xe9\n",
    "utf-16": lambda good: good.decode("utf-8", "replace").encode("utf-16"),
    "empty": lambda good: b"",
    "only a BOM": lambda good: b"\xef\xbb\xbf",
    "truncated": lambda good: good[: max(1, len(good) // 2)],
    "NUL bytes": lambda good: good[:10] + b"\x00" * 50 + good[10:],
    "a 200 KB cell": lambda good: good.rstrip(b"\n") + b"x" * 200_000 + b"\n",
    "deep JSON": lambda good: b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b"}\n",
    "deep YAML": lambda good: b"suite: " + b"[" * 3000 + b"]" * 3000 + b"\n",
    "a list for every value": lambda good: b'{"ruleSuiteId": [1], "ruleId": [[3]], "a": [1]}\n',
    "a 5,000-digit number": lambda good: b'{"ruleSuiteId": ' + b"9" * 5000 + b"}\n",
    "a date off the calendar": lambda good: b"suite: {id: 1, version: 2026-02-30}\n",
    "random bytes": lambda good: random.Random(7).randbytes(300),
    "unclosed quote": lambda good: b'a,b\n"x,1\n',
    "a YAML alias bomb": lambda good: b'a: &a ["x","x"]\nb: &b [*a,*a]\nc: [*b,*b]\n',
}


def _commands(tmp: Path) -> dict[str, tuple[str, bytes, list[str]]]:
    """Each option that takes a file: its file's name and good bytes, and the command line."""
    (tmp / "rules.yaml").write_text(RULES_YAML)
    good_parquet = _parquet_bytes(tmp)
    return {
        "validate YAML": ("bad.yaml", RULES_YAML.encode(), ["validate", "{f}"]),
        "validate CSV table": ("bad.csv", RULES_CSV.encode(), ["validate", "{f}", "--suite", "1"]),
        "validate JSON table": ("bad.jsonl", RULES_JSONL.encode(), ["validate", "{f}"]),
        "validate parquet table": ("bad.parquet", good_parquet, ["validate", "{f}"]),
        "--schema CSV": ("bad.csv", SAMPLE_CSV.encode(),
                         ["validate", "rules.yaml", "--schema", "{f}"]),
        "--schema JSON": ("bad.json", SAMPLE_JSON.encode(),
                          ["validate", "rules.yaml", "--schema", "{f}"]),
        "--schema parquet": ("bad.parquet", good_parquet,
                             ["validate", "rules.yaml", "--schema", "{f}"]),
        "--lambdas table": ("bad.csv", b"lambdaId,lambdaVersion,lambdaName,lambdaExpr\n",
                            ["validate", "rules.csv", "--suite", "1", "--lambdas", "{f}"]),
        "docs": ("bad.yaml", RULES_YAML.encode(), ["docs", "{f}", "--out", "out.md"]),
        "convert tables to YAML": ("bad.csv", RULES_CSV.encode(),
                                   ["convert", "{f}", "out.yaml", "--suite", "1"]),
        "convert --from dqx": ("bad.yaml", DQX_YAML.encode(),
                               ["convert", "--from", "dqx", "{f}", "out.yaml"]),
        "convert --from spark-expectations": (
            "bad.json", SE_JSON.encode(),
            ["convert", "--from", "spark-expectations", "{f}", "out.yaml"],
        ),
        "convert --from sodacl": ("bad.yaml", SODA_YAML.encode(),
                                  ["convert", "--from", "sodacl", "{f}", "out.yaml"]),
        "convert --from soda-contract": (
            "bad.yaml", SODA_CONTRACT_YAML.encode(),
            ["convert", "--from", "soda-contract", "{f}", "out.yaml"],
        ),
        "convert --from gx": ("bad.json", GX_JSON.encode(),
                              ["convert", "--from", "gx", "{f}", "out.yaml"]),
        "convert --from odcs": ("bad.yaml", ODCS_YAML.encode(),
                                ["convert", "--from", "odcs", "{f}", "out.yaml"]),
        "convert --to odcs": ("bad.yaml", RULES_YAML.encode(),
                              ["convert", "{f}", "out.yaml", "--to", "odcs"]),
        "job": ("bad.yaml", JOB_YAML.encode(), ["job", "{f}"]),
        "run's ruleset": ("bad.yaml", RULES_YAML.encode(),
                          ["run", "{f}", "--input", "in.parquet", "--valid", "out/valid"]),
    }  # fmt: skip


class SparkAsked(BaseException):
    """A command asked for Spark: its file was read and found good (this tier has no JVM)."""


def _no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    import quality_py.jobs.prepare as prepare

    def asked(*args: object, **kwargs: object) -> None:
        raise SparkAsked

    monkeypatch.setattr(prepare, "job_session", asked)


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command that would start Spark stops there (its file was good)."""
    _no_spark(monkeypatch)


def _run(argv: list[str]) -> tuple[int, str]:
    """The exit code and what was said; 0 when the command got as far as asking for Spark."""
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        except SparkAsked:
            code = 0
    return code, err.getvalue() + out.getvalue()


def _one_paragraph(code: int, err: str, what: str) -> None:
    """Exit 2 with one ``error:`` paragraph, or 1 with the findings (validate's report)."""
    assert code in (1, 2), f"{what}: exit {code}\n{err}"
    assert "Traceback" not in err and "internal error" not in err, f"{what}:\n{err}"
    said = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("[")]
    assert said, f"{what}: nothing said"
    if code == 2:  # a refusal: one "error:" paragraph (a broken table lists its rows under it)
        assert sum(ln.startswith("error:") for ln in said) == 1, f"{what}:\n{err}"


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_every_file_option_refuses_a_bad_file_in_one_paragraph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_spark: None, corruption: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for what, (name, good, argv) in _commands(tmp_path).items():
        (tmp_path / "rules.csv").write_text(RULES_CSV)
        (tmp_path / name).write_bytes(CORRUPTIONS[corruption](good))
        code, err = _run([a.replace("{f}", name) for a in argv])
        if code == 0:  # some damage leaves a file that still reads (a cell grew, a NUL)
            continue
        _one_paragraph(code, err, f"{what} / {corruption}")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_damage_to_any_file_is_refused_in_one_paragraph(data: st.DataObject) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as monkeypatch:
        tmp = Path(folder)
        monkeypatch.chdir(tmp)
        _no_spark(monkeypatch)
        commands = _commands(tmp)
        what = data.draw(st.sampled_from(sorted(commands)))
        name, good, argv = commands[what]
        damaged = bytearray(good)
        for _ in range(data.draw(st.integers(1, 8))):
            at = data.draw(st.integers(0, max(0, len(damaged) - 1)))
            damaged[at : at + 1] = data.draw(st.binary(min_size=0, max_size=4))
        (tmp / "rules.csv").write_text(RULES_CSV)
        (tmp / name).write_bytes(bytes(damaged))
        code, err = _run([a.replace("{f}", name) for a in argv])
        if code != 0:
            _one_paragraph(code, err, f"{what} / {bytes(damaged)[:80]!r}")


# -- one reader of outside files --------------------------------------------------------------

#: Modules that read files which are ours, not from outside (each with its reason)
OWN_FILES = {
    "storage.py": "the history's and states' own files, written by us",
    "outputs/publish.py": "the publication's journal and lock, written by us",
    "outputs/writing.py": "the schema file kept beside an output, written by us",
    "report/layout.py": "the site's CSS and JS shipped in the package",
    "cli/rules.py": "the JSON Schema shipped in the package",
    "actions/notify.py": "appends events to a JSON-lines file (a write)",
    "cli/convert.py": "writes the converted tables (a write)",
    "spark/session.py": "the JVM's console log (a write)",
    "io/imports/spark_expectations.py": "parses text already read by gate/files.py",
}


def _file_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """Calls that read a file: ``open``, ``.open``, ``.read_text``, ``.read_bytes``, parquet's
    ``read_table`` / ``read_schema``, and the ``csv`` readers."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id == "open":
            out.append((node.lineno, "open"))
        elif isinstance(fn, ast.Attribute):
            owner = fn.value.id if isinstance(fn.value, ast.Name) else ""
            if fn.attr in ("open", "read_text", "read_bytes") and owner not in ("files", "os"):
                out.append((node.lineno, fn.attr))
            elif fn.attr in ("read_table", "read_schema") and owner in ("pq", "parquet"):
                out.append((node.lineno, f"{owner}.{fn.attr}"))
            elif fn.attr in ("reader", "DictReader") and owner == "csv":
                out.append((node.lineno, f"csv.{fn.attr}"))
    return out


def test_outside_files_are_read_in_one_place() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "gate/files.py" or rel in OWN_FILES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{rel}:{line} {name}" for line, name in _file_reads(tree)]
    assert found == [], "read outside files through quality_py.gate.files: " + ", ".join(found)


def test_every_module_allowed_its_own_reads_still_has_one() -> None:
    for rel in OWN_FILES:
        tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
        assert _file_reads(tree), f"{rel} reads no file now: remove it from OWN_FILES"
