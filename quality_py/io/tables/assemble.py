"""Rows to suites: group, version, link lambdas and output expressions, report what is missing."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from quality_py.io.tables.rows import (
    DELETED,
    LambdaRow,
    MetaRuleSetRow,
    OutputRow,
    RuleRow,
    SuiteTables,
)
from quality_py.io.tables.versioning import lambdas_at, meta_rule_sets_at, outputs_at, rules_at
from quality_py.model.ids import Id
from quality_py.model.rules import (
    LambdaFunction,
    MetaRuleSet,
    OutputExpression,
    Rule,
    RuleSet,
    RuleSuite,
)
from quality_py.sql.parse import lambda_arity


@dataclass(frozen=True)
class LoadedSuites:
    """Suites read from tables, by suite :class:`Id`, and the rules whose output is missing.

    ``missing_outputs[suite_id]`` lists ``(rule id, output id)`` pairs: the rule names an output
    expression that no table row provides. Such rules are loaded without an output, so a data
    quality run works and the rule engine / folder refuses them naming the rule.
    """

    suites: Mapping[Id, RuleSuite]
    missing_outputs: Mapping[Id, tuple[tuple[Id, Id], ...]] = field(default_factory=dict)

    def latest(self, suite_id: int) -> RuleSuite:
        """The highest version of suite ``suite_id``.

        >>> LoadedSuites({Id(1, 1): RuleSuite(Id(1, 1), []),
        ...               Id(1, 3): RuleSuite(Id(1, 3), [])}).latest(1).id
        Id(1, 3)
        """
        versions = [i for i in self.suites if i.id == suite_id]
        if not versions:
            raise KeyError(f"no suite with id {suite_id}")
        return self.suites[max(versions, key=lambda i: i.version)]


def _by_suite(
    rows: tuple[RuleRow, ...]
    | tuple[LambdaRow, ...]
    | tuple[OutputRow, ...]
    | tuple[MetaRuleSetRow, ...],
) -> dict[int, list]:  # type: ignore[type-arg]
    out: dict[int, list] = defaultdict(list)  # type: ignore[type-arg]
    for row in rows:
        out[row.rule_suite_id].append(row)
    return out


def _rule_sets(
    rule_rows: Sequence[RuleRow], outputs: Mapping[Id, OutputRow]
) -> tuple[list[RuleSet], list[tuple[Id, Id]]]:
    """The rule sets of one suite version's rule rows, in id order, and the (rule, output) ids
    of the rules whose output expression is in neither the suite nor the global library."""
    sets: dict[Id, list[Rule]] = defaultdict(list)
    lost: list[tuple[Id, Id]] = []
    for row in rule_rows:
        output = None
        key = row.output_key
        if key is not None:
            oid = Id(*key)
            if oid in outputs:
                output = OutputExpression(oid, outputs[oid].rule_expr, outputs[oid].description)
            else:
                lost.append((Id(row.rule_id, row.rule_version), oid))
        sets[Id(row.rule_set_id, row.rule_set_version)].append(
            Rule(
                Id(row.rule_id, row.rule_version),
                row.rule_expr,
                row.rule_engine_salience,
                output,
                row.description,
                row.owner,
                row.tags,
                row.action_if_failed,
                name=row.name,
                filter=row.filter,
                active=row.active,
                warn_if=row.warn_if,
                fail_if=row.fail_if,
                report_columns=row.report_columns,
            )
        )
    rule_sets = [
        RuleSet(set_id, sorted(sets[set_id], key=lambda r: r.id.packed))
        for set_id in sorted(sets, key=lambda i: i.packed)
    ]
    return rule_sets, lost


def _meta_rule_sets(rows: Sequence[MetaRuleSetRow]) -> list[MetaRuleSet]:
    """The meta rule sets of one suite version's rows, in id order."""
    return [
        MetaRuleSet(
            Id(r.rule_set_id, r.rule_set_version), r.column_filter, r.rule_expr, r.description
        )
        for r in sorted(rows, key=lambda r: (r.rule_set_id, r.rule_set_version))
    ]


def tables_to_suites(
    tables: SuiteTables, *, versioned: bool = True, global_library: Id | None = None
) -> LoadedSuites:
    """Build every suite version the rules table names.

    ``versioned``: contract section 5.2 (each suite version is the latest rows at or below it);
    otherwise each (suite id, version) holds exactly its own rows. ``global_library``: a suite
    id (and version) whose lambdas and output expressions every suite may use; a suite's own
    lambda of the same name and arity, or own output of the same id, wins.

    >>> from quality_py.io.tables.rows import suite_to_tables
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(5, 1), [Rule(Id(9, 1), "a > 0")])])
    >>> tables_to_suites(suite_to_tables(suite)).suites[Id(1, 1)] == suite
    True
    """
    rules = _by_suite(tables.rules)
    lambdas = _by_suite(tables.lambdas)
    outputs = _by_suite(tables.outputs)
    metas = _by_suite(tables.meta_rule_sets)

    def rows_at(kind: str, sid: int, version: int) -> list:  # type: ignore[type-arg]
        source = {"rules": rules, "lambdas": lambdas, "outputs": outputs, "metas": metas}[kind]
        rows = source.get(sid, [])
        if not versioned:
            # DELETED is a reserved marker, never a rule text, in both modes
            return [r for r in rows if r.rule_suite_version == version and r.rule_expr != DELETED]
        pick = {
            "rules": rules_at,
            "lambdas": lambdas_at,
            "outputs": outputs_at,
            "metas": meta_rule_sets_at,
        }[kind]
        return list(pick(rows, version))  # type: ignore[operator]

    glob_lambdas: list[LambdaRow] = []
    glob_outputs: list[OutputRow] = []
    if global_library is not None:
        glob_lambdas = rows_at("lambdas", global_library.id, global_library.version)
        glob_outputs = rows_at("outputs", global_library.id, global_library.version)

    suites: dict[Id, RuleSuite] = {}
    missing: dict[Id, tuple[tuple[Id, Id], ...]] = {}
    versions = sorted({(r.rule_suite_id, r.rule_suite_version) for r in tables.rules})
    for sid, version in versions:
        suite_id = Id(sid, version)
        own_lambdas: list[LambdaRow] = rows_at("lambdas", sid, version)
        # A suite's own lambda replaces the global one of the same name *and arity* only: the
        # global library's other overloads of that name stay callable.
        mine = {(r.name.lower(), lambda_arity(r.rule_expr)) for r in own_lambdas}
        lam_rows = own_lambdas + [
            r for r in glob_lambdas if (r.name.lower(), lambda_arity(r.rule_expr)) not in mine
        ]
        found: dict[Id, OutputRow] = {
            Id(r.function_id, r.function_version): r for r in glob_outputs
        }
        found.update(
            {Id(r.function_id, r.function_version): r for r in rows_at("outputs", sid, version)}
        )
        rule_sets, lost = _rule_sets(rows_at("rules", sid, version), found)
        suites[suite_id] = RuleSuite(
            suite_id,
            rule_sets,
            lambdas=[
                LambdaFunction(
                    r.name, r.rule_expr, Id(r.function_id, r.function_version), r.description
                )
                for r in sorted(lam_rows, key=lambda r: (r.function_id, r.function_version))
            ],
            meta_rule_sets=_meta_rule_sets(rows_at("metas", sid, version)),
        )
        if lost:
            missing[suite_id] = tuple(lost)
    return LoadedSuites(suites, missing)
