"""The test matrix is declared by the tests (issue 54, point 1): every Spark test file says
whether its expected values depend on what Spark computes or refuses (``semantics``: every
Spark leg runs it) or test our wiring (``wiring``: the newest Spark alone); the older leg and
the Connect-only leg choose by those marks, never by a hand list of files."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = {"semantics", "wiring"}


def _marks(path: Path) -> set[str]:
    """The marks of a module's ``pytestmark = pytest.mark.X`` (or a list of them)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            values = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            found |= {v.attr for v in values if isinstance(v, ast.Attribute)}
    return found


def test_every_spark_file_is_semantics_or_wiring() -> None:
    unmarked = {}
    for path in sorted((ROOT / "tests" / "spark").glob("test_*.py")):
        kinds = _marks(path) & KINDS
        if len(kinds) != 1:
            unmarked[path.name] = sorted(kinds)
    assert unmarked == {}, (
        "mark each Spark test file with exactly one of pytestmark = pytest.mark.semantics "
        f"(expected values depend on Spark) or pytest.mark.wiring: {unmarked}"
    )


def test_the_legs_choose_by_the_marks_not_by_lists() -> None:
    older = (ROOT / "scripts" / "test-spark35.sh").read_text(encoding="utf-8")
    client = (ROOT / "scripts" / "test-client.sh").read_text(encoding="utf-8")
    whole = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    assert '-m "semantics and not long and not slow"' in older
    assert "--ignore" not in older and "--deselect" not in older
    assert '-m "packaging and not slow"' in client
    assert "not needs_spark" in whole and "not no_spark" in whole  # doctests by what they need


def test_packaging_files_are_the_ones_that_read_what_is_installed() -> None:
    """A unit file that looks at installed packages (``importlib.metadata``, a blocked
    ``pyspark`` import) is marked ``packaging``, so the Connect-only leg runs it."""
    missing = []
    for path in sorted((ROOT / "tests" / "unit").glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        text = path.read_text(encoding="utf-8")
        reads_packages = "importlib.metadata" in text or "sys.modules['pyspark'] = None" in text
        if reads_packages and "packaging" not in _marks(path):
            missing.append(path.name)
    assert missing == []


def test_every_jvm_the_tests_start_runs_the_quick_jit_tier() -> None:
    """Every place the tests start a JVM of their own (a session, a Connect server, a cluster's
    daemons and apps) passes ``tests/jvm.py``'s options (why: that module), or launches with a
    test cluster's environment (``cluster.env``: its ``spark-defaults.conf`` names them, so a
    submit command stays the documented one). A command line the tests start as a process of its
    own inherits them through ``SPARK_SUBMIT_OPTS``, which the root conftest sets for every JVM
    spark-submit starts (JIT settings change no result; a killed run or a metastore's start
    gains nothing from the optimizing tier)."""
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    assert 'os.environ["SPARK_SUBMIT_OPTS"]' in conftest and "QUICK_JVM" in conftest
    starts = ("local_session(", "spark-class", "start-connect-server", "spark-submit")
    slow = []
    for path in sorted([ROOT / "conftest.py", *(ROOT / "tests").rglob("*.py")]):
        if path.parent.name == "unit":
            continue  # the unit tier starts no JVM (its deployment recipes test reads text)
        text = path.read_text(encoding="utf-8")
        if any(s in text for s in starts) and not ("QUICK_JVM" in text or "**cluster.env" in text):
            slow.append(str(path.relative_to(ROOT)))
    assert slow == []


def test_no_test_asserts_on_wall_time() -> None:
    """Tests pass on a busy machine: work is bounded by count or bytes (``tracemalloc``), never
    by the seconds a test took (a loaded machine made a 2-second bound fail at 3.6 s). Where
    time is the subject (a delivery deadline, a pattern's running time), the bound is many times
    what it guards against and the assert says so with ``# time is the subject``."""
    import ast

    def reads_clock(node: ast.AST, timed_names: set[str]) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in timed_names:
                return True
            if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)):
                continue
            owner = sub.func.value
            clock = sub.func.attr in {"perf_counter", "monotonic", "time"}
            if clock and isinstance(owner, ast.Name) and owner.id == "time":
                return True
        return False

    timed = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text)
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and reads_clock(node.value, set()):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        asserts = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
        for node in asserts:
            marked = "# time is the subject" in lines[node.lineno - 1]
            if reads_clock(node.test, names) and not marked:
                timed.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert timed == []
