"""Reader for golden fixture files: ``# title:`` headers and ``input;`` / ``expected;`` pairs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@dataclass(frozen=True)
class Case:
    title: str
    input: str
    expected: str


def read_cases(name: str) -> tuple[list[Case], list[tuple[str, str]]]:
    """Cases and ``# lambda: name = text`` declarations of a fixture file."""
    cases, lambdas, _ = read_fixture(name)
    return cases, lambdas


def read_fixture(name: str) -> tuple[list[Case], list[tuple[str, str]], dict[str, str]]:
    """Cases, ``# lambda: name = text`` and ``# shape: name = ddl`` declarations (a shape
    also gives the type of the column ``name`` to functions that need the data's types)."""
    cases: list[Case] = []
    lambdas: list[tuple[str, str]] = []
    shapes: dict[str, str] = {}
    title = ""
    statements: list[str] = []
    buffer: list[str] = []
    for line in (FIXTURES / name).read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("# lambda:"):
            lam_name, _, text = stripped[len("# lambda:") :].partition("=")
            lambdas.append((lam_name.strip(), text.strip()))
            continue
        if stripped.startswith("# shape:"):
            shape_name, _, ddl = stripped[len("# shape:") :].partition("=")
            shapes[shape_name.strip().lower()] = ddl.strip()
            continue
        if stripped.startswith("# title:"):
            title = stripped[len("# title:") :].strip()
            continue
        if not stripped or stripped.startswith("#"):
            continue
        buffer.append(stripped)
        if stripped.endswith(";"):
            statements.append(" ".join(buffer)[:-1])
            buffer = []
            if len(statements) == 2:
                cases.append(Case(title, *statements))
                statements = []
    assert not buffer and not statements, f"unterminated case in {name}"
    return cases, lambdas, shapes


def read_types(name: str) -> dict[str, str]:
    """``# type: sql = ddl`` declarations: Spark's type of a column, for functions that need
    the data's types (digests, ids)."""
    types = {}
    for line in (FIXTURES / name).read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("# type:"):
            sql, _, ddl = stripped[len("# type:") :].partition("=")
            types[sql.strip().lower()] = ddl.strip()
    return types
