"""sqlglot's syntax messages in the words of the person who wrote the rule.

sqlglot says ``Required keyword: 'expression' missing for <class 'sqlglot...GT'>``; an analyst
needs ``'>' has nothing on its right``. :data:`SHAPES` is every message shape we know, each with
its plain form; a message of no known shape keeps its words with any class name rewritten
(``tests/unit/test_syntax_messages.py`` parses thousands of broken rules and asserts that no
internal name reaches a message).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: The operator or construct each sqlglot class is, as a person writes it.
WRITTEN: dict[str, str] = {
    "GT": ">", "GTE": ">=", "LT": "<", "LTE": "<=", "EQ": "=", "NEQ": "<>",
    "NullSafeEQ": "<=>", "NullSafeNEQ": "IS DISTINCT FROM", "And": "AND", "Or": "OR",
    "Xor": "XOR", "Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "IntDiv": "DIV", "Mod": "%",
    "Like": "LIKE", "ILike": "ILIKE", "RegexpLike": "RLIKE", "SimilarTo": "SIMILAR TO",
    "BitwiseAnd": "&", "BitwiseOr": "|", "BitwiseXor": "^", "BitwiseLeftShift": "<<",
    "BitwiseRightShift": ">>", "DPipe": "||", "Is": "IS", "Escape": "ESCAPE", "Glob": "GLOB",
    "Not": "NOT", "Neg": "-", "BitwiseNot": "~", "Paren": "( )", "In": "IN",
    "Between": "BETWEEN", "Cast": "CAST", "TryCast": "TRY_CAST", "Case": "CASE", "If": "IF",
    "Lambda": "->", "Distinct": "DISTINCT", "Alias": "AS", "Bracket": "[ ]", "Dot": ".",
    "Interval": "INTERVAL", "Exists": "EXISTS", "Subquery": "( SELECT ... )",
    "Select": "SELECT", "Window": "OVER", "Order": "ORDER BY", "Ordered": "ORDER BY",
    "Star": "*", "Tuple": "( , )", "Array": "ARRAY", "Anonymous": "a function call",
}  # fmt: skip

_CLASS = re.compile(r"<class '(?:[\w]+\.)*(\w+)'>")
_SIDES = {"this": "left", "expression": "right"}


def _class_words(name: str) -> str:
    """``NullSafeEQ`` -> ``'<=>'``; a class we have not written down -> its words."""
    if name in WRITTEN:
        return repr(WRITTEN[name])
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()


def _required(match: re.Match[str], token: str) -> str:
    keyword, name = match.group(1), match.group(2)
    if name == "Paren":
        return "empty parentheses: '()' hold no expression"
    if name in ("Not", "Neg", "BitwiseNot", "Exists", "Distinct", "Interval"):
        return f"{_class_words(name)} has nothing after it"
    if name == "Between":
        return "BETWEEN needs both bounds: x BETWEEN low AND high"
    if name == "In":
        return "IN needs a list of values: x IN (1, 2)"
    if name in ("Cast", "TryCast"):
        return f"{WRITTEN[name]} needs a type: {WRITTEN[name]}(x AS INT)"
    if name in WRITTEN and keyword in _SIDES and name not in ("Case", "If", "Lambda"):
        return f"{_class_words(name)} has nothing on its {_SIDES[keyword]}"
    return f"{_class_words(name)} is incomplete here (its {keyword.replace('_', ' ')} is missing)"


def _expecting(match: re.Match[str], token: str) -> str:
    wanted = match.group(1)
    opened = {")": "(", "]": "[", ">": "<", "}": "{"}.get(wanted)
    if opened:
        return f"expected {wanted!r} here: a {opened!r} is not closed"
    return f"expected {wanted} here"


def _unexpected(match: re.Match[str], token: str) -> str:
    if token:
        return f"unexpected {token!r} here: it does not continue the expression before it"
    return "this cannot be read as an expression here"


def _tokenizing(match: re.Match[str], token: str) -> str:
    context = token or match.group(1)  # the text from where reading stopped, else sqlglot's
    for quote, what in (("'", "quoted text"), ('"', "quoted text"), ("`", "quoted name")):
        if context.count(quote) % 2 == 1:
            return f"a {what} is not closed: {context!r} needs its closing {quote}"
    return f"cannot read {context!r} as Spark SQL"


def _missing(match: re.Match[str], token: str) -> str:
    return (
        f"the {match.group(1)} opened at line {match.group(2)}, col {match.group(3)} is not closed"
    )


#: Every shape of sqlglot's syntax messages we know (parser, tokenizer, expression checks),
#: each with the plain form a rule's author reads; ``token`` is the text at the error's place.
SHAPES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], str], str]], ...] = (
    (re.compile(r"Required keyword: '(\w+)' missing for <class '(?:[\w]+\.)*(\w+)'>"), _required),
    (re.compile(r"Expecting \) or encountered unexpected keyword"), lambda m, t: (
        "expected ')' here: a '(' is not closed")),
    (re.compile(r"Expected END after CASE"), lambda m, t: (
        "CASE is not closed: END is missing after its last WHEN ... THEN ... (or ELSE ...)")),
    (re.compile(r"Expected (TYPE|AS) after CAST"), lambda m, t: (
        "CAST needs AS and a type: CAST(x AS INT)")),
    (re.compile(r"Invalid expression / Unexpected token"), _unexpected),
    (re.compile(r"Expected type( after '::')?"), lambda m, t: (
        "a type is expected here (INT, BIGINT, DOUBLE, DECIMAL(10, 2), STRING, DATE, ...)")),
    (re.compile(r"Expected (\w+) after (\w+)"), lambda m, t: (
        f"{m.group(1)} is expected after {m.group(2)} here")),
    (re.compile(r"Expecting (\S+)$"), _expecting),
    (re.compile(r"Expected (\S+)$"), _expecting),
    (re.compile(r"Expected table name but got .*"), lambda m, t: (
        "a table or view name is expected here")),
    (re.compile(r"Error tokenizing '(.*)'", re.S), _tokenizing),
    (re.compile(r"Missing (\S+) from (\d+):(\d+)"), _missing),
    (re.compile(r"Maximum number of AST nodes \((\d+)\) exceeded"), lambda m, t: (
        f"the text is too large to parse (more than {m.group(1)} parts)")),
)  # fmt: skip


def plain_message(message: str, token: str = "") -> str:
    """sqlglot's ``message`` in plain words; ``token``: the text at the error's place.

    >>> plain_message("Required keyword: 'expression' missing for <class 'x.core.GT'>")
    "'>' has nothing on its right"
    >>> plain_message("Expecting )")
    "expected ')' here: a '(' is not closed"
    >>> plain_message("Unknown thing for <class 'sqlglot.expressions.core.WindowSpec'>")
    'Unknown thing for window spec'
    """
    text = message.strip()
    for pattern, plain in SHAPES:
        match = pattern.fullmatch(text) or pattern.match(text)
        if match is not None:
            return plain(match, token)
    return _CLASS.sub(lambda m: _class_words(m.group(1)).strip("'"), text)


__all__ = ["SHAPES", "WRITTEN", "plain_message"]
