"""The package's layering, checked on the source: who may speak sqlglot, who may import whom."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE = Path(__file__).parents[2] / "quality_py"

#: Only the compiler speaks sqlglot, plus the compile-side modules that build syntax trees from
#: compiled rules: the runners (their struct SQL), prepare (rewrites rule text for a schema) and
#: functions.py (library functions as Columns).
SQLGLOT_ALLOWED = ("sql/", "runners/", "prepare/", "functions.py")


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROOT = PACKAGE.parent
LAYERING = _script("layering")
#: scripts/import_metrics.py: its Tarjan ``circles`` finds the import circles the tests count.
IMPORT_METRICS = _script("import_metrics")
#: Each top-level unit and the units it may import: scripts/layering.py, the one statement.
LAYERS: dict[str, set[str]] = LAYERING.LAYERS


def test_the_docs_picture_is_the_layering() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert LAYERING.picture() in text


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        unit = rel.split("/")[0].removesuffix(".py")
        out.append((unit, path))
    return out


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_only_the_compiler_side_imports_sqlglot() -> None:
    offenders = []
    for _, path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(SQLGLOT_ALLOWED):
            continue
        if any(m == "sqlglot" or m.startswith("sqlglot.") for m in _imports(path)):
            offenders.append(rel)
    assert offenders == []


def test_every_import_between_units_goes_downhill() -> None:
    wrong = []
    for unit, path in _modules():
        if unit == "__init__":
            continue  # the public face imports everything
        for module in _imports(path):
            parts = module.split(".")
            if parts[0] != "quality_py" or len(parts) < 2:
                continue
            target = parts[1]
            if target != unit and target not in LAYERS[unit]:
                wrong.append(f"{path.relative_to(PACKAGE)} -> {module}")
    assert wrong == []


def test_modules_stay_small() -> None:
    big = [
        (path.relative_to(PACKAGE).as_posix(), n)
        for _, path in _modules()
        if (n := len(path.read_text().splitlines())) > 600
    ]
    assert big == []


def test_library_families_import_only_the_registry() -> None:
    """sql/library/: each family imports the registry, never the package or another family
    (the package imports every family by name: no import loop, no shared private helper)."""
    library = PACKAGE / "sql" / "library"
    families = {p.stem for p in library.glob("*.py") if "@register(" in p.read_text()}
    wrong = []
    for path in sorted(library.glob("*.py")):
        if path.stem not in families:
            continue
        for module in _imports(path):
            if module == "quality_py.sql.library" or (
                module.startswith("quality_py.sql.library.")
                and module.rsplit(".", 1)[1] in families
            ):
                wrong.append(f"{path.name} -> {module}")
    assert wrong == []
    registry_imports = _imports(library / "registry.py")
    assert not any(m.startswith("quality_py.sql.library") for m in registry_imports)


#: Modules that back-quote names themselves, and why that text never reaches Spark's SQL parser.
OWN_QUOTING = {
    "actions/plan.py": "names for DataFrame.select (a Column name, never parsed as SQL)",
    "runners/staging.py": "names for F.col and type strings parsed by sqlglot, not Spark",
    "profile/suggest.py": "rule text of a suggested ruleset, compiled under the policy when read",
}


def test_sql_text_names_are_generated_where_substitution_is_refused() -> None:
    """SQL text handed to Spark names columns through ``sql.snippets.quoted`` / ``to_sql``,
    which refuse a name holding ``${`` (Spark would substitute a secret there); a module that
    quotes names itself must say why its text never reaches Spark's SQL parser."""
    found = {
        path.relative_to(PACKAGE).as_posix()
        for _, path in _modules()
        if 'replace("`", "``")' in path.read_text() and "/sql/" not in path.as_posix()
    }
    assert found == set(OWN_QUOTING)


# --- habits that slid while nothing guarded them (issue 25) -----------------------------------
# Each rule holds for all new code; the lists are the places that predate the rule, each with
# its ceiling: they may shrink (and must then be shrunk here), never grow.

#: Private names imported across top-level units (none since the cli/ package).
PRIVATE_IMPORTS_ALLOWED: set[str] = set()
#: Functions longer than 80 lines, with their length now (none since issue 25 split the last).
LONG_FUNCTIONS: dict[tuple[str, str], int] = {}
#: Functions with more than 10 parameters, with their count now.
MANY_PARAMETERS: dict[tuple[str, str], int] = {}
#: Parameters of public functions annotated with a bare ``Any``, each deliberate, with why. A new
#: one fails the test: name the type, or add it here with its reason.
BARE_ANY_ALLOWED: dict[tuple[str, str, str], str] = {
    # history sits below actions: it reads a RunSummary's fields without naming its class
    ("history/recording.py", "summary_record", "summary"): "RunSummary lives above history",
    ("history/recording.py", "judge_summary", "summary"): "RunSummary lives above history",
    ("history/recording.py", "with_anomalies", "summary"): "RunSummary lives above history",
    ("history/records.py", "run_metrics", "summary"): "RunSummary lives above history",
    ("history/recording.py", "verification_record", "result"): "dataset lives above history",
    ("docgen/checks.py", "doc_checks", "error_rates"): "ErrorRates lives in actions, above docgen",
    # values of many types by design
    ("dataset/analyzers.py", "metric", "state"): "any analyzer's state",
    ("dataset/checks.py", "assess", "metrics"): "metrics keyed by any analyzer",
    ("dataset/checks.py", "seen", "metric"): "a metric's value: number, map or sketch",
    ("dataset/checks.py", "evaluate", "metric"): "a metric's value: number, map or sketch",
    ("dataset/observe.py", "assess_from", "values"): "observed values of every analyzer",
    ("dataset/store.py", "stored_name", "obj"): "any analyzer or state",
    ("profile/suggest.py", "apply", "check"): "a Check or a SQL check being built",
    ("model/yaml_text.py", "dump_yaml", "doc"): "any YAML document",
    ("model/layout.py", "layout_of_field", "field"): "a StructField of classic or Connect",
    ("validation/static_checks.py", "walk", "dtype"): "a DataType of classic or Connect",
    ("runners/staging.py", "type_string", "kind"): "a DataType or a DDL string",
    ("runners/arrow_functions.py", "batch", "data"): "an Arrow array or a pandas series",
    # progress imports nothing of ours (it is below model) and Spark only when it runs
    ("progress.py", "stage_progress", "tracker"): "a status tracker of classic Spark",
    ("progress.py", "watching", "spark"): "progress may not import model.types",
    ("progress.py", "describing", "spark"): "progress may not import model.types",
    ("progress.py", "on", "spark"): "progress may not import model.types",
}


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []
    for _, path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((rel, node))
    return out


def test_no_private_name_is_imported_across_units() -> None:
    found = set()
    for unit, path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.module):
                continue
            parts = node.module.split(".")
            if parts[0] != "quality_py" or len(parts) < 2 or parts[1] == unit:
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private:
                    found.add(f"{rel}: {node.module}.{alias.name}")
    assert found <= PRIVATE_IMPORTS_ALLOWED, sorted(found - PRIVATE_IMPORTS_ALLOWED)


def test_functions_stay_short_and_take_few_parameters() -> None:
    long, many = [], []
    lengths: dict[tuple[str, str], int] = {}
    for rel, fn in _functions():
        lines = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        lengths[(rel, fn.name)] = lines
        if lines > LONG_FUNCTIONS.get((rel, fn.name), 80):
            long.append(f"{rel}:{fn.name} ({lines} lines)")
        args = fn.args
        names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
        count = len(names) - (names[:1] in (["self"], ["cls"])) + bool(args.vararg)
        count += bool(args.kwarg)
        if count > MANY_PARAMETERS.get((rel, fn.name), 10):
            many.append(f"{rel}:{fn.name} ({count} parameters)")
    assert long == [] and many == [], (long, many)
    # a listed function that shrank is listed at its new length (or leaves the list)
    stale = {k: v for k, v in LONG_FUNCTIONS.items() if lengths.get(k) != v}
    assert stale == {}, f"update LONG_FUNCTIONS: now { ({k: lengths.get(k) for k in stale}) }"


def test_bare_any_only_where_deliberate() -> None:
    found = set()
    for rel, fn in _functions():
        public = not fn.name.startswith("_") and not any(p.startswith("_") for p in rel.split("/"))
        if public:
            args = fn.args
            found |= {
                (rel, fn.name, a.arg)
                for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                if isinstance(a.annotation, ast.Name) and a.annotation.id == "Any"
            }
    assert sorted(found - set(BARE_ANY_ALLOWED)) == [], "name the type, or allow it with a reason"
    assert sorted(set(BARE_ANY_ALLOWED) - found) == [], "typed now: remove from BARE_ANY_ALLOWED"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("").as_posix().replace("/", ".")
    return "" if rel == "__init__" else rel.removesuffix(".__init__")


def _imported(node: ast.Import | ast.ImportFrom, module: str, package: bool) -> set[str]:
    """The names ``node`` imports, absolute (``quality_py.x.y`` and ``quality_py.x.y.name``)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    base = node.module or ""
    if node.level:
        parts = ["quality_py", *filter(None, module.split("."))]
        parts = parts if package else parts[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, *filter(None, [node.module])])
    return {base} | {f"{base}.{a.name}" for a in node.names}


def _import_graphs() -> tuple[dict[str, set[str]], dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module-level imports (our modules, and the outside packages), and our modules imported
    inside functions (importer, imported, line). Imports under ``if TYPE_CHECKING`` do not run."""
    paths = {_module_name(p): p for _, p in _modules()}
    ours: dict[str, set[str]] = {}
    outside: dict[str, set[str]] = {}
    inner = []

    def own(names: set[str]) -> set[str]:
        rels = {
            n.removeprefix("quality_py").lstrip(".") for n in names if n.startswith("quality_py")
        }
        return {r for r in rels if r in paths}

    for module, path in paths.items():
        tree = ast.parse(path.read_text())
        package = path.name == "__init__.py"
        parents = {".".join(module.split(".")[:i]) for i in range(len(module.split(".")))}
        ours[module], outside[module] = set(parents - {module}), set()
        for node in tree.body:
            for sub in node.body if isinstance(node, ast.Try) else [node]:
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    names = _imported(sub, module, package)
                    ours[module] |= own(names)
                    outside[module] |= {
                        n.split(".")[0] for n in names if not n.startswith("quality_py")
                    }
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(fn):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        for target in own(_imported(sub, module, package)):
                            inner.append((module, target, sub.lineno))
    return ours, outside, inner


def test_imports_inside_functions_break_a_cycle_or_defer_pyspark() -> None:
    """An import of our own module inside a function is there for a reason the code shows:
    importing it at the top would close a cycle (the module imported reaches the importer), or
    would import pyspark (the package imports without it). Anything else belongs at the top."""
    ours, outside, inner = _import_graphs()

    def reach(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in ours.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    needless = []
    for importer, imported, line in inner:
        reached = reach(imported)
        cycle = importer in reached
        defers = any("pyspark" in outside.get(m, ()) for m in reached)
        if not (cycle or defers):
            needless.append(f"{importer}:{line} imports {imported}")
    assert needless == [], needless


def test_the_command_modules_share_only_common() -> None:
    """cli/: each command module imports ``cli.common`` (public names) and no other command
    module; only the parser and the package's entry point gather the commands."""
    cli = PACKAGE / "cli"
    commands = {p.stem for p in cli.glob("*.py")} - {"__init__", "common", "parser"}
    wrong = []
    for path in sorted(cli.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module):
                continue
            if not node.module.startswith("quality_py.cli"):
                continue
            target = node.module.rsplit(".", 1)[-1]
            if any(a.name.startswith("_") for a in node.names):
                wrong.append(f"{path.name} imports a private name of {node.module}")
            if path.stem in commands and target != "common":
                wrong.append(f"{path.name} -> {node.module}")
    assert wrong == []


# --- the boundary (issue 38) ------------------------------------------------------------------
#: The one module that reads data by name: every other reader goes through it.
DATA_GATE = "gate/reads.py"


def _data_reads(tree: ast.AST) -> list[int]:
    """Lines calling ``<x>.table(...)`` or using ``<x>.read.<y>`` / ``<x>.readStream`` (Spark's
    readers by name); a file's ``.read()`` is a call, not an attribute chain, and is not one."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            gate = isinstance(node.func.value, ast.Name) and node.func.value.id == "reads"
            if node.func.attr == "table" and not gate:
                lines.append(node.lineno)
        if isinstance(node, ast.Attribute):
            inner = node.value
            if isinstance(inner, ast.Attribute) and inner.attr == "read":
                lines.append(node.lineno)
            if node.attr == "readStream":
                lines.append(node.lineno)
    return lines


def test_data_is_read_by_name_only_through_the_gate() -> None:
    """``spark.table`` / ``spark.read`` only in ``gate/reads.py``: a reader elsewhere could read
    a name a ruleset wrote without asking the policy (a check probing a table no policy lists)."""
    found = {
        f"{path.relative_to(PACKAGE).as_posix()}:{line}"
        for _, path in _modules()
        if path.relative_to(PACKAGE).as_posix() != DATA_GATE
        for line in _data_reads(ast.parse(path.read_text()))
    }
    assert not found, f"read data through quality_py.gate.reads: {sorted(found)}"
    gate = ast.parse((PACKAGE / DATA_GATE).read_text())
    assert _data_reads(gate), "the gate itself reads (else this test checks nothing)"


# --- a run is a value (issue 39) --------------------------------------------------------------
#: Import circles among modules counting every import (inside functions, under TYPE_CHECKING),
#: each with why it stays. The list may only shrink: a new circle fails, and a circle that is
#: gone must be removed here.
CIRCLES_ALLOWED: dict[frozenset[str], str] = {
    frozenset({"errors", "model.ids"}): "type-only: an error names the Id of its rule",
    frozenset({"dataset.checks", "dataset.constraints", "dataset.time_constraints"}): (
        "type-only: a constraint builder (the time ones too) returns the Check it extends"
    ),
}


def _every_import_graph() -> dict[str, set[str]]:
    """Our modules and every module of ours each imports, wherever the import stands."""
    paths = {_module_name(p): p for _, p in _modules()}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = path.name == "__init__.py"
        parents = {".".join(module.split(".")[:i]) for i in range(len(module.split(".")))}
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = _imported(node, module, package)
                rels = {n.removeprefix("quality_py").lstrip(".") for n in names}
                found |= {r for r in rels if r in paths and r.startswith("quality_py") is False}
        graph[module] = found - parents - {module}
    return graph


def test_import_circles_counting_every_import_are_listed() -> None:
    """No new circle of imports, even one an import inside a function or for types only hides
    (it is still a loop a reader follows); the listed ones may only go."""
    found = {frozenset(group) for group in IMPORT_METRICS.circles(_every_import_graph())}
    assert sorted(map(sorted, found - set(CIRCLES_ALLOWED))) == [], "a new import circle"
    assert sorted(map(sorted, set(CIRCLES_ALLOWED) - found)) == [], "gone: remove it from the list"


#: What preparing a run means, kept out of the command line: it builds a QualityJob and calls it.
RUN_PREPARATION = {
    "quality_py.gate.reads": "reading data by name",
    "quality_py.io.ruleset_file.load_ruleset_file": "reading a ruleset",
    "quality_py.io.views": "reading reference data",
    "quality_py.io.blooms": "reading blooms",
    "quality_py.jobs.inputs.read_input": "reading the input",
    "quality_py.actions.run": "planning a quality run",
    "quality_py.actions.run.run_quality": "planning a quality run",
    "quality_py.sql.compiler": "compiling rules",
    "quality_py.model.policy": "choosing the rule policy",
    "quality_py.spark.session.job_session": "starting Spark",
    "quality_py.jobs.reference": "registering reference data",
}


def test_the_command_line_prepares_runs_only_through_the_job() -> None:
    """cli/ parses, builds a QualityJob, calls it and prints: a notebook or an orchestrator that
    builds the same job runs exactly what the command runs."""
    wrong = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _imported(node, module, False):
                    if name in RUN_PREPARATION:
                        wrong.append(f"cli/{path.name}: {name} ({RUN_PREPARATION[name]})")
    assert wrong == []


#: The one module that decides where a path lives (a local disk, a Databricks mount, a URI).
WHERE_PATHS_LIVE = "gate/locations.py"


def _path_spellings(tree: ast.AST) -> list[int]:
    """Lines of string constants (not docstrings) that decide where a path lives by its
    spelling: ``"://"``, ``dbfs:``, ``/dbfs``, ``/Volumes``, ``/Workspace``, ``file:``."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    prefixes = ("dbfs:", "/dbfs", "/Volumes", "/Workspace", "file:")
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and (node.value == "://" or node.value.startswith(prefixes))
    ]


def test_where_a_path_lives_is_decided_in_one_place() -> None:
    """Four spellings once disagreed (``dbfs:/x`` remote to the publisher, a local folder named
    ``dbfs:`` to the history): only gate/locations.py reads a path's spelling."""
    found = [
        f"{path.relative_to(PACKAGE).as_posix()}:{line}"
        for _, path in _modules()
        if path.relative_to(PACKAGE).as_posix() != WHERE_PATHS_LIVE
        for line in _path_spellings(ast.parse(path.read_text()))
    ]
    assert found == [], "ask quality_py.gate.locations (local_path, mounted_path, has_scheme)"
    assert _path_spellings(ast.parse((PACKAGE / WHERE_PATHS_LIVE).read_text()))


#: What the room of what is allowed (sql/allowed) may import from the room that compiles: the
#: syntax it judges and the names of the library's functions.
ALLOWED_ROOM_READS = {"sql.dialect", "sql.parse", "sql.build", "sql.context", "sql.library",
                      "sql.library.registry", "sql.library.aggregates"}  # fmt: skip


def test_sql_has_two_rooms() -> None:
    """sql/allowed (what rule text may do) imports from the rest of sql only the syntax it
    judges; how text becomes Spark SQL (passes, the compiler, the struct) stays out of it."""
    graph = _every_import_graph()
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.startswith("sql.allowed")
        for target in targets
        if target.startswith("sql.")
        and not target.startswith("sql.allowed")
        and target not in ALLOWED_ROOM_READS
    )
    assert wrong == []


@pytest.mark.parametrize(("argv", "code"), [(["--hepl"], 2), (["docs"], 2), (["--help"], 0)])
def test_the_metrics_script_refuses_what_it_does_not_understand(argv: list[str], code: int) -> None:
    """A mistyped option or a folder that is no package exits with the usage, never with a
    measure of nothing (``--help`` read as the package folder printed zeros and exit 0)."""
    with pytest.raises(SystemExit) as done:
        IMPORT_METRICS._arguments(argv)
    assert done.value.code == code
    assert IMPORT_METRICS._arguments([]) == (Path("quality_py"), False)


def test_only_the_lineage_events_import_the_openlineage_client() -> None:
    """The OpenLineage client is an optional extra: one module imports it at its top
    (``lineage/events.py``, loaded only when a run emits), the setting's module inside the
    function that makes the client; a run without lineage never loads it (the Connect-only leg,
    which has no client, runs quality runs)."""
    found = []
    for _, path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "openlineage" or n.startswith("openlineage.") for n in names):
                found.append(rel)
    assert sorted(set(found)) == ["lineage/events.py", "lineage/openlineage.py"]
    events_users = []
    for _, path in _modules():
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text())
        for node in tree.body:  # a module-level import of the events module loads the client
            if isinstance(node, ast.ImportFrom) and node.module == "quality_py.lineage.events":
                events_users.append(rel)
    assert events_users == []


def test_compiles_ask_spark_for_types_only_through_the_recording_context() -> None:
    # A compiled suite is reused (an early compile, an earlier micro-batch) only where every
    # question its compile put to the type oracle gets the same answer: a question asked past
    # ``PassContext.kind`` would not be recorded, and a reuse could give another rule's SQL.
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "sql" / "context.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "type_of":
                inner = node.value
                if isinstance(inner, ast.Name) and inner.id.endswith("ctx"):
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, offenders
