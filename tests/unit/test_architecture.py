"""The package's layering, checked on the source: who may speak sqlglot, who may import whom."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "quality_py"

#: Only the compiler speaks sqlglot, plus the compile-side modules that build syntax trees from
#: compiled rules: the runners (their struct SQL), prepare (rewrites rule text for a schema) and
#: functions.py (library functions as Columns).
SQLGLOT_ALLOWED = ("sql/", "runners/", "prepare/", "functions.py")

#: Each top-level unit and the units it may import (docs/architecture.md, the picture).
LAYERS = {
    "errors": {"model"},  # type-only: Id in annotations
    "version": set(),
    "model": {"errors"},
    "sql": {"errors", "model"},
    "prepare": {"errors", "model", "sql"},
    "functions": {"errors", "model", "sql", "runners"},
    "runners": {"errors", "model", "sql", "prepare"},
    "storage": {"errors"},
    "history": {"errors", "model", "storage"},
    "dataset": {"errors", "model", "sql", "storage", "history"},
    "profile": {"errors", "model", "sql", "dataset"},
    "report": {"errors", "model", "history"},
    "progress": set(),
    "validation": {"errors", "model", "sql", "prepare", "runners", "dataset"},
    "docgen": {"errors", "model", "sql", "validation"},
    "io": {"errors", "model", "sql", "dataset", "history", "actions"},
    "actions": {"errors", "model", "sql", "runners", "dataset", "validation", "history"},
    "spark": {"errors", "model", "sql"},
    "cli": {
        "errors",
        "model",
        "sql",
        "runners",
        "dataset",
        "validation",
        "docgen",
        "io",
        "actions",
        "spark",
        "types",
        "prepare",
        "history",
        "profile",
        "report",
        "progress",
        "cli_tables",
        "cli_over_time",
    },
    "__main__": {"cli"},
}


# the command line's other modules take the same place as cli
LAYERS["cli_tables"] = LAYERS["cli_over_time"] = LAYERS["cli"] | {"cli"}


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
    "actions/run.py": "names for DataFrame.select (a Column name, never parsed as SQL)",
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
