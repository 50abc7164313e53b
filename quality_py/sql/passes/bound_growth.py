"""Pass: refuse rules whose values grow beyond the policy's cap (a check, the tree is unchanged).

Spark evaluates a rule per row; a rule that builds a huge value kills the executor (Java heap)
long before a timeout could help. Each amplifier (``repeat``, ``space``, ``lpad``/``rpad``,
``array_repeat``, ``sequence``) is capped one by one in ``sql/enforce.py``; this pass bounds what
they become together, after user lambdas are inlined (growth can be split across lambdas):

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
"""

from __future__ import annotations

from sqlglot import exp

from quality_py.sql.allowed_functions import ARITHMETIC
from quality_py.sql.build import int_value
from quality_py.sql.context import PassContext
from quality_py.sql.enforce import policy_error

#: Higher-order functions sqlglot parses to their own nodes (array argument ``this``).
_HOF_NODES: tuple[type, ...] = (exp.Transform, exp.ArrayFilter, exp.ArraySort, exp.Reduce)
#: Higher-order functions parsed as ``Anonymous`` calls (array argument first).
_HOF_NAMES = frozenset(
    {
        "exists",
        "forall",
        "filter",
        "transform",
        "aggregate",
        "reduce",
        "zip_with",
        "map_filter",
        "transform_keys",
        "transform_values",
        "map_zip_with",
        "array_sort",
    }
)
#: Functions whose value has a fixed size whatever the size of their arguments.
_FIXED_SIZE_NAMES = frozenset(
    {
        "size",
        "cardinality",
        "array_size",
        "length",
        "char_length",
        "character_length",
        "octet_length",
        "bit_length",
        "array_position",
        "array_contains",
        "arrays_overlap",
        "hash",
        "xxhash64",
        "md5",
        "sha1",
        "sha2",
        "crc32",
        "isnull",
        "isnotnull",
    }
)
_FIXED_SIZE_NODES: tuple[type, ...] = (
    exp.Predicate,  # comparisons, IN, LIKE, IS, EXISTS ...
    exp.Connector,  # AND / OR
    exp.Not,
    *ARITHMETIC,
    exp.Neg,
    exp.Length,
    exp.ArraySize,
    exp.Pad,  # lpad/rpad: exactly the literal length enforce requires
)
#: More than this many copies means "unbounded" in the fold analysis.
_MANY = 1 << 30
#: Functions whose value is at most the sum of their arguments' sizes plus a constant (parts,
#: concatenations, collections of their arguments): an accumulator passed through them grows
#: by addition. Any other function the accumulator passes through may enlarge it by a factor
#: (``hex`` doubles it, ``base64`` adds a third, ``to_json`` escapes its quotes, even
#: ``upper('ß')`` is two letters), which compounds at every element: refused, by construction.
_ADDITIVE_NODES: tuple[type, ...] = (
    exp.Paren, exp.Concat, exp.DPipe, exp.ConcatWs, exp.Substring, exp.Left, exp.Right,
    exp.Trim, exp.Reverse, exp.Bracket, exp.Dot, exp.Array, exp.Struct, exp.ArrayAppend,
    exp.ArrayPrepend, exp.ArrayConcat, exp.ArraySlice, exp.ArrayDistinct, exp.ArrayRemove,
    exp.ArrayCompact, exp.ArrayFilter, exp.ArraySort, exp.PropertyEQ, exp.Kwarg,
)  # fmt: skip
_ADDITIVE_NAMES = frozenset(
    {"array_union", "map_concat", "named_struct", "element_at", "try_element_at", "nvl",
     "ifnull", "nvl2", "greatest", "least", "array_except", "array_intersect", "map_filter"}
)  # fmt: skip
_FIXED_TYPES = ("INT", "BIGINT", "SMALLINT", "TINYINT", "DOUBLE", "FLOAT", "DECIMAL", "BOOLEAN",
                "DATE", "TIMESTAMP", "TIMESTAMP_NTZ")  # fmt: skip


def _name(node: exp.Expr) -> str:
    return node.name.lower() if isinstance(node, exp.Anonymous) else ""


def _amplifier_size(node: exp.Expr) -> int | None:
    """How many elements or characters an amplifier makes (None: not an amplifier)."""
    if isinstance(node, exp.GenerateSeries):
        start, end = int_value(node.args.get("start")), int_value(node.args.get("end"))
        step = int_value(node.args.get("step")) or 1
        if start is None or end is None:
            return None
        return abs(end - start) // abs(step) + 1
    if isinstance(node, exp.Repeat):
        return int_value(node.args.get("times"))
    if isinstance(node, exp.Pad):
        return int_value(node.args.get("expression"))
    name = _name(node) or (node.key.lower() if isinstance(node, exp.Func) else "")
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
    if name == "array_repeat":
        count = args[1] if args else node.args.get("expression")
        return int_value(count)
    if name == "space":
        return int_value(args[0] if args else node.this)
    return None


def _array_size(node: exp.Expr | None) -> int:
    """Elements of an array argument when the rule fixes them, else 1 (the data's size)."""
    if node is None:
        return 1
    if isinstance(node, exp.Array):
        return max(1, len(node.expressions))
    size = _amplifier_size(node)
    return size if size is not None and not isinstance(node, (exp.Repeat, exp.Pad)) else 1


def _hof_array(node: exp.Expr) -> exp.Expr | None:
    """The array a higher-order function iterates over (None: not one)."""
    found: exp.Expr | None = None
    if isinstance(node, _HOF_NODES):
        found = node.this
    elif isinstance(node, exp.Anonymous) and _name(node) in _HOF_NAMES and node.expressions:
        found = node.expressions[0]
    return found


def _multiplier(node: exp.Expr) -> int:
    """How many times ``node`` is evaluated or copied per row by its ancestors."""
    total, child, parent = 1, node, node.parent
    while parent is not None:
        if isinstance(child, exp.Lambda) and _hof_array(parent) is not None:
            total *= _array_size(_hof_array(parent))
        elif isinstance(parent, exp.Repeat) and child is parent.this:
            total *= int_value(parent.args.get("times")) or 1
        elif _name(parent) == "array_repeat" and child is parent.expressions[0]:
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
    if isinstance(node, _FIXED_SIZE_NODES) or _name(node) in _FIXED_SIZE_NAMES:
        return 0
    if isinstance(node, exp.Substring) and int_value(node.args.get("length")) is not None:
        return 0
    if isinstance(node, exp.Lambda):  # evaluated per element: any copy inside is unbounded
        return _MANY if _copies(node.this, acc) else 0
    if isinstance(node, exp.Case):
        branches = [i.args.get("true") for i in node.args.get("ifs") or []]
        branches.append(node.args.get("default"))
        return max((_copies(b, acc) for b in branches if b is not None), default=0)
    if isinstance(node, exp.If):
        branches = [node.args.get("true"), node.args.get("false")]
        return max((_copies(b, acc) for b in branches if b is not None), default=0)
    if isinstance(node, exp.Coalesce):
        return max((_copies(a, acc) for a in [node.this, *node.expressions]), default=0)
    inner = sum(_copies(child, acc) for child in node.iter_expressions())
    if isinstance(node, exp.Repeat) or _name(node) == "array_repeat":
        size = _amplifier_size(node)
        return min(_MANY, inner * (size if size is not None else _MANY))
    if inner and isinstance(node, (exp.Cast, exp.TryCast)):
        target = node.to.sql("spark").upper() if node.to is not None else ""
        return 0 if target.startswith(_FIXED_TYPES) else inner  # text of a value: additive
    if inner and not (isinstance(node, _ADDITIVE_NODES) or _name(node) in _ADDITIVE_NAMES):
        return _MANY  # a function that may enlarge it (or one we know nothing of)
    return min(_MANY, inner)


def _enlarger(node: exp.Expr, acc: str) -> str | None:
    """The first function on the way to ``acc`` that may enlarge it, for the message."""
    for sub in node.walk():
        if (
            isinstance(sub, exp.Func)
            and not isinstance(sub, (*_ADDITIVE_NODES, *_FIXED_SIZE_NODES, exp.Cast, exp.TryCast))
            and _name(sub) not in _ADDITIVE_NAMES | _FIXED_SIZE_NAMES
            and any(_copies(c, acc) for c in sub.iter_expressions())
        ):
            return _name(sub) or sub.sql(dialect="spark").split("(")[0].lower()
    return None


def _fold_merge(node: exp.Expr) -> exp.Lambda | None:
    if isinstance(node, exp.Reduce):
        merge = node.args.get("merge")
    elif isinstance(node, exp.Anonymous) and _name(node) in ("aggregate", "reduce"):
        merge = node.expressions[2] if len(node.expressions) > 2 else None
    else:
        return None
    return merge if isinstance(merge, exp.Lambda) else None


def _fold_name(node: exp.Expr) -> str:
    return _name(node) or "aggregate"


def bound_growth(tree: exp.Expr, *, ctx: PassContext) -> exp.Expr:
    """Refuse ``tree`` when a value it builds can outgrow ``ctx.policy.max_amplification``.

    >>> from quality_py.sql.context import PassContext, LambdaLibrary
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
        size = _amplifier_size(node)
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
                    f"{_fold_name(node)} passes its accumulator {acc} through {culprit}, which "
                    "may enlarge it at every element: the value can grow exponentially; only "
                    "parts, concatenations and collections of the accumulator may be folded",
                    merge,
                )
            if copies >= 2:
                many = "unbounded" if copies >= _MANY else str(copies)
                raise policy_error(
                    ctx,
                    f"{_fold_name(node)} doubles its accumulator {acc} at every element ({many} "
                    "copies per step): the value grows exponentially; build it once outside the "
                    "fold",
                    merge,
                )
    return tree
