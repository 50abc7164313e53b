"""Contain the casts Spark adds itself: ``s > 5`` with ``s`` a string column.

Under ANSI mode Spark compares a string with a number by casting the string, and one value
that is not a number aborts the job. The syntactic rewrite (sql/passes/contain_errors.py) cannot
see this: the cast is implicit and depends on the column's type. Here Spark tells us the types:
every operand of a comparison, arithmetic, ``IN`` or ``BETWEEN`` is analysed once against the
data (one projection, no job), and where a string meets a number, date, timestamp or boolean,
the string side becomes ``try_cast(<side> AS <other type>)``, which is what Spark does without
ANSI. Operands that use lambda variables or subqueries are left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from quality_py.sql.build import to_sql

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from quality_py.sql.compiler import CompiledSuite

_PAIRED = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
)
_TARGETS = (
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "decimal",
    "date",
    "timestamp",
    "timestamp_ntz",
    "boolean",
)


def _pairs(tree: exp.Expr) -> list[tuple[exp.Expr, exp.Expr]]:
    out: list[tuple[exp.Expr, exp.Expr]] = []
    for node in tree.walk():
        if isinstance(node, _PAIRED):
            out.append((node.this, node.expression))
        elif isinstance(node, exp.In) and not node.args.get("query"):
            out += [(node.this, e) for e in node.expressions]
        elif isinstance(node, exp.Between):
            out += [(node.this, node.args["low"]), (node.this, node.args["high"])]
    return out


def _analysable(node: exp.Expr) -> bool:
    if isinstance(node, exp.Literal) or node.find(exp.Select, exp.Subquery):
        return False
    if node.find_ancestor(exp.Select, exp.Subquery) is not None:
        return False  # a subquery's own columns are not the input's
    bound = set()
    parent = node.parent
    while parent is not None:
        if isinstance(parent, exp.Lambda):
            bound |= {e.name.lower() for e in parent.expressions}
        parent = parent.parent
    inner = {e.name.lower() for lam in node.find_all(exp.Lambda) for e in lam.expressions}
    names = {c.parts[0].name.lower() for c in node.find_all(exp.Column) if c.parts}
    return not (names & (bound - inner))


def _kind(node: exp.Expr, types: dict[str, str]) -> str | None:
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "string"
        return "bigint" if node.this.lstrip("-").isdigit() else "double"  # as ANSI casts to
    return types.get(to_sql(node))


def _types_of(frame: DataFrame, sqls: list[str]) -> dict[str, str]:
    """Spark's type of each operand (one analysis; operand by operand only when that fails, so
    one operand Spark cannot type never switches containment off for the others)."""
    try:
        fields = frame.selectExpr(*[f"{s} AS `c{i}`" for i, s in enumerate(sqls)]).schema.fields
        return {s: f.dataType.simpleString() for s, f in zip(sqls, fields, strict=True)}
    except Exception:
        pass
    types = {}
    for sql in sqls:
        try:
            types[sql] = frame.selectExpr(f"{sql} AS `c`").schema.fields[0].dataType.simpleString()
        except Exception:
            continue  # the rule itself is diagnosed by the analysis that follows
    return types


def contain_implicit_casts(frame: DataFrame, compiled: CompiledSuite) -> CompiledSuite:
    """``compiled`` with each string operand that Spark would cast under ANSI made a try_cast."""
    candidates: dict[str, None] = {}
    per_rule = []
    for rule in compiled.rules:
        tree = rule.tree.copy()
        pairs = [(a, b) for a, b in _pairs(tree) if _analysable(a) or _analysable(b)]
        for a, b in pairs:
            for side in (a, b):
                if _analysable(side):
                    candidates.setdefault(to_sql(side))
        per_rule.append((tree, pairs))
    if not candidates:
        return compiled
    types = _types_of(frame, list(candidates))
    changed = False
    rules = []
    for rule, (tree, pairs) in zip(compiled.rules, per_rule, strict=True):
        for a, b in pairs:
            ta, tb = _kind(a, types), _kind(b, types)
            for side, mine, other in ((a, ta, tb), (b, tb, ta)):
                if (
                    mine == "string"
                    and other
                    and other.split("(")[0] in _TARGETS
                    and not isinstance(side, exp.Literal)
                ):
                    side.replace(
                        exp.TryCast(this=side.copy(), to=exp.DataType.build(other), safe=True)
                    )
                    changed = True
        rules.append(replace(rule, tree=tree))
    return replace(compiled, rules=tuple(rules)) if changed else compiled


def coercions(frame: DataFrame, trees: Sequence[exp.Expr]) -> list[list[str]]:
    """For each tree, the operands read from data that Spark casts from text to another type
    when they meet a number, date, timestamp or boolean (validation reports them: a string
    ``amount`` compared with ``0`` is cast to BIGINT, so ``'613.86'`` becomes null and fails).

    >>> frame = spark.createDataFrame([("1.5", 2)], "amount string, n int")
    >>> from quality_py.sql.parse import parse_expression
    >>> coercions(frame, [parse_expression("amount > 0"), parse_expression("n > 0")])[1]
    []
    >>> coercions(frame, [parse_expression("amount > 0")])[0][0][:40]
    'amount is text (string) and meets a bigi'
    """
    per_tree = []
    candidates: dict[str, None] = {}
    for tree in trees:
        pairs = [(a, b) for a, b in _pairs(tree) if _analysable(a) or _analysable(b)]
        for a, b in pairs:
            for side in (a, b):
                if _analysable(side):
                    candidates.setdefault(to_sql(side))
        per_tree.append(pairs)
    types = _types_of(frame, list(candidates)) if candidates else {}
    out = []
    for pairs in per_tree:
        notes = []
        for a, b in pairs:
            ta, tb = _kind(a, types), _kind(b, types)
            for side, mine, other in ((a, ta, tb), (b, tb, ta)):
                target = (other or "").split("(")[0]
                if mine == "string" and target in _TARGETS and not isinstance(side, exp.Literal):
                    notes.append(
                        f"{to_sql(side)} is text (string) and meets a {other}: Spark casts the "
                        f"text to {other} and a value that is not one becomes null, so the rule "
                        "fails; cast it yourself to the type you mean"
                    )
        out.append(list(dict.fromkeys(notes)))
    return out


def apply_if_enabled(frame: DataFrame, compiled: CompiledSuite) -> Any:
    """:func:`contain_implicit_casts` unless the policy turned containment off."""
    if not compiled.policy.contain_errors:
        return compiled
    return contain_implicit_casts(frame, compiled)
