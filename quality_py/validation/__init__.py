"""Validate a suite against a schema before running it (contract section 6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from quality_py.dataset.checks import Check
from quality_py.errors import QualityError
from quality_py.model.ids import Id
from quality_py.model.labels import rule_names
from quality_py.model.rules import RuleSuite
from quality_py.model.types import DataFrame, SchemaLike, SparkSession
from quality_py.prepare import Position, name_position, prepare_for_schema
from quality_py.validation.checks import check_findings
from quality_py.validation.report import (
    ERROR_KINDS,
    NOTE_KINDS,
    WARNING_KINDS,
    Finding,
    ValidationReport,
)
from quality_py.validation.spark_checks import spark_checks
from quality_py.validation.static_checks import schema_paths, static_checks

__all__ = ["ERROR_KINDS", "NOTE_KINDS", "WARNING_KINDS", "Finding", "ValidationReport", "validate"]


def _prepared(
    suite: RuleSuite, schema_or_df: SchemaLike, position: Position, findings: list[Finding]
) -> RuleSuite:
    """The suite prepared for the data's schema (meta rule sets expanded); when that fails, the
    failure is a finding and the suite is checked without its meta rule sets."""
    if schema_or_df is None:
        return suite
    try:
        return prepare_for_schema(suite, schema_or_df, position)
    except QualityError as err:
        findings.append(
            Finding("AnalysisError", err.item_kind, err.item_id, err.message, err.span, err.source)
        )
        return replace(suite, meta_rule_sets=())


def _static(
    suite: RuleSuite,
    paths: dict[str, bool] | None,
    checks: Sequence[Check],
    views: Mapping[str, Mapping[str, bool] | None] | None,
) -> ValidationReport:
    """What :func:`validate` finds without Spark: syntax, the policy, lambdas, names against
    ``paths`` (``{dotted path: is a struct}``) and ``views``, the dataset checks' columns."""
    static, _, _ = static_checks(suite, paths, views)
    notes = tuple(f for f in static if f.kind in NOTE_KINDS)
    findings = [f for f in static if f.kind not in NOTE_KINDS]
    if checks:
        findings += check_findings(checks, paths, None, suite.policy, views=views)
    names: dict[Id | None, str] = dict(rule_names(suite).items())
    return ValidationReport(
        suite.id, tuple(findings), False, None, names, notes, suite.name, paths is not None
    )


def _sample_rows(sample: DataFrame, suite: RuleSuite, findings: list[Finding]) -> list[Any] | None:
    """The suite's result on ``sample``'s rows, or None with a finding when the run fails."""
    from quality_py.runners.data_quality import add_data_quality

    try:
        return add_data_quality(sample, suite).collect()
    except Exception as err:  # a runtime failure is a finding, not a crash
        message = str(err).split("\n")[0]
        findings.append(Finding("SampleRunError", "suite", suite.id, message, None, None))
        return None


def validate(
    suite: RuleSuite,
    schema_or_df: SchemaLike = None,
    *,
    spark: SparkSession | None = None,
    sample: DataFrame | None = None,
    sample_rows: int = 20,
    position: Position = name_position,
    checks: Sequence[Check] = (),
    views: Mapping[str, Mapping[str, bool] | None] | None = None,
) -> ValidationReport:
    """Every problem of ``suite`` for data of ``schema_or_df`` (a StructType or DataFrame, or
    ``{lower-cased dotted path: is a struct}`` for a check of names without Spark).

    Static checks come first and need no Spark: syntax, lambda arities, duplicates and
    recursion, unknown columns and nested fields, doc comments. With a session (``spark``, the
    DataFrame's, or the active one) every rule and output is then analysed against an empty
    DataFrame of the schema, which finds unknown functions, missing views and type errors
    without running a Spark job. ``sample`` (a DataFrame) also runs the suite on its first
    ``sample_rows`` rows (``report.sample``). ``checks``: dataset checks, validated too.
    ``views`` (``{view: {dotted path: is a struct} or None}``) checks the columns rules and
    checks read from views (``in_reference``, lookups, subqueries, references) without Spark.

    >>> from pyspark.sql.types import IntegerType, StructField, StructType
    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> schema = StructType([StructField("a", IntegerType())])
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [
    ...     Rule(Id(3, 1), "a > 0"), Rule(Id(4, 1), "b > 0"), Rule(Id(5, 1), "a >")])])
    >>> report = validate(suite, schema, spark=spark)
    >>> [(f.kind, f.item_id) for f in report.errors]
    [('NameError', Id(4, 1)), ('SyntaxError', Id(5, 1))]
    """
    findings: list[Finding] = []
    if isinstance(schema_or_df, Mapping):  # names only, read without Spark: a static check
        return _static(suite, dict(schema_or_df), checks, views)
    if schema_or_df is None and sample is None:  # nothing for Spark to analyse against
        return _static(suite, None, checks, views)
    from pyspark.sql import DataFrame

    if isinstance(schema_or_df, DataFrame):
        spark = spark or schema_or_df.sparkSession
    if spark is None and schema_or_df is not None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    prepared = _prepared(suite, schema_or_df, position, findings)
    paths = schema_paths(schema_or_df) if schema_or_df is not None else None
    static, items, _ = static_checks(prepared, paths, views)
    notes = tuple(f for f in static if f.kind in NOTE_KINDS)
    findings += [f for f in static if f.kind not in NOTE_KINDS]
    checked = spark is not None and schema_or_df is not None
    if spark is not None and schema_or_df is not None:
        failed = {(f.item_kind, f.item_id) for f in findings if f.is_error}
        fine = [i for i in items if (i.item_kind, i.item_id) not in failed]
        allowed = suite.policy.allow_implicit_casts
        if isinstance(schema_or_df, DataFrame):
            findings += spark_checks(spark, schema_or_df.schema, fine, schema_or_df, allowed)
        else:
            findings += spark_checks(spark, schema_or_df, fine, None, allowed)
    if checks:  # the dataset checks a run would evaluate: assertions, columns, predicates
        frame = None
        if isinstance(schema_or_df, DataFrame):
            frame = schema_or_df.limit(0)
        elif spark is not None and schema_or_df is not None:  # a schema alone: no files
            frame = spark.createDataFrame([], schema_or_df)
        real = isinstance(schema_or_df, DataFrame)
        findings += check_findings(checks, paths, frame, suite.policy, from_data=real)
    rows = None
    if sample is not None and not any(f.is_error for f in findings):
        rows = _sample_rows(sample.limit(sample_rows), prepared, findings)
    names: dict[Id | None, str] = dict(rule_names(suite).items())
    return ValidationReport(
        suite.id, tuple(findings), checked, rows, names, notes, suite.name, paths is not None
    )
