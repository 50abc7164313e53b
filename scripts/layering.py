"""The layering of quality_py, stated once.

``LAYERS`` says which top-level units each unit may import. ``tests/unit/test_architecture.py``
checks every import against it, ``scripts/import_metrics.py`` ranks units by it, and the picture
in docs/architecture.md is :func:`picture` (a test compares them).

    python scripts/layering.py      # print the picture
"""

from __future__ import annotations

from functools import cache

#: Each top-level unit and the units it may import.
LAYERS: dict[str, set[str]] = {
    "errors": {"model"},  # type-only: Id in annotations (TYPE_ONLY)
    "version": set(),
    "progress": set(),
    "model": {"errors"},
    "sql": {"errors", "model"},
    "prepare": {"errors", "model", "sql"},
    "runners": {"errors", "model", "sql", "prepare"},
    "functions": {"errors", "model", "sql", "runners"},
    "storage": {"errors", "gate"},
    "gate": {"errors", "model"},
    "history": {"errors", "model", "storage", "gate"},
    "dataset": {"errors", "model", "sql", "storage", "history", "gate"},
    "profile": {"errors", "model", "sql", "dataset"},
    "report": {"errors", "model", "history"},
    "alerts": {"errors", "model", "gate", "history"},
    "lineage": {"errors", "model", "gate", "alerts", "version"},
    "outputs": {"errors", "model", "gate", "spark", "progress", "sql"},
    "validation": {"errors", "model", "sql", "prepare", "runners", "dataset", "gate"},
    "docgen": {"errors", "model", "sql", "validation", "report"},  # report: its page names
    "actions": {
        "errors", "model", "sql", "prepare", "runners", "dataset", "validation", "history",
        "spark", "progress", "gate", "alerts", "outputs", "lineage",
    },
    "io": {"errors", "model", "sql", "dataset", "history", "actions", "gate", "validation"},
    "jobs": {
        "errors", "model", "sql", "runners", "dataset", "history", "actions", "io", "gate",
        "spark", "progress", "version", "alerts", "outputs", "lineage",
    },
    "testing": {"errors", "model", "dataset", "actions", "io"},
    "spark": {"errors", "model", "sql", "gate"},
    "cli": {
        "errors", "model", "sql", "runners", "dataset", "validation", "docgen", "io", "actions",
        "spark", "prepare", "history", "profile", "report", "progress", "version", "testing",
        "gate", "jobs", "alerts", "outputs", "lineage",
    },
    "__main__": {"cli"},
}  # fmt: skip
#: Arrows that exist for annotations only (under ``TYPE_CHECKING`` or in quoted types): they do
#: not rank the units.
TYPE_ONLY = {("errors", "model")}


@cache
def level(unit: str) -> int:
    """The unit's layer: one above the highest unit it may import (0: it imports none).

    >>> level("model"), level("sql"), level("cli") > level("actions")
    (1, 2, True)
    """
    below = [u for u in LAYERS[unit] if (unit, u) not in TYPE_ONLY and u in LAYERS]
    return 1 + max((level(u) for u in below), default=-1)


def picture() -> str:
    """The layers, top first, each with its units in the order of ``LAYERS``."""
    by_level: dict[int, list[str]] = {}
    for unit in LAYERS:
        if unit != "__main__":
            by_level.setdefault(level(unit), []).append(unit)
    rows = [f"layer {n}   " + "    ".join(by_level[n]) for n in sorted(by_level, reverse=True)]
    return "\n".join(rows)


if __name__ == "__main__":
    print(picture())
