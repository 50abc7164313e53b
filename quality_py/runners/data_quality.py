"""The data-quality runner: every rule of a suite evaluated into one struct column.

The whole struct is one SQL string wrapped once in ``F.expr`` (a Column composed from many
Column operations exceeds Spark Connect's protobuf depth limit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from quality_py.errors import ModelError
from quality_py.model.layout import CompactLayout
from quality_py.model.results import Layout
from quality_py.model.rules import RuleSuite
from quality_py.runners.one_projection import session_form
from quality_py.runners.staging import (
    as_layout,
    ordered_totally,
    require_new_columns,
    rule_families,
    stage_rule_codes,
    type_oracle,
    wrap_column,
)
from quality_py.sql.build import to_sql
from quality_py.sql.coding import static_family
from quality_py.sql.compiler import (
    CompiledSuite,
    compile_suite,
    rule_code,
)
from quality_py.sql.dq_struct import dq_struct, rendered
from quality_py.sql.garbage import fewer_collections, suite_size
from quality_py.sql.windows import needs_total_order

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType


def _as_dataframe(schema: StructType | DataFrame) -> DataFrame:
    if hasattr(schema, "selectExpr"):
        return schema  # type: ignore[return-value]
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("analysing rules against a schema needs an active SparkSession")
    return spark.createDataFrame([], schema)


def rule_runner_sql(
    suite: RuleSuite,
    *,
    layout: Layout | str = Layout.MAP,
    families: Sequence[str | None] | None = None,
    compiled: CompiledSuite | None = None,
) -> str:
    """The data-quality struct as one Spark SQL string.

    ``families`` (from :func:`rule_families`) lets each rule's result coding be specialised to
    its type; without it the coding dispatches on ``typeof`` and Spark's optimizer folds it.

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])])
    >>> sql = rule_runner_sql(suite, families=["boolean"])
    >>> sql[:50]
    "NAMED_STRUCT('id', CAST(4294967297 AS BIGINT), 'ov"
    >>> sql.count("CASE WHEN TRY_CAST((a > 0) AS BOOLEAN) THEN 100000 ELSE 0 END")
    3
    """
    lay = as_layout(layout)
    compiled = compiled or compile_suite(suite)
    fams = list(families) if families is not None else [None] * len(compiled.rules)
    fams = [
        "code" if r.coded else f or static_family(r.tree)
        for r, f in zip(compiled.rules, fams, strict=True)
    ]
    codes = [rendered(to_sql(rule_code(r, f))) for r, f in zip(compiled.rules, fams, strict=True)]
    return to_sql(dq_struct(suite, codes, fams, lay))


def rule_runner(
    suite: RuleSuite,
    *,
    layout: Layout | str = Layout.MAP,
    schema: StructType | DataFrame | None = None,
    name: str = "DataQuality",
) -> Column:
    """The data-quality struct column of ``suite``.

    Rules may reference the input DataFrame as ``main`` in correlated subqueries only through
    :func:`add_data_quality` (which sets that alias). Pass ``schema`` (a DataFrame or StructType)
    to analyse the rules now and specialise each rule's result coding to its type; without it the
    coding is type-generic and Spark folds it. For suites beyond a few dozen rules prefer
    :func:`add_data_quality`: one expression with every rule inline can exceed the JIT's method
    size limit under whole-stage codegen (see docs/architecture.md).

    Examples
    --------
    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 0")])])
    >>> df = spark.createDataFrame([(1,), (-1,)], "a int")
    >>> [r.DataQuality.overallResult for r in df.select(rule_runner(suite)).collect()]
    [100000, 0]
    """
    lay = as_layout(layout)
    frame = _as_dataframe(schema) if schema is not None else None
    # with a schema, functions that read the data's types (to_yaml, rng_uuid ...) compile for
    # them, as add_data_quality does
    compiled = compile_suite(suite, type_of=type_oracle(frame) if frame is not None else None)
    families = None
    if any(needs_total_order(r.tree) for r in compiled.rules):
        if schema is None:
            raise ModelError(
                "row_number() and ntile() number tied rows in the order they arrive; to be the "
                "same on every run they also order by the row's own columns, which rule_runner "
                "knows only from its schema: pass schema=df (or use add_data_quality(df, suite))",
                code="INVALID_MODEL",
            )
        compiled = ordered_totally(compiled, _as_dataframe(schema).schema)
    if frame is not None:
        families = rule_families(frame, compiled)
    sql = rule_runner_sql(suite, layout=lay, families=families, compiled=compiled)
    return wrap_column(sql, suite, lay, name)


def add_data_quality(
    df: DataFrame,
    suite: RuleSuite,
    name: str = "DataQuality",
    *,
    layout: Layout | str = Layout.MAP,
    compiled: CompiledSuite | None = None,
) -> DataFrame:
    """``df`` with a data-quality struct column ``name`` appended.

    Every rule is analysed against ``df`` first (no Spark job), so a rule that names a missing
    column or yields an unusable type fails here with its id. ``compiled``: the suite compiled
    beforehand, reused when the schema changes nothing in it.

    Examples
    --------
    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a % 2 == 0")])])
    >>> df = spark.createDataFrame([(2,), (3,)], "a int")
    >>> checked = add_data_quality(df, suite)
    >>> checked.filter("DataQuality.overallResult = 100000").count()
    1
    """
    lay = as_layout(layout)
    require_new_columns(df, name)
    with fewer_collections(suite_size(suite)):  # the whole build: compile, analysis, struct
        # one projection from the input where Spark can run it so (runners.one_projection)
        one, apart = session_form(df.sparkSession)  # the session's settings, read once
        staged = stage_rule_codes(df, suite, compiled=compiled, one_projection=one)
        suite = staged.compiled.suite  # meta rule sets expanded, fallbacks resolved
        inline = staged.inline
        codes = staged.code_refs() if inline is None else list(inline)
        sql = to_sql(dq_struct(suite, codes, staged.families, lay, apart))
        column = wrap_column(sql, suite, lay, name)
        return staged.finish(column) if inline is None else staged.finish_inline(column)


def add_overall_results_and_details(
    df: DataFrame,
    suite: RuleSuite,
    overall: str = "DQ_overallResult",
    details: str = "DQ_Details",
    *,
    layout: Layout | str = Layout.MAP,
) -> DataFrame:
    """``df`` with the overall result as a top-level int column and the details as a struct.

    Filtering on a top-level int is cheaper than on a nested field.

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 2")])])
    >>> out = add_overall_results_and_details(spark.createDataFrame([(3,)], "a int"), suite)
    >>> out.columns
    ['a', 'DQ_overallResult', 'DQ_Details']
    """
    from pyspark.sql import functions as F

    lay = as_layout(layout)
    tmp = "__qp_dq"
    require_new_columns(df, overall, details)
    checked = add_data_quality(df, suite, tmp, layout=lay)
    details_col = F.struct(
        F.col(f"{tmp}.id").alias("id"), F.col(f"{tmp}.ruleSetResults").alias("ruleSetResults")
    )
    if lay is Layout.COMPACT:
        details_col = details_col.alias(details, metadata=CompactLayout.of(suite).to_metadata())
    else:
        details_col = details_col.alias(details)
    return checked.select(
        *[F.col(f"`{c}`") for c in df.columns],
        F.col(f"{tmp}.overallResult").alias(overall),
        details_col,
    )


def data_quality(
    suite: RuleSuite, name: str = "DataQuality", *, layout: Layout | str = Layout.MAP
) -> Callable[[DataFrame], DataFrame]:
    """Curried :func:`add_data_quality` for ``df.transform(data_quality(suite))``.

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 2")])])
    >>> df = spark.createDataFrame([(3,), (1,)], "a int")
    >>> [r.DataQuality.overallResult for r in df.transform(data_quality(suite)).collect()]
    [100000, 0]
    """
    return lambda df: add_data_quality(df, suite, name, layout=layout)


def overall_results_and_details(
    suite: RuleSuite,
    overall: str = "DQ_overallResult",
    details: str = "DQ_Details",
    *,
    layout: Layout | str = Layout.MAP,
) -> Callable[[DataFrame], DataFrame]:
    """Curried :func:`add_overall_results_and_details` for ``df.transform(...)``.

    >>> from quality_py.model import Id, Rule, RuleSet, RuleSuite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(50, 1), [Rule(Id(100, 1), "a > 2")])])
    >>> df = spark.createDataFrame([(3,)], "a int")
    >>> df.transform(overall_results_and_details(suite)).first().DQ_overallResult
    100000
    """
    return lambda df: add_overall_results_and_details(df, suite, overall, details, layout=layout)
