"""What a quality run refuses before any job: inputs it could not run or record faithfully."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quality_py.actions.error_rates import ErrorRates
from quality_py.actions.flags import QUARANTINE_DETAIL
from quality_py.actions.sql_checks import SqlCheck, compile_check
from quality_py.dataset.checks import Check
from quality_py.dataset.table_state import TableState, require_mergeable
from quality_py.dataset.times import at_data_time, typed_extremes
from quality_py.errors import InputError, ModelError
from quality_py.history.over_time import DATA_TIME, OverTime
from quality_py.model.labels import resolve_rules
from quality_py.model.policy import RulePolicy
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame


def require_distinct_rule_ids(
    suite: RuleSuite,
    over_time: OverTime,
    error_rates: ErrorRates | None,
    by_rule_id: bool = False,
) -> None:
    """Refuse a rule id repeated in two rule sets where a history, anomaly checks or error
    rates read rules by id (they would mix two rules' counts under one metric name), or where
    the quarantine names failed rules by rule id alone (``by_rule_id``).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    >>> require_distinct_rule_ids(suite, OverTime(), None)
    """
    by_history = over_time.history is not None or bool(over_time.anomaly_checks)
    if not (by_history or error_rates is not None or by_rule_id):
        return
    reader = (
        "the history keys a rule's metrics by its id"
        if by_history or error_rates is not None
        else "the quarantine names failed rules by packed rule id (quarantine_detail='ids')"
    )
    seen: dict[tuple[int, int], Any] = {}
    for rule_set in suite.rule_sets:
        for rule in rule_set.rules:
            key = (rule.id.id, rule.id.version)
            if key in seen and seen[key] != rule_set.id:
                raise ModelError(
                    f"rule {rule.id.id}.{rule.id.version} is in rule set {seen[key]!r} and in "
                    f"rule set {rule_set.id!r}: {reader}, so two rules with one id would be "
                    "mixed; give one of them another id",
                    code="DUPLICATE_ID",
                    item_id=rule.id,
                )
            seen[key] = rule_set.id
    for ref in error_rates.rules if error_rates is not None else ():
        resolve_rules(suite, ref, who="error_rates")  # a key naming no rule is refused


def require_usable_input(columns: Sequence[str], keys: Sequence[str] | None) -> None:
    """Refuse an input whose column names repeat (valid and quarantine keep the input's columns,
    which a writer needs unique) and sample keys it does not have (found before any job).

    >>> require_usable_input(["a", "b"], ["a"])
    """
    repeated = sorted({c for c in columns if list(columns).count(c) > 1})
    if repeated:
        raise ModelError(
            f"the input repeats column name(s) {', '.join(repeated)} (a join keeps both sides' "
            "columns): select or rename them before a quality run; rules may still use the "
            "join's qualifiers (src.col)",
            code="DUPLICATE_COLUMNS",
        )
    unknown_keys = [k for k in keys or () if k not in columns]
    if unknown_keys:
        raise ModelError(
            f"sample key column(s) {', '.join(unknown_keys)} are not in the input (its columns: "
            f"{', '.join(columns)})"
        )


def require_evaluable(checks: Sequence[Check], df: DataFrame, suite: RuleSuite) -> None:
    """Refuse, before any job, checks a run could not evaluate (missing columns, unreadable
    assertions, predicates the policy or Spark refuses), naming each check and constraint.

    >>> require_evaluable((), None, None)  # no checks: nothing to refuse
    """
    if not checks:
        return
    from quality_py.errors import CheckDefinitionError
    from quality_py.validation.checks import check_findings
    from quality_py.validation.static_checks import schema_paths

    found = check_findings(checks, schema_paths(df.schema), df.limit(0), suite.policy)
    errors = [f.message for f in found if f.is_error]
    if errors:
        raise CheckDefinitionError(
            f"{len(errors)} dataset check constraint(s) cannot be evaluated: " + "; ".join(errors),
            item_kind="check",
        )


def require_report_columns(suite: RuleSuite, columns: Sequence[str]) -> None:
    """Refuse a rule's ``report_columns`` naming no input column (case-insensitive), naming
    the rule and the column.

    >>> from quality_py import Id, Rule, RuleSet
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0",
    ...                   report_columns=["a", "nope"])])])
    >>> require_report_columns(suite, ["A"])
    Traceback (most recent call last):
    ...
    quality_py.errors.ModelError: [INVALID_MODEL] report_columns names 'nope', not a column ...
    """
    present = {c.lower() for c in columns}
    for _, rule in suite.iter_rules():
        for name in rule.report_columns:
            if name.lower() not in present:
                raise ModelError(
                    f"report_columns names {name!r}, not a column of the input",
                    item_id=rule.id,
                )


def split_checks(
    checks: Sequence[Check | SqlCheck],
    policy: RulePolicy,
    over_time: OverTime | None = None,
    df: DataFrame | None = None,
) -> tuple[tuple[Check, ...], tuple[SqlCheck, ...]]:
    """The dataset checks and the SQL checks of a run's ``checks``; each SQL check is compiled
    under the suite's policy here, so a bad one is refused with its name before any job. With
    ``over_time``'s ``data_time`` tag, freshness is judged at the data's time
    (:func:`~quality_py.dataset.times.at_data_time`); with the input ``df``, the smallest and
    largest values of its time columns are compared as times
    (:func:`~quality_py.dataset.times.typed_extremes`).

    >>> from quality_py.model.policy import DEFAULT_POLICY
    >>> split_checks([Check("error", "rows").has_size("> 0"),
    ...               SqlCheck("kept", "count(*) > 0", on="valid")], DEFAULT_POLICY)[1][0].name
    'kept'
    """
    dataset: list[Check] = []
    sql: list[SqlCheck] = []
    for check in checks:
        if isinstance(check, SqlCheck):
            compile_check(check, policy)
            sql.append(check)
        elif isinstance(check, Check):
            dataset.append(check)
        else:
            raise ModelError(
                f"a run's checks are Check (dataset checks) or SqlCheck values, not "
                f"{type(check).__name__}: anomaly checks go in OverTime(anomaly_checks=...)",
                code="CHECK_DEFINITION",
            )
    data_time = over_time.tags.get(DATA_TIME) if over_time is not None else None
    timed = at_data_time(dataset, data_time)
    return (typed_extremes(timed, df) if df is not None else tuple(timed)), tuple(sql)


def require_quarantine_detail(detail: str, suite: RuleSuite) -> None:
    """``names``, ``ids`` or ``full``; ``ids`` names failed rules by rule id alone, so a rule id
    must be in one rule set only.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 0")])])
    >>> require_quarantine_detail("ids", suite)
    >>> require_quarantine_detail("slim", suite)
    Traceback (most recent call last):
    ...
    quality_py.errors.InputError: [INPUT] quarantine_detail must be 'names', 'ids' or 'full', \
not 'slim'
    """
    if detail not in QUARANTINE_DETAIL:
        raise InputError(f"quarantine_detail must be 'names', 'ids' or 'full', not {detail!r}")
    if detail == "ids":
        require_distinct_rule_ids(suite, OverTime(), None, by_rule_id=True)


def table_state_of(over_time: OverTime, checks: Sequence[Check]) -> TableState | None:
    """The run's table state (``over_time.table_state``), refused when the run cannot keep it
    faithfully: not a :class:`TableState`, checks without a mergeable state (they cannot answer
    for the table). A run with neither dataset checks nor rules counting rows per key is
    refused once its rules are compiled (``actions.table_rows.planned_keys``).

    >>> import tempfile
    >>> checks = [Check("error", "t").has_size(">= 1")]
    >>> table = TableState(tempfile.mkdtemp(), "day=1")
    >>> table_state_of(OverTime(table_state=table), checks) is table
    True
    """
    table = over_time.table_state
    if table is None:
        return None
    if not isinstance(table, TableState):
        raise ModelError(
            f"table_state is a quality_py.TableState(location, partition), not {table!r}"
        )
    require_mergeable(k.analyzer for c in checks for k in c.constraints)
    return table
