"""The rule engine: trigger rules pick one output expression by salience (an auditable CASE).

Semantics (contract section 3.2): every rule is a trigger and is also evaluated as a data-quality
rule; only triggers whose result is exactly Passed fire; the lowest salience wins, ties go to the
lowest (rule set id, rule id) (the original: declaration order, which rule tables do not keep, so
the same rules would pick another winner once converted); nothing fired gives a null
``salientRule`` and ``result``; a winner whose output is null gives ``salientRule`` set and
``result`` null. Debug mode returns every
fired trigger's ``(salience, result)`` in salience order instead, with ``salientRule`` null;
entries whose output is null are left out and a row with no entry left gets a null array.

The triggers are sorted by (salience, rule set id, rule id) at compile time, so the winner is the
first true branch of one ``CASE``: Spark evaluates only the winning output for a row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlglot import exp

from quality_py.errors import ModelError
from quality_py.model.ids import Id
from quality_py.model.results import PASSED, Layout
from quality_py.model.rules import Rule, RuleSuite
from quality_py.runners.staging import (
    as_layout,
    require_new_columns,
    stage_rule_codes,
    type_oracle,
)
from quality_py.runners.triggers import salience_order
from quality_py.sql.build import bigint, call, cast, field, if_, lit, named_struct, to_sql
from quality_py.sql.compiler import TypeOracle, compile_output, compile_suite, rule_code
from quality_py.sql.dialect import DIALECT
from quality_py.sql.dq_struct import dq_struct, rendered
from quality_py.sql.lambdas import LambdaLibrary

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType

SALIENT_RULE_DDL = "struct<ruleSuiteId:bigint,ruleSetId:bigint,ruleId:bigint>"


def result_ddl(result_type: str | DataType) -> str:
    """The DDL of ``result_type`` (a DDL string or a Spark ``DataType``), checked to parse.

    >>> result_ddl("struct<a: int, b: string>")
    'STRUCT<a: INT, b: STRING>'
    """
    text = result_type if isinstance(result_type, str) else result_type.simpleString()
    try:
        return exp.DataType.build(text, dialect=DIALECT).sql(dialect=DIALECT)
    except Exception as err:
        raise ModelError(f"cannot parse result type {text!r}: {err}") from None


def _output_trees(
    suite: RuleSuite, lambdas: LambdaLibrary, type_of: TypeOracle | None = None
) -> dict[Id, exp.Expr]:
    """Each distinct output expression compiled once (outputs are shared by id)."""
    compiled: dict[Id, exp.Expr] = {}
    for _, rule in suite.iter_rules():
        out = rule.output
        if out is not None and out.id not in compiled:
            compiled[out.id] = compile_output(out, lambdas, suite.policy, type_of)
    return compiled


def _outputs(
    suite: RuleSuite, lambdas: LambdaLibrary, type_of: TypeOracle | None = None
) -> dict[Id, str]:
    """Each distinct output expression compiled once, as SQL."""
    return {oid: to_sql(tree) for oid, tree in _output_trees(suite, lambdas, type_of).items()}


def engine_struct(
    suite: RuleSuite,
    codes: list[exp.Expr],
    families: list[str | None],
    ddl: str,
    lambdas: LambdaLibrary,
    *,
    debug: bool,
    layout: Layout,
    type_of: TypeOracle | None = None,
    outputs: dict[Id, str] | None = None,
) -> exp.Expr:
    """``struct<ruleSuiteResults, salientRule, result>`` over the rules' result codes
    (``outputs``: the compiled outputs' SQL, when the caller has compiled them already)."""
    triggers = salience_order(suite, "rule-engine")
    if outputs is None:
        outputs = _outputs(suite, lambdas, type_of)

    def fired(flat: int) -> exp.Expr:
        return exp.EQ(this=codes[flat].copy(), expression=lit(PASSED))

    def output(rule: Rule) -> exp.Expr:
        assert rule.output is not None
        return cast(rendered(outputs[rule.output.id]), ddl)

    if debug:
        var = "__qp_fired"
        items = [
            exp.If(
                this=fired(flat),
                true=named_struct(("salience", lit(rule.salience)), ("result", output(rule))),
            )
            for flat, _, rule in triggers
        ]
        wrapped = [exp.Case(ifs=[item], default=exp.Null()) for item in items]
        item_ddl = f"array<struct<salience:int,result:{ddl}>>"
        arr = call("array", *wrapped) if wrapped else cast(call("array"), item_ddl)
        # An entry whose output is null is left out, and a row with no entry left gives null,
        # not an empty array (contract 3.2, the original's generated-code path).
        keep = exp.Lambda(
            this=exp.Not(this=exp.Is(this=field(exp.column(var), "result"), expression=exp.Null())),
            expressions=[exp.to_identifier(var)],
        )
        kept = call("filter", arr, keep)
        result: exp.Expr = if_(
            exp.EQ(this=call("size", kept), expression=lit(0)),
            cast(exp.Null(), item_ddl),
            kept.copy(),
        )
        salient: exp.Expr = cast(exp.Null(), SALIENT_RULE_DDL)
    elif triggers:
        ids = [
            named_struct(
                ("ruleSuiteId", bigint(suite.id.packed)),
                ("ruleSetId", bigint(rule_set.id.packed)),
                ("ruleId", bigint(rule.id.packed)),
            )
            for _, rule_set, rule in triggers
        ]
        salient = exp.Case(
            ifs=[exp.If(this=fired(f), true=i) for (f, _, _), i in zip(triggers, ids, strict=True)],
            default=cast(exp.Null(), SALIENT_RULE_DDL),
        )
        result = exp.Case(
            ifs=[exp.If(this=fired(f), true=output(r)) for f, _, r in triggers],
            default=cast(exp.Null(), ddl),
        )
    else:
        salient, result = cast(exp.Null(), SALIENT_RULE_DDL), cast(exp.Null(), ddl)
    return named_struct(
        ("ruleSuiteResults", dq_struct(suite, codes, families, layout)),
        ("salientRule", salient),
        ("result", result),
    )


def rule_engine_with_struct(
    df: DataFrame,
    suite: RuleSuite,
    result_type: str | DataType,
    name: str = "ruleEngine",
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> DataFrame:
    """``df`` with the rule engine's struct appended as ``name``.

    The input is aliased ``main``, so outputs may use correlated scalar subqueries, unless the
    rules and outputs are written against the input's own qualifiers (a join's ``src.col``).

    Examples
    --------
    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> big = OutputExpression(Id(1000, 1), "'big'")
    >>> small = OutputExpression(Id(1001, 1), "'small'")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [
    ...     Rule(Id(100, 1), "a > 10", salience=10, output=big),
    ...     Rule(Id(101, 1), "a > 0", salience=20, output=small)])])
    >>> out = rule_engine_with_struct(spark.createDataFrame([(50,), (5,), (-1,)], "a int"),
    ...                               suite, "string")
    >>> [r.ruleEngine.result for r in out.collect()]
    ['big', 'small', None]
    """
    lay = as_layout(layout)
    ddl = result_ddl(result_type)
    require_new_columns(df, name)
    type_of = type_oracle(df)
    staged = stage_rule_codes(
        df, suite, lambda c: list(_outputs(c.suite, c.lambdas, type_of).values()), type_of
    )
    suite = staged.compiled.suite  # meta rule sets expanded, fallbacks resolved
    trees = _output_trees(suite, staged.compiled.lambdas, type_of)
    if not suite.policy.allow_implicit_casts:  # outputs answer questions too (see rules)
        from quality_py.runners.implicit_casts import refuse_in_outputs

        refuse_in_outputs(df.alias("main"), list(trees.items()))
    struct = engine_struct(
        suite,
        staged.code_refs(),
        staged.families,
        ddl,
        staged.compiled.lambdas,
        debug=debug,
        layout=lay,
        type_of=type_of,
        outputs={oid: to_sql(tree) for oid, tree in trees.items()},
    )
    from pyspark.sql import functions as F

    return staged.finish(F.expr(to_sql(struct)).alias(name))


def rule_engine_runner(
    suite: RuleSuite,
    result_type: str | DataType,
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> Column:
    """The rule engine's struct as one Column (type-generic coding; no ``main`` alias).

    Prefer :func:`rule_engine_with_struct` for suites beyond a few dozen rules.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> out = OutputExpression(Id(1000, 1), "'big'")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 10", 1, out)])])
    >>> df = spark.createDataFrame([(50,)], "a int")
    >>> df.select(rule_engine_runner(suite, "string").alias("e")).first().e.result
    'big'
    """
    from pyspark.sql import functions as F

    lay = as_layout(layout)
    ddl = result_ddl(result_type)
    compiled = compile_suite(suite)
    families: list[str | None] = ["code" if r.coded else None for r in compiled.rules]
    codes = [rendered(to_sql(rule_code(r))) for r in compiled.rules]
    struct = engine_struct(suite, codes, families, ddl, compiled.lambdas, debug=debug, layout=lay)
    return F.expr(to_sql(struct))


def rule_engine(
    suite: RuleSuite,
    result_type: str | DataType,
    name: str = "ruleEngine",
    *,
    debug: bool = False,
    layout: Layout | str = Layout.MAP,
) -> Callable[[DataFrame], DataFrame]:
    """Curried :func:`rule_engine_with_struct` for ``df.transform(rule_engine(suite, "string"))``.

    >>> from quality_py import Id, OutputExpression, Rule, RuleSet, RuleSuite
    >>> out = OutputExpression(Id(1000, 1), "'big'")
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 10", 1, out)])])
    >>> df = spark.createDataFrame([(50,), (5,)], "a int")
    >>> [r.ruleEngine.result for r in df.transform(rule_engine(suite, "string")).collect()]
    ['big', None]
    """
    return lambda df: rule_engine_with_struct(
        df, suite, result_type, name, debug=debug, layout=layout
    )
