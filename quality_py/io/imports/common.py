"""What the importers share: the result, names made valid, the document assembled."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from quality_py.errors import QualityError, RulesetFormatError
from quality_py.gate import files
from quality_py.gate.names import name_parts
from quality_py.io.ruleset_file import loads_ruleset_file
from quality_py.io.variables import escape_variables
from quality_py.io.yaml_checks import refuse_aliases
from quality_py.model.ids import NAME_PATTERN
from quality_py.model.yaml_text import dump_yaml

#: Marks a variable's name in a converted text until the document is written.
_VARIABLE = "QPVARIABLE9F2C"
#: a variable's place in a converted text, as :meth:`Draft.variable` marks it
VARIABLE_MARK = rf"{_VARIABLE}\w+{_VARIABLE}"
#: The formats ``convert --from`` reads.
FORMATS = ("dqx", "spark-expectations", "sodacl", "soda-contract", "gx", "odcs")


def _as_variables(text: str) -> str:
    """``text`` with each variable's mark written as the ruleset writes it, ``${name}``."""
    return re.sub(f"{_VARIABLE}(\\w+){_VARIABLE}", r"${\1}", text)


def variable_mark(name: str) -> str:
    """A ``${name}`` variable's place in a converted text (kept through the escaping of texts);
    :func:`assemble` finds every mark, so a reader without the draft at hand can write one.

    >>> variable_mark("low") == _VARIABLE + "low" + _VARIABLE
    True
    """
    return f"{_VARIABLE}{name}{_VARIABLE}"


@dataclass(frozen=True)
class Unmapped:
    """Something of the source that has no counterpart here, and why."""

    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text} ({self.reason})"


@dataclass
class Draft:
    """The ruleset being built: rules, dataset checks, SQL checks, error rates."""

    origin: str
    rules: list[dict[str, Any]] = field(default_factory=list)
    constraints: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    sql_checks: list[dict[str, Any]] = field(default_factory=list)
    error_rates: dict[int, float] = field(default_factory=dict)
    unmapped: list[Unmapped] = field(default_factory=list)
    inclusive_rates: bool = False
    variables: set[str] = field(default_factory=set)
    #: items kept as they were written (quality_py's own export, read back)
    kept: list[dict[str, Any]] = field(default_factory=list)
    _names: set[str] = field(default_factory=set)

    def name(self, wanted: str) -> str:
        """``wanted`` made a valid name (letters, digits, ``_.-``; 100 at most), unique."""
        base = re.sub(r"[^A-Za-z0-9_.\-]+", "_", wanted.strip()).strip("_.-")[:90] or "rule"
        if not NAME_PATTERN.fullmatch(base):
            base = f"r_{base}"[:90]
        name, n = base, 2
        while name in self._names:
            name, n = f"{base}_{n}", n + 1
        self._names.add(name)
        return name

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """An item's conversion, whole or not at all: when it raises (an ``Unmappable`` part
        found after other parts were kept), what it added is taken out again, so a listed item
        never leaves half of itself in the ruleset."""
        kept = (len(self.rules), len(self.constraints), len(self.sql_checks), len(self.kept),
                dict(self.error_rates))  # fmt: skip
        try:
            yield
        except Exception:
            del self.rules[kept[0] :], self.constraints[kept[1] :], self.sql_checks[kept[2] :]
            del self.kept[kept[3] :]
            self.error_rates = kept[4]
            raise

    def skip(self, line: int, text: object, reason: str) -> None:
        """Record what could not be mapped."""
        if isinstance(text, str):
            shown = text
        else:
            shown = yaml.safe_dump(text, default_flow_style=True, width=10_000)
        self.unmapped.append(Unmapped(line, _as_variables(shown).strip(), reason))

    def reference(self, name: object) -> str | None:
        """Why the table ``name`` a foreign file names cannot be a check's reference (None: it
        can). A run reads it only where the policy allows the view; a path or a quoted name
        (Spark would read a file) is never one."""
        try:
            name_parts(name, what="the reference")
        except QualityError as err:
            return err.message
        return None

    def variable(self, name: str) -> str:
        """A ``${name}`` variable in a converted text (kept through the escaping of texts)."""
        self.variables.add(name)
        return variable_mark(name)

    def check(self, level: str, constraint: str, args: dict[str, Any]) -> None:
        """A dataset constraint under an ``error`` or ``warning`` check."""
        self.constraints.append((level, {constraint: args}, constraint))


@dataclass(frozen=True)
class ImportResult:
    """Our ruleset text and what was left out."""

    text: str
    unmapped: tuple[Unmapped, ...]
    rules: int
    checks: int
    notes: tuple[str, ...] = ()

    def with_note(self, note: str) -> ImportResult:
        """The same result with ``note`` (which meaning was applied, ...) added."""
        return replace(self, notes=(*self.notes, note))

    def summary(self) -> str:
        """One line, then one line per item left out.

        >>> print(ImportResult("", (Unmapped(3, "x", "why"),), 2, 1, ("DQX 0.16",)).summary())
        mapped 2 rules and 1 dataset or SQL checks; 1 item(s) not mapped (DQX 0.16)
          line 3: x (why)
        """
        head = (
            f"mapped {self.rules} rules and {self.checks} dataset or SQL checks; "
            f"{len(self.unmapped)} item(s) not mapped"
        )
        if self.notes:
            head += f" ({'; '.join(self.notes)})"
        return "\n".join([head, *(f"  {u}" for u in self.unmapped)])


def assemble(draft: Draft, suite_name: str) -> ImportResult:
    """The ruleset document of ``draft``, checked by our own reader before it is returned."""
    doc: dict[str, Any] = {
        "suite": {"name": draft.name(suite_name), "version": 1},
        "rule_sets": [{"name": "imported", "version": 1, "rules": draft.rules}],
    }
    checks = []
    for level in ("error", "warning"):
        picked = [c for lv, c, _ in draft.constraints if lv == level]
        if picked:
            checks.append(
                {"level": level, "description": f"imported {level} checks", "constraints": picked}
            )
    if checks:
        doc["checks"] = checks
    if draft.sql_checks:
        doc["sql_checks"] = draft.sql_checks
    if draft.error_rates:
        doc["error_rates"] = {"rules": draft.error_rates}
        if draft.inclusive_rates:
            doc["error_rates"]["inclusive"] = True
    text = dump_yaml(escape_variables(doc))
    named = {*draft.variables, *re.findall(f"{_VARIABLE}(\\w+){_VARIABLE}", text)}
    text = _as_variables(text)
    _readable(text, draft.origin, dict.fromkeys(named, "0"))
    count = len(draft.constraints) + len(draft.sql_checks)
    return ImportResult(text, tuple(draft.unmapped), len(draft.rules), count)


def _readable(text: str, origin: str, variables: dict[str, str]) -> None:
    """Our reader takes the imported ruleset (else the importer has a bug: say so)."""
    try:
        loads_ruleset_file(text, f"{origin} (imported)", variables=variables)
    except RulesetFormatError as err:
        raise RulesetFormatError(
            f"the ruleset imported from {origin} does not read back: {err.message}",
            item_kind="ruleset",
        ) from None


#: Shape errors a reader meets on a value of the wrong kind (a list where a mapping belongs, ...).
SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError, StopIteration)


def malformed(origin: str, line: int, what: str, err: BaseException | str) -> RulesetFormatError:
    """One readable paragraph for a malformed item of a foreign file, with its file and line."""
    why = err if isinstance(err, str) else _plain(err)
    return RulesetFormatError(f"{origin}:{line}: {what} is malformed: {why}", item_kind="ruleset")


def _plain(err: BaseException) -> str:
    text = str(getattr(err, "message", err)).strip() or type(err).__name__
    if isinstance(err, KeyError):
        return f"it has no {text}"
    if isinstance(err, TypeError | AttributeError):
        return f"a value is not of the kind the format has there ({text})"
    return text


def each_item(
    draft: Draft,
    items: Iterable[tuple[int, object]],
    what: str,
    handle: Callable[[int, object], None],
) -> None:
    """``handle(line, item)`` for each ``(line, item)``: an item whose values are not of the
    kinds the tool's format has is one error naming the file and line, never a traceback
    (every reader walks its items through here)."""
    for line, item in items:
        try:
            handle(line, item)
        except SHAPE_ERRORS as err:
            raise malformed(draft.origin, line, what, err) from None


def mapping(value: object, origin: str, line: int, what: str) -> dict[str, Any]:
    """``value`` when it is a mapping (``{}`` for nothing), else a malformed-item error."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        shown = type(value).__name__
        raise malformed(
            origin, line, what, f"it must be a mapping of names to values, not a {shown}"
        )
    return value


def nodes_with_lines(text: str, origin: str) -> yaml.Node | None:
    """The YAML of another tool, composed (aliases refused), for line numbers."""
    refuse_aliases(text, origin)
    try:
        return yaml.compose(text, Loader=files.yaml_loader())
    except yaml.MarkedYAMLError as err:
        line = err.problem_mark.line + 1 if err.problem_mark else 0
        raise RulesetFormatError(f"{origin}:{line}: {err.problem}", item_kind="ruleset") from None


def value(node: yaml.Node | None) -> Any:
    """A composed node as plain Python values."""
    return files.yaml_loader()("").construct_document(node) if node is not None else None


def line_of(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
