"""Build the data-quality struct expression from compiled rules, for both layouts.

Map layout (the original schema)::

    struct<id: bigint, overallResult: int,
           ruleSetResults: map<bigint, struct<overallResult: int, ruleResults: map<bigint, int>>>>

Compact layout: the same, with positional arrays in place of the maps (ids in metadata).

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


def _keep(code: exp.Expression, family: str | None) -> exp.Expression:
    if family == "boolean":
        return code  # only 0 or 100000
    return if_(
        exp.In(this=paren(code.copy()), expressions=[lit(-1), lit(-2)]), lit(PASSED), code.copy()
    )


def _overall(codes: Sequence[exp.Expression], families: Sequence[str | None], pp: float) -> exp.Expression:
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
        guarded = [
            exp.Case(
                ifs=[
                    exp.If(this=exp.EQ(this=paren(c.copy()), expression=lit(FAILED)), true=lit(-(2**31))),
                    exp.If(
                        this=exp.In(this=paren(c.copy()), expressions=[lit(PASSED), lit(-1), lit(-2)]),
                        true=lit(2**31 - 1),
                    ),
                ],
                default=c.copy(),
            )
            for c in codes
        ]
        cond = exp.GTE(this=paren(least(guarded)), expression=lit(float(threshold)))
    return if_(cond, lit(PASSED), lit(FAILED))


def _map(pairs: list[tuple[exp.Expression, exp.Expression]], ddl: str) -> exp.Expression:
    if not pairs:
        return cast(call("map"), ddl)
    args: list[exp.Expression] = []
    for key, value in pairs:
        args += [key, value]
    return call("map", *args)


def _array(items: list[exp.Expression], ddl: str) -> exp.Expression:
    return call("array", *items) if items else cast(call("array"), ddl)


def dq_struct(
    suite: RuleSuite,
    codes: Sequence[exp.Expression],
    families: Sequence[str | None],
    layout: Layout,
) -> exp.Expression:
    """The data-quality struct over per-rule result codes (in ``suite.iter_rules()`` order)."""
    set_structs: list[tuple[exp.Expression, exp.Expression]] = []
    set_overalls: list[exp.Expression] = []
    pos = 0
    for rule_set in suite.rule_sets:
        n = len(rule_set.rules)
        set_codes, set_fams = codes[pos : pos + n], families[pos : pos + n]
        overall = _overall(set_codes, set_fams, suite.probable_pass)
        if layout is Layout.COMPACT:
            results = _array([c.copy() for c in set_codes], "array<int>")
        else:
            pairs = [(bigint(r.id.packed), c.copy()) for r, c in zip(rule_set.rules, set_codes, strict=True)]
            results = _map(pairs, "map<bigint,int>")
        body = named_struct(("overallResult", overall), ("ruleResults", results))
        set_structs.append((bigint(rule_set.id.packed), body))
        set_overalls.append(overall.copy())
        pos += n
    suite_overall = least(set_overalls) if set_overalls else lit(PASSED)
    set_type = "struct<overallResult:int,ruleResults:{}>"
    if layout is Layout.COMPACT:
        sets = _array([s for _, s in set_structs], "array<" + set_type.format("array<int>") + ">")
    else:
        sets = _map(set_structs, "map<bigint," + set_type.format("map<bigint,int>") + ">")
    return named_struct(
        ("id", bigint(suite.id.packed)),
        ("overallResult", suite_overall),
        ("ruleSetResults", sets),
    )
