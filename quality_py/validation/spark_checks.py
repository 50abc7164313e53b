"""Checks that ask Spark, without running a job: analysis against an empty DataFrame.

``createDataFrame([], schema)`` is a local relation and reading ``.schema`` of a projection only
analyses it, so no Spark job runs (the validation benchmark counts them). Functions and views
are resolved by the analyser, so unknown functions and missing views surface here.
"""

from __future__ import annotations

from quality_py.model.types import DataFrame, SchemaLike, SparkSession
from quality_py.validation.report import Finding
from quality_py.validation.static_checks import Item

_KIND_BY_CONDITION = {
    "UNRESOLVED_COLUMN": "NameError",
    "UNRESOLVED_FIELD": "NameError",
    "UNRESOLVED_ROUTINE": "FunctionNameError",
    "TABLE_OR_VIEW_NOT_FOUND": "ViewError",
}


def _condition(err: Exception) -> str:
    for getter in ("getCondition", "getErrorClass"):
        fn = getattr(err, getter, None)
        if fn is not None:
            try:
                value = fn()
            except Exception:  # pragma: no cover - older pyspark without the getter
                value = None
            if value:
                return str(value)
    return ""


def _analyse(frame: DataFrame, sqls: list[str]) -> list[str]:
    """The types of ``sqls`` over ``frame``; analysis only, no job."""
    return [f.dataType.simpleString() for f in frame.selectExpr(*sqls).schema.fields]


def _coercions(frame: DataFrame, todo: list[Item], allowed: bool) -> list[Finding]:
    """Text columns Spark casts to numbers or dates in rules, naming the rule: errors, or
    warnings where the policy allows implicit casts."""
    from quality_py.runners.implicit_casts import coercions

    rules = [i for i in todo if i.item_kind == "rule" and i.parsed is not None]
    notes = coercions(frame, [i.parsed for i in rules]) if rules else []
    return [
        Finding(
            "ImplicitCoercion" if allowed else "ImplicitCast",
            "rule",
            item.item_id,
            note,
            None,
            item.source,
        )
        for item, found in zip(rules, notes, strict=True)
        for note in found
    ]


def _only_result_words(item: Item) -> bool:
    from quality_py.sql.coding import RESULT_STRINGS, result_words

    words = result_words(item.parsed) if item.parsed is not None else None
    return words is not None and words <= RESULT_STRINGS


def _string_results(todo: list[Item], types: list[str]) -> list[Finding]:
    """Rules whose value is text: only a few words are results, any other text is Failed.
    A rule whose every branch is one of those words (``CASE ... 'maybe' ... 'pass' END``) is
    fine and not reported."""
    return [
        Finding(
            "StringResult",
            item.item_kind,
            item.item_id,
            "the rule yields a string: only true/false, passed/failed, yes/no, 1/0, "
            "softfail/maybe and disabled(rule) are results, any other text is Failed",
            None,
            item.source,
        )
        for item, kind in zip(todo, types, strict=True)
        if item.item_kind == "rule" and kind == "string" and not _only_result_words(item)
    ]


def spark_checks(
    spark: SparkSession,
    schema: SchemaLike,
    items: list[Item],
    frame: DataFrame | None = None,
    allow_implicit_casts: bool = False,
) -> list[Finding]:
    """Analyse every compiled item against ``frame`` (a DataFrame: its join qualifiers are kept)
    or an empty DataFrame of ``schema``, the input named the way the runners name it."""
    from pyspark.errors import PySparkException

    from quality_py.runners.spark_messages import plain_spark_message
    from quality_py.runners.staging import input_frame
    from quality_py.sql.allowed.key_types import explain_guard_error

    todo = [i for i in items if i.sql is not None]
    if not todo:
        return []
    sqls = [f"{i.sql} AS `c{n}`" for n, i in enumerate(todo)]
    source = frame.limit(0) if frame is not None else spark.createDataFrame([], schema)
    frame = input_frame(source, sqls)
    try:  # one analysis for everything; item by item only when something fails
        return _string_results(todo, _analyse(frame, sqls)) + _coercions(
            frame, todo, allow_implicit_casts
        )
    except PySparkException:
        pass
    findings = []
    for item in todo:
        try:
            _analyse(frame, [f"{item.sql} AS `c`"])
        except PySparkException as err:
            condition = _condition(err)
            kind = next(
                (k for prefix, k in _KIND_BY_CONDITION.items() if condition.startswith(prefix)),
                "AnalysisError",
            )
            guard = explain_guard_error(str(err))
            message, span = (guard, None) if guard else plain_spark_message(str(err), item.source)
            findings.append(Finding(kind, item.item_kind, item.item_id, message, span, item.source))
    return findings
