"""Library functions as PySpark Columns, and :func:`expr` for SQL that uses them.

Every function here is expanded by the same compile passes as rule text, so the Column and the
SQL forms cannot disagree. Arguments are SQL text (a column name or expression), Python ints, or
plain column references (``F.col("x")``); composed Columns are not accepted because their SQL
cannot be recovered on Spark Connect -- pass the expression as SQL text instead.

Examples
--------
>>> df = spark.createDataFrame([(1, 2)], "a int, b int")
>>> df.select(pack_ints("a", "b").alias("p")).first().p
4294967298
>>> df.select(expr("pack_ints(a, b) = pack_ints(1, 2)").alias("same")).first().same
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlglot import exp

from quality_py.model.layout import CompactLayout, ResultLayout
from quality_py.model.policy import DEFAULT_POLICY, RulePolicy
from quality_py.model.results import Layout
from quality_py.model.rules import LambdaFunction, RuleSuite
from quality_py.sql.build import bigint, call, lit, to_sql
from quality_py.sql.compiler import compile_expression
from quality_py.sql.context import PassContext
from quality_py.sql.lambdas import LambdaLibrary
from quality_py.sql.parse import parse_expression
from quality_py.sql.passes import run_passes

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def _resolve_layout(layout: ResultLayout | RuleSuite | str) -> ResultLayout:
    if isinstance(layout, RuleSuite):
        return CompactLayout.of(layout)
    if isinstance(layout, str):
        lay = Layout(layout)
        if lay is Layout.COMPACT:
            raise TypeError("a compact layout needs its ids: pass the RuleSuite or CompactLayout")
        return lay
    return layout


def expr(
    sql: str,
    lambdas: Iterable[LambdaFunction] = (),
    *,
    layout: ResultLayout | RuleSuite | str = Layout.MAP,
    policy: RulePolicy = DEFAULT_POLICY,
    over: DataFrame | None = None,
) -> Column:
    """A Column from SQL that may use library functions and the given lambdas.

    The text is checked by ``policy`` (the safe default; your own code may pass
    ``RulePolicy.trusted_policy()``). ``over``: the DataFrame the column will be used on, for
    functions that need the data's types (``digest_to_longs``, ``field_based_id``, ...).

    ``layout`` tells ``rule_result``/``flatten_results`` how the results column is stored; for
    the compact layout pass the suite (or ``layout_of_field(df.schema[name])``).

    >>> from quality_py import Id, LambdaFunction
    >>> pos = LambdaFunction("isPositive", "x -> x > 0", Id(200, 1))
    >>> spark.range(3).select(expr("isPositive(id)", [pos]).alias("p")).collect()[1].p
    True
    """
    from pyspark.sql import functions as F

    from quality_py.runners.arrow_functions import register_arrow_functions
    from quality_py.runners.staging import type_oracle

    tree = compile_expression(
        sql,
        kind="expression",
        lambdas=LambdaLibrary(lambdas),
        layout=_resolve_layout(layout),
        policy=policy,
        type_of=type_oracle(over) if over is not None else None,
    )
    sql = to_sql(tree)
    register_arrow_functions(over.sparkSession if over is not None else None, [sql])
    return F.expr(sql)


def _arg_node(value: object) -> exp.Expr:
    if isinstance(value, bool):
        return lit(value)
    if isinstance(value, int):
        return lit(value) if -(2**31) <= value < 2**31 else bigint(value)
    if isinstance(value, str):
        return parse_expression(value, kind="expression")
    return parse_expression(_column_reference(value), kind="expression")


def _column_reference(col: object) -> str:
    """The quoted name of a plain column reference, on classic or Connect sessions."""
    jc = getattr(col, "_jc", None)
    if jc is not None:  # classic: Spark 4 Columns hold a ColumnNode, 3.5 an Expression
        try:
            node = jc.node()
        except Exception:
            node = jc.expr()
        if node.getClass().getSimpleName() == "UnresolvedAttribute":
            return str(node.sql())
    inner = getattr(col, "_expr", None)  # Spark Connect
    if inner is not None and type(inner).__name__ == "ColumnReference":
        parts = inner._unparsed_identifier.split(".")
        return ".".join(f"`{p.strip('`')}`" for p in parts)
    raise TypeError(
        "quality_py functions take column names, SQL text, ints or F.col(...) references; "
        f"pass composed expressions as SQL text (got {col!r})"
    )


def _call(name: str, *args: object, layout: ResultLayout = Layout.MAP) -> Column:
    from pyspark.sql import functions as F

    tree = call(name, *[_arg_node(a) for a in args])
    out = run_passes(tree, PassContext(item_kind="expression", layout=layout))
    return F.expr(to_sql(out))


def passed() -> Column:
    """The Passed result int (100000)."""
    return _call("passed")


def failed() -> Column:
    """The Failed result int (0)."""
    return _call("failed")


def soft_failed() -> Column:
    """The SoftFailed result int (-1)."""
    return _call("soft_failed")


def disabled_rule() -> Column:
    """The DisabledRule result int (-2)."""
    return _call("disabled_rule")


def probability(result: object) -> Column:
    """DOUBLE probability of a stored result int (``probability(1000)`` = 0.01)."""
    return _call("probability", result)


def soft_fail(value: object) -> Column:
    """A rule value whose failure is soft (DOUBLE -1.0 failed, 1.0 passed, -2.0 disabled)."""
    return _call("soft_fail", value)


def pack_ints(id_: object, version: object) -> Column:
    """BIGINT with ``id`` in the high and ``version`` in the low 32 bits (the SQL function
    ``pack_ints``; for Python ints use :func:`quality_py.pack_id` or ``Id(...).packed``).

    >>> spark.range(1).select(pack_ints(1, 2).alias("p")).first().p
    4294967298
    """
    return _call("pack_ints", id_, version)


def unpack(packed: object) -> Column:
    """``struct<id: int, version: int>`` of a packed id (the SQL function ``unpack``; for Python
    ints use :func:`quality_py.unpack_id` or ``Id.unpack``).

    >>> tuple(spark.range(1).select(unpack(4294967298).alias("u")).first().u)
    (1, 2)
    """
    return _call("unpack", packed)


def unpack_id_triple(triple: object) -> Column:
    """Six ints from ``struct<ruleSuiteId, ruleSetId, ruleId>`` of packed ids."""
    return _call("unpack_id_triple", triple)


def rule_suite_result_details(results: object) -> Column:
    """``struct<id, ruleSetResults>``: the results without the overall result."""
    return _call("rule_suite_result_details", results)


def rule_result(
    results: object,
    suite_id: object,
    rule_set_id: object,
    rule_id: object,
    *,
    layout: ResultLayout | RuleSuite | str = Layout.MAP,
) -> Column:
    """The stored result of one rule (packed ids), null when the ids are not in the results."""
    return _call(
        "rule_result", results, suite_id, rule_set_id, rule_id, layout=_resolve_layout(layout)
    )


def flatten_results(
    results: object, *, layout: ResultLayout | RuleSuite | str = Layout.MAP
) -> Column:
    """An array with one struct per rule (ids, versions and results); explode it for reports."""
    return _call("flatten_results", results, layout=_resolve_layout(layout))


def flatten_rule_results(
    engine: object, *, layout: ResultLayout | RuleSuite | str = Layout.MAP
) -> Column:
    """``flatten_results`` of a rule-engine struct plus its ``salientRule`` and ``result``."""
    return _call("flatten_rule_results", engine, layout=_resolve_layout(layout))


def flatten_folder_results(
    folder: object, *, layout: ResultLayout | RuleSuite | str = Layout.MAP
) -> Column:
    """``flatten_results`` of a rule-folder struct plus its folded ``result``."""
    return _call("flatten_folder_results", folder, layout=_resolve_layout(layout))


__all__ = [
    "disabled_rule",
    "expr",
    "failed",
    "flatten_folder_results",
    "flatten_results",
    "flatten_rule_results",
    "pack_ints",
    "passed",
    "probability",
    "rule_result",
    "rule_suite_result_details",
    "soft_fail",
    "soft_failed",
    "unpack",
    "unpack_id_triple",
]
