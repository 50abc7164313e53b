"""The one reader of files from outside: rulesets, rule tables, samples and schemas, job files,
views files and other tools' rule files all come in here.

Whatever a file holds, reading it ends in its content or in one :class:`InputError` naming the
file and where in it (never a traceback):

* **encoding**: UTF-8, with or without a byte-order mark; any other byte is refused naming the
  file, the line, the column and the byte (``0xE9``), with the likely encoding and how to save
  it as UTF-8;
* **size**: a file larger than :data:`MAX_FILE_BYTES` is refused before it is read whole;
* **depth**: JSON nested deeper than :data:`MAX_DEPTH` is refused before the parser (which
  recurses) sees it; YAML's depth is bounded by the ruleset reader's event scan
  (:func:`quality_py.io.yaml_checks.refuse_aliases`);
* **shape**: a CSV cell longer than :data:`MAX_CELL_CHARS`, a quote never closed, a parquet file
  that is empty, truncated or not parquet: each one sentence.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from quality_py.errors import InputError

#: The largest outside file read whole (rulesets and rule tables are far smaller)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: The deepest JSON nesting read (rulesets, rule tables and samples need a handful)
MAX_DEPTH = 64
#: The longest CSV cell (a rule's text is bounded far below this by the policy)
MAX_CELL_CHARS = 1024 * 1024


def _name(path: str | os.PathLike[str], what: str) -> str:
    return f"{what} {os.fspath(path)}" if what else os.fspath(path)


def read_bytes(
    path: str | os.PathLike[str], *, what: str = "", limit: int = MAX_FILE_BYTES
) -> bytes:
    """The bytes of an outside file, refused when it is missing, a folder, or over ``limit``.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.txt"); _ = open(p, "wb").write(b"ab")
    >>> read_bytes(p)
    b'ab'
    """
    shown = _name(path, what)
    p = Path(path)
    if not p.exists():
        raise InputError(f"{shown}: no such file")
    if p.is_dir():
        raise InputError(f"{shown}: is a folder, not a file")
    try:
        size = p.stat().st_size
        if size > limit:
            raise InputError(
                f"{shown}: the file has {size:,} bytes; at most {limit:,} are read (is it the "
                "file you meant?)"
            )
        with p.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as err:
        raise InputError(f"{shown}: cannot read it ({err.strerror or err})") from None
    if len(data) > limit:
        raise InputError(f"{shown}: the file has more than {limit:,} bytes; at most so many are")
    return data


def decode(data: bytes, shown: str) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped), or one error naming the first byte
    that is not UTF-8 by line and column.

    >>> decode("café".encode(), "x.csv")
    'café'
    >>> try:
    ...     decode("a\\ncafé".encode("cp1252"), "x.csv")
    ... except InputError as err:
    ...     print(err.message.split(";")[0])
    x.csv is not UTF-8 text: byte 0xE9 at line 2, column 4 (offset 5) is not UTF-8
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        start = err.start
        before = data[:start]
        line = before.count(b"\n") + 1
        column = start - (before.rfind(b"\n") + 1) + 1
        byte = data[start]
        guess = "Windows-1252 or Latin-1" if 0x80 <= byte <= 0xFF else "another encoding"
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            guess = "UTF-16"
        raise InputError(
            f"{shown} is not UTF-8 text: byte 0x{byte:02X} at line {line}, column {column} "
            f"(offset {start}) is not UTF-8; it looks like {guess}. Save the file as UTF-8 "
            "(a spreadsheet's \"CSV UTF-8\", an editor's encoding setting) and try again"
        ) from None
    control = _CONTROL.search(text)
    if control is not None:
        head = text[: control.start()]
        line = head.count("\n") + 1
        column = control.start() - (head.rfind("\n") + 1) + 1
        raise InputError(
            f"{shown} holds the control character U+{ord(control.group()):04X} at line {line}, "
            f"column {column}: a text file never does (is it a binary file, or damaged?)"
        )
    return text


#: Characters no text file holds (tab, line feed and carriage return are text)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


def read_text(path: str | os.PathLike[str], *, what: str = "", limit: int = MAX_FILE_BYTES) -> str:
    """The text of an outside file: UTF-8 (a byte-order mark dropped), bounded in size.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.yaml")
    >>> _ = open(p, "wb").write(b"\\xef\\xbb\\xbfsuite: x\\n")
    >>> read_text(p)
    'suite: x\\n'
    """
    return decode(read_bytes(path, what=what, limit=limit), _name(path, what))


def read_head(path: str | os.PathLike[str], *, what: str = "", size: int = 16 * 1024 * 1024) -> str:
    """The text of the first ``size`` bytes of an outside file (a sample's header or first
    lines: the file itself may be large), UTF-8 like :func:`read_text`.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "s.csv"); _ = open(p, "w").write("a,b\\n1,2\\n")
    >>> read_head(p, size=4)
    'a,b\\n'
    """
    shown = _name(path, what)
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{shown}: no such file" if not p.exists() else f"{shown}: not a file")
    try:
        with p.open("rb") as handle:
            data = handle.read(size)
    except OSError as err:
        raise InputError(f"{shown}: cannot read it ({err.strerror or err})") from None
    if len(data) == size:  # a character cut at the end is not a wrong byte
        for cut in range(4):
            try:
                return decode(data[: len(data) - cut], shown)
            except InputError:
                if cut == 3:
                    raise
    return decode(data, shown)


def require_shallow(text: str, shown: str, *, limit: int = MAX_DEPTH) -> None:
    """Refuse JSON text nested deeper than ``limit`` (brackets outside strings counted, before
    the parser, which recurses, sees it).

    >>> require_shallow('{"a": [1, "]]]"]}', "x.json")
    >>> try:
    ...     require_shallow("[" * 100, "x.json")
    ... except InputError as err:
    ...     print(err.message.split("; ")[0] + "; ...")
    x.json: the JSON nests deeper than 64 levels at offset 64; ...
    """
    depth = 0
    in_string = escaped = False
    for offset, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                raise InputError(
                    f"{shown}: the JSON nests deeper than {limit} levels at offset {offset}; "
                    "rule files and samples never need that"
                )
        elif c in "]}":
            depth -= 1


def json_value(text: str, shown: str) -> Any:
    """The value of JSON text from outside (depth bounded), or one error with its position.

    >>> json_value('{"a": 1}', "x.json")
    {'a': 1}
    """
    require_shallow(text, shown)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{shown}:{err.lineno}:{err.colno}: not JSON ({err.msg})") from None
    except (RecursionError, ValueError) as err:  # an integer of thousands of digits, ...
        raise InputError(f"{shown}: not JSON we can read ({err})") from None


def json_lines(text: str, shown: str, *, limit: int | None = None) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of JSON-lines text (``limit``: read at
    most so many lines).

    >>> list(json_lines('{"a": 1}\\n\\n[2]\\n', "x.jsonl"))
    [(1, {'a': 1}), (3, [2])]
    """
    for number, line in enumerate(text.splitlines(), 1):
        if limit is not None and number > limit:
            return
        if line.strip():
            yield number, json_value(line, f"{shown}:{number}")


def csv_records(text: str, shown: str) -> list[tuple[int, list[str]]]:
    """Each record of CSV text with the line it starts on (line ends inside a quoted cell
    kept), cells bounded in length; a malformed file is one error naming its line.

    >>> csv_records('a,b\\n1,"x\\ny"\\n2,z\\n', "t.csv")
    [(1, ['a', 'b']), (2, ['1', 'x\\ny']), (4, ['2', 'z'])]
    """
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""))
    out: list[tuple[int, list[str]]] = []
    line = 0
    try:
        for cells in reader:
            out.append((line + 1, cells))
            line = reader.line_num
    except csv.Error as err:
        why = str(err)
        if "field larger than field limit" in why:
            why = f"a cell is longer than {MAX_CELL_CHARS:,} characters"
        raise InputError(f"{shown}:{reader.line_num}: not CSV we can read ({why})") from None
    finally:
        csv.field_size_limit(limit)
    return out


def csv_rows(text: str, shown: str) -> list[list[str]]:
    """The rows of CSV text (see :func:`csv_records`).

    >>> csv_rows('a,b\\n1,"x\\ny"\\n', "t.csv")
    [['a', 'b'], ['1', 'x\\ny']]
    """
    return [cells for _, cells in csv_records(text, shown)]


@functools.cache
def yaml_loader() -> Any:
    """The YAML loader of every outside file: PyYAML's safe loader, except that a value shaped
    like a date that is not one (``2026-02-30``, ``9999-99-99``) or an integer of thousands of
    digits is kept as its text, for the field that reads it to refuse in its own words (PyYAML
    raises a bare ``ValueError``).

    >>> import yaml
    >>> yaml.load("a: 2026-02-30\\nb: 2026-02-28", Loader=yaml_loader())
    {'a': '2026-02-30', 'b': datetime.date(2026, 2, 28)}
    """
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
            try:
                return super().construct_yaml_timestamp(node)
            except (ValueError, OverflowError):
                return self.construct_scalar(node)

        def construct_yaml_int(self, node: yaml.ScalarNode) -> Any:
            try:
                return super().construct_yaml_int(node)
            except ValueError:  # thousands of digits: Python refuses to read such an int
                return self.construct_scalar(node)

    Loader.add_constructor("tag:yaml.org,2002:timestamp", Loader.construct_yaml_timestamp)
    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
    return Loader


def yaml_value(text: str) -> Any:
    """The value of YAML text from outside, read with :func:`yaml_loader` (a malformed text
    raises PyYAML's error, with its position, for the caller to word).

    >>> yaml_value("run_id: [1]")
    {'run_id': [1]}
    """
    import yaml

    return yaml.load(text, Loader=yaml_loader())


def parquet_schema(path: str | os.PathLike[str], *, what: str = "") -> Any:
    """The arrow schema of a parquet file, or one error when it is empty, truncated or not
    parquet."""
    import pyarrow.parquet as pq

    return _parquet(lambda: pq.read_schema(os.fspath(path)), path, what)


def parquet_table(path: str | os.PathLike[str], *, what: str = "") -> Any:
    """The arrow table of a parquet file (bounded in size like any outside file)."""
    import pyarrow.parquet as pq

    if Path(path).is_file() and Path(path).stat().st_size > 4 * MAX_FILE_BYTES:
        limit = 4 * MAX_FILE_BYTES
        raise InputError(f"{_name(path, what)}: the file has more than {limit:,} bytes")
    return _parquet(lambda: pq.read_table(os.fspath(path)), path, what)


def _parquet(read: Callable[[], Any], path: str | os.PathLike[str], what: str) -> Any:
    import pyarrow as pa

    shown = _name(path, what)
    if Path(path).is_file() and Path(path).stat().st_size == 0:
        raise InputError(f"{shown}: the file is empty, not parquet")
    try:
        return read()
    except (pa.ArrowException, OSError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(
            f"{shown}: not a parquet file we can read (truncated, or another format?): {first}"
        ) from None


__all__ = [
    "MAX_CELL_CHARS",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "csv_records",
    "csv_rows",
    "decode",
    "json_lines",
    "json_value",
    "parquet_schema",
    "parquet_table",
    "read_bytes",
    "read_head",
    "read_text",
    "require_shallow",
    "yaml_loader",
    "yaml_value",
]
