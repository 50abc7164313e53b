"""Build the data-quality struct expression from compiled rules, for both layouts.

Map layout (the original schema)::

    struct<id: bigint, overallResult: int,
           ruleSetResults: map<bigint, struct<overallResult: int, ruleResults: map<bigint, int>>>>

Compact layout: ``struct<id, overallResult, ruleSetResults: array<int>, ruleResults: array<int>>``
with one int per rule set and one per rule in declaration order; the ids sit in the column's
metadata (:class:`~quality_py.model.layout.CompactLayout`). Nested per-set structs cost ~40% more
to build in Spark than these two flat arrays, which cost about what separate columns cost.

Overall results (semantics 1.4): a rule set passes unless a rule is Failed (0) or a probability
below ``probable_pass``; SoftFailed (-1), DisabledRule (-2) and Passed never fail it. With result
codes ``c`` that is ``least(keep(c1), ..., keep(cn)) >= threshold`` where ``keep`` maps -1 and -2
to Passed. A suite passes when every rule set passes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlglot import exp

from quality_py.model.results import FAILED, PASSED, PROBABILITY_SCALE, Layout
from quality_py.model.rules import RuleSuite
from quality_py.sql.build import bigint, call, cast, if_, least, lit, named_struct, paren
from quality_py.sql.codegen_limits import ONE_WITHOUT_CODEGEN


def _keep(code: exp.Expr, family: str | None) -> exp.Expr:
    if family == "boolean":
        return code  # only 0 or 100000
    return if_(
        exp.In(this=paren(code.copy()), expressions=[lit(-1), lit(-2)]), lit(PASSED), code.copy()
    )


def _overall(codes: Sequence[exp.Expr], families: Sequence[str | None], pp: float) -> exp.Expr:
    if not codes:
        return lit(PASSED)
    threshold = pp * PROBABILITY_SCALE
    kept = [_keep(c, f) for c, f in zip(codes, families, strict=True)]
    low = least(kept)
    if 0 < threshold <= PASSED:
        # Codes are ints: x >= threshold <=> x >= ceil(threshold). 0 (Failed) is below it.
        cond = exp.GTE(this=paren(low), expression=lit(math.ceil(threshold)))
    else:
        # Unusual probable_pass: Failed must still fail, Passed must still pass.
        guarded: list[exp.Expr] = [
            exp.Case(
                ifs=[
                    exp.If(
                        this=exp.EQ(this=paren(c.copy()), expression=lit(FAILED)),
                        true=lit(-(2**31)),
                    ),
                    exp.If(
                        this=exp.In(
                            this=paren(c.copy()), expressions=[lit(PASSED), lit(-1), lit(-2)]
                        ),
                        true=lit(2**31 - 1),
                    ),
                ],
                default=c.copy(),
            )
            for c in codes
        ]
        cond = exp.GTE(this=paren(least(guarded)), expression=lit(float(threshold)))
    return if_(cond, lit(PASSED), lit(FAILED))


def _map(pairs: list[tuple[exp.Expr, exp.Expr]], ddl: str) -> exp.Expr:
    if not pairs:
        return cast(call("map"), ddl)
    args: list[exp.Expr] = []
    for key, value in pairs:
        args += [key, value]
    return call("map", *args)


def _array(items: list[exp.Expr], ddl: str) -> exp.Expr:
    return call("array", *items) if items else cast(call("array"), ddl)


def rendered(sql: str) -> exp.Expr:
    """A node standing for already generated SQL (our own output, never raw rule text).

    Used so that a rule's compiled code, referenced several times in the struct, is rendered
    once instead of copying its tree per reference.
    """
    return exp.Paren(this=exp.Var(this=sql))


def dq_struct(
    suite: RuleSuite,
    codes: Sequence[exp.Expr],
    families: Sequence[str | None],
    layout: Layout,
    apart: bool = False,
) -> exp.Expr:
    """The data-quality struct over per-rule result codes (in ``suite.iter_rules()`` order).

    ``codes`` should be cheap to repeat (column references or :func:`rendered` nodes): each is
    used in its rule set's results and in the overall results.

    ``apart``: the suite's overall result is multiplied by a 1 Spark computes without generated
    code (:data:`~quality_py.sql.codegen_limits.ONE_WITHOUT_CODEGEN`), so neither the projection
    building the struct nor a filter on the overall result that Spark moves below it becomes
    one whole-stage method too large for HotSpot to compile (runners/one_projection.py).
    """
    set_entries: list[tuple[exp.Expr, exp.Expr]] = []
    set_overalls: list[exp.Expr] = []
    pos = 0
    for rule_set in suite.rule_sets:
        n = len(rule_set.rules)
        set_codes, set_fams = codes[pos : pos + n], families[pos : pos + n]
        overall = _overall(set_codes, set_fams, suite.probable_pass)
        set_overalls.append(overall)
        if layout is not Layout.COMPACT:
            pairs = [
                (bigint(r.id.packed), c.copy())
                for r, c in zip(rule_set.rules, set_codes, strict=True)
            ]
            body = named_struct(
                ("overallResult", overall.copy()),
                ("ruleResults", _map(pairs, "map<bigint,int>")),
            )
            set_entries.append((bigint(rule_set.id.packed), body))
        pos += n
    # A suite passes iff every rule passes, so its overall is taken over all codes at once
    # rather than over the rule-set overalls (which would repeat every code once more).
    suite_overall = _overall(codes, families, suite.probable_pass)
    if apart:
        suite_overall = exp.Mul(this=paren(suite_overall), expression=rendered(ONE_WITHOUT_CODEGEN))
    if layout is Layout.COMPACT:
        return named_struct(
            ("id", bigint(suite.id.packed)),
            ("overallResult", suite_overall),
            ("ruleSetResults", _array(set_overalls, "array<int>")),
            ("ruleResults", _array([c.copy() for c in codes], "array<int>")),
        )
    set_type = "map<bigint,struct<overallResult:int,ruleResults:map<bigint,int>>>"
    return named_struct(
        ("id", bigint(suite.id.packed)),
        ("overallResult", suite_overall),
        ("ruleSetResults", _map(set_entries, set_type)),
    )
