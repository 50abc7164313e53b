"""Contain the casts Spark adds itself: ``s > 5`` with ``s`` a string column.

Under ANSI mode Spark compares a string with a number by casting the string, and one value
that is not a number aborts the job. The syntactic rewrite (sql/passes/contain_errors.py) cannot
see this: the cast is implicit and depends on the column's type. Here Spark tells us the types:
every operand of a comparison, arithmetic, ``IN`` or ``BETWEEN`` is analysed once against the
data (one projection, no job), and where a string meets a number, date, timestamp or boolean,
the string side becomes ``try_cast(<side> AS <other type>)``, which is what Spark does without
ANSI. Operands that use lambda variables or subqueries are left alone.

Functions cast their arguments the same way: ``abs(s)``, ``year(s)``, ``date_add(s, 1)`` with
``s`` a string column cast ``s`` to DOUBLE, DATE or TIMESTAMP, and ``'abc'`` aborts the job.
:data:`FUNCTION_ARGUMENTS` lists, per function, the arguments Spark casts and to what (measured
on Spark 4: the error names the target type); a string argument becomes ``try_cast(arg AS
target)``. ``extract``/``date_part`` of text are not covered (their target depends on the unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from quality_py.errors import RuleAnalysisError, item_text
from quality_py.runners.frames import select_exprs
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


_MATH = (
    exp.Abs, exp.Sqrt, exp.Ln, exp.Exp, exp.Floor, exp.Ceil, exp.Sign, exp.Cbrt, exp.Degrees,
    exp.Radians, exp.Sin, exp.Cos, exp.Tan, exp.Asin, exp.Acos, exp.Atan, exp.Sinh, exp.Cosh,
    exp.Tanh, exp.Cot, exp.Sec, exp.Csc, exp.Rint, exp.Negative, exp.IsNan,
)  # fmt: skip
_DATE_PARTS = (
    exp.Year, exp.Month, exp.DayOfMonth, exp.Day, exp.DayOfWeek, exp.DayOfYear, exp.Quarter,
    exp.WeekOfYear, exp.LastDay, exp.NextDay, exp.DateTrunc, exp.TsOrDsAdd, exp.AddMonths,
)  # fmt: skip
#: Function node -> (argument key, the type Spark casts a string argument to).
FUNCTION_ARGUMENTS: dict[type, tuple[tuple[str, str], ...]] = {
    **dict.fromkeys(_MATH, (("this", "double"),)),
    exp.Round: (("this", "double"),),
    exp.Pow: (("this", "double"), ("expression", "double")),
    exp.Log: (("this", "double"), ("expression", "double")),
    exp.Atan2: (("this", "double"), ("expression", "double")),
    exp.Nanvl: (("this", "double"), ("expression", "double")),
    exp.WidthBucket: (("this", "double"), ("min_value", "double"), ("max_value", "double")),
    **dict.fromkeys(_DATE_PARTS, (("this", "date"),)),
    exp.DateDiff: (("this", "date"), ("expression", "date")),
    exp.Hour: (("this", "timestamp"),),
    exp.Minute: (("this", "timestamp"),),
    exp.Second: (("this", "timestamp"),),
    exp.TimestampTrunc: (("this", "timestamp"),),
    exp.MonthsBetween: (("this", "timestamp"), ("expression", "timestamp")),
    exp.Factorial: (("this", "int"),),
    exp.Substring: (("start", "int"), ("length", "int")),
    exp.Left: (("expression", "int"),),
    exp.Right: (("expression", "int"),),
}
#: The same for functions sqlglot keeps as plain calls: name -> (position, type).
CALL_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    "bround": ((0, "double"),),
    "positive": ((0, "double"),),
    "hypot": ((0, "double"), (1, "double")),
    "log1p": ((0, "double"),),
    "expm1": ((0, "double"),),
    "weekday": ((0, "date"),),
    "date_format": ((0, "timestamp"),),
    "bin": ((0, "bigint"),),
    "from_unixtime": ((0, "bigint"),),
}


def _cast_arguments(tree: exp.Expr) -> list[tuple[exp.Expr, str]]:
    """Arguments that Spark casts to a fixed type (when they are text), with that type."""
    out: list[tuple[exp.Expr, str]] = []
    for node in tree.walk():
        for key, target in FUNCTION_ARGUMENTS.get(type(node), ()):
            arg = node.args.get(key)
            if isinstance(arg, exp.Expr) and not isinstance(arg, exp.Literal):
                out.append((arg, target))
        if isinstance(node, exp.Anonymous):
            for position, target in CALL_ARGUMENTS.get(node.name.lower(), ()):
                if position < len(node.expressions):
                    out.append((node.expressions[position], target))
    return [(_unwrapped(arg), target) for arg, target in out if _analysable(_unwrapped(arg))]


def _unwrapped(arg: exp.Expr) -> exp.Expr:
    """The argument as written: sqlglot wraps date arguments in a formatless to-date node."""
    while isinstance(arg, (exp.TsOrDsToDate, exp.TsOrDsToTimestamp)) and not arg.args.get("format"):
        arg = arg.this
    return arg


def _pairs(tree: exp.Expr) -> list[tuple[exp.Expr, exp.Expr]]:
    out: list[tuple[exp.Expr, exp.Expr]] = []
    for node in tree.walk():
        if isinstance(node, _PAIRED):
            out.append((node.this, node.expression))
        elif isinstance(node, exp.In) and not node.args.get("query"):
            out += [(node.this, e) for e in node.expressions]
        elif isinstance(node, exp.Between):
            out += [(node.this, node.args["low"]), (node.this, node.args["high"])]
        elif _try_arithmetic(node):
            out.append((node.expressions[0], node.expressions[1]))
    return out


#: The forms the containment pass gives ``+ - * /`` (sql/passes/contain_errors.py).
_TRY_ARITHMETIC = frozenset({"try_add", "try_subtract", "try_multiply", "try_divide"})


def _try_arithmetic(node: exp.Expr) -> bool:
    return (
        isinstance(node, exp.Anonymous)
        and node.name.lower() in _TRY_ARITHMETIC
        and len(node.expressions) == 2
    )


def _analysable(node: exp.Expr) -> bool:
    if isinstance(node, exp.Literal) or node.find(exp.Select, exp.Subquery):
        return False
    if any(isinstance(c.this, exp.Distinct) for w in node.find_all(exp.Window)
           for c in w.find_all(exp.Count)):  # fmt: skip
        return False  # a count of distinct values (a number), which Spark has no window form of
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


#: Nodes whose value is never text in Spark (arithmetic on text yields a number, a comparison a
#: boolean), so a pair of them needs no analysis.
_NEVER_TEXT = (*_PAIRED, exp.IntDiv, exp.Neg, exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between)


#: Functions of :data:`FUNCTION_ARGUMENTS` that return a number, date or timestamp.
_NUMERIC_OR_TIME_FUNCTIONS = frozenset(FUNCTION_ARGUMENTS) - {exp.Substring, exp.Left, exp.Right}


def _never_text(node: exp.Expr, schema: dict[str, str]) -> bool:
    """Whether ``node`` cannot be text, known without asking Spark: a number, arithmetic, a
    comparison, or a top-level input column whose type is not a string. Anything else (functions,
    nested fields, unknown names) is analysed."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal):
        return not node.is_string
    if isinstance(node, _NEVER_TEXT) or type(node) in _NUMERIC_OR_TIME_FUNCTIONS:
        return True
    if _try_arithmetic(node):
        return True
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        if node.table and node.table.lower() != "main":
            return False
        kind = schema.get(node.name.lower())
        return kind is not None and kind != "string" and not kind.startswith(("varchar", "char"))
    return False


def _schema_types(frame: DataFrame) -> dict[str, str]:
    """Top-level column name (lower case) -> Spark type; ambiguous names are left out."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for field in frame.schema.fields:
        key = field.name.lower()
        if key in seen:
            out.pop(key, None)
            continue
        seen.add(key)
        out[key] = field.dataType.simpleString()
    return out


def _candidates(
    tree: exp.Expr, schema: dict[str, str]
) -> tuple[list[tuple[exp.Expr, exp.Expr]], list[tuple[exp.Expr, str]]]:
    """The pairs and cast arguments of ``tree`` that may involve text (the rest need nothing)."""
    pairs = [
        (a, b)
        for a, b in _pairs(tree)
        if not (_never_text(a, schema) and _never_text(b, schema))  # cheap: asked first
        and (_analysable(a) or _analysable(b))
    ]
    arguments = [(arg, t) for arg, t in _cast_arguments(tree) if not _never_text(arg, schema)]
    return pairs, arguments


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
        named = [f"{s} AS `c{i}`" for i, s in enumerate(sqls)]
        fields = select_exprs(frame, named).schema.fields
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
    Found = tuple[exp.Expr, list[tuple[exp.Expr, exp.Expr]], list[tuple[exp.Expr, str]]]
    per_rule: list[Found | None] = []
    schema = _schema_types(frame)
    for rule in compiled.rules:
        pairs, arguments = _candidates(rule.tree, schema)
        if not pairs and not arguments:
            per_rule.append(None)
            continue
        tree = rule.tree.copy()  # the same walk over the copy finds the same nodes
        pairs, arguments = _candidates(tree, schema)
        for a, b in pairs:
            for side in (a, b):
                if _analysable(side):
                    candidates.setdefault(to_sql(side))
        for arg, _ in arguments:
            candidates.setdefault(to_sql(arg))
        per_rule.append((tree, pairs, arguments))
    if not candidates:
        return compiled
    types = _types_of(frame, list(candidates))
    changed = False
    rules = []
    for rule, found in zip(compiled.rules, per_rule, strict=True):
        if found is None:
            rules.append(rule)
            continue
        tree, pairs, arguments = found
        kinds = {id(arg): _kind(arg, types) for arg, _ in arguments}  # before any replacement
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
        for arg, target in arguments:
            if kinds[id(arg)] == "string" and arg.parent is not None:
                arg.replace(exp.TryCast(this=arg.copy(), to=exp.DataType.build(target), safe=True))
                changed = True
        rules.append(replace(rule, tree=tree))
    return replace(compiled, rules=tuple(rules)) if changed else compiled


def _advice(side: str, target: str) -> str:
    """The explicit conversion to write for text ``side`` meeting a ``target`` value."""
    base = target.split("(")[0]
    if base in ("date", "timestamp", "timestamp_ntz"):
        fn = "to_date" if base == "date" else "to_timestamp"
        return f"TRY_CAST({side} AS {base.upper()}) or {fn}({side}, '<its pattern>')"
    if base == "boolean":
        return f"TRY_CAST({side} AS BOOLEAN)"
    return f"TRY_CAST({side} AS DOUBLE), or TRY_CAST({side} AS DECIMAL(p, s)) for exact amounts"


def coercions(frame: DataFrame, trees: Sequence[exp.Expr]) -> list[list[str]]:
    """For each tree, the operands read from data that Spark casts from text to another type
    when they meet a number, date, timestamp or boolean, each as a sentence naming the column,
    its type and the conversion to write (a string ``amount`` compared with ``0`` is cast to
    BIGINT, so ``'613.86'`` becomes null and fails).

    >>> frame = spark.createDataFrame([("1.5", 2)], "amount string, n int")
    >>> from quality_py.sql.parse import parse_expression
    >>> coercions(frame, [parse_expression("amount > 0"), parse_expression("n > 0")])[1]
    []
    >>> coercions(frame, [parse_expression("amount > 0")])[0][0][:40]
    'amount is text (string) and meets 0, a b'
    """
    per_tree = []
    candidates: dict[str, None] = {}
    schema = _schema_types(frame)
    for tree in trees:
        pairs, arguments = _candidates(tree, schema)
        for a, b in pairs:
            for side in (a, b):
                if _analysable(side):
                    candidates.setdefault(to_sql(side))
        for arg, _ in arguments:
            candidates.setdefault(to_sql(arg))
        per_tree.append((pairs, arguments))
    types = _types_of(frame, list(candidates)) if candidates else {}
    out = []
    for pairs, arguments in per_tree:
        notes = []
        for arg, target in arguments:
            kind = _kind(arg, types)
            if kind == "string":
                parent = arg.parent
                function = parent.sql("spark").split("(")[0] if parent is not None else "a function"
                notes.append(
                    f"{to_sql(arg)} is text ({kind}) and {function} reads it as {target}: Spark "
                    "would convert the text itself and a value that is not one becomes null, "
                    "so the rule fails; write the conversion you mean: "
                    + _advice(to_sql(arg), target)
                )
        for a, b in pairs:
            ta, tb = _kind(a, types), _kind(b, types)
            for side, mine, other, partner in ((a, ta, tb, b), (b, tb, ta, a)):
                target = (other or "").split("(")[0]
                if mine == "string" and target in _TARGETS and not isinstance(side, exp.Literal):
                    notes.append(
                        f"{to_sql(side)} is text (string) and meets {to_sql(partner)}, a "
                        f"{other}: Spark would convert the text to {other} by itself ('613.86' "
                        f"compared with 0 becomes a BIGINT, null, and fails), so the rule would "
                        f"answer another question; write the conversion you mean: "
                        f"{_advice(to_sql(side), str(other))}"
                    )
        out.append(list(dict.fromkeys(notes)))
    return out


def refuse_implicit_casts(frame: DataFrame, compiled: CompiledSuite) -> None:
    """Refuse every rule in which text from the data meets a number, date, timestamp or boolean
    (unless the policy allows Spark's conversion): one error listing each rule and operand."""
    rules = compiled.rules
    # The text as written (``year(s)`` before the passes make it ``year(try_cast(s AS DATE))``)
    # and as compiled (lambdas inlined, library functions expanded): both, once each.
    trees = [r.parsed if r.parsed is not None else r.tree for r in rules]
    found = coercions(frame, [*trees, *(r.tree for r in rules)])
    written, compiled_ = found[: len(rules)], found[len(rules) :]
    merged = [list(dict.fromkeys(a + b)) for a, b in zip(written, compiled_, strict=True)]
    bad = [(rule, notes) for rule, notes in zip(rules, merged, strict=True) if notes]
    if not bad:
        return
    lines = [f"{item_text('rule', r.rule_id, r.name)}: {n}" for r, notes in bad for n in notes]
    first = bad[0][0]
    err = RuleAnalysisError(
        f"{len(bad)} rule(s) compare text with another type:\n  "
        + "\n  ".join(lines)
        + "\n(RulePolicy(allow_implicit_casts=True) lets Spark convert and fails the rows "
        "whose text is no such value)",
        item_id=first.rule_id,
        source=first.source,
        code="IMPLICIT_CAST",
    )
    err.item_name = first.name
    raise err


def refuse_in_outputs(frame: DataFrame, outputs: Sequence[tuple[Any, exp.Expr]]) -> None:
    """Refuse rule-engine outputs in which text from the data meets a number or date (the same
    conversion :func:`refuse_implicit_casts` refuses in rules), naming each output."""
    found = coercions(frame, [tree for _, tree in outputs])
    pairs = zip(outputs, found, strict=True)
    lines = [f"{item_text('output', oid)}: {note}" for (oid, _), notes in pairs for note in notes]
    if lines:
        first = next(oid for (oid, _), notes in zip(outputs, found, strict=True) if notes)
        raise RuleAnalysisError(
            f"{len(lines)} output operand(s) compare text with another type:\n  "
            + "\n  ".join(lines)
            + "\n(RulePolicy(allow_implicit_casts=True) lets Spark convert)",
            item_id=first,
            item_kind="output",
            code="IMPLICIT_CAST",
        )


def apply_if_enabled(frame: DataFrame, compiled: CompiledSuite) -> Any:
    """Refuse text meeting other types (:func:`refuse_implicit_casts`) unless the policy allows
    implicit casts; then :func:`contain_implicit_casts` unless it turned containment off."""
    if not compiled.policy.allow_implicit_casts:
        refuse_implicit_casts(frame, compiled)
        return compiled
    if not compiled.policy.contain_errors:
        return compiled
    return contain_implicit_casts(frame, compiled)
