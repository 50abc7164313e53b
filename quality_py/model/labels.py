"""How a person reads and names an item: its name first, its id beside it.

Every surface that shows a rule, rule set or suite to a person (the console, ``--json``, the
stats, run records, the report, the docs, validation, ``explain``, ``diff``, ``assert_quality``,
notifications, errors) spells it with :func:`label` or :func:`labelled`; every API that takes a
rule reference resolves it with :func:`resolve_rules`, which takes a name or an id and refuses
an unknown one with a did-you-mean.
"""

from __future__ import annotations

from quality_py.errors import ModelError, did_you_mean
from quality_py.model.ids import Id
from quality_py.model.rules import RuleSuite


def short_id(item_id: Id) -> str:
    """``id.version``, as every output spells an id.

    >>> short_id(Id(101, 2))
    '101.2'
    """
    return f"{item_id.id}.{item_id.version}"


def label(item_id: Id, name: str | None) -> str:
    """The name of a named item, else its ``id.version``: what a person reads first.

    >>> label(Id(101, 1), "positive_amount"), label(Id(101, 1), None)
    ('positive_amount', '101.1')
    """
    return name if name else short_id(item_id)


def labelled(item_id: Id, name: str | None) -> str:
    """The name with the id beside it (``positive_amount (101.1)``), else the id alone.

    >>> labelled(Id(101, 1), "positive_amount"), labelled(Id(101, 1), None)
    ('positive_amount (101.1)', '101.1')
    """
    return f"{name} ({short_id(item_id)})" if name else short_id(item_id)


def _parsed_id(text: str) -> tuple[int, int | None] | None:
    """``(id, version)`` of ``"101.1"``, ``(id, None)`` of ``"101"``, else None."""
    parts = text.strip().split(".")
    if len(parts) > 2 or not all(p.lstrip("-").isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1]) if len(parts) == 2 else None


def resolve_rules(suite: RuleSuite, ref: object, *, who: str = "a rule reference") -> list[Id]:
    """The ids of the rules ``ref`` names in ``suite``: a rule name, an :class:`Id`, or
    ``"ID"`` / ``ID`` (every version of that id in the suite) or ``"ID.VERSION"``.

    A reference that names no rule is refused (``INVALID_ID``) with the closest name, never
    silently ignored; one that is a name of one rule and the id of another is refused as
    ambiguous.

    >>> from quality_py import Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
    ...     Rule(Id(101, 1), "a > 0", name="positive_amount")])])
    >>> resolve_rules(suite, "positive_amount"), resolve_rules(suite, "101")
    ([Id(101, 1)], [Id(101, 1)])
    >>> try:
    ...     resolve_rules(suite, "positve_amount", who="allow")
    ... except ModelError as err:
    ...     print(err.message)
    allow names no rule of suite 1.1: 'positve_amount' (did you mean 'positive_amount'?)
    """
    rules = [r for _, r in suite.iter_rules()]
    by_name = [r.id for r in rules if r.name is not None and r.name == ref]
    by_id: list[Id] = []
    if isinstance(ref, Id):
        by_id = [r.id for r in rules if r.id == ref]
    elif isinstance(ref, int) and not isinstance(ref, bool):
        by_id = [r.id for r in rules if r.id.id == ref]
    elif isinstance(ref, str) and (parsed := _parsed_id(ref)) is not None:
        number, version = parsed
        by_id = [r.id for r in rules if r.id.id == number and version in (None, r.id.version)]
    if by_name and by_id and set(by_name) != set(by_id):
        raise ModelError(
            f"{who} {ref!r} is ambiguous in suite {labelled(suite.id, suite.name)}: it is the "
            f"name of rule {short_id(by_name[0])} and the id of another; write the id as "
            "ID.VERSION or use the other rule's name",
            code="INVALID_ID",
        )
    found = by_name or by_id
    if not found:
        names = [r.name for r in rules if r.name]
        hint = did_you_mean(str(ref), names) if isinstance(ref, str) else ""
        if not hint and names and len(names) <= 10:
            hint = f" (its rules: {', '.join(sorted(names))})"
        raise ModelError(
            f"{who} names no rule of suite {labelled(suite.id, suite.name)}: {ref!r}{hint}",
            code="INVALID_ID",
        )
    return list(dict.fromkeys(found))


def rule_names(suite: RuleSuite) -> dict[Id, str]:
    """``{rule id: name}`` of the named rules of ``suite``.

    >>> from quality_py import Rule, RuleSet
    >>> rule_names(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0", name="a")])]))
    {Id(3, 1): 'a'}
    """
    return {r.id: r.name for _, r in suite.iter_rules() if r.name}


__all__ = [
    "label",
    "labelled",
    "resolve_rules",
    "rule_names",
    "short_id",
]
