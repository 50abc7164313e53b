"""Dataset checks declared in a YAML ruleset, next to the row rules (the ``checks`` key).

Each check names a level (``error``/``warning``), a description, optionally an
``action_if_failed`` (``fail``/``ignore``), and a list of constraints. A constraint is a one-key
mapping from a :class:`~quality_py.dataset.checks.Check` method name to its arguments: a scalar
(one argument), a list (positional arguments) or a mapping (named arguments). Assertions are
threshold strings (``">= 0.95"``, ``"between 1 and 12"``); code never comes from YAML.

.. code-block:: yaml

    checks:
      - level: error
        description: flights are fit to publish
        constraints:
          - has_size: ">= 1000"
          - is_complete: carrier
          - has_completeness: [tailnum, ">= 0.95"]
          - is_in_range: {column: month, low: 1, high: 12}
"""

from __future__ import annotations

from typing import Any

import yaml

from quality_py.dataset.checks import Check
from quality_py.errors import ModelError, QualityError, RulesetFormatError, Span
from quality_py.gate import files
from quality_py.io.schema import CONSTRAINTS, KEYS, did_you_mean


def _error(origin: str, node: yaml.Node | None, message: str) -> RulesetFormatError:
    if node is None:
        return RulesetFormatError(f"{origin}: {message}", item_kind="check")
    mark = node.start_mark
    span = Span(mark.line + 1, mark.column + 1, mark.index, node.end_mark.index)
    return RulesetFormatError(
        f"{origin}:{span.line}:{span.col}: {message}", item_kind="check", span=span
    )


def _children(node: yaml.Node | None) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [v for _, v in node.value]
    return []


def _constraint(check: Check, spec: Any, node: Any, origin: str, where: str) -> Check:
    if not isinstance(spec, dict) or len(spec) != 1:
        raise _error(
            origin, node, f"{where}: a constraint is a one-key mapping, e.g. is_complete: c"
        )
    ((name, args),) = spec.items()
    if name not in CONSTRAINTS:
        raise _error(
            origin, node, f"{where}: unknown constraint {name!r}{did_you_mean(name, CONSTRAINTS)}"
        )
    method = getattr(check, name)
    try:
        if isinstance(args, dict):
            built: Check = method(**args)
        elif isinstance(args, list):
            built = method(*args)
        else:
            built = method(args)
        return built
    except TypeError as err:
        raise _error(origin, node, f"{where}: {name}: {err}") from None
    except QualityError as err:  # a bad value (a number, a reference): its own words
        raise _error(origin, node, f"{where}: {name}: {err.message}") from None


def loads_checks(text: str, origin: str = "<string>") -> tuple[Check, ...]:
    """The checks of a YAML ruleset's ``checks`` key (empty when it has none).

    >>> [c.description for c in loads_checks('''
    ... checks:
    ...   - level: warning
    ...     description: basic
    ...     constraints: [{has_size: ">= 1"}, {is_complete: carrier}]
    ... ''')[0].constraints]
    ['size >= 1', 'carrier is complete']
    """
    refuse_aliases(text, origin)
    try:
        root = yaml.compose(text, Loader=files.yaml_loader())
    except yaml.YAMLError as err:
        raise RulesetFormatError(f"{origin}: {err}", item_kind="check") from None
    if not isinstance(root, yaml.MappingNode):
        return ()
    return checks_from_node(next((v for k, v in root.value if k.value == "checks"), None), origin)


#: Nesting a ruleset never needs; PyYAML's composer recurses per level (1,000 levels were a
#: RecursionError, 20,000 took minutes), the event scan below does not.
MAX_DEPTH = 64


def refuse_aliases(text: str, origin: str) -> None:
    """Refuse YAML nested deeper than :data:`MAX_DEPTH` (at the first event past it) and YAML
    aliases: ``*name`` re-uses an anchored node, and a few nested aliases expand
    exponentially ("billion laughs": 857 bytes took 18 s and 1.3 GB to read). Rulesets never
    need them. Scans the event stream, which does not expand anything.

    >>> try:
    ...     refuse_aliases("a: &x [1]\\nb: *x\\n", "r.yaml")
    ... except RulesetFormatError as err:
    ...     print(err.message)
    r.yaml:2:4: YAML aliases (*x) are not allowed in rulesets
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=files.yaml_loader()):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:  # refused as soon as it is seen: the composer recurses
                    mark = event.start_mark
                    line = "" if mark is None else f":{mark.line + 1}:{mark.column + 1}"
                    raise RulesetFormatError(
                        f"{origin}{line}: the YAML nests deeper than {MAX_DEPTH} levels; "
                        "rulesets never need that",
                        item_kind="ruleset",
                    )
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            if isinstance(event, yaml.AliasEvent) and event.start_mark is not None:
                mark = event.start_mark
                where = f"{origin}:{mark.line + 1}:{mark.column + 1}"
                raise RulesetFormatError(
                    f"{where}: YAML aliases (*{event.anchor}) are not allowed in rulesets",
                    item_kind="ruleset",
                    span=Span(mark.line + 1, mark.column + 1, mark.index, mark.index + 1),
                )
    except yaml.YAMLError:
        return  # malformed YAML: the reader reports it with its position


def checks_from_node(checks_node: yaml.Node | None, origin: str) -> tuple[Check, ...]:
    """The checks of an already composed ``checks:`` node (the ruleset reader composes a file
    once and reads the suite and its checks from the same tree)."""
    if checks_node is None:
        return ()
    checks = files.yaml_loader()("").construct_document(checks_node)
    if not checks:
        return ()
    if not isinstance(checks, list):
        raise _error(origin, checks_node, "'checks' must be a list")
    out = []
    for i, (spec, node) in enumerate(zip(checks, _children(checks_node), strict=True)):
        where = f"check {i + 1}"
        if not isinstance(spec, dict):
            raise _error(origin, node, f"{where}: expected a mapping")
        unknown = sorted(set(spec) - KEYS["check"])
        if unknown:
            hint = did_you_mean(str(unknown[0]), KEYS["check"])
            raise _error(origin, node, f"{where}: unknown keys {unknown}{hint}")
        try:
            check = Check(
                spec.get("level", "error"),
                str(spec.get("description", where)),
                action_if_failed=spec.get("action_if_failed"),
            )
        except ModelError as err:
            raise _error(origin, node, f"{where}: {err}") from None
        constraints = spec.get("constraints") or []
        nodes = next((v for k, v in node.value if k.value == "constraints"), None)
        if not isinstance(constraints, list):
            raise _error(origin, nodes, f"{where}: 'constraints' must be a list")
        for j, (c, cnode) in enumerate(zip(constraints, _children(nodes), strict=True)):
            check = _constraint(check, c, cnode, origin, f"{where}, constraint {j + 1}")
        out.append(check)
    return tuple(out)
