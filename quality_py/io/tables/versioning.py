"""Which rows make up each suite version (contract section 5.2, "simple versioning").

Rules: suite version ``V`` of suite ``s`` holds, per (rule set id, rule id), the rows with the
greatest rule version among the suite's rows at or below ``V``; a ``DELETED`` text removes the
rule from that version on. Rows keep their own rule-set version, so a new rule-set version is a
separate rule set. Lambdas (keyed by function id), meta rule sets (keyed by rule-set id) follow
the same rule; output expressions are looked up by exact (id, version), so every version at or
below ``V`` stays visible unless that exact version was ``DELETED``.

Unlike the original, a suite never takes rows of another suite id (its "same or next lower
version" lookup could fall through to a lower suite id).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from quality_py.io.tables.rows import DELETED, LambdaRow, MetaRuleSetRow, OutputRow, RuleRow

T = TypeVar("T", RuleRow, LambdaRow, OutputRow, MetaRuleSetRow)


def _latest(
    rows: Iterable[T], version: int, key: Callable[[T], Hashable], rank: Callable[[T], int]
) -> list[T]:
    """Per key, the rows of greatest ``rank`` among rows at or below suite ``version``.

    Rows repeating the same ranked item (a snapshot listing it again) collapse to the one from
    the highest suite version; a DELETED winner removes the item.
    """
    best: dict[Hashable, int] = {}
    visible = [r for r in rows if r.rule_suite_version <= version]
    for row in visible:
        k = key(row)
        best[k] = max(best.get(k, rank(row)), rank(row))
    chosen: dict[Hashable, T] = {}
    for row in sorted(visible, key=lambda r: r.rule_suite_version):
        if rank(row) == best[key(row)]:
            chosen[(key(row), _identity(row))] = row  # later suite versions overwrite
    return [r for r in chosen.values() if r.rule_expr != DELETED]


def _identity(row: RuleRow | LambdaRow | OutputRow | MetaRuleSetRow) -> Hashable:
    if isinstance(row, RuleRow):
        return (row.rule_set_version, row.rule_version)
    if isinstance(row, MetaRuleSetRow):
        return row.rule_set_version
    return row.function_version


def rules_at(rows: Iterable[RuleRow], version: int) -> list[RuleRow]:
    """The rule rows of one suite (all rows given are of that suite id) at ``version``.

    >>> r = lambda sv, v, text: RuleRow(1, sv, 50, 1, 100, v, text)
    >>> [x.rule_expr for x in rules_at([r(1, 1, "a"), r(2, 2, "b"), r(3, 3, "DELETED")], 2)]
    ['b']
    >>> rules_at([r(1, 1, "a"), r(2, 2, "b"), r(3, 3, "DELETED")], 3)
    []
    """
    return _latest(rows, version, lambda r: (r.rule_set_id, r.rule_id), lambda r: r.rule_version)


def lambdas_at(rows: Iterable[LambdaRow], version: int) -> list[LambdaRow]:
    """The lambda rows of one suite at ``version``: latest function version per function id."""
    return _latest(rows, version, lambda r: r.function_id, lambda r: r.function_version)


def outputs_at(rows: Iterable[OutputRow], version: int) -> list[OutputRow]:
    """Every output-expression version of one suite visible at ``version`` (exact lookup)."""
    return _latest(
        rows, version, lambda r: (r.function_id, r.function_version), lambda r: r.function_version
    )


def meta_rule_sets_at(rows: Iterable[MetaRuleSetRow], version: int) -> list[MetaRuleSetRow]:
    """The meta rule-set rows of one suite at ``version``: latest per rule-set id."""
    return _latest(rows, version, lambda r: r.rule_set_id, lambda r: r.rule_set_version)
