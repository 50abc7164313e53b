"""Spark's analysis errors in the words of the person who wrote the rule.

Spark says ``[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with
name `amout` cannot be resolved. Did you mean one of the following? [`amount`, `id`]. SQLSTATE:
42703; line 1 pos 13``; the author of ``amout > 0`` needs ``column amout is missing (did you
mean amount?)`` and where it stands in the rule. The position Spark gives is in the compiled
SQL, not in the rule, so it is dropped; the place in the rule's text is found by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from quality_py.errors import Span, column_hint
from quality_py.sql.names import name_span

_TAIL = re.compile(r"\s*(SQLSTATE: \w+;?)?\s*(line \d+ pos \d+;?)?\s*$")
_CLASS = re.compile(r"^\[([A-Z_.]+)\]\s*")


def _names(text: str) -> list[str]:
    return re.findall(r"`((?:[^`]|``)+)`", text)


def _unresolved(body: str) -> tuple[str, str | None]:
    names = _names(body)
    if not names:
        return body, None
    missing = names[0].replace("``", "`")
    hint = ""
    if "Did you mean" in body:  # Spark lists columns: a close one, else the list
        offered = [n.replace("``", "`") for n in names[1:]]
        hint = column_hint(missing.rpartition(".")[2], [n.rpartition(".")[2] for n in offered])
    return f"column {missing} is missing{hint}", missing


def _routine(body: str) -> tuple[str, str | None]:
    names = _names(body)
    if not names:
        return body, None
    return f"function {names[0]} is unknown to this Spark", names[0]


def _not_found(body: str) -> tuple[str, str | None]:
    head = body.split(" cannot be found", 1)[0]  # `catalog`.`schema`.`name`
    what = ".".join(n.replace("``", "`") for n in _names(head)) or "?"
    return f"the table or view {what} does not exist", None


#: Spark's error classes with a plain form; every other keeps Spark's sentence, with its class,
#: SQL state and compiled-SQL position left out.
PLAIN: dict[str, Callable[[str], tuple[str, str | None]]] = {
    "UNRESOLVED_COLUMN.WITH_SUGGESTION": _unresolved,
    "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION": _unresolved,
    "UNRESOLVED_FIELD.WITH_SUGGESTION": _unresolved,
    "UNRESOLVED_ROUTINE": _routine,
    "TABLE_OR_VIEW_NOT_FOUND": _not_found,
}


def plain_spark_message(message: str, source: str | None = None) -> tuple[str, Span | None]:
    """Spark's first line of an analysis error in plain words, and where the name it is about
    stands in ``source`` (the rule's text), when it does.

    >>> text = ("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter "
    ...         "with name `amout` cannot be resolved. Did you mean one of the following? "
    ...         "[`amount`, `id`]. SQLSTATE: 42703; line 1 pos 13;")
    >>> message, span = plain_spark_message(text, "id > 0 AND amout > 0")
    >>> message, (span.line, span.col)
    ("column amout is missing (did you mean 'amount'?)", (1, 12))
    >>> plain_spark_message("[DIVIDE_BY_ZERO] Division by zero. SQLSTATE: 22012")[0]
    'Division by zero.'
    >>> plain_spark_message("[TABLE_OR_VIEW_NOT_FOUND] The table or view `db`.`t` cannot be "
    ...                     "found. Verify the spelling. SQLSTATE: 42P01")[0]
    'the table or view db.t does not exist'
    """
    first = message.strip().split("\n", 1)[0]
    match = _CLASS.match(first)
    body = _TAIL.sub("", first[match.end() :] if match else first)
    if match is None:
        return body, None
    plain = PLAIN.get(match.group(1))
    if plain is None:
        return body, None
    words, name = plain(body)
    span = name_span(source, name) if source and name else None
    return words, span


__all__ = ["PLAIN", "plain_spark_message"]
