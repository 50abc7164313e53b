"""Doc comments in rule text: ``/** description @param x text @return text */`` (contract 7).

The block may sit anywhere in the text (usually first). Inside it, a scaladoc-style margin
(every line after the first starting with whitespace and ``*``) is removed first. Markdown in
descriptions is kept; only the ends are trimmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLOCK = re.compile(r"/\*\*(.*?)\*/", re.DOTALL)
_MARGIN = re.compile(r"^\s+\*(?!/)", re.MULTILINE)
_TAG = re.compile(r"@(param|return)\b")
_PARAM = re.compile(r"\s*([A-Za-z_$][A-Za-z0-9_$]*)(.*)", re.DOTALL)


@dataclass(frozen=True)
class Docs:
    """What a doc comment says."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str = ""


def parse_docs(text: str) -> Docs | None:
    """The doc comment of ``text``, or None when it has none.

    >>> parse_docs("/** My Description @param name name desc @return return val*/ x -> x")
    Docs(description='My Description', params={'name': 'name desc'}, returns='return val')
    >>> parse_docs("var -> var + 1") is None
    True
    """
    found = _BLOCK.search(text)
    if found is None:
        return None
    body = found.group(1)
    lines = body.split("\n")
    if len(lines) > 1 and all(_MARGIN.match(ln) for ln in lines[1:] if ln.strip()):
        body = "\n".join([lines[0], *(_MARGIN.sub("", ln, count=1) for ln in lines[1:])])
    pieces = _TAG.split(body)
    description = pieces[0].strip()
    params: dict[str, str] = {}
    returns = ""
    for kind, chunk in zip(pieces[1::2], pieces[2::2], strict=True):
        if kind == "return":
            returns = chunk.strip()
            continue
        named = _PARAM.match(chunk)
        if named is None:
            continue
        params[named.group(1)] = named.group(2).strip()
    return Docs(description, params, returns)


def strip_docs(text: str) -> str:
    """``text`` without its doc comment.

    >>> strip_docs("/** adds one */ x -> x + 1")
    'x -> x + 1'
    """
    return _BLOCK.sub("", text, count=1).strip()
