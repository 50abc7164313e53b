"""Measure the package structure: top-level units, import arrows between them, wrong-way
arrows, and for each main entry point the cross-unit import edges a reader follows from it.

    python scripts/import_metrics.py [package_dir]

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


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "quality_py"))
