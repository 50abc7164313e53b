"""A Spark DDL schema (``id INT, s STRUCT<a: STRING>``) read without Spark: its column and
nested-field names, for checking a ruleset's names where no JVM runs (``validate --schema``).

The grammar is Spark's ``StructType.fromDDL``: fields ``NAME [:] TYPE [NOT NULL] [COMMENT
'text']`` separated by commas (a name is Spark's identifier: letters, digits and ``_``, not a
number, or back-quoted; a comment is quoted with ``'`` or ``"``); a type is a name with optional
``(n[, m])``, ``ARRAY<T>``, ``MAP<K, V>``, ``STRUCT<fields>`` or ``INTERVAL`` with its units.
Anything else is refused with the position, never read loosely: a schema that lost a column
would make a right rule wrong.
"""

from __future__ import annotations

import re

from quality_py.errors import InputError

_TOKEN = re.compile(
    r"\s*(?:(?P<quoted>`(?:[^`]|``)*`)|(?P<text>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<word>[A-Za-z0-9_]+)|(?P<punct>[<>(),:]))"
)
#: What Spark's lexer reads as a number, not a name: a run of letters, digits and ``_`` is an
#: identifier (``2024q1`` included) unless one of the numeric literals matches it whole, as
#: the lexer takes the longest match and, at equal length, the rule defined first
_NUMBER = re.compile(r"\d+([LSY]|(E\d+)?(F|D|BD)?)", re.IGNORECASE)
#: Spark's type names (``DataType.fromDDL``), upper-cased.
TYPE_NAMES = frozenset(
    [
        "BOOLEAN",
        "BYTE",
        "TINYINT",
        "SHORT",
        "SMALLINT",
        "INT",
        "INTEGER",
        "LONG",
        "BIGINT",
        "FLOAT",
        "REAL",
        "DOUBLE",
        "DATE",
        "TIMESTAMP",
        "TIMESTAMP_NTZ",
        "TIMESTAMP_LTZ",
        "STRING",
        "VARCHAR",
        "CHAR",
        "CHARACTER",
        "BINARY",
        "DECIMAL",
        "DEC",
        "NUMERIC",
        "VOID",
        "VARIANT",
    ]
)
_INTERVAL_UNITS = frozenset(["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "TO"])


class _Reader:
    def __init__(self, text: str, what: str) -> None:
        self.text, self.what = text, what
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if not text[pos:].strip():
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise self.error(len(text[:pos]) + len(text[pos:]) - len(text[pos:].lstrip()))
            group = m.lastgroup or ""
            kind, value = group, m.group(group)
            if kind == "word" and _NUMBER.fullmatch(value):
                kind = "number" if value.isdigit() else "literal"
            self.tokens.append((kind, value, m.start(group)))
            pos = m.end()
        self.i = 0

    def error(self, at: int, expected: str = "") -> InputError:
        want = f": expected {expected}" if expected else ""
        return InputError(
            f"{self.what} is not a Spark DDL schema (NAME TYPE, ...: 'id INT, amount DOUBLE'), "
            f"nor a sample file (.csv, .parquet, .json): {self.text!r} at column {at + 1}{want}"
        )

    def peek(self) -> str:
        return self.tokens[self.i][1].upper() if self.i < len(self.tokens) else ""

    def take(self, expected: str = "") -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise self.error(len(self.text), expected or "more")
        kind, value, at = self.tokens[self.i]
        if expected and value.upper() != expected:
            raise self.error(at, repr(expected))
        self.i += 1
        return kind, value

    def fields(self, prefix: str, out: dict[str, bool], end: str) -> None:
        while True:
            kind, name = self.take()
            if kind not in ("word", "quoted"):
                raise self.error(self.tokens[self.i - 1][2], "a column name")
            name = name[1:-1].replace("``", "`") if kind == "quoted" else name
            path = f"{prefix}.{name.lower()}" if prefix else name.lower()
            if self.peek() == ":":
                self.take()
            out[path] = False  # the column first, then its fields
            out[path] = self.type_(path, out)
            while self.peek() in ("NOT", "COMMENT"):
                if self.take()[1].upper() == "NOT":
                    self.take("NULL")
                elif self.take()[0] != "text":
                    raise self.error(self.tokens[self.i - 1][2], "a quoted comment")
            if self.peek() != ",":
                break
            self.take()
        if self.peek() != end:
            at = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
            raise self.error(at, f"',' or {end!r}" if end else "',' or the end")

    def type_(self, path: str, out: dict[str, bool]) -> bool:
        """Read one type; True when it is a struct (its fields are added under ``path``)."""
        kind, name = self.take()
        upper = name.upper()
        if kind != "word":
            raise self.error(self.tokens[self.i - 1][2], "a type")
        if upper == "STRUCT":
            self.take("<")
            if self.peek() != ">":
                self.fields(path, out, ">")
            self.take(">")
            return True
        if upper in ("ARRAY", "MAP"):
            self.take("<")
            self.type_(path + "[]", {})
            if upper == "MAP":
                self.take(",")
                self.type_(path + "[]", {})
            self.take(">")
            return False
        if upper == "INTERVAL":
            while self.peek() in _INTERVAL_UNITS:
                self.take()
            return False
        if upper not in TYPE_NAMES:
            raise self.error(self.tokens[self.i - 1][2], "a Spark type")
        if self.peek() == "(":
            self.take()
            self.take_number()
            if self.peek() == ",":
                self.take()
                self.take_number()
            self.take(")")
        return False

    def take_number(self) -> None:
        if self.take()[0] != "number":
            raise self.error(self.tokens[self.i - 1][2], "a number")


def ddl_paths(ddl: str, what: str = "--schema") -> dict[str, bool]:
    """``{lower-cased dotted path: is a struct}`` of every column and nested field of a Spark
    DDL schema, as ``validation.static_checks.schema_paths`` gives them from a StructType.

    >>> ddl_paths("id INT NOT NULL, Trip STRUCT<fare: DOUBLE>, tags ARRAY<STRING>")
    {'id': False, 'trip': True, 'trip.fare': False, 'tags': False}
    >>> ddl_paths("id INT,, amount")
    Traceback (most recent call last):
    ...
    quality_py.errors.InputError: [INPUT] --schema is not ... at column 8: expected a column name
    """
    reader = _Reader(ddl, what)
    out: dict[str, bool] = {}
    if not reader.tokens:
        raise InputError(f"{what} names no column")
    reader.fields("", out, "")
    return out


__all__ = ["TYPE_NAMES", "ddl_paths"]
