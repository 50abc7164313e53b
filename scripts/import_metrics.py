"""Measure the package structure: top-level units, import arrows between them, wrong-way
arrows, and for each main entry point the cross-unit import edges a reader follows from it.

    python scripts/import_metrics.py [package_dir]
    python scripts/import_metrics.py --trace   # also walk the CLI's run on the flights sample

An *arrow* is an ordered pair of top-level units with at least one import between them
(imports inside functions count: a reader follows them too). A *move* on a path is an import
edge between two modules of different units, reachable from the entry point's module; a move
*up* goes to a unit that is not below the importing unit in the layer order of
scripts/layering.py.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from layering import LAYERS, level

#: Low to high: a unit may import those before it (by the layers of scripts/layering.py).
ORDER = [*sorted((u for u in LAYERS if u != "__main__"), key=level), "__main__", "__init__"]
#: Units of the tree before the restructure, ranked as the layer their code moved to.
OLD = {
    "policy": "model",
    "compile": "sql",
    "summary": "runners",
    "tables": "io",
    "docs": "docgen",
    "session": "spark",
    "samples": "spark",
}
ENTRIES = {
    "add_data_quality": "runners.data_quality",
    "rule_folder_with_struct": "runners.rule_folder",
    "validate": "validation",
    "run_quality": "actions.run",
    "CLI run": "cli.run",
}


def modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).with_suffix("").as_posix().replace("/", ".")
        out[rel.removesuffix(".__init__") if rel != "__init__" else "__init__"] = path
    return out


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("quality_py")
        ):
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("quality_py")]
        for name in names:
            rel = name.removeprefix("quality_py").lstrip(".") or "__init__"
            if rel in known:
                found.add(rel)
    return found


def unit(module: str) -> str:
    return module.split(".")[0]


def main(root: Path) -> None:
    known = modules(root)
    graph = {m: imports(p, known) for m, p in known.items()}
    arrows = {(unit(a), unit(b)) for a, bs in graph.items() for b in bs if unit(a) != unit(b)}
    rank = {u: i for i, u in enumerate(ORDER)}
    rank.update({old: rank[new] for old, new in OLD.items()})
    wrong = sorted(
        (a, b) for a, b in arrows if a != "__init__" and rank.get(b, 99) >= rank.get(a, 99)
    )
    units = {unit(m) for m in known}
    print(f"units {len(units)}, arrows {len(arrows)}, wrong-way {len(wrong)}: {wrong}")
    for label, start in ENTRIES.items():
        if start not in known:
            print(f"  {label}: entry module {start} not found")
            continue
        seen, todo, moves, up = {start}, [start], set(), set()
        while todo:
            m = todo.pop()
            for n in graph[m]:
                if unit(n) != unit(m):
                    moves.add((m, n))
                    if rank.get(unit(n), 99) >= rank.get(unit(m), 99):
                        up.add((m, n))
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        pairs = {(unit(a), unit(b)) for a, b in moves}
        up_pairs = {(unit(a), unit(b)) for a, b in up}
        print(
            f"  {label}: {len(pairs)} unit-to-unit steps ({len(moves)} module edges), "
            f"{len(up_pairs)} up or sideways ({len(up)} module edges)"
        )


def runtime_imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Our modules ``path`` imports when it is imported: top-level imports, not those inside
    functions or under ``if TYPE_CHECKING``."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        for sub in node.body if isinstance(node, ast.Try) else [node]:
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                found |= imports_of(sub, known)
    return found


def imports_of(node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> set[str]:
    names: list[str] = []
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("quality_py"):
        names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    elif isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name.startswith("quality_py")]
    rels = (n.removeprefix("quality_py").lstrip(".") or "__init__" for n in names)
    return {r for r in rels if r in known}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles among modules: strongly connected groups of two or more (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in graph.get(m, ()):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            group = []
            while True:
                n = stack.pop()
                group.append(n)
                if n == m:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return out


def code_metrics(root: Path) -> None:
    """Circles, private names imported across units, bare ``Any`` in public signatures, the
    longest function and the most parameters."""
    known = modules(root)
    runtime = {m: runtime_imports(p, known) - _parents(m) for m, p in known.items()}
    private, anys, longest, most = 0, 0, ("", 0), ("", 0)
    for m, path in known.items():
        tree = ast.parse(path.read_text())
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("quality_py."):
                other = unit(node.module.removeprefix("quality_py."))  # type: ignore[union-attr]
                private += other != unit(m) and sum(
                    a.name.startswith("_") and not a.name.startswith("__") for a in node.names
                )
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                params = [*a.posonlyargs, *a.args, *a.kwonlyargs]
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                longest = max(longest, (f"{rel}:{node.name}", lines), key=lambda x: x[1])
                most = max(most, (f"{rel}:{node.name}", len(params)), key=lambda x: x[1])
                public = not node.name.startswith("_") and "/_" not in f"/{rel}"
                anys += public and sum(
                    isinstance(p.annotation, ast.Name) and p.annotation.id == "Any" for p in params
                )
    found = circles(runtime)
    print(f"circles (module-level imports) {len(found)}: {found}")
    every = {m: imports(p, known) - _parents(m) - {m} for m, p in known.items()}
    print(f"circles (every import: inside functions, for types) {len(circles(every))}: "
          f"{circles(every)}")  # fmt: skip
    for module in ("actions.run", "cli.run", "cli.common", "jobs.prepare"):
        if module in known:
            lines = len(known[module].read_text().splitlines())
            print(f"  {module}: {lines} lines, {len(every[module])} of our modules imported")
    print(f"private names imported across units {private}; bare-Any public parameters {anys}")
    print(
        f"longest function {longest[0]} ({longest[1]} lines); most parameters {most[0]} ({most[1]})"
    )


def _parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def trace_cli_run(root: Path) -> None:
    """Walk the data's trip through ``run`` (the flights sample, one month, valid and quarantine
    written) and count, among calls from one of our files into another: the distinct moves
    (caller file, callee file), the climbs among them (to a unit of the same or a higher layer
    than the caller's), the files entered, and how often each cli/ module is entered from
    another file."""
    import tempfile

    sys.path.insert(0, str(root.resolve().parent))
    from quality_py.cli import main as cli_main

    base = str(root.resolve()) + "/"
    rank = {u: i for i, u in enumerate(ORDER)}
    moves: set[tuple[str, str]] = set()
    entered: dict[str, int] = {}

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        if event != "call":
            return
        callee = frame.f_code.co_filename
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if callee.startswith(base) and caller.startswith(base) and callee != caller:
            a, b = caller[len(base) :], callee[len(base) :]
            moves.add((a, b))
            if b.startswith("cli/"):
                entered[b] = entered.get(b, 0) + 1

    out = tempfile.mkdtemp()
    argv = ["run", "rulesets/flights.yaml", "--input", "sample:flights", "--where", "month = 1",
            "--valid", f"{out}/valid", "--quarantine", f"{out}/quarantine"]  # fmt: skip
    sys.setprofile(profile)
    try:
        code = cli_main(argv)
    finally:
        sys.setprofile(None)

    def unit_of(file: str) -> str:
        first = file.split("/")[0]
        return first.removesuffix(".py")

    climbs = {(a, b) for a, b in moves if rank.get(unit_of(b), 99) >= rank.get(unit_of(a), 99)
              and unit_of(a) != unit_of(b)}  # fmt: skip
    files = {f for pair in moves for f in pair}
    units = {(unit_of(a), unit_of(b)) for a, b in moves if unit_of(a) != unit_of(b)}
    from_cli = {(a, b) for a, b in moves if a.startswith("cli/") and not b.startswith("cli/")}
    print(
        f"CLI run route (exit {code}): {len(moves)} moves between {len(files)} files, "
        f"{len(units)} between units, {len(climbs)} climbs; cli/ entered from another file: "
        f"{dict(sorted(entered.items()))}; the command line's own calls out of cli/: "
        f"{len(from_cli)} moves into {len({unit_of(b) for _, b in from_cli})} units"
    )


def _arguments(argv: list[str]) -> tuple[Path, bool]:
    """``[package_dir] [--trace]``; anything else (a mistyped option, a folder that is not a
    package) is refused with the usage, exit 2: a metrics script that measured nothing would
    print zeros."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="scripts/import_metrics.py",
        description="Measure the package structure (units, import arrows, moves from entries).",
    )
    parser.add_argument("package_dir", nargs="?", default="quality_py", type=Path)
    parser.add_argument("--trace", action="store_true", help="also walk the CLI's flights run")
    args = parser.parse_args(argv)
    if not (args.package_dir / "__init__.py").is_file():
        parser.error(f"{args.package_dir} is not a Python package (it has no __init__.py)")
    return args.package_dir, args.trace


if __name__ == "__main__":
    root, trace = _arguments(sys.argv[1:])
    main(root)
    code_metrics(root)
    if trace:
        trace_cli_run(root)
