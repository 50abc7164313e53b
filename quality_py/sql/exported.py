"""Rules as plain Spark SQL for other tools (the ODCS export): a rule compiled with every pass
(lambdas inlined, library functions expanded into built-ins), counted where it does not hold.

Only a rule whose value is true or false by its form is exported this way (a comparison, a
logical operator, a predicate such as ``IS NULL``, ``IN``, ``LIKE``); a rule whose value is a
code or a probability (``probability(...)``, ``soft_fail(...)``, a number) has no such count.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.model.ids import Id
from quality_py.model.policy import RulePolicy
from quality_py.model.rules import LambdaFunction
from quality_py.sql.build import paren, to_sql
from quality_py.sql.compiler import compile_expression, compile_lambdas

_BOOLEAN = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.Exists)


def _boolean(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Case | exp.If):
        branches = [b.args.get("true") for b in node.args.get("ifs") or []]
        branches += [node.args.get("true"), node.args.get("default"), node.args.get("false")]
        kept = [b for b in branches if b is not None]
        return bool(kept) and all(_boolean(b) or isinstance(b, exp.Null) for b in kept)
    return isinstance(node, _BOOLEAN)


def failing_rows_query(
    text: str,
    item_id: Id,
    lambdas: tuple[LambdaFunction, ...] = (),
    policy: RulePolicy | None = None,
) -> str | None:
    """The count of the rows the rule fails, ``{object}`` standing for the data (the rule is a
    column of a sub-query, so a window or a sub-query of its own stays valid SQL); None when the
    rule's value is not true or false by its form.

    >>> query = failing_rows_query("inRange(a, 1, 9)", Id(1, 1),
    ...     (LambdaFunction("inRange", "(x, lo, hi) -> x >= lo AND x <= hi", Id(9, 1)),))
    >>> for part in query.split(" AS passed "):
    ...     print(part)
    SELECT COUNT(*) FROM (SELECT (a >= 1 AND a <= 9)
    FROM {object}) AS checked WHERE passed IS NOT TRUE
    >>> failing_rows_query("probability(1000)", Id(1, 1)) is None
    True
    """
    policy = policy or RulePolicy()
    library = compile_lambdas(list(lambdas), policy)
    tree = compile_expression(text, item_id=item_id, lambdas=library, policy=policy)
    if not _boolean(tree):
        return None
    return (
        f"SELECT COUNT(*) FROM (SELECT {to_sql(paren(tree))} AS passed FROM {{object}}) AS checked "
        "WHERE passed IS NOT TRUE"
    )
