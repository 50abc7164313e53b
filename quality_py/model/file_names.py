"""The one way a name we write to disk is made from texts we were given (run ids, tags, suite
ids, rule ids): two different inputs never give one name, and no name is one that a reader
hides or treats specially.

:func:`file_name` encodes each part on its own and joins them with ``.``:

* ``a``-``z``, ``0``-``9`` and ``-`` stand for themselves;
* an upper-case letter is ``_`` and the letter in lower case (``Q1`` is ``_q1``), so a file
  system or a browser that ignores case never merges two names;
* every other character is ``~`` and the two lower-case hex digits of each of its UTF-8 bytes
  (``.`` is ``~2e``, a space ``~20``, ``_`` ``~5f``); an empty part is ``~`` alone.

So a part never holds a ``.``, the parts can be read back, and the encoding is one-to-one. A
name starts with its kind, a fixed lower-case word of ours, so it never starts with ``_`` or
``.`` (the names Spark, Hadoop and many tools hide) and never ends in ``._COPYING_``. A name
longer than :data:`MAX_NAME` characters keeps its first part and the SHA-256 of the whole
encoding (all 64 hex digits, after ``..``, which no shorter name holds): different inputs then
share a name only if SHA-256 collides.
"""

from __future__ import annotations

import hashlib
import re

#: The longest name kept whole (file systems take 255 bytes; room is left for a suffix)
MAX_NAME = 200
_KIND = re.compile(r"[a-z][a-z0-9-]*")
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def encode_part(text: str) -> str:
    """One part of a name, one-to-one (see the module).

    >>> encode_part("orders/eu"), encode_part("Q1 2024"), encode_part("a_b.c")
    ('orders~2feu', '_q1~202024', 'a~5fb~2ec')
    >>> encode_part("")
    '~'
    """
    if not text:
        return "~"
    out = []
    for c in text:
        if c in _PLAIN:
            out.append(c)
        elif "A" <= c <= "Z":
            out.append("_" + c.lower())
        else:
            out.append("".join(f"~{b:02x}" for b in c.encode("utf-8", "surrogatepass")))
    return "".join(out)


def decode_part(part: str) -> str:
    """The text of one encoded part (the inverse of :func:`encode_part`).

    >>> decode_part("_q1~202024"), decode_part("~")
    ('Q1 2024', '')
    """
    if part == "~":
        return ""
    raw = bytearray()
    i = 0
    while i < len(part):
        c = part[i]
        if c == "_":
            raw += part[i + 1].upper().encode()
            i += 2
        elif c == "~":
            raw.append(int(part[i + 1 : i + 3], 16))
            i += 3
        else:
            raw += c.encode()
            i += 1
    return raw.decode("utf-8", "surrogatepass")


def file_name(kind: str, *parts: str) -> str:
    """The file name (without extension) of ``parts``, starting with ``kind``.

    >>> file_name("dataset", "1", "table", "flights")
    'dataset.1.table.flights'
    >>> file_name("run", "quality_run", "2026-01-02 10:00")
    'run.quality~5frun.2026-01-02~2010~3a00'
    >>> len(file_name("run", "x" * 500))
    166
    """
    if not _KIND.fullmatch(kind):
        raise ValueError(f"a name's kind is a lower-case word, not {kind!r}")
    whole = ".".join([kind, *(encode_part(p) for p in parts)])
    if len(whole) <= MAX_NAME:
        return whole
    digest = hashlib.sha256(whole.encode("ascii")).hexdigest()
    head = whole[: MAX_NAME - 100].rstrip(".~_")
    return f"{head}..{digest}"


__all__ = ["MAX_NAME", "decode_part", "encode_part", "file_name"]
