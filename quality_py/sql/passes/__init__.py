"""The compile passes, in order. Each module holds one pass: ``(tree, *, ctx) -> tree``.

:func:`run_passes` copies the input once; passes may then change the tree in place.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from quality_py.sql.context import PassContext
from quality_py.sql.passes.bound_growth import bound_growth
from quality_py.sql.passes.contain_aggregates import contain_aggregates
from quality_py.sql.passes.contain_errors import contain_errors
from quality_py.sql.passes.contain_functions import contain_functions
from quality_py.sql.passes.contain_ranges import contain_ranges
from quality_py.sql.passes.inline_lambdas import inline_lambdas
from quality_py.sql.passes.library_functions import library_functions
from quality_py.sql.passes.window_forms import window_forms

Pass = Callable[..., exp.Expr]

#: User lambdas first (their bodies are user text too), then the bound on what values can grow
#: to (a check on the inlined tree), the rewrites of ANSI-failing operations, functions and
#: aggregates and of subqueries that may give several rows (user text only), then library
#: functions (our own SQL, which cannot fail), then every window in its one form (keys sorted,
#: so rules over one key set share one shuffle).
PASSES: tuple[Pass, ...] = (
    inline_lambdas,
    bound_growth,
    contain_errors,
    contain_functions,
    contain_ranges,
    contain_aggregates,
    library_functions,
    window_forms,
)


def run_passes(tree: exp.Expr, ctx: PassContext) -> exp.Expr:
    """Run every pass over a copy of ``tree``; the caller's tree is never changed."""
    out = tree.copy()
    for step in PASSES:
        out = step(out, ctx=ctx)
    for node in out.walk():  # rule comments mean nothing to Spark: never emit user text in them
        node.comments = None
    return out
