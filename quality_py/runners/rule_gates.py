"""What every staging path checks of a suite analysed by Spark: which rules do not analyse
(one error naming each), and the policy's determinism gate. Shared by
:mod:`quality_py.runners.staging` and :mod:`quality_py.runners.direct_codes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quality_py.errors import RuleAnalysisError, item_text
from quality_py.runners.spark_messages import plain_spark_message
from quality_py.sql.allowed.key_types import explain_guard_error

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from quality_py.sql.compiler import CompiledRule, CompiledSuite


def analysis_errors() -> tuple[type[BaseException], ...]:
    """The exceptions by which Spark says a text does not parse or analyse."""
    from pyspark.errors import AnalysisException, ParseException

    return (AnalysisException, ParseException)


def value_sqls(compiled: CompiledSuite, slots: Sequence[int] | None = None) -> list[str]:
    """``(<rule>) AS __qp_v<i>`` for every compiled rule (each rule's SQL is generated once),
    or, with ``slots`` (:func:`rule_slots`), for each distinct one only."""
    rules = compiled.rules
    chosen = range(len(rules)) if slots is None else sorted(set(slots))
    return [f"({rules[i].sql}) AS __qp_v{i}" for i in chosen]


def deterministic(frame: DataFrame) -> bool | None:
    """Whether Spark's analysed plan is deterministic; None on Spark Connect (no JVM handle)."""
    jdf = getattr(frame, "_jdf", None)
    if jdf is None:
        return None
    try:
        return bool(jdf.queryExecution().analyzed().deterministic())
    except Exception:
        return None


def require_deterministic(
    base: DataFrame, values: DataFrame, compiled: CompiledSuite, sqls: list[str]
) -> None:
    """The policy's second gate: Spark itself must find every untrusted rule deterministic."""
    if deterministic(values) is not False:
        return
    bad = [
        (
            rule,
            "Spark finds this rule nondeterministic (a rerun would give other results); the "
            "rule policy refuses it unless it allows random ids (RulePolicy(allow_random=True))",
        )
        for rule, sql in zip(compiled.rules, sqls, strict=True)
        if deterministic(base.selectExpr(sql)) is False
    ]
    if bad:
        raise rule_errors(bad)


def first_line(text: str) -> str:
    """The first line of Spark's error, or our sentence for a reference-data key guard."""
    return explain_guard_error(text) or text.strip().split("\n", 1)[0][:500]


def rule_errors(problems: list[tuple[CompiledRule, str]]) -> RuleAnalysisError:
    """One error naming every rule Spark cannot analyse, each in plain words
    (:mod:`quality_py.runners.spark_messages`), the first with its place in its text."""
    plain = [(r, *plain_spark_message(msg, r.source)) for r, msg in problems]
    first, _, span = plain[0]
    lines = [f"{item_text('rule', r.rule_id, r.name)}: {msg}" for r, msg, _ in plain]
    err = RuleAnalysisError(
        f"{len(problems)} rule(s) do not analyse:\n  " + "\n  ".join(lines),
        item_id=first.rule_id,
        source=first.source,
        span=span,
    )
    err.item_name = first.name
    return err
