"""Pass: refuse rules whose values grow beyond the policy's cap (a check, the tree is unchanged).

Spark evaluates a rule per row; a rule that builds a huge value kills the executor (Java heap)
long before a timeout could help. Each amplifier (``repeat``, ``space``, ``lpad``/``rpad``,
``array_repeat``, ``sequence``) is capped one by one in ``sql/allowed/enforce.py``; this pass
bounds what they become together, after user lambdas are inlined (growth can be split across
lambdas):

* **Nesting multiplies.** An amplifier inside the lambda of a higher-order function runs once
  per element of that function's array; inside ``repeat``/``array_repeat`` it is copied once per
  repetition. ``transform(sequence(1, 1000), x -> sequence(1, 1000))`` builds 10^6 elements per
  row. The product of the sizes on the way down must stay within ``max_amplification``. Arrays
  whose size is not a literal (a column's) count as 1: their size is the data's, not the rule's.
* **Folds must not grow by a factor.** In ``aggregate``/``reduce``, the accumulator may only
  pass through functions whose value is at most the sum of their arguments (parts,
  concatenations, collections): any other (``hex``, ``base64``, ``to_json``, ``upper``, or one
  we know nothing of) may enlarge it at every element and is refused. A merge that combines
  the accumulator with itself (``concat(acc, acc)``, ``array(acc, acc)``, ``repeat(acc, 2)``,
  the accumulator inside an inner lambda) at least doubles the value at every element: 2^100
  after 100 steps.
  Numbers cannot grow (arithmetic and comparisons keep a fixed size), nor can a value reduced to
  a size, a substring of literal length or a pad; of ``CASE``/``IF``/``coalesce`` branches only
  one is taken, so the largest counts.
* **Every value is bounded by the algebra of sizes** (``sql/allowed/size_bounds.py``): each
  function declares how its value grows (``sql/allowed/catalogue.py``); a value that can grow
  with the square of the data, or more than ``max_amplification`` times it (``hex(hex(...))``),
  is refused.
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.allowed.enforce import policy_error
from quality_py.sql.allowed.size_bounds import (
    FIXED_TYPES,
    additive,
    amplifier_size,
    branches,
    fixed_size,
    hof_array,
    name_of,
    value_size,
)  # fmt: skip
from quality_py.sql.build import int_value
from quality_py.sql.context import PassContext

#: More than this many copies means "unbounded" in the fold analysis.
_MANY = 1 << 30


def _array_size(node: exp.Expr | None) -> int:
    """Elements of an array argument when the rule fixes them, else 1 (the data's size)."""
    if node is None:
        return 1
    if isinstance(node, exp.Array):
        return max(1, len(node.expressions))
    size = amplifier_size(node)
    return size if size is not None and not isinstance(node, (exp.Repeat, exp.Pad)) else 1


def _multiplier(node: exp.Expr) -> int:
    """How many times ``node`` is evaluated or copied per row by its ancestors."""
    total, child, parent = 1, node, node.parent
    while parent is not None:
        if isinstance(child, exp.Lambda) and hof_array(parent) is not None:
            total *= _array_size(hof_array(parent))
        elif isinstance(parent, exp.Repeat) and child is parent.this:
            total *= int_value(parent.args.get("times")) or 1
        elif name_of(parent) == "array_repeat" and child is parent.expressions[0]:
            count = parent.expressions[1] if len(parent.expressions) > 1 else None
            total *= int_value(count) or 1
        child, parent = parent, parent.parent
    return total


def _copies(node: exp.Expr, acc: str) -> int:
    """How many copies of the accumulator ``acc`` the value of ``node`` holds (at most);
    :data:`_MANY` when it passes through a function that may enlarge it (see above)."""
    if isinstance(node, exp.Column) and (
        (not node.table and node.name == acc) or node.table == acc  # acc, or a part: acc.f
    ):
        return 1
    if isinstance(node, exp.Identifier) and node.name == acc:  # lambda bodies name parameters
        return 1
    if fixed_size(node):
        return 0
    if isinstance(node, exp.Lambda):  # evaluated per element: any copy inside is unbounded
        return _MANY if _copies(node.this, acc) else 0
    taken = branches(node)
    if taken is not None:
        return max((_copies(b, acc) for b in taken), default=0)
    inner = sum(_copies(child, acc) for child in node.iter_expressions())
    if isinstance(node, exp.Repeat) or name_of(node) == "array_repeat":
        size = amplifier_size(node)
        return min(_MANY, inner * (size if size is not None else _MANY))
    if inner and isinstance(node, (exp.Cast, exp.TryCast)):
        target = node.to.sql("spark").upper() if node.to is not None else ""
        return 0 if target.startswith(FIXED_TYPES) else inner  # text of a value: additive
    if inner and not additive(node):
        return _MANY  # a function that may enlarge it (or one we know nothing of)
    return min(_MANY, inner)


def _enlarger(node: exp.Expr, acc: str) -> str | None:
    """The first function on the way to ``acc`` that may enlarge it, for the message."""
    for sub in node.walk():
        if (
            isinstance(sub, exp.Func)
            and not isinstance(sub, (exp.Cast, exp.TryCast))
            and not (additive(sub) or fixed_size(sub))
            and any(_copies(c, acc) for c in sub.iter_expressions())
        ):
            return name_of(sub) or sub.sql(dialect="spark").split("(")[0].lower()
    return None


def _fold_merge(node: exp.Expr) -> exp.Lambda | None:
    if isinstance(node, exp.Reduce):
        merge = node.args.get("merge")
    elif isinstance(node, exp.Anonymous) and name_of(node) in ("aggregate", "reduce"):
        merge = node.expressions[2] if len(node.expressions) > 2 else None
    else:
        return None
    return merge if isinstance(merge, exp.Lambda) else None


def _foldname_of(node: exp.Expr) -> str:
    return name_of(node) or "aggregate"


def bound_growth(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Refuse ``tree`` when a value it builds can outgrow ``ctx.policy.max_amplification``.

    >>> from quality_py.sql.context import PassContext
    >>> from quality_py.sql.lambdas import LambdaLibrary
    >>> from quality_py.sql.parse import parse_expression
    >>> ctx = PassContext(None, "rule", "", LambdaLibrary())
    >>> text = "aggregate(sequence(1, 100), 'a', (acc, x) -> concat(acc, acc))"
    >>> try:
    ...     bound_growth(parse_expression(text), ctx=ctx)
    ... except Exception as err:
    ...     print(err.message[:40])
    aggregate doubles its accumulator acc at
    """
    cap = ctx.policy.max_amplification
    for node in tree.walk():
        size = amplifier_size(node)
        if size is not None:
            total = size * _multiplier(node)
            if total > cap:
                raise policy_error(
                    ctx,
                    f"{node.sql('spark')[:60]} builds {total:,} elements or characters per row "
                    f"inside the functions around it, over the cap {cap:,}",
                    node,
                )
        merge = _fold_merge(node)
        if merge is not None and merge.expressions:
            acc = merge.expressions[0].name
            copies = _copies(merge.this, acc)
            culprit = _enlarger(merge.this, acc) if copies >= _MANY else None
            if culprit is not None:
                raise policy_error(
                    ctx,
                    f"{_foldname_of(node)} passes its accumulator {acc} through {culprit}, which "
                    "may enlarge it at every element: the value can grow exponentially; only "
                    "parts, concatenations and collections of the accumulator may be folded",
                    merge,
                )
            if copies >= 2:
                many = "unbounded" if copies >= _MANY else str(copies)
                raise policy_error(
                    ctx,
                    f"{_foldname_of(node)} doubles its accumulator {acc} at every element ({many} "
                    "copies per step): the value grows exponentially; build it once outside the "
                    "fold",
                    merge,
                )
    value_size(tree, ctx)  # the algebra of sizes over the whole value
    return tree
