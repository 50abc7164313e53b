"""SQL for what a quality run needs per row: which rules failed, and the row's fate.

A rule *fails* a row exactly when it makes the row's overall result Failed (the core's rule,
``docs`` and the semantics contract): result ``Failed`` (0, also what a null value or a contained
runtime error becomes), or a probability below the suite's ``probable_pass``. Soft-failed and
disabled rules do not fail a row. All expressions read each rule's result code from the
hidden code column the runner stages, each code once per expression, never through the struct
(measured in benchmarks/README.md: through the struct a run took 40 s instead of 10.6 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quality_py.model.ids import Id
from quality_py.model.results import FAILED, Layout
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame
from quality_py.runners.staging import StagedCodes, as_layout, stage_rule_codes, wrap_column
from quality_py.runners.summary import failing_sql, fails_sql
from quality_py.sql.build import to_sql
from quality_py.sql.compiler import CompiledSuite
from quality_py.sql.dq_struct import dq_struct
from quality_py.sql.garbage import fewer_collections, suite_size
from quality_py.sql.snippets import string_literal

if TYPE_CHECKING:
    from quality_py.runners.staging import RowsStep

#: The hidden flag columns of a quality run: a ``fail`` rule failed, a ``drop`` rule failed, any.
FAIL, DROP, ANY = "__qp_fail", "__qp_drop", "__qp_any"
#: A quarantined row's failed rules: their ids only (what each rule is, its action and
#: description, is the same on every row: the run's stats and the suite say it once).
FAILED_RULE_FIELDS = "ruleSetId: INT, ruleSetVersion: INT, ruleId: INT, ruleVersion: INT"


@dataclass(frozen=True)
class RuleRef:
    """One rule of a (prepared) suite with what a run needs to know of it."""

    rule_set: Id
    rule: Id
    action: str
    description: str | None
    owner: str | None
    tags: tuple[str, ...]
    name: str | None = None
    #: the rule's tolerances (:mod:`quality_py.model.tolerance`), as written
    warn_if: str | None = None
    fail_if: str | None = None

    @property
    def stops_run(self) -> bool:
        """A ``fail`` rule with no ``fail_if``: one failing row fails the run before anything
        is written (checked first, in one aggregation).

        >>> RuleRef(Id(1, 1), Id(2, 1), "fail", None, None, ()).stops_run
        True
        >>> RuleRef(Id(1, 1), Id(2, 1), "fail", None, None, (), fail_if="> 5 %").stops_run
        False
        """
        return self.action == "fail" and self.fail_if is None

    @property
    def drops_row(self) -> bool:
        """Its failing rows are kept out of the valid output: a ``drop`` rule, or a ``fail``
        rule with ``fail_if`` (under its tolerance the run goes on without those rows)."""
        return self.action == "drop" or (self.action == "fail" and self.fail_if is not None)

    @property
    def label(self) -> str:
        """The rule's name, else ``id.version``.

        >>> RuleRef(Id(1, 1), Id(2, 3), "drop", None, None, ()).label
        '2.3'
        """
        return self.name or f"{self.rule.id}.{self.rule.version}"


def rule_refs(suite: RuleSuite) -> tuple[RuleRef, ...]:
    """Every rule of ``suite`` in declaration order."""
    return tuple(
        RuleRef(
            rs.id, r.id, str(r.action_if_failed), r.description, r.owner, tuple(r.tags), r.name,
            r.warn_if, r.fail_if,
        )
        for rs, r in suite.iter_rules()
    )  # fmt: skip


def fails_any_sql(
    codes: list[str], probable_pass: float, families: list[str | None] | None = None
) -> str:
    """True when any of ``codes`` fails the row; each code appears once.

    Spark substitutes a column's defining expression wherever the column is used when it pushes
    a filter down; a flag naming each code three times, in a filter, made the optimizer run for
    minutes at 27 rules. So every code is named once: the codes of boolean rules (``families``),
    which are only Passed (100000) or Failed (0), in one ``least(...) = 0`` (generated code);
    the others in one array tested by a lambda (``exists``: Spark interprets it row by row,
    which at 150 rules cost a quality run about a third of its time).

    >>> fails_any_sql(["a", "b"], 0.8).startswith("exists(array(a, b), c -> coalesce(c = 0 OR")
    True
    >>> fails_any_sql(["a", "b", "x"], 0.8, ["boolean", "boolean", "number"]).split(" OR ")[0]
    '(least(a, b) = 0)'
    """
    if not codes:
        return "false"
    fams = families if families is not None else [None] * len(codes)
    # rules computing the same value share one code column (runners.staging.rule_slots)
    once = dict(zip(codes, fams, strict=True))
    codes, fams = list(once), list(once.values())
    boolean = [c for c, f in zip(codes, fams, strict=True) if f == "boolean"]
    other = [c for c, f in zip(codes, fams, strict=True) if f != "boolean"]
    parts = []
    if boolean:
        parts.append(
            f"(least({', '.join(boolean)}) = {FAILED})"
            if len(boolean) > 1
            else f"({boolean[0]} = {FAILED})"
        )
    if other:
        parts.append(f"exists(array({', '.join(other)}), c -> {fails_sql('c', probable_pass)})")
    return " OR ".join(parts)


#: What a quarantined row says of the rules it failed (``quarantine_detail``): their names
#: (the default), their packed ids, or the data-quality column with their four ids.
QUARANTINE_DETAIL = ("names", "ids", "full")
#: The column each form of the failed rules is written to.
FAILED_COLUMN = {
    "names": "qp_failed_rule_names",
    "ids": "qp_failed_rule_ids",
    "full": "qp_failed_rules",
}
_EMPTY = {"names": "STRING", "ids": "BIGINT", "full": f"STRUCT<{FAILED_RULE_FIELDS}>"}


def failed_rule_names(refs: tuple[RuleRef, ...]) -> tuple[str, ...]:
    """Each rule's name in the quarantine: its label, unambiguous within the suite.

    A name two rules share gets the id beside it (``positive (101.1)``); a rule id two rule sets
    share gets its rule set's id before it (``5.1/103.1``). A reader can then match every entry
    to one rule of the run's stats without the suite at hand.

    >>> refs = (RuleRef(Id(5, 1), Id(101, 1), "drop", None, None, (), "positive"),
    ...         RuleRef(Id(5, 1), Id(102, 1), "drop", None, None, (), "positive"),
    ...         RuleRef(Id(5, 1), Id(103, 1), "drop", None, None, ()),
    ...         RuleRef(Id(6, 1), Id(103, 1), "drop", None, None, ()))
    >>> failed_rule_names(refs)
    ('positive (101.1)', 'positive (102.1)', '5.1/103.1', '6.1/103.1')
    """

    def with_id(r: RuleRef, name: str) -> str:
        return f"{r.name} ({r.rule.id}.{r.rule.version})" if r.name else name

    def with_set(r: RuleRef, name: str) -> str:
        return f"{r.rule_set.id}.{r.rule_set.version}/{name}"

    names = [r.label for r in refs]
    for qualify in (with_id, with_set):
        seen: dict[str, int] = {}
        for name in names:
            seen[name] = seen.get(name, 0) + 1
        names = [qualify(r, n) if seen[n] > 1 else n for r, n in zip(refs, names, strict=True)]
    if len(set(names)) < len(names):  # names written to look like others': their position too
        names = [f"{n} #{i + 1}" for i, n in enumerate(names)]
    return tuple(names)


def failed_rules_sql(
    refs: tuple[RuleRef, ...],
    codes: tuple[str, ...],
    probable_pass: float,
    families: tuple[str | None, ...] | None = None,
    form: str = "full",
) -> str:
    """The rules failing the row, in rule order, in ``form``: ``names``, ``array<string>`` of
    :func:`failed_rule_names`; ``ids``, ``array<bigint>`` of their packed rule ids
    (``Id.packed``, the ids of the compact layout); ``full``,
    ``array<struct<ruleSetId, ruleSetVersion, ruleId, ruleVersion>>``.

    Each rule's entry is chosen by a generated ``IF`` (a constant, or null) and one ``filter``
    drops the nulls: the only lambda Spark interprets row by row is a null test. (Pairing the
    codes with the rules in a ``zip_with`` lambda cost a run of 500 failing rules 1.65x; ids
    only, instead of the action and description on every row, write 25 % faster:
    benchmarks/README.md.) A boolean rule's code is only Passed or Failed, so its test is
    ``code = 0``; others use the full test of :func:`fails_sql`.

    >>> ref = RuleRef(Id(1, 1), Id(2, 3), "drop", None, None, ())
    >>> failed_rules_sql((ref,), ("c",), 0.8, ("boolean",))
    "filter(array(IF(c = 0, named_struct('ruleSetId', 1, 'ruleSetVersion', 1, 'ruleId', 2, \
'ruleVersion', 3), NULL)), x -> x IS NOT NULL)"
    >>> failed_rules_sql((ref,), ("c",), 0.8, ("boolean",), form="names")
    "filter(array(IF(c = 0, '2.3', NULL)), x -> x IS NOT NULL)"
    """
    if not refs:
        return f"CAST(array() AS ARRAY<{_EMPTY[form]}>)"
    fams = families if families is not None else (None,) * len(refs)
    items = (
        [string_literal(n) for n in failed_rule_names(refs)]
        if form == "names"
        else [f"CAST({int(r.rule.packed)} AS BIGINT)" for r in refs]
        if form == "ids"
        else [  # ids are Python ints (model/ids.py): INT literals
            f"named_struct('ruleSetId', {int(r.rule_set.id)}, "
            f"'ruleSetVersion', {int(r.rule_set.version)}, 'ruleId', {int(r.rule.id)}, "
            f"'ruleVersion', {int(r.rule.version)})"
            for r in refs
        ]
    )
    entries = [
        f"IF({failing_sql(i, codes, probable_pass, None, fams)}, {item}, NULL)"
        for i, item in enumerate(items)
    ]
    return f"filter(array({', '.join(entries)}), x -> x IS NOT NULL)"


def flag_rows(
    df: DataFrame,
    suite: RuleSuite,
    compiled: CompiledSuite | None,
    layout: Layout | str,
    name: str,
    rows: RowsStep | None = None,
) -> tuple[StagedCodes, RuleSuite, tuple[RuleRef, ...], tuple[str, ...], DataFrame]:
    """The staged rule codes of ``df``, the prepared suite (meta rule sets expanded), its rules,
    their code columns, and ``df`` with the data-quality column ``name`` and the three flags
    (``rows``: see :func:`~quality_py.runners.staging.stage_rule_codes`)."""
    from pyspark.sql import functions as F  # deferred: importing the package needs no pyspark

    with fewer_collections(suite_size(suite)):  # compile, analysis and struct: collect later
        staged = stage_rule_codes(df, suite, compiled=compiled, rows=rows, shared_codes=True)
        prepared = staged.compiled.suite  # meta rule sets expanded, fallbacks resolved
        chosen = as_layout(layout)
        struct = to_sql(dq_struct(prepared, staged.code_refs(), staged.families, chosen))
    refs = tuple(rule_refs(prepared))
    codes = tuple(to_sql(c) for c in staged.code_refs())
    families = list(staged.families)

    def fails_any(kind: str | None) -> str:
        chosen_codes = [
            (c, f)
            for c, f, r in zip(codes, families, refs, strict=True)
            if kind is None or (r.stops_run if kind == "fail" else r.drops_row)
        ]
        probable = prepared.probable_pass
        return fails_any_sql([c for c, _ in chosen_codes], probable, [f for _, f in chosen_codes])

    flagged = staged.frame.select(
        "*",
        wrap_column(struct, prepared, chosen, name),
        F.expr(fails_any("fail")).alias(FAIL),
        F.expr(fails_any("drop")).alias(DROP),
        F.expr(fails_any(None)).alias(ANY),
    )
    return staged, prepared, refs, codes, flagged
