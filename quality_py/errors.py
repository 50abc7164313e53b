"""One error root for the library, with stable codes, the id of the offending item and a span.

Every error raised for bad input carries:

* ``code``: a stable UPPER_SNAKE name from :data:`ERROR_CODES` (tests assert on it, not on text);
* ``item_id``: the :class:`~quality_py.model.ids.Id` of the rule, lambda or output expression;
* ``item_kind``: ``"rule"``, ``"lambda"``, ``"output"`` or ``"suite"``;
* ``span``: where in ``source`` the problem is, when known;
* ``source``: the offending text.

``str(error)`` renders the message, the id and the text with the position marked.

Examples
--------
>>> from quality_py.model.ids import Id
>>> err = RuleSyntaxError("unexpected end", item_id=Id(100, 1), source="a +", span=Span(1, 3, 2, 3))
>>> err.code
'RULE_SYNTAX'
>>> print(err)
[RULE_SYNTAX] unexpected end (rule 100.1, line 1, col 3)
  a +
    ^
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quality_py.model.ids import Id

#: Every code an error may carry, sorted. A code is never renamed once released.
ERROR_CODES: tuple[str, ...] = (
    "ALERT",
    "CHECK_DEFINITION",
    "DATA_NAME",
    "DUPLICATE_COLUMNS",
    "DUPLICATE_ID",
    "DUPLICATE_LAMBDA",
    "DUPLICATE_NAME",
    "FOLDER_OUTPUT",
    "HISTORY",
    "IMPLICIT_CAST",
    "INPUT",
    "INVALID_ID",
    "INVALID_MODEL",
    "KEY_TYPE",
    "LAMBDA_ARITY",
    "LAMBDA_RECURSION",
    "LAMBDA_SYNTAX",
    "LIBRARY_ARGUMENTS",
    "LIBRARY_TYPE",
    "LINEAGE",
    "META_RULE_SET",
    "MISSING_OUTPUT",
    "NO_SPARK",
    "OUTPUT_OVERLAP",
    "POLICY",
    "QUALITY_RUN_FAILED",
    "REFERENCE_DATA",
    "RULESET_FORMAT",
    "RULE_ANALYSIS",
    "RULE_SYNTAX",
    "RULE_TABLE",
    "RUN_OUTPUT",
    "SKETCH",
    "STATE_STORE",
    "STREAMING_INPUT",
    "TABLE_ROWS",
    "UNSUPPORTED_STATEMENT",
    "VARIABLE",
)


@dataclass(frozen=True, slots=True)
class Span:
    """A position in rule text: 1-based ``line``/``col`` and 0-based ``start``/``end`` offsets."""

    line: int
    col: int
    start: int
    end: int

    @classmethod
    def from_offsets(cls, text: str, start: int, end: int | None = None) -> Span:
        """Build a span from 0-based offsets into ``text``.

        >>> Span.from_offsets("a\\nbc", 3)
        Span(line=2, col=2, start=3, end=4)
        """
        start = max(0, min(start, len(text)))
        stop = start + 1 if end is None else end
        line = text.count("\n", 0, start) + 1
        col = start - (text.rfind("\n", 0, start) + 1) + 1
        return cls(line, col, start, stop)


def escape_text(text: str) -> str:
    """Escape control characters so rule text cannot forge log lines or terminal output.

    >>> escape_text("a\\x1b[31m\\tb")
    'a\\\\x1b[31m\\tb'
    """
    out = []
    for ch in text:
        if ch in "\n\t" or (ord(ch) >= 32 and ord(ch) != 127):
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):02x}")
    return "".join(out)


def item_text(kind: str, item_id: Id | None, name: str | None = None) -> str:
    """How a message names an item: ``rule 'positive_amount' (101.1)`` when it has a name,
    ``rule 101.1`` when not, ``rule`` alone without an id.

    >>> from quality_py.model.ids import Id
    >>> item_text("rule", Id(101, 1), "positive_amount"), item_text("suite", Id(1, 2))
    ("rule 'positive_amount' (101.1)", 'suite 1.2')
    """
    if item_id is None:
        return f"{kind} {name!r}" if name else kind
    short = f"{item_id.id}.{item_id.version}" if hasattr(item_id, "version") else repr(item_id)
    return f"{kind} {name!r} ({short})" if name else f"{kind} {short}"


class QualityError(Exception):
    """Root of every error this library raises for bad input."""

    code = "INVALID_MODEL"
    #: the item's name, when it has one (set by whoever knows it: the compiler for rules)
    item_name: str | None = None
    #: ``file:line:col`` of the item's text in its ruleset file, when known (set by the reader
    #: of the file: ``RulesetFile.locating``); it starts the message, as compilers print it
    place: str | None = None

    def __init__(
        self,
        message: str,
        *,
        item_id: Id | None = None,
        item_kind: str = "rule",
        source: str | None = None,
        span: Span | None = None,
        code: str | None = None,
    ) -> None:
        if code is not None:
            self.code = code
        assert self.code in ERROR_CODES, self.code
        self.message = message
        self.item_id = item_id
        self.item_kind = item_kind
        self.source = source
        self.span = span
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.item_id is not None:
            where.append(item_text(self.item_kind, self.item_id, self.item_name))
        if self.span is not None:
            where.append(f"line {self.span.line}, col {self.span.col}")
        head = f"[{self.code}] {escape_text(self.message)}"
        if self.place:
            head = f"{escape_text(self.place)}: {head}"
        if where:
            head += " (" + ", ".join(where) + ")"
        if self.source is None:
            return head
        lines = escape_text(self.source).split("\n")
        if self.span is None:
            return head + "\n" + "\n".join("  " + ln for ln in lines)
        shown = lines[: self.span.line]
        caret = " " * (self.span.col - 1) + "^"
        return head + "\n" + "\n".join("  " + ln for ln in shown) + "\n  " + caret

    def __str__(self) -> str:
        return self._render()


class ModelError(QualityError, ValueError):
    """A suite, rule set, rule or lambda is malformed (duplicate ids, bad ids, bad values)."""

    code = "INVALID_MODEL"


class RuleSyntaxError(QualityError, ValueError):
    """Rule, lambda or output text does not parse as one Spark SQL expression."""

    code = "RULE_SYNTAX"


class LambdaError(QualityError, ValueError):
    """A user lambda is unknown at the arity called, recursive, or defined twice."""

    code = "LAMBDA_ARITY"


class LibraryFunctionError(QualityError, TypeError):
    """A library function (``pack_ints``, ``probability``...) got bad arguments."""

    code = "LIBRARY_ARGUMENTS"


class RuleAnalysisError(QualityError, ValueError):
    """Spark could not analyse a compiled rule against the data's schema."""

    code = "RULE_ANALYSIS"


class PolicyError(QualityError, ValueError):
    """Rule text uses something the rule policy does not allow, or breaks its limits."""

    code = "POLICY"


class RulesetFormatError(QualityError, ValueError):
    """A YAML ruleset file is malformed; the span points into the file."""

    code = "RULESET_FORMAT"


class CheckDefinitionError(QualityError, ValueError):
    """A dataset check cannot be evaluated on the data (missing column, unreadable assertion,
    a predicate the policy or Spark's analysis refuses); the message names the check."""

    code = "CHECK_DEFINITION"


class InputError(QualityError, ValueError):
    """An input the command line was given cannot be read (missing file, wrong format)."""

    code = "INPUT"


class SparkUnavailableError(QualityError, RuntimeError):
    """No PySpark is installed in this Python, or the session asked for cannot be had."""

    code = "NO_SPARK"


class HistoryError(QualityError):
    """A stored run record is corrupt, of another format, or cannot be written."""

    code = "HISTORY"


class DataNameError(PolicyError):
    """A ruleset, check, import or views file names data (a table, view or file) that the
    policy's allowed views do not hold, or writes a name that is no table name at all."""

    code = "DATA_NAME"


class OutputOverlapError(QualityError, ValueError):
    """An output of a run is, is inside, or contains one of its inputs or another output."""

    code = "OUTPUT_OVERLAP"


class ReferenceDataError(QualityError, ValueError):
    """Declared reference data (views, lookup maps, blooms) cannot be loaded or used."""

    code = "REFERENCE_DATA"


@dataclass(frozen=True, slots=True)
class BrokenRow:
    """One unusable row of a rule, lambda, output or meta rule-set table."""

    table: str
    row: tuple[tuple[str, object], ...]  # (column, value) as read
    problems: tuple[str, ...]

    def describe(self) -> str:
        """``rules row {ruleId=None, ...}: ruleId is null; ...``; a problem of the whole table
        (no row): ``rules table rules.csv: ...``."""
        if not self.row:
            return f"{self.table}: " + "; ".join(self.problems)
        values = ", ".join(f"{k}={v!r}" for k, v in self.row)
        return f"{self.table} row {{{values}}}: " + "; ".join(self.problems)


class RuleTableError(QualityError, ValueError):
    """A rule table holds broken rows; ``broken`` lists every one of them."""

    code = "RULE_TABLE"

    def __init__(self, broken: list[BrokenRow] | tuple[BrokenRow, ...]) -> None:
        self.broken = tuple(broken)
        lines = "\n".join("  " + b.describe() for b in self.broken)
        super().__init__(f"{len(self.broken)} broken row(s), nothing was loaded:\n{lines}")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to a misspelt ``word``, else ``""``.
    A choice that differs only in case is the closest.

    >>> did_you_mean("has_completness", ["has_completeness", "is_complete"])
    " (did you mean 'has_completeness'?)"
    >>> did_you_mean("RuleExpr", ["ruleExpr", "ruleId"])
    " (did you mean 'ruleExpr'?)"
    >>> did_you_mean("zzz", ["id", "name"])
    ''
    """
    import difflib

    lowered = {c.lower(): c for c in sorted(choices)}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return f" (did you mean {lowered[word.lower()]!r}?)"
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.75)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


#: The most columns a hint lists when none is close to a missing name
MAX_LISTED = 12


def column_hint(word: str, columns: Iterable[str]) -> str:
    """What to say of a missing column: the closest of ``columns`` when one is close
    (:func:`did_you_mean`), else the columns that can be read (up to :data:`MAX_LISTED`, in
    their order), so a misspelling with no near neighbour still shows the right name.

    >>> column_hint("amout", ["id", "amount"])
    " (did you mean 'amount'?)"
    >>> column_hint("destination", ["year", "dest", "origin"])
    ' (the columns are year, dest, origin)'
    >>> column_hint("x", [f"c{i}" for i in range(20)])
    ' (the columns are c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11 and 8 more)'
    """
    names = list(dict.fromkeys(columns))
    close = did_you_mean(word, names)
    if close or not names:
        return close
    shown = ", ".join(names[:MAX_LISTED])
    more = f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    return f" (the columns are {shown}{more})"
