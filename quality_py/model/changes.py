"""What changed between two versions of a suite, rule by rule (no data needed).

A rule is the same rule in both when it sits in the rule set with the same id number and has the
same id number (versions may differ: raising them is what an edit does). Its change is
``added``, ``removed``, ``edited`` (text, filter, switch or action differ) or ``same``.

>>> from quality_py.model.ids import Id
>>> from quality_py.model.rules import Rule, RuleSet, RuleSuite
>>> old = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0"), Rule(Id(4, 1), "b")])])
>>> new = RuleSuite(Id(1, 2), [RuleSet(Id(2, 2), [Rule(Id(3, 2), "a >= 0"), Rule(Id(5, 1), "c")])])
>>> [(c.key, c.kind) for c in suite_changes(old, new)]
[((2, 3), 'edited'), ((2, 4), 'removed'), ((2, 5), 'added')]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from quality_py.model.ids import Id
from quality_py.model.rules import Rule, RuleSuite

#: A rule across versions: (rule set id number, rule id number).
RuleKey = tuple[int, int]


@dataclass(frozen=True, slots=True)
class RuleChange:
    """One rule's change between an old and a new suite (``old`` / ``new``: None when absent)."""

    key: RuleKey
    kind: str
    old: Rule | None
    new: Rule | None
    old_set: Id | None = None
    new_set: Id | None = None

    @property
    def label(self) -> str:
        """``rule 'ground_speed' (303)`` (the newest name and the id number; versions are what
        changes).

        >>> RuleChange((2, 3), "added", None, Rule(Id(3, 1), "a", name="pos")).label
        "rule 'pos' (3)"
        """
        rule = self.new or self.old
        assert rule is not None
        return f"rule {rule.name!r} ({rule.id.id})" if rule.name else f"rule {rule.id.id}"

    @property
    def differences(self) -> list[str]:
        """What differs, one line each (``expression: 'a > 0' -> 'a >= 0'``)."""
        if self.old is None or self.new is None:
            return []
        out = []
        for field in (
            "expression", "filter", "active", "action_if_failed", "name", "warn_if", "fail_if"
        ):  # fmt: skip
            before, after = getattr(self.old, field), getattr(self.new, field)
            if before != after:
                out.append(f"{field}: {_shown(before)} -> {_shown(after)}")
        if self.old.id.version != self.new.id.version:
            out.append(f"version: {self.old.id.version} -> {self.new.id.version}")
        return out


def _shown(value: object) -> str:
    return "none" if value is None else repr(str(value))


def _keyed(suite: RuleSuite) -> Iterator[tuple[RuleKey, Id, Rule]]:
    for rule_set, rule in suite.iter_rules():
        yield (rule_set.id.id, rule.id.id), rule_set.id, rule


def _edited(old: Rule, new: Rule) -> bool:
    # fail_if decides whether a fail rule's failing rows stop the run or are dropped
    fields = ("expression", "filter", "active", "action_if_failed", "fail_if")
    return any(getattr(old, f) != getattr(new, f) for f in fields)


def suite_changes(old: RuleSuite, new: RuleSuite) -> list[RuleChange]:
    """Every rule of either suite with its change, in the new suite's order, removed rules
    after the rule that preceded them in the old one."""
    before = {k: (s, r) for k, s, r in _keyed(old)}
    after = {k: (s, r) for k, s, r in _keyed(new)}
    out: list[RuleChange] = []
    for key, set_id, rule in _keyed(new):
        if key in before:
            old_set, old_rule = before[key]
            kind = "edited" if _edited(old_rule, rule) else "same"
            out.append(RuleChange(key, kind, old_rule, rule, old_set, set_id))
        else:
            out.append(RuleChange(key, "added", None, rule, None, set_id))
    keys = [c.key for c in out]
    previous: RuleKey | None = None
    for key, set_id, rule in _keyed(old):
        if key not in after:
            change = RuleChange(key, "removed", rule, None, set_id, None)
            at = keys.index(previous) + 1 if previous in keys else len(out)
            out.insert(at, change)
            keys.insert(at, key)
        previous = key
    return out
