"""Pass: contain what one value of reference data can do to an aggregate or a subquery.

Containment of functions stops at a subquery's edge; this pass covers what lies inside it:

* an aggregate with a failure mode in the catalogue (``sql/allowed/aggregates.py``) becomes its
  contained form: ``sum`` -> ``try_sum``, ``avg``/``mean`` -> ``try_avg`` (an overflowing bigint
  or decimal sum gives null, and the row's rule fails, where ANSI would abort the job and
  non-ANSI would wrap around to a wrong sum);
* a subquery used as a value must give one row; two rows (a key repeated in the reference) abort
  the job. A query that is not one row by construction (an aggregate without GROUP BY, or
  ``LIMIT 1``) is made one: ``SELECT v FROM ref WHERE ...`` becomes
  ``SELECT IF(count(1) > 1, NULL, max_by(v, 0)) FROM ref WHERE ...``: the one value when there is
  one row, null when there is none (as before) or several (the row fails). A GROUP BY,
  DISTINCT or ``*`` in such a subquery is refused (they may give several rows with no one value).

Runs after ``contain_functions`` (user text only) and before library expansion; skipped when the
policy's ``contain_errors`` is off. SQL checks apply it to their queries too
(``sql/check_queries.py``).
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.allowed.aggregates import AGGREGATES
from quality_py.sql.allowed.enforce import is_aggregate, policy_error
from quality_py.sql.allowed.functions import function_name
from quality_py.sql.build import call, lit
from quality_py.sql.context import PassContext


def _contained_call(node: exp.Func) -> exp.Expr | None:
    spec = AGGREGATES.get(function_name(node))
    if spec is None or spec.contained is None:
        return None
    inner = node.expressions if isinstance(node, exp.Anonymous) else [node.this]
    return call(spec.contained, *(a.copy() for a in inner))


def _is_value(query: exp.Subquery) -> bool:
    """Whether the subquery stands for a value (not a table, an IN list or an EXISTS)."""
    parent = query.parent
    if isinstance(parent, (exp.From, exp.Join, exp.Exists, exp.Union)):
        return False
    return not (isinstance(parent, exp.In) and query.arg_key == "query")


def _one_row(select: exp.Select) -> bool:
    """Whether ``select`` gives at most one row by construction."""
    limit = select.args.get("limit")
    if limit is not None:
        value = limit.expression
        if isinstance(value, exp.Literal) and value.this.isdigit() and int(value.this) <= 1:
            return True
    aggregated = any(is_aggregate(e) for p in select.expressions for e in p.walk())
    return aggregated and select.args.get("group") is None


def _single_value(select: exp.Select, ctx: PassContext) -> None:
    """Make the subquery ``select`` one row: null unless exactly one row matched."""
    if _one_row(select):
        return
    if select.args.get("group") is not None or select.args.get("distinct") is not None:
        raise policy_error(
            ctx,
            "a subquery used as a value may give several rows here (GROUP BY or DISTINCT), "
            "which aborts the job: aggregate it (max, count, ...) or filter it to one key",
            select,
        )
    if len(select.expressions) != 1 or isinstance(select.expressions[0], exp.Star):
        raise policy_error(
            ctx, "a subquery used as a value selects one named column or expression", select
        )
    projection = select.expressions[0]
    value = projection.this if isinstance(projection, exp.Alias) else projection
    several = exp.GT(this=exp.Count(this=lit(1)), expression=lit(1))
    one = exp.If(this=several, true=exp.Null(), false=call("max_by", value.copy(), lit(0)))
    named = exp.alias_(one, projection.alias) if isinstance(projection, exp.Alias) else one
    select.set("expressions", [named])


def contain_aggregates(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Contain the aggregates and the value subqueries of ``tree``.

    >>> from quality_py.sql.parse import parse_expression
    >>> tree = parse_expression("(SELECT code FROM ref WHERE ref.k = k) = 'a'")
    >>> contain_aggregates(tree, ctx=PassContext()).sql("spark")
    "(SELECT IF(COUNT(1) > 1, NULL, MAX_BY(code, 0)) FROM ref WHERE ref.k = k) = 'a'"
    """
    if not ctx.policy.contain_errors:
        return tree
    for query in [q for q in tree.find_all(exp.Subquery) if _is_value(q)]:
        if isinstance(query.this, exp.Select):
            _single_value(query.this, ctx)
    for node in [n for n in tree.find_all(exp.Func) if is_aggregate(n)]:
        contained = _contained_call(node)
        if contained is None:
            continue
        if node is tree:
            return contained
        node.replace(contained)
    return tree
