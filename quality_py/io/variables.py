"""``${NAME}`` variables in ruleset files: one ruleset, several environments.

Every text value of a ruleset (expressions, filters, thresholds, names, descriptions, checks)
may hold ``${NAME}``. Its value comes from the caller (``--var NAME=VALUE`` on the command line,
``variables={...}`` in Python) or, when the caller does not give it, from the environment
variable ``QUALITY_PY_VAR_<NAME>``. Only variables with that prefix are read: rule text is
untrusted, and ``${AWS_SECRET_ACCESS_KEY}`` must not copy a secret into an output. A variable
that is set nowhere is an error naming the file, line and column. ``$${`` writes a literal
``${``.

Substitution happens on the parsed YAML tree, before any section is read, so a substituted
value is checked as if it had been written in the file: rule text still passes the policy, a
number is still a number.

>>> import yaml
>>> root = yaml.compose("a: ${LIMIT}\\nb: 'x > ${LIMIT}'\\nc: $${literal}")
>>> substitute_variables(root, {"LIMIT": "10"}, "f.yaml", environ={})
>>> [(k.value, v.value, v.tag.rsplit(":", 1)[1]) for k, v in root.value]
[('a', '10', 'int'), ('b', 'x > 10', 'str'), ('c', '${literal}', 'str')]
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import partial

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from quality_py.errors import RulesetFormatError, Span

#: Environment variables read for ``${NAME}`` start with this (and only these are read).
ENV_PREFIX = "QUALITY_PY_VAR_"
_VARIABLE = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def parse_assignments(items: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``NAME=VALUE`` strings (``--var``) as a mapping; a malformed one is an error.

    >>> parse_assignments(["env=prod", "limit=0.9=x"])
    {'env': 'prod', 'limit': '0.9=x'}
    """
    out: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not _NAME.fullmatch(name):
            raise RulesetFormatError(
                f"--var {item!r} must be NAME=VALUE, NAME made of letters, digits and '_'",
                item_kind="ruleset",
                code="VARIABLE",
            )
        out[name] = value
    return out


def substitute_variables(
    root: Node,
    variables: Mapping[str, str] | None,
    origin: str,
    *,
    environ: Mapping[str, str] | None = None,
    used: list[str] | None = None,
) -> None:
    """Replace every ``${NAME}`` in the text values of the YAML tree ``root``, in place;
    ``used``, when given, receives each variable's name once, in the order first met."""
    given = dict(variables or {})
    env = os.environ if environ is None else environ
    resolver = Resolver()
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, MappingNode):
            todo.extend(v for _, v in node.value)
        elif isinstance(node, SequenceNode):
            todo.extend(node.value)
        elif isinstance(node, ScalarNode) and "$" in node.value:
            new = _VARIABLE.sub(
                partial(_value, node=node, given=given, env=env, origin=origin), node.value
            )
            if used is not None:
                for m in _VARIABLE.finditer(node.value):
                    if m.group(1) and m.group(1) not in used:
                        used.append(m.group(1))
            if new != node.value:
                node.value = new
                if node.style is None:  # a plain scalar: its type follows its new text
                    node.tag = resolver.resolve(ScalarNode, new, (True, False))  # type: ignore[no-untyped-call]


def _value(
    match: re.Match[str],
    *,
    node: Node,
    given: dict[str, str],
    env: Mapping[str, str],
    origin: str,
) -> str:
    if match.group(0) == "$${":
        return "${"
    name = match.group(1)
    if not _NAME.fullmatch(name):
        raise _error(node, origin, f"${{{name}}} is not a variable name (letters, digits, '_')")
    if name in given:
        return given[name]
    if ENV_PREFIX + name in env:
        return env[ENV_PREFIX + name]
    raise _error(
        node,
        origin,
        f"the variable ${{{name}}} is not set: pass --var {name}=VALUE (variables={{...}} in "
        f"Python) or set the environment variable {ENV_PREFIX}{name}",
    )


def _error(node: Node, origin: str, message: str) -> RulesetFormatError:
    mark = node.start_mark
    span = Span(mark.line + 1, mark.column + 1, mark.index, node.end_mark.index)
    return RulesetFormatError(
        f"{origin}:{span.line}:{span.col}: {message}",
        item_kind="ruleset",
        span=span,
        code="VARIABLE",
    )


def escape_variables(value: object) -> object:
    """``value`` with every ``${`` in its texts written ``$${``, so that reading it back gives
    the text itself (the dumpers write model text, never variables).

    >>> escape_variables({"a": ["x > ${N}", 1], "b": "$${"})
    {'a': ['x > $${N}', 1], 'b': '$$${'}
    """
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, dict):
        return {k: escape_variables(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_variables(v) for v in value]
    return value
