"""The rule model: ``RuleSuite -> RuleSet -> Rule`` plus lambdas and output expressions.

All classes are frozen; sequences (given as any sequence) are stored as tuples. Change a value with
:func:`dataclasses.replace`.

Examples
--------
>>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])])
>>> suite.rule_count
1
>>> suite.rule_sets[0].rules[0].expression
'a > 0'
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quality_py.errors import ModelError
from quality_py.model.enums import RowAction
from quality_py.model.ids import INT_MAX, Id, check_name
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.tolerance import TOLERANCE_FIELDS, parse_tolerance


def _check_id(value: object, owner: str) -> Id:
    if not isinstance(value, Id):
        raise ModelError(f"{owner} id must be an Id, got {type(value).__name__}", code="INVALID_ID")
    return value


def _check_text(value: object, owner: str, item_id: Id | None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ModelError(
            f"{owner} expression must be a non-empty string, got {value!r}", item_id=item_id
        )
    return value


@dataclass(frozen=True, slots=True)
class OutputExpression:
    """An output expression of the rule engine / folder, shared between rules by id."""

    id: Id
    expression: str
    description: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.id, "OutputExpression")
        _check_text(self.expression, "OutputExpression", self.id)


ROW_ACTIONS = tuple(a.value for a in RowAction)  # what a quality run does with a failing row


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a Spark SQL expression whose value becomes a result code.

    ``salience`` and ``output`` are used by the rule engine and folder; a data-quality run
    ignores them. ``action_if_failed`` (``ignore``, ``drop`` or ``fail``) is what a quality run
    (:func:`quality_py.run_quality`) does with a row failing the rule. ``description``,
    ``owner`` and ``tags`` are documentation (and travel with quarantined rows).

    ``name`` is a short label shown beside the id in outputs, messages, stats and the report
    (unique per suite). ``filter`` is a SQL predicate: rows where it is not true get
    ``DisabledRule`` (-2) for this rule, neither passed nor failed. ``active=False`` disables
    the rule on every row without evaluating it (its text is still checked).

    ``warn_if`` and ``fail_if`` state when the rule's failing rows matter to the run's verdict
    (:mod:`quality_py.model.tolerance`: ``"> 0.5 %"`` of the run's rows, ``"> 1000"`` rows).
    Past ``fail_if`` the run fails and publishes nothing; past ``warn_if`` it warns. They change
    no row: a ``drop`` rule drops every failing row. A ``fail`` rule with ``fail_if`` fails the
    run only past it; under it, its failing rows are dropped (they never reach the valid
    output). Without ``fail_if`` a ``fail`` rule fails the run on one row, so it takes no
    ``warn_if``.

    ``report_columns`` names the columns whose values tell why the rule fails (counted together
    as one value in a run's top failing values); without it they are read from the rule
    (:mod:`quality_py.sql.telling`).
    """

    id: Id
    expression: str
    salience: int = INT_MAX
    output: OutputExpression | None = None
    description: str | None = None
    owner: str | None = None
    tags: Sequence[str] = ()
    action_if_failed: RowAction | str = RowAction.IGNORE  # stored as a RowAction
    name: str | None = None
    filter: str | None = None
    active: bool = True
    warn_if: str | None = None
    fail_if: str | None = None
    report_columns: Sequence[str] = ()

    def __post_init__(self) -> None:
        _check_id(self.id, "Rule")
        _check_text(self.expression, "Rule", self.id)
        check_name(self.name, self.id, "rule")
        if self.filter is not None:
            _check_text(self.filter, "Rule filter", self.id)
        if not isinstance(self.active, bool):
            raise ModelError("Rule active must be true or false", item_id=self.id)
        if isinstance(self.salience, bool) or not isinstance(self.salience, int):
            raise ModelError("Rule salience must be an int", item_id=self.id)
        if self.action_if_failed not in ROW_ACTIONS:
            raise ModelError(
                f"Rule action_if_failed must be one of {ROW_ACTIONS}, "
                f"got {self.action_if_failed!r}",
                item_id=self.id,
            )
        object.__setattr__(self, "action_if_failed", RowAction(self.action_if_failed))
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "report_columns", _column_names(self.report_columns, self.id))
        _check_tolerances(self)


def _column_names(names: object, rule_id: Id) -> tuple[str, ...]:
    """``report_columns`` as a tuple of non-empty names (a single text is refused: it would
    read as its letters)."""
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ModelError("Rule report_columns must be a list of column names", item_id=rule_id)
    out = tuple(names)
    if any(not isinstance(n, str) or not n.strip() for n in out):
        raise ModelError("Rule report_columns must be non-empty column names", item_id=rule_id)
    return out


def _check_tolerances(rule: Rule) -> None:
    """Refuse a tolerance that does not parse, and ``warn_if`` on a ``fail`` rule that fails
    the run on one row (no ``fail_if``): it could never warn."""
    for field_name in TOLERANCE_FIELDS:
        text = getattr(rule, field_name)
        if text is not None:
            parse_tolerance(text, field=field_name, item_id=rule.id)
    if rule.action_if_failed == RowAction.FAIL and rule.warn_if and rule.fail_if is None:
        raise ModelError(
            f"warn_if {rule.warn_if!r} on a fail rule with no fail_if could never warn: the "
            "rule fails the run on its first failing row; give it a fail_if too, or make it a "
            "drop rule",
            item_id=rule.id,
        )


@dataclass(frozen=True, slots=True)
class RuleSet:
    """An ordered group of rules with its own overall result."""

    id: Id
    rules: Sequence[Rule]
    description: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.id, "RuleSet")
        check_name(self.name, self.id, "rule set")
        rules = tuple(self.rules)
        for rule in rules:
            if not isinstance(rule, Rule):
                raise ModelError(
                    f"RuleSet {self.id!r} holds a {type(rule).__name__}, not a Rule",
                    item_id=self.id,
                    item_kind="rule set",
                )
        _unique_names(self.id, {"rule": [(r.name, r.id) for r in rules]})
        dupes = _duplicates(r.id for r in rules)
        if dupes:
            raise ModelError(
                f"RuleSet {self.id!r} has duplicate rule ids: {', '.join(map(repr, dupes))}",
                item_id=dupes[0],
                code="DUPLICATE_ID",
            )
        object.__setattr__(self, "rules", rules)


@dataclass(frozen=True, slots=True)
class LambdaFunction:
    """A reusable SQL lambda, inlined wherever it is called.

    ``expression`` is ``x -> body``, ``(a, b) -> body`` or a plain expression (no parameters,
    called as ``name()``). Bodies may use row columns freely and call other lambdas.
    """

    name: str
    expression: str
    id: Id
    description: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.id, "LambdaFunction")
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ModelError(
                f"lambda name must be an identifier, got {self.name!r}",
                item_id=self.id,
                item_kind="lambda",
            )
        _check_text(self.expression, "LambdaFunction", self.id)


@dataclass(frozen=True, slots=True)
class MetaRuleSet:
    """A rule set generated per column: ``column_filter`` selects columns, ``expression`` is
    a one-argument lambda applied to each (contract section 8.1).

    ``column_filter`` is a predicate over ``name``, ``datatype`` (Spark SQL type name such as
    ``'STRING'``) and ``nullable``; see :func:`quality_py.expand_meta_rule_sets`.
    """

    id: Id
    column_filter: str
    expression: str
    description: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.id, "MetaRuleSet")
        if not isinstance(self.column_filter, str):
            raise ModelError("MetaRuleSet column_filter must be a string", item_id=self.id)
        _check_text(self.expression, "MetaRuleSet", self.id)


@dataclass(frozen=True, slots=True)
class RuleSuite:
    """A versioned suite of rule sets with its lambdas.

    ``probable_pass``: a probability result below this fails the overall result (strict ``<``).
    ``policy``: what the rule text may do (:class:`quality_py.RulePolicy`), the safe default
    unless set. Use ``suite.with_policy(...)`` to trust a code-defined suite or allow views.
    """

    id: Id
    rule_sets: Sequence[RuleSet]
    lambdas: Sequence[LambdaFunction] = ()
    probable_pass: float = 0.8
    description: str | None = field(default=None, compare=True)
    meta_rule_sets: Sequence[MetaRuleSet] = ()
    #: What the rule text may do: the safe default unless code says otherwise. Never read from
    #: tables or YAML: only code can trust a suite (``RulePolicy.trusted_policy()``) or name views.
    policy: RulePolicy = field(default=DEFAULT_POLICY, compare=False, repr=False)
    name: str | None = None

    def __post_init__(self) -> None:
        _check_id(self.id, "RuleSuite")
        check_name(self.name, self.id, "suite")
        sets = tuple(self.rule_sets)
        lambdas = tuple(self.lambdas)
        for rs in sets:
            if not isinstance(rs, RuleSet):
                raise ModelError(
                    f"RuleSuite {self.id!r} holds a {type(rs).__name__}, not a RuleSet",
                    item_id=self.id,
                    item_kind="suite",
                )
        _unique_names(
            self.id,
            {
                "rule set": [(rs.name, rs.id) for rs in sets],
                "rule": [(r.name, r.id) for rs in sets for r in rs.rules],
            },
        )
        dupes = _duplicates(rs.id for rs in sets)
        if dupes:
            raise ModelError(
                f"RuleSuite {self.id!r} has duplicate rule-set ids: {', '.join(map(repr, dupes))}",
                item_id=dupes[0],
                item_kind="rule set",
                code="DUPLICATE_ID",
            )
        for lam in lambdas:
            if not isinstance(lam, LambdaFunction):
                raise ModelError(
                    f"RuleSuite {self.id!r} lambdas must be LambdaFunction values",
                    item_id=self.id,
                    item_kind="suite",
                )
        pp = self.probable_pass
        if isinstance(pp, bool) or not isinstance(pp, (int, float)) or not math.isfinite(pp):
            raise ModelError(
                f"probable_pass must be a finite number, not {pp!r}",
                item_id=self.id,
                item_kind="suite",
            )
        metas = tuple(self.meta_rule_sets)
        for meta in metas:
            if not isinstance(meta, MetaRuleSet):
                raise ModelError(
                    f"RuleSuite {self.id!r} meta_rule_sets must be MetaRuleSet values",
                    item_id=self.id,
                    item_kind="suite",
                )
        taken = {rs.id for rs in sets}
        clash = [m.id for m in metas if m.id in taken]
        if clash or _duplicates(m.id for m in metas):
            raise ModelError(
                f"RuleSuite {self.id!r} has duplicate rule-set ids among its meta rule sets",
                item_id=(clash or _duplicates(m.id for m in metas))[0],
                item_kind="rule set",
                code="DUPLICATE_ID",
            )
        object.__setattr__(self, "rule_sets", sets)
        object.__setattr__(self, "lambdas", lambdas)
        object.__setattr__(self, "meta_rule_sets", metas)
        object.__setattr__(self, "probable_pass", float(pp))

    def with_policy(self, policy: RulePolicy) -> RuleSuite:
        """A copy of the suite run under ``policy``.

        >>> from quality_py.model.policy import RulePolicy
        >>> RuleSuite(Id(1, 1), []).with_policy(RulePolicy.trusted_policy()).policy.trusted
        True
        """
        from dataclasses import replace

        return replace(self, policy=policy)

    @property
    def rule_count(self) -> int:
        """How many rules the suite holds across its rule sets."""
        return sum(len(rs.rules) for rs in self.rule_sets)

    def iter_rules(self) -> Iterable[tuple[RuleSet, Rule]]:
        """Every (rule set, rule) pair in declaration order.

        >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
        >>> [(rs.id, r.id) for rs, r in suite.iter_rules()]
        [(Id(2, 1), Id(3, 1))]
        """
        for rs in self.rule_sets:
            for rule in rs.rules:
                yield rs, rule


def _unique_names(owner: Id, named: dict[str, list[tuple[str | None, Id]]]) -> None:
    """Rule names are unique across the suite, rule-set names among the rule sets."""
    for kind, items in named.items():
        seen: dict[str, Id] = {}
        for name, item_id in items:
            if name is None:
                continue
            if name in seen:
                raise ModelError(
                    f"the {kind} name {name!r} is used twice (in {owner!r}); "
                    "names are unique per suite",
                    item_id=item_id,
                    item_kind=kind,
                    code="DUPLICATE_NAME",
                )
            seen[name] = item_id


def _duplicates(ids: Iterable[Id]) -> list[Id]:
    counts = Counter(ids)
    return [i for i, n in counts.items() if n > 1]
