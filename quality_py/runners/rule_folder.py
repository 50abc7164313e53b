"""The rule folder: every fired trigger's output transforms a struct, in salience order.

Semantics (contract section 3.3): triggers that are exactly Passed fire; their outputs, one-
argument lambdas ``x -> <struct>``, are applied in ascending salience (ties in declaration
order), each receiving the previous struct (the starter for the first); nothing fired gives a
null ``result``. ``set(a = e1, b.c = e2)`` is sugar for
``currentResult -> update_field(currentResult, 'a', e1, 'b.c', e2)``. Debug mode returns every
step's ``(salience, struct)``.

The fold is one ``aggregate`` over the fired triggers (sorted at compile time) whose lambda holds
each distinct output once, so the SQL grows linearly with the number of rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from quality_py.errors import ModelError
from quality_py.model.ids import Id
from quality_py.model.policy import RulePolicy
from quality_py.model.results import PASSED, Layout
from quality_py.model.rules import OutputExpression, Rule, RuleSuite
from quality_py.runners.fold_fields import plan_fields
from quality_py.runners.staging import (
    StagedCodes,
    as_layout,
    require_new_columns,
    stage_rule_codes,
    type_oracle,
)
from quality_py.runners.triggers import salience_order
from quality_py.sql.build import call, cast, field, if_, lit, named_struct, paren, to_sql
from quality_py.sql.compiler import TypeOracle, compile_expression, compile_folder_output
from quality_py.sql.dq_struct import dq_struct, rendered
from quality_py.sql.lambdas import LambdaLibrary
from quality_py.sql.passes.inline_lambdas import substitute_params
from quality_py.sql.shapes import parse_shape

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType

_TRUSTED = RulePolicy.trusted_policy()


def _compile_outputs(
    suite: RuleSuite,
    lambdas: LambdaLibrary,
    starter_ddl: str,
    acc: str,
    type_of: TypeOracle | None = None,
) -> tuple[list[Id], list[exp.Expr]]:
    """Distinct outputs in first-use order, each as SQL over the accumulator variable ``acc``."""
    shape = parse_shape(starter_ddl)
    users: dict[Id, list[Rule]] = {}
    outputs: dict[Id, OutputExpression] = {}
    for _, _, rule in salience_order(suite, "folder"):
        assert rule.output is not None
        outputs.setdefault(rule.output.id, rule.output)
        users.setdefault(rule.output.id, []).append(rule)
    order = list(outputs)
    bodies = []
    for oid in order:
        param, compiled = compile_folder_output(
            outputs[oid],
            lambdas,
            shape,
            suite.policy,
            type_of,
            [r.id for r in users[oid]],
        )
        bodies.append(substitute_params(compiled, (param,), [exp.column(acc)]))
    return order, bodies


def folder_result(
    suite: RuleSuite,
    codes: list[exp.Expr],
    starter: exp.Expr,
    starter_ddl: str,
    lambdas: LambdaLibrary,
    *,
    debug: bool,
    type_of: TypeOracle | None = None,
) -> exp.Expr:
    """The folded struct (or the debug array) over the rules' result codes."""
    acc, step = "__qp_acc", "__qp_step"
    order, bodies = _compile_outputs(suite, lambdas, starter_ddl, acc, type_of)
    index = {oid: i for i, oid in enumerate(order)}
    triggers = [(flat, rule) for flat, _, rule in salience_order(suite, "folder")]
    fired_items = [
        if_(
            exp.EQ(this=codes[flat].copy(), expression=lit(PASSED)),
            named_struct(("o", lit(index[rule.output.id])), ("s", lit(rule.salience))),  # type: ignore[union-attr]
            exp.Null(),
        )
        for flat, rule in triggers
    ]
    keep = exp.Lambda(
        this=exp.Not(this=exp.Is(this=exp.column(step), expression=exp.Null())),
        expressions=[exp.to_identifier(step)],
    )
    fired = call("filter", call("array", *fired_items), keep) if fired_items else None
    step_ref = exp.column(step)

    def apply(previous: exp.Expr) -> exp.Expr:
        ifs = [
            exp.If(
                this=exp.EQ(this=field(step_ref, "o"), expression=lit(i)),
                true=cast(substitute_params(b.copy(), (acc,), [previous]), starter_ddl),
            )
            for i, b in enumerate(bodies)
        ]
        return exp.Case(ifs=ifs, default=cast(exp.Null(), starter_ddl))

    item_ddl = f"array<struct<salience:int,result:{starter_ddl}>>"
    if fired is None:
        return cast(exp.Null(), item_ddl if debug else starter_ddl)
    acc_ref = exp.column(acc)
    if debug:
        previous = if_(
            exp.EQ(this=call("size", acc_ref), expression=lit(0)),
            starter.copy(),
            field(call("element_at", acc_ref, lit(-1)), "result"),
        )
        entry = named_struct(("salience", field(step_ref, "s")), ("result", apply(previous)))
        merge = call("concat", acc_ref, call("array", entry))
        start = cast(call("array"), item_ddl)
    else:
        merge = apply(acc_ref)
        start = cast(paren(starter.copy()), starter_ddl)
    lam = exp.Lambda(this=merge, expressions=[exp.to_identifier(acc), exp.to_identifier(step)])
    folded = call("aggregate", fired, start, lam)
    # nothing fired: a null result, in debug mode too (not an empty array)
    return if_(
        exp.EQ(this=call("size", fired.copy()), expression=lit(0)),
        cast(exp.Null(), item_ddl if debug else starter_ddl),
        folded,
    )


def rule_folder_with_struct(
    df: DataFrame,
    suite: RuleSuite,
    starting_struct: str,
    name: str = "ruleFolder",
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> DataFrame:
    """``df`` with ``struct<ruleSuiteResults, result>`` appended as ``name``.

    ``starting_struct`` is SQL (e.g. ``"struct(account, amount)"``) evaluated per row; its type
    is the type of every step, so outputs must return structs of that type.

    Examples
    --------
    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> fix = OutputExpression(Id(9, 1), "set(amount = 0)")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
    ...     Rule(Id(3, 1), "amount < 0", output=fix)])])
    >>> df = spark.createDataFrame([("a", -5), ("b", 7)], "account string, amount int")
    >>> out = rule_folder_with_struct(df, suite, "struct(account, amount)")
    >>> [None if r.ruleFolder.result is None else r.ruleFolder.result.amount for r in out.collect()]
    [0, None]
    """
    from pyspark.sql import functions as F

    lay = as_layout(layout)

    def compile_starter(lambdas: LambdaLibrary) -> str:
        return to_sql(
            compile_expression(  # the caller's code, not rule text
                starting_struct, kind="starting struct", lambdas=lambdas, policy=_TRUSTED
            )
        )

    require_new_columns(df, name)
    type_of = type_oracle(df)
    staged = stage_rule_codes(df, suite, lambda c: [compile_starter(c.lambdas)], type_of)
    suite = staged.compiled.suite  # meta rule sets expanded, fallbacks resolved
    starter_sql = compile_starter(staged.compiled.lambdas)
    starter_field = staged.frame.selectExpr(starter_sql).schema.fields[0]
    starter_ddl = starter_field.dataType.simpleString()
    if not starter_ddl.startswith("struct<"):
        raise ModelError(f"the starting struct must be a struct, got {starter_ddl}")
    dq = dq_struct(suite, staged.code_refs(), staged.families, lay)
    if debug:  # every step's struct is kept, so the single-expression fold is used
        result = folder_result(
            suite,
            staged.code_refs(),
            rendered(starter_sql),
            starter_ddl,
            staged.compiled.lambdas,
            debug=True,
            type_of=type_of,
        )
        struct = named_struct(("ruleSuiteResults", dq), ("result", result))
        return staged.finish(F.expr(to_sql(struct)).alias(name))
    return _fold_narrow(staged, dq, starter_sql, starter_field, type_of, name)


def _fold_narrow(
    staged: StagedCodes,
    dq: exp.Expr,
    starter_sql: str,
    starter_field: Any,
    type_of: TypeOracle,
    name: str,
) -> DataFrame:
    """The fold on a narrow row: the input's columns, the finished data-quality struct and one
    array of fired flags, instead of two hidden columns per rule (above 100 columns Spark stops
    whole-stage codegen and every step would copy the whole row)."""
    from pyspark.sql import functions as F

    suite = staged.compiled.suite
    starter_ddl = starter_field.dataType.simpleString()
    triggers = [(flat, rule) for flat, _, rule in salience_order(suite, "folder")]
    codes = staged.code_refs()
    fired = [exp.EQ(this=codes[flat].copy(), expression=lit(PASSED)) for flat, _ in triggers]
    # (columns are never selected by name: a join's input may repeat a name)
    frame = staged.frame.selectExpr(
        "*",
        to_sql(exp.alias_(dq, "__qp_dq")),
        to_sql(exp.alias_(call("array", *fired) if fired else call("array"), "__qp_fired")),
        to_sql(exp.alias_(cast(rendered(starter_sql), starter_ddl), "__qp_s0")),
    ).drop(*staged.hidden)
    fields = None  # a never-null starter lets the fold carry one column per field
    if not starter_field.nullable:
        fields = [(f.name, f.dataType.simpleString()) for f in starter_field.dataType.fields]
    fired_refs: list[exp.Expr] = [
        exp.Bracket(this=exp.column("__qp_fired"), expressions=[lit(k)])
        for k in range(len(triggers))
    ]
    frame, result, hidden = _fold_in_projections(
        frame, suite, fired_refs, starter_ddl, staged.compiled.lambdas, fields, type_of
    )
    struct = named_struct(("ruleSuiteResults", exp.column("__qp_dq")), ("result", result))
    out = frame.select("*", F.expr(to_sql(struct)).alias(name))
    return out.drop("__qp_dq", "__qp_fired", *hidden)


def _fold_in_projections(
    frame: DataFrame,
    suite: RuleSuite,
    fired_at: list[exp.Expr],
    ddl: str,
    lambdas: LambdaLibrary,
    fields: list[tuple[str, str]] | None,
    type_of: TypeOracle | None = None,
) -> tuple[DataFrame, exp.Expr, list[str]]:
    """The fold as one projection per fired-trigger step, like a hand-written ``withField`` chain.

    ``frame`` holds the cast starting struct as ``__qp_s0``; ``fired_at`` is each step's fired
    condition, in fold order. Spark generates code for each step; the single-expression
    ``aggregate`` fold is interpreted and, fused into a whole-stage-codegen stage, was ~15x
    slower (benchmarks/README.md). When ``fields`` (the never-null starter's top-level fields)
    is given and every output is a struct constructor, each field is folded as its own column
    instead (fold_fields.py). Returns the frame with the last step's state in hidden columns,
    the result expression (null when nothing fired) and the hidden column names.
    """
    from pyspark.sql import functions as F

    prev = "__qp_prev"
    order, bodies = _compile_outputs(suite, lambdas, ddl, prev, type_of)
    index = {oid: i for i, oid in enumerate(order)}
    triggers = [rule for _, _, rule in salience_order(suite, "folder")]
    state = "__qp_s0"
    if not triggers:
        return frame, cast(exp.Null(), ddl), [state]
    any_fired = call("array_contains", exp.column("__qp_fired"), exp.true())
    outputs = [index[r.output.id] for r in triggers]  # type: ignore[union-attr]
    plan = None
    if fields:
        plan = plan_fields(bodies, prev, list(zip(fired_at, outputs, strict=True)), state, fields)
    if plan is not None:
        frame = frame.select(
            "*",
            *[F.expr(sql).alias(col) for col, sql in zip(plan.columns, plan.start, strict=True)],
        ).drop(state)
        for changed in plan.steps:
            if changed:
                frame = frame.withColumns({col: F.expr(sql) for col, sql in changed})
        return frame, if_(any_fired, plan.result, cast(exp.Null(), ddl)), list(plan.columns)
    for k, (fired, out) in enumerate(zip(fired_at, outputs, strict=True)):
        body = substitute_params(bodies[out].copy(), (prev,), [exp.column(state)])
        step = if_(fired.copy(), cast(body, ddl), exp.column(state))
        nxt = f"__qp_s{k + 1}"
        frame = frame.select("*", F.expr(to_sql(step)).alias(nxt)).drop(state)
        state = nxt
    return frame, if_(any_fired, exp.column(state), cast(exp.Null(), ddl)), [state]


def rule_folder_runner(
    suite: RuleSuite,
    starting_struct: str,
    struct_type: str | DataType,
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> Column:
    """The folder's struct as one Column; ``struct_type`` is the starting struct's type.

    A Column carries no schema, so the type must be given (``update_field`` rebuilds structs from
    it). Prefer :func:`rule_folder_with_struct`, which reads it from the DataFrame.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> fix = OutputExpression(Id(9, 1), "set(a = 0)")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a < 0", output=fix)])])
    >>> column = rule_folder_runner(suite, "struct(a)", "struct<a:int>").alias("f")
    >>> spark.createDataFrame([(-5,)], "a int").select(column).first().f.result.a
    0
    """
    from pyspark.sql import functions as F

    from quality_py.runners.rule_engine import result_ddl
    from quality_py.sql.compiler import compile_suite, rule_code

    ddl = result_ddl(struct_type).lower()
    compiled = compile_suite(suite)
    codes = [rendered(to_sql(rule_code(r))) for r in compiled.rules]
    starter = to_sql(
        compile_expression(
            starting_struct, kind="starting struct", lambdas=compiled.lambdas, policy=_TRUSTED
        )
    )
    result = folder_result(
        suite, codes, rendered(f"CAST({starter} AS {ddl})"), ddl, compiled.lambdas, debug=debug
    )
    families: list[str | None] = ["code" if r.coded else None for r in compiled.rules]
    struct = named_struct(
        ("ruleSuiteResults", dq_struct(suite, codes, families, as_layout(layout))),
        ("result", result),
    )
    return F.expr(to_sql(struct))


def fold_and_replace_fields(
    df: DataFrame,
    suite: RuleSuite,
    fields: list[str],
    fold_field_name: str = "foldedFields",
    *,
    debug: bool = False,
    maintain_order: bool = True,
    layout: Layout | str = Layout.MAP,
) -> DataFrame:
    """Fold ``fields`` as a struct and replace them by the folded values.

    Unmatched rows get null in every replaced field. With ``maintain_order`` the original column
    order is kept and ``fold_field_name`` is last; otherwise the untouched columns come first, then
    ``fold_field_name``, then the replaced fields.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> fix = OutputExpression(Id(9, 1), "set(a = 0)")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a < 0", output=fix)])])
    >>> df = spark.createDataFrame([(-5, "x")], "a int, b string")
    >>> row = fold_and_replace_fields(df, suite, ["a"]).first()
    >>> row.a, row.b
    (0, 'x')
    """
    from pyspark.sql import functions as F

    starter = to_sql(call("struct", *[exp.column(f, quoted=True) for f in fields]))
    folded = rule_folder_with_struct(
        df, suite, starter, fold_field_name, debug=debug, layout=layout
    )
    result = F.col(f"`{fold_field_name}`.result")
    if debug:
        result = F.expr(f"try_element_at(`{fold_field_name}`.result, -1).result")
    replaced = {f: result.getField(f).alias(f) for f in fields}
    if maintain_order:
        cols = [replaced.get(c, F.col(f"`{c}`")) for c in df.columns]
        return folded.select(*cols, F.col(f"`{fold_field_name}`"))
    others = [F.col(f"`{c}`") for c in df.columns if c not in replaced]
    return folded.select(*others, F.col(f"`{fold_field_name}`"), *replaced.values())


def rule_folder(
    suite: RuleSuite,
    starting_struct: str,
    name: str = "ruleFolder",
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> Callable[[DataFrame], DataFrame]:
    """Curried :func:`rule_folder_with_struct`: ``df.transform(rule_folder(suite, "struct(a)"))``.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> fix = OutputExpression(Id(9, 1), "set(a = 0)")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a < 0", output=fix)])])
    >>> df = spark.createDataFrame([(-5,)], "a int")
    >>> df.transform(rule_folder(suite, "struct(a)")).first().ruleFolder.result.a
    0
    """
    return lambda df: rule_folder_with_struct(
        df, suite, starting_struct, name, debug=debug, layout=layout
    )


def folded_fields(
    suite: RuleSuite,
    fields: list[str],
    fold_field_name: str = "foldedFields",
    *,
    debug: bool = False,
    maintain_order: bool = True,
    layout: Layout | str = Layout.MAP,
) -> Callable[[DataFrame], DataFrame]:
    """Curried :func:`fold_and_replace_fields` for ``df.transform(folded_fields(suite, ["a"]))``.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> fix = OutputExpression(Id(9, 1), "set(a = 0)")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a < 0", output=fix)])])
    >>> spark.createDataFrame([(-5,)], "a int").transform(folded_fields(suite, ["a"])).first().a
    0
    """
    return lambda df: fold_and_replace_fields(
        df,
        suite,
        fields,
        fold_field_name,
        debug=debug,
        maintain_order=maintain_order,
        layout=layout,
    )
