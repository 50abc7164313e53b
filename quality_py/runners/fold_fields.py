"""The folder's fast path: fold each top-level field of the struct as its own column.

A step of the fold is ``IF(fired, output(prev), prev)``. Carried as one struct column, every
step rebuilds the whole struct, and ~100 fused steps make a whole-stage-codegen method the JIT
refuses to compile (benchmarks/README.md). When every output is a struct constructor (what
``set(...)``, ``update_field`` and ``drop_field`` expand to, or a hand-written
``named_struct``/``struct``) with one value per field, a step only needs, for each field it
changes, ``IF(fired, value, prev_field)``; fields it leaves alone pass through as column
references and cost nothing. Steps that do not read what an earlier step wrote share one
projection (one ``CASE`` per field, last writer first), because Spark charges ~100 ns per row
for every projection of a chain (measured: 100 fused projections of one ``CASE`` each take
10 s per million rows). The struct is built once, after the last projection.

This is only done when it provably keeps meaning:

* the starting struct is never null (so the ``IF(x IS NULL, NULL, ...)`` guard that
  ``update_field`` adds is always false and the state can never become null);
* each output's top level is a struct constructor with exactly as many values as the struct has
  fields (the per-step cast to the struct type matches fields by position, so does this).

Anything else (a null-able starter, an output like ``x -> IF(x.a > 0, x, NULL)``) returns None
and the caller folds whole structs.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from quality_py.sql.build import cast, field, named_struct, to_sql


@dataclass(frozen=True)
class FieldPlan:
    """Per-field fold: for each step, the fields it changes and their SQL; final struct SQL."""

    columns: tuple[str, ...]  # hidden column per top-level field, in struct order
    steps: tuple[tuple[tuple[str, str], ...], ...]  # per projection: the (column, SQL) it sets
    start: tuple[str, ...]  # SQL of each column's starting value, from the starter column
    result: exp.Expr  # named_struct of the final columns (before the nothing-fired guard)


def _struct_values(node: exp.Expr) -> list[exp.Expr] | None:
    """The values of a top-level struct constructor, in order, else None."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Anonymous) and node.name.lower() == "named_struct":
        args = node.expressions
        return list(args[1::2]) if len(args) % 2 == 0 else None
    if isinstance(node, exp.Struct):
        return [
            e.expression if isinstance(e, (exp.PropertyEQ, exp.Alias)) else e
            for e in node.expressions
        ]
    return None


def _strip_null_guard(node: exp.Expr, prev: str) -> exp.Expr:
    """``IF(prev IS NULL, NULL, s)`` as ``s``: the state is never null on this path."""
    while isinstance(node, exp.Paren):
        node = node.this
    if (
        isinstance(node, exp.If)
        and isinstance(node.args.get("true"), exp.Null)
        and isinstance(node.this, exp.Is)
        and isinstance(node.this.expression, exp.Null)
        and _is_prev(node.this.this, prev)
    ):
        other: exp.Expr = node.args["false"]
        return other
    return node


def _is_prev(node: exp.Expr, prev: str) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Column) and not node.table and node.name == prev


def _to_columns(body: exp.Expr, prev: str, names: list[str], columns: list[str]) -> exp.Expr:
    """Replace ``prev.name`` by that field's column and a bare ``prev`` by the rebuilt struct."""
    index = {n.lower(): i for i, n in enumerate(names)}

    def swap(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Dot) and _is_prev(node.this, prev):
            i = index.get(node.expression.name.lower())
            if i is not None:
                return exp.column(columns[i])
        if isinstance(node, exp.Column) and node.table == prev:
            i = index.get(node.name.lower())
            if i is not None:
                return exp.column(columns[i])
        if _is_prev(node, prev) and not isinstance(node, exp.Paren):
            return named_struct(*[(n, exp.column(c)) for n, c in zip(names, columns, strict=True)])
        return node

    return body.copy().transform(swap, copy=False)


def plan_fields(
    bodies: list[exp.Expr],
    prev: str,
    step_bodies: list[tuple[exp.Expr, int]],
    starter_column: str,
    fields: list[tuple[str, str]],
) -> FieldPlan | None:
    """A per-field fold, or None when it could change meaning (see the module docstring).

    ``bodies`` are the distinct outputs over the state variable ``prev``; ``step_bodies`` gives,
    per step in fold order, its fired condition and the index of its output; ``fields`` the
    starting struct's top-level ``(name, type DDL)`` and ``starter_column`` the column that
    holds the (already cast) starting struct.
    """
    names = [n for n, _ in fields]
    columns = [f"__qp_f{i}" for i in range(len(fields))]
    per_output: list[list[exp.Expr]] = []
    for body in bodies:
        values = _struct_values(_strip_null_guard(body, prev))
        if values is None or len(values) != len(fields):
            return None
        per_output.append([_to_columns(v, prev, names, columns) for v in values])
    writes: list[dict[int, exp.Expr]] = []  # per output: field index -> new value
    for values in per_output:
        changed = {}
        for i, value in enumerate(values):
            bare = value
            while isinstance(bare, exp.Paren):
                bare = bare.this
            if not (isinstance(bare, exp.Column) and not bare.table and bare.name == columns[i]):
                changed[i] = value  # anything but a pass-through of the field itself
        writes.append(changed)
    reads = [
        {
            columns.index(c.name)
            for v in w.values()
            for c in v.find_all(exp.Column)
            if not c.table and c.name in columns
        }
        for w in writes
    ]
    layers = _layers([(set(writes[o]), reads[o]) for _, o in step_bodies])
    steps: list[tuple[tuple[str, str], ...]] = []
    for layer in layers:
        layer_sets: list[tuple[str, str]] = []
        for i in sorted({i for k in layer for i in writes[step_bodies[k][1]]}):
            # the last writer in fold order wins, so its WHEN comes first
            ifs = [
                exp.If(
                    this=step_bodies[k][0].copy(),
                    true=cast(writes[step_bodies[k][1]][i].copy(), fields[i][1]),
                )
                for k in reversed(layer)
                if i in writes[step_bodies[k][1]]
            ]
            case = exp.Case(ifs=ifs, default=exp.column(columns[i]))
            layer_sets.append((columns[i], to_sql(case)))
        steps.append(tuple(layer_sets))
    start = tuple(to_sql(field(exp.column(starter_column), n)) for n in names)
    result = named_struct(*[(n, exp.column(c)) for n, c in zip(names, columns, strict=True)])
    return FieldPlan(tuple(columns), tuple(steps), start, result)


def _layers(steps: list[tuple[set[int], set[int]]]) -> list[list[int]]:
    """Group steps (fields written, fields read) into projections that keep the fold's meaning.

    Every step in a projection reads the state left by the previous projection, so a step goes
    after every earlier step that writes a field it reads; it may share a projection with
    earlier writers or readers of the fields it writes (its write must not be seen by them, and
    a shared field's last writer wins), but never go before them. Steps whose values come from
    the input rather than the folded state (defaulting, corrections) thus all fit in one
    projection; a chain of read-modify-write steps on one field needs one projection per link.

    >>> _layers([({0}, set()), ({1}, set()), ({0}, {0}), ({1}, set())])
    [[0, 1, 3], [2]]
    """
    level: list[int] = []
    for k, (writes, reads) in enumerate(steps):
        low = 0
        for i in range(k):
            before_w, before_r = steps[i]
            if before_w & reads:
                low = max(low, level[i] + 1)
            if before_w & writes or before_r & writes:
                low = max(low, level[i])
        level.append(low)
    out: list[list[int]] = [[] for _ in range(max(level, default=-1) + 1)]
    for k, lv in enumerate(level):
        out[lv].append(k)
    return out
