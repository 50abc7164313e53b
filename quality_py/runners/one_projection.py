"""The data-quality struct as one projection from the input, where Spark can run it so.

Staging (:mod:`quality_py.runners.staging`) evaluates the rules into hidden value and code
columns, and the struct is a further projection over them. That shape keeps Spark's
whole-stage code generation away from the struct: the code columns make the struct's input
wider than ``spark.sql.codegen.maxFields``, and a struct of many rules inside one generated
method exceeds the 8000 bytes HotSpot compiles, so it would run interpreted (W6, 84 rules:
10 s against 2 s). But every projection copies the row once more: on W6 the three projections
cost 2x a hand-written select of the same predicates.

Where the session's ``spark.sql.codegen.hugeMethodLimit`` is at most 8000 (what
:func:`quality_py.spark.session.local_session` and the sample job set), Spark itself runs a
generated method too large for the JIT without whole-stage code, so the struct can be one
projection straight from the input, each rule's code written where the struct uses it (Spark
evaluates an expression repeated inside one projection once: subexpression elimination). W6
(``benchmarks/bench_dq.py``, 1M rows): 0.81 s against 1.67 s staged, a hand-written select of
the predicates 0.68 s. The values are the same in both forms; only the plan differs.

Under Spark's default limit (65535) Spark would compile that projection as one whole-stage
method and run it interpreted; so would it the staged struct over a narrow table (its input
under ``spark.sql.codegen.maxFields``) and a filter on the overall result, which Spark moves
below the struct into the scan's stage. There the struct's overall result is multiplied by a
1 Spark has no generated code for (:func:`session_form`,
:data:`~quality_py.sql.codegen_limits.ONE_WITHOUT_CODEGEN`): an operator holding it is never
whole-stage code, whatever the suite or table, and runs Spark's own generated code, split in
methods HotSpot compiles. Then the one projection is taken too.

The inline form is taken only where repeating a rule's text cannot change what it computes or
what it costs: deterministic suites (a policy that allows random values keeps the staged form,
where each rule is evaluated once), no subqueries, windows, lambdas or Python functions (Spark
plans those apart from the projection, once per copy), no hidden columns joined for rules over
rows, and at most :data:`MAX_INLINE_RULES` rules (the text grows sixfold with the codes'
wrapping, and Spark analyses all of it: the build costs more, see there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from quality_py.runners.arrow_functions import arrow_functions_called
from quality_py.sql.codegen_limits import HOTSPOT_HUGE_METHOD, METHOD_LIMIT, PHOTON
from quality_py.sql.coding import result_code_sql
from quality_py.sql.dq_struct import rendered

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from quality_py.sql.compiler import CompiledRule, CompiledSuite

#: Spark computes an expression repeated inside one projection once while this is true.
SUBEXPRESSIONS = "spark.sql.subexpressionElimination.enabled"
#: Above this many rules the struct stays staged: its text repeats every rule three times, and
#: Spark's analysis of it grows with it (a warm build and plan of 500 rules: 1.3 s against
#: 1.0-1.1 s staged, for 2.6 s less per million rows; 1000 rules: 2.6 s against 1.5 s;
#: benchmarks/README.md).
MAX_INLINE_RULES = 500
#: Constructs Spark plans apart from the projection (once per copy of the text).
_PLANNED_APART = (exp.Subquery, exp.Select, exp.Exists, exp.Window, exp.Lambda)
_MARK = "__qp_inline_value"


def _limit(spark: SparkSession) -> int | None:
    try:
        return int(str(spark.conf.get(METHOD_LIMIT)).strip())
    except Exception:  # a server that does not tell, or not a number
        return None


def _on(spark: SparkSession, key: str, default: str) -> bool | None:
    try:
        return str(spark.conf.get(key, default)).strip().lower() == "true"
    except Exception:  # a server that does not tell
        return None


def session_form(spark: SparkSession) -> tuple[bool, bool]:
    """How ``spark`` lets the struct be built, its settings read once: whether it may be **one
    projection** (Spark evaluates an expression repeated in one projection once, its default
    subexpression elimination, and the projection cannot become one whole-stage method too
    large to compile), and whether it must hold
    :data:`~quality_py.sql.codegen_limits.ONE_WITHOUT_CODEGEN` (**out of stage**) for that.

    Spark falls back from an oversized generated method by itself where its
    ``spark.sql.codegen.hugeMethodLimit`` is at most 8000: no marker. Above (Spark's default,
    65535) or where the session does not tell, the marker, except under Photon, which does not
    run Spark's generated code and might not run the marker: there the staged form as before
    (and for a server that does not tell whether Photon runs). Without the marker under the
    default limit, the struct of a mid-size suite over a narrow table (60 rules over 10 columns)
    was one generated method past 8 KB, and so was a filter on its overall result, which Spark
    moves below the struct into the scan's stage (150 rules: 24 KB): both ran interpreted,
    9-20x a hand-written select (benchmarks/README.md).

    >>> before = spark.conf.get(METHOD_LIMIT)
    >>> spark.conf.set(METHOD_LIMIT, "8000"); session_form(spark)
    (True, False)
    >>> spark.conf.set(METHOD_LIMIT, "65535"); session_form(spark)
    (True, True)
    >>> spark.conf.set(PHOTON, "true"); session_form(spark)
    (False, False)
    >>> spark.conf.unset(PHOTON); spark.conf.set(SUBEXPRESSIONS, "false"); session_form(spark)
    (False, True)
    >>> spark.conf.unset(SUBEXPRESSIONS); spark.conf.set(METHOD_LIMIT, before)
    """
    limit = _limit(spark)
    falls_back = limit is not None and limit <= HOTSPOT_HUGE_METHOD
    apart = not falls_back and _on(spark, PHOTON, "false") is False
    shared = _on(spark, SUBEXPRESSIONS, "true") is True
    return shared and (falls_back or apart), apart


def kept_apart(rules: Sequence[CompiledRule]) -> bool:
    """Whether Spark would plan part of a rule apart from the projection holding it (a
    subquery, a window, a lambda) or a rule calls a Python (Arrow) function: repeating or moving
    such text changes what the plan computes or what it costs.

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> def apart(text):
    ...     rules = [Rule(Id(3, 1), text)]
    ...     return kept_apart(compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)])).rules)
    >>> apart("a > 1"), apart("exists(array(a), x -> x > 0)")
    (False, True)
    """
    if any(r.tree.find(*_PLANNED_APART) for r in rules):
        return True
    return bool(arrow_functions_called(r.sql for r in rules))


def code_over(sql: str, family: str | None) -> str:
    """A rule's result code written over its own SQL (the code staging writes over its value
    column, :func:`~quality_py.sql.coding.result_code_sql`).

    >>> code_over("a > 1", "boolean")
    'CASE WHEN TRY_CAST((a > 1) AS BOOLEAN) THEN 100000 ELSE 0 END'
    """
    return result_code_sql(_MARK, family).replace(_MARK, f"({sql})")


def inline_allowed(compiled: CompiledSuite, source: DataFrame | None) -> bool:
    """Whether the rules let the struct be one projection from ``source`` (the input as the
    rules see it; None where rows were joined to it): see the module's text. The session's
    part is :func:`session_form`'s, asked once by the caller."""
    rules = compiled.rules
    if source is None or not rules or len(rules) > MAX_INLINE_RULES:
        return False
    return not (compiled.policy.random_allowed or kept_apart(rules))


def inline_codes(
    compiled: CompiledSuite, families: Sequence[str | None], source: DataFrame | None
) -> list[exp.Expr] | None:
    """Each rule's result code over its own SQL (in ``suite.iter_rules()`` order, ``families``
    as staging found them), to build the struct from ``source`` in one projection; None where
    the staged form must stay (:func:`inline_allowed`). Staging asks this before it builds the
    code columns (``stage_rule_codes(..., one_projection=True)``, where :func:`session_form`
    allows it).

    >>> from quality_py import Id, Rule, RuleSet, RuleSuite
    >>> from quality_py.sql.compiler import compile_suite
    >>> suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(3, 1), "a > 1")])])
    >>> compiled, df = compile_suite(suite), spark.createDataFrame([(2,)], "a int")
    >>> [c.sql() for c in inline_codes(compiled, ["boolean"], df)]
    ['(CASE WHEN TRY_CAST((a > 1) AS BOOLEAN) THEN 100000 ELSE 0 END)']
    >>> inline_codes(compiled, ["boolean"], None) is None  # rows joined to the input
    True
    """
    if not inline_allowed(compiled, source):
        return None
    rules = compiled.rules
    return [rendered(code_over(r.sql, f)) for r, f in zip(rules, families, strict=True)]
