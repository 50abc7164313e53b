"""Sizes of SQL values: each node's size rule and a bound on its value (used by the growth pass).

Every function a rule may call declares how the size of its value grows with its arguments'
(``sql/allowed/catalogue.py``); the syntax (comparisons, arithmetic, ``CASE``, casts, subqueries) is
declared here. :func:`value_size` computes, bottom up, a polynomial bound of a value's size in
``N`` (the size of the largest value the data holds) with :mod:`quality_py.sql.allowed.sizes`:

* a column or a subquery's value is ``N``; a literal its length; a value of fixed size 64;
* ``sum`` adds the arguments, ``scale K`` multiplies their sum by K, ``product I`` multiplies
  argument I by the others, ``amp`` multiplies by its literal count;
* a higher-order function sums its lambda's value over the elements: with ``e`` the size of one
  element, a body ``a·e + r`` gives ``a·|array| + count·r``; a fold adds its merge's value (the
  accumulator counted once, which ``bound_growth`` proves) to its start, once per element;
* of ``CASE``/``IF``/``coalesce`` one branch is taken (the largest counts).

A value whose bound has degree 2 (``transform(a, x -> s)``: a copy of ``s`` per element of
``a``), a coefficient over the policy's ``max_amplification`` (``hex(hex(...))`` doubles at
each level), or a constant over a thousand times it, is refused. A call with no declaration
(a function the policy's ``allowed_functions`` adds) may appear, but its value may not feed a
function that multiplies sizes: its growth is unknown.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import count as counter

import sqlglot
from sqlglot import exp

from quality_py.errors import PolicyError
from quality_py.sql.allowed.catalogue import SPECS, size_rule
from quality_py.sql.allowed.enforce import policy_error
from quality_py.sql.allowed.functions import ARITHMETIC
from quality_py.sql.allowed.sizes import (
    Poly,
    add,
    bound_max,
    const,
    constant,
    degree,
    largest_coefficient,
    mul,
    power,
    scale,
    show,
    split,
    var,
)  # fmt: skip
from quality_py.sql.build import int_value
from quality_py.sql.context import PassContext

#: Higher-order functions sqlglot parses to their own nodes (array argument ``this``).
HOF_NODES: tuple[type, ...] = (exp.Transform, exp.ArrayFilter, exp.ArraySort, exp.Reduce)
#: Higher-order functions parsed as ``Anonymous`` calls (array argument first).
HOF_NAMES = frozenset(name for name, spec in SPECS.items() if spec.size == "hof")
#: Nodes of the SQL syntax (not functions) whose value has a fixed size.
_FIXED_SIZE_NODES: tuple[type, ...] = (
    exp.Predicate,  # comparisons, IN, LIKE, IS, EXISTS ...
    exp.Connector,  # AND / OR
    exp.Not,
    *ARITHMETIC,
    exp.Neg,
    exp.Boolean,
    exp.Null,
    exp.Interval,
    exp.BitwiseNot,
    exp.BitwiseAnd,
    exp.BitwiseOr,
    exp.BitwiseXor,
    exp.BitwiseLeftShift,
    exp.BitwiseRightShift,
)
#: Nodes of the syntax whose value is a part or a collection of their arguments.
_ADDITIVE_SYNTAX: tuple[type, ...] = (
    exp.Paren, exp.Bracket, exp.Dot, exp.PropertyEQ, exp.Kwarg, exp.Tuple, exp.Alias, exp.DPipe,
)  # fmt: skip
#: The size of a value of fixed size (a number, a date) in the algebra: its bytes.
_FIXED = 8
FIXED_TYPES = ("INT", "BIGINT", "SMALLINT", "TINYINT", "DOUBLE", "FLOAT", "DECIMAL", "BOOLEAN",
                "DATE", "TIMESTAMP", "TIMESTAMP_NTZ")  # fmt: skip
#: Nodes sqlglot builds from two calls or adds while parsing (``lower(hex(s))`` is one
#: ``LowerHex``; ``day(s)`` reads ``s`` through ``TsOrDsToDate``). tests/unit/test_size_algebra.py
#: parses every pair of one-argument functions and finds no other.
_FUSED_RULES: dict[type, str] = {
    exp.LowerHex: "scale 2",
    exp.TsOrDsToDate: "fixed",
    exp.TimeStrToTime: "fixed",
    exp.FromTimeZone: "fixed",
    exp.AtTimeZone: "fixed",
}
#: Sample arguments of each kind, to learn which node class each signature parses into.
_SAMPLES = {"l1": "x -> x", "l2": "(x, y) -> x", "li": "(x, i) -> x", "lk": "(k, v) -> v",
            "l3": "(k, a, b) -> a", "n": "1", "base": "10", "bits": "256"}  # fmt: skip


@cache
def _class_rules() -> dict[type, str]:
    """The size rule of each typed node class the catalogue's functions parse into (the
    largest, when several names share a class)."""
    from quality_py.sql.dialect import DIALECT

    found: dict[type, set[str]] = {}
    for spec in SPECS.values():
        for signature in spec.signatures:
            text = signature if "(" in signature else f"{spec.name}({signature})"
            kinds = re.findall(r"\{([^}]*)\}", text) if "(" in signature else []
            if "(" in signature:
                for kind in kinds:
                    text = text.replace("{" + kind + "}", _SAMPLES.get(kind.lstrip("#"), "'a'"), 1)
            else:
                args = [_SAMPLES.get(k.lstrip("#"), "'a'") for k in signature.split(",") if k]
                text = f"{spec.name}({', '.join(args)})"
            node = sqlglot.parse_one(text, dialect=DIALECT)
            if isinstance(node, exp.Func) and not isinstance(node, exp.Anonymous):
                found.setdefault(type(node), set()).add(spec.size)
    rules = {cls: max(rules, key=_severity) for cls, rules in found.items()}
    return rules | _FUSED_RULES


def _severity(rule: str) -> tuple[int, int]:
    order = ("fixed", "sum", "data", "scale", "product", "amp", "hof")
    head, _, tail = rule.partition(" ")
    return order.index(head), int(tail) if tail.isdigit() else 0


def rule_of(node: exp.Expr) -> str | None:
    """The size rule of a call (None: not a call we have a declaration for).

    >>> from quality_py.sql.parse import parse_expression
    >>> rule_of(parse_expression("upper(s)")), rule_of(parse_expression("map_lookup(s, 'm')"))
    ('scale 3', 'data')
    """
    if isinstance(node, exp.Anonymous):
        return size_rule(str(node.this))
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return None  # by the target type, in _size
    if isinstance(node, exp.Func):
        return _class_rules().get(type(node)) or size_rule(node.sql_name())
    return None


def name_of(node: exp.Expr) -> str:
    return node.name.lower() if isinstance(node, exp.Anonymous) else ""


def amplifier_size(node: exp.Expr) -> int | None:
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
    name = name_of(node) or (node.key.lower() if isinstance(node, exp.Func) else "")
    args = list(node.expressions) if isinstance(node, exp.Anonymous) else []
    if name == "array_repeat":
        count = args[1] if args else node.args.get("expression")
        return int_value(count)
    if name == "space":
        return int_value(args[0] if args else node.this)
    return None


def hof_array(node: exp.Expr) -> exp.Expr | None:
    """The array a higher-order function iterates over (None: not one)."""
    found: exp.Expr | None = None
    if isinstance(node, HOF_NODES):
        found = node.this
    elif isinstance(node, exp.Anonymous) and name_of(node) in HOF_NAMES and node.expressions:
        found = node.expressions[0]
    return found


def fixed_size(node: exp.Expr) -> bool:
    """Whether the value of ``node`` has a fixed size whatever its arguments' sizes."""
    if isinstance(node, exp.Substring) and int_value(node.args.get("length")) is not None:
        return True
    if isinstance(node, exp.Pad):  # exactly the literal length sql/allowed/enforce.py requires
        return True
    return isinstance(node, _FIXED_SIZE_NODES) or rule_of(node) == "fixed"


#: Higher-order functions whose value is a part of their array (the lambda only decides).
_SELECTING = frozenset({"filter", "array_sort", "map_filter"})


def additive(node: exp.Expr) -> bool:
    """Whether the value of ``node`` is at most the sum of its arguments plus a constant."""
    if isinstance(node, (exp.ArrayFilter, exp.ArraySort)) or name_of(node) in _SELECTING:
        return True
    return isinstance(node, _ADDITIVE_SYNTAX) or rule_of(node) == "sum"


def branches(node: exp.Expr) -> list[exp.Expr] | None:
    """The values of ``CASE``/``IF``/``coalesce``, of which one is taken (None: not one)."""
    if isinstance(node, exp.Case):
        found = [i.args.get("true") for i in node.args.get("ifs") or []]
        found.append(node.args.get("default"))
    elif isinstance(node, exp.If):
        found = [node.args.get("true"), node.args.get("false")]
    elif isinstance(node, exp.Coalesce):
        found = [node.this, *node.expressions]
    else:
        return None
    return [b for b in found if b is not None]


#: A constant bound may reach this many times the cap (10 MB of text at the default cap).
_CONSTANT_HEADROOM = 1000
_fresh = counter()
_HOF_CLASS_NAMES: dict[type, str] = {
    exp.Transform: "transform",
    exp.ArrayFilter: "filter",
    exp.ArraySort: "array_sort",
    exp.Reduce: "aggregate",
}


def _literal_count(node: exp.Expr) -> int | None:
    """Elements of an array whose count the rule fixes (None: the data's)."""
    if isinstance(node, exp.Array):
        return len(node.expressions)
    if isinstance(node, exp.GenerateSeries) or name_of(node) == "array_repeat":
        return amplifier_size(node)
    return None


def _positional(node: exp.Expr) -> list[exp.Expr]:
    return [c for c in node.iter_expressions() if not isinstance(c, exp.Lambda)]


class _Sizer:
    """Computes :func:`value_size` for one tree, refusing at the first node out of bounds."""

    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx
        self.cap = ctx.policy.max_amplification

    def refuse(self, node: exp.Expr, why: str) -> PolicyError:
        return policy_error(self.ctx, f"{node.sql('spark')[:60]} {why}", node)

    def size(self, node: exp.Expr, env: dict[str, Poly]) -> Poly | None:
        found = self._size(node, env)
        if found is not None:
            self.check(node, found)
        return found

    def check(self, node: exp.Expr, found: Poly) -> None:
        if degree(found) > 1:
            raise self.refuse(
                node,
                f"builds a value whose size grows with the square of the data's (at most "
                f"{show(found)}, N the size of a value of the data): a copy of one value per "
                "element of another; compute it once outside the function",
            )
        if largest_coefficient(found) > self.cap:
            raise self.refuse(
                node,
                f"builds a value of up to {show(found)} (N the size of a value of the data): "
                f"over {self.cap:,} times the data, the policy's cap (max_amplification)",
            )
        if constant(found) > self.cap * _CONSTANT_HEADROOM:
            raise self.refuse(
                node, f"builds a value of up to {constant(found):,.0f} characters or elements"
            )

    def known(self, nodes: list[exp.Expr], env: dict[str, Poly], why: str) -> list[Poly]:
        """The sizes of ``nodes``; one without a declaration is refused, since ``why`` would
        multiply or iterate over it and its growth is unknown."""
        out = []
        for child in nodes:
            found = self.size(child, env)
            if found is None:
                raise self.refuse(
                    child,
                    f"has no size declaration, and {why}: its growth is unknown (declare it in "
                    "sql/allowed/catalogue.py or compute it outside)",
                )
            out.append(found)
        return out

    def _size(self, node: exp.Expr, env: dict[str, Poly]) -> Poly | None:
        if isinstance(node, exp.Column):
            key = node.table or node.name
            return env.get(key, var("N"))
        if isinstance(node, exp.Identifier):  # a name (a field's, a parameter's)
            return env.get(node.name, {})
        if isinstance(node, exp.Literal):
            return const(max(1, len(node.this)) if node.is_string else _FIXED)
        if isinstance(node, (exp.Subquery, exp.Select)):
            return self.subquery(node, env)
        if isinstance(node, exp.Pad) or (
            isinstance(node, exp.Substring) and int_value(node.args.get("length")) is not None
        ):
            key = "expression" if isinstance(node, exp.Pad) else "length"
            length = int_value(node.args.get(key))
            for child in _positional(node):
                self.size(child, env)
            return const(max(_FIXED, abs(length or 0)))
        if fixed_size(node):
            for child in node.iter_expressions():  # checked, but the value is fixed
                self.size(child, env)
            return const(_FIXED)
        found = branches(node)
        if found is not None:
            sizes = [self.size(b, env) for b in found]
            if isinstance(node, exp.Case):
                for cond in node.args.get("ifs") or []:
                    self.size(cond.this, env)
            elif isinstance(node, exp.If):
                self.size(node.this, env)
            return None if any(s is None for s in sizes) else bound_max(s for s in sizes if s)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            inner = self.size(node.this, env)
            target = node.to.sql("spark").upper() if node.to is not None else ""
            if target.startswith(FIXED_TYPES):
                return const(_FIXED)
            return None if inner is None else add(scale(inner, 32), const(_FIXED))
        if isinstance(node, exp.Lambda):
            return self.size(node.this, env)
        if hof_array(node) is not None or isinstance(node, exp.Reduce):
            return self.hof(node, env)
        rule = rule_of(node) or (
            "sum" if isinstance(node, (exp.AggFunc, *_ADDITIVE_SYNTAX)) else None
        )
        if rule is None:
            sizes = [self.size(c, env) for c in node.iter_expressions()]
            return None if sizes else const(_FIXED)
        if rule == "data":
            for child in node.iter_expressions():
                self.size(child, env)
            return var("N")
        if rule == "sum":
            sizes = [self.size(c, env) for c in node.iter_expressions()]
            known = [s for s in sizes if s is not None]
            return None if len(known) < len(sizes) else add(*known, const(_FIXED))
        head, _, tail = rule.partition(" ")
        parts = self.known(
            _positional(node), env, f"{name_of(node) or node.key} multiplies its size"
        )
        if head == "scale":
            return add(scale(add(*parts), int(tail)), const(_FIXED))
        if head == "product":
            index = int(tail)
            if index >= len(parts):
                return add(*parts, const(_FIXED))
            rest = [p for i, p in enumerate(parts) if i != index]
            return mul(add(parts[index], const(1)), add(*rest, const(1)))
        return self.amplified(node, parts)

    def amplified(self, node: exp.Expr, parts: list[Poly]) -> Poly:
        """``repeat``, ``array_repeat``, ``space``, ``sequence``, ``format_number``."""
        if isinstance(node, exp.ArrayInsert):  # pads with nulls up to its position: the cap
            return add(*parts, const(self.cap))  # past the end (contain_ranges guards it)
        times = amplifier_size(node)
        if times is None and name_of(node) == "format_number":
            args = _positional(node)
            times = int_value(args[1]) if len(args) > 1 else None
        if times is None:
            raise self.refuse(node, "needs an integer literal count (it can exhaust memory)")
        if isinstance(node, exp.GenerateSeries) or name_of(node) in ("space", "format_number"):
            return const((abs(times) + 1) * _FIXED)
        return mul(const(abs(times)), add(*parts, const(1)))

    def subquery(self, node: exp.Expr, env: dict[str, Poly]) -> Poly:
        """A subquery's value is one of its projections' (over a permitted view's data)."""
        select = node if isinstance(node, exp.Select) else node.this
        if not isinstance(select, exp.Select):
            return var("N")
        values = []
        for projection in select.expressions:
            values.append(self.size(projection, env) or var("N"))
        for clause in ("where", "having"):
            part = select.args.get(clause)
            if part is not None:
                self.size(part.this, env)
        return bound_max(values) if values else var("N")

    def hof(self, node: exp.Expr, env: dict[str, Poly]) -> Poly:
        """A higher-order function: its lambda's value summed over the elements."""
        name = name_of(node) or _HOF_CLASS_NAMES.get(type(node), "transform")
        values = _positional(node)
        lambdas = [c for c in node.iter_expressions() if isinstance(c, exp.Lambda)]
        two = name in ("zip_with", "map_zip_with")
        collections = values[:2] if two else values[:1]
        whole = add(*self.known(collections, env, f"{name} iterates over it"))
        counted = _literal_count(collections[0]) if len(collections) == 1 else None
        count = const(counted) if counted is not None else whole
        element = f"e{next(_fresh)}"
        if name in ("aggregate", "reduce"):
            return self.fold(node, values, lambdas, whole, count, element, env)
        if not lambdas:
            return whole  # array_sort without a comparator
        inner = dict(env)
        for param in lambdas[0].expressions:
            inner[param.name] = var(element)
        body = self.size(lambdas[0].this, inner)
        if name in ("exists", "forall"):
            return const(_FIXED)
        if name in ("filter", "array_sort", "map_filter"):
            return whole
        if body is None:
            raise self.refuse(lambdas[0], f"has no size declaration inside {name}")
        total = _summed(body, element, whole, count)
        if name in ("transform_keys", "transform_values", "map_zip_with"):
            total = add(total, whole)  # the other half of each entry is kept
        return total

    def fold(
        self,
        node: exp.Expr,
        values: list[exp.Expr],
        lambdas: list[exp.Lambda],
        whole: Poly,
        count: Poly,
        element: str,
        env: dict[str, Poly],
    ) -> Poly:
        """``aggregate(a, start, (acc, x) -> merge[, acc -> finish])``: the accumulator passes
        through the merge at most once and only through parts and concatenations (proven by
        ``bound_growth``), so each step adds the merge's value without it."""
        start_node = values[1] if len(values) > 1 else node.args.get("initial")
        start = (
            self.known([start_node], env, "aggregate folds it")[0] if start_node else const(_FIXED)
        )
        merge = lambdas[0] if lambdas else node.args.get("merge")
        total = start
        if isinstance(merge, exp.Lambda) and merge.expressions:
            inner = dict(env)
            params = list(merge.expressions)
            inner[params[0].name] = {}  # the accumulator itself is counted once, in start
            for param in params[1:]:
                inner[param.name] = var(element)
            body = self.size(merge.this, inner)
            if body is None:
                raise self.refuse(merge, "has no size declaration inside aggregate")
            total = add(start, _summed(body, element, whole, count))
            self.check(node, total)
        finish = lambdas[1] if len(lambdas) > 1 else node.args.get("finish")
        if isinstance(finish, exp.Lambda) and finish.expressions:
            done = self.size(finish.this, {**env, finish.expressions[0].name: total})
            if done is None:
                raise self.refuse(finish, "has no size declaration inside aggregate")
            return done
        return total


def _summed(body: Poly, element: str, whole: Poly, count: Poly) -> Poly:
    """The sum of ``body`` over the elements: ``element``'s power j over elements whose sizes
    add up to ``whole`` is at most ``whole``^j; the rest is counted once per element."""
    parts = split(body, element)
    total = mul(count, parts.get(0, {}))
    for exponent, coefficient in parts.items():
        if exponent:
            total = add(total, mul(coefficient, power(whole, exponent)))
    return total


def value_size(tree: exp.Expr, ctx: PassContext) -> Poly | None:
    """A bound of the size of ``tree``'s value, or a :class:`PolicyError` naming the first
    part that can grow past the policy's cap (None: the value of an undeclared function).

    >>> from quality_py.sql.parse import parse_expression
    >>> show(value_size(parse_expression("concat(upper(s), 'x')"), PassContext()))
    '3·N + 17'
    >>> try:
    ...     value_size(parse_expression("transform(a, x -> s)"), PassContext())
    ... except PolicyError as err:
    ...     print(err.message[:55])
    TRANSFORM(a, x -> s) builds a value whose size grows wi
    """
    return _Sizer(ctx).size(tree, {})
