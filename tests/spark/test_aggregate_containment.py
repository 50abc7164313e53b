"""Reference data cannot abort a job: for every aggregate of the catalogue
(``quality_py/sql/aggregates.py``), adversarial reference data derived from its argument kinds
(bigints and decimals at their maximum twice, so sums overflow; NaN; nulls; a repeated key; a key
with no row) is read by a rule's subquery and by a SQL check, with ANSI on and off. The job must
complete, and the values must be what Python computes from the same rows: null exactly where the
sum overflows or a lookup meets two rows."""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from quality_py.actions.sql_checks import SqlCheck, compile_check
from quality_py.errors import PolicyError
from quality_py.model.policy import RulePolicy
from quality_py.sql.allowed.aggregates import AGGREGATES, aggregate_problem
from quality_py.sql.build import to_sql
from quality_py.sql.check_queries import bound_sql
from quality_py.sql.compiler import compile_expression

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

BIG = 9223372036854775807
DEC = Decimal("9" * 38)
#: k, l bigint, x decimal(38,0), d double, s string, b boolean
REF = [
    (1, BIG, DEC, 1.0, "a", True),
    (1, BIG, DEC, 2.0, "b", False),
    (2, 5, Decimal(5), float("nan"), "c", True),
    (3, None, None, None, None, None),
]
COLUMNS = {"l": 1, "x": 2, "d": 3, "s": 4, "b": 5}
POLICY = RulePolicy().with_views("qp_agg_ref")


@pytest.fixture(scope="module", params=["true", "false"], ids=["ansi", "no-ansi"])
def frames(spark: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    ddl = "k int, l bigint, x decimal(38,0), d double, s string, b boolean"
    spark.createDataFrame(REF, ddl).createOrReplaceTempView("qp_agg_ref")
    # the input's key is named apart from the reference's (an unqualified k would be the view's)
    yield spark.createDataFrame([(k,) for k in (1, 2, 3, 4)], "key int")
    spark.conf.set("spark.sql.ansi.enabled", old)


def _rows(k: int) -> list[tuple[Any, ...]]:
    return [r for r in REF if r[0] == k]


NUMERIC = ("l", "x", "d")


def _cases() -> list[tuple[str, tuple[str, ...]]]:
    """Each aggregate with its catalogued kinds, and a numeric one with every numeric kind."""
    out = []
    for name, spec in sorted(AGGREGATES.items()):
        if aggregate_problem(name) is not None:
            continue  # refused on this Spark (test_refused_before_the_spark_that_contains_it)
        if spec.kinds[0] in NUMERIC:
            out += [(name, (kind, *spec.kinds[1:])) for kind in NUMERIC]
        else:
            out.append((name, spec.kinds))
    return out


def _call(name: str, kinds: tuple[str, ...]) -> str:
    spec = AGGREGATES[name]
    args = ", ".join(f"qp_agg_ref.{kind}" for kind in kinds)
    return f"{spec.spark}({args}{spec.literals})"


def _overflows(name: str, kind: str) -> bool:
    """Whether Spark's result type overflows on key 1's two maxima (by hand: a sum of bigints or
    decimals, the average of decimals; an average of bigints is a double)."""
    if name in ("sum", "try_sum"):
        return kind in ("l", "x")
    return name in ("avg", "mean", "try_avg") and kind == "x"


def _values(frames: Any, cases: list[tuple[str, tuple[str, ...]]]) -> list[dict[int, Any]]:
    """Each case's value per input key, all cases in one job (one column each); when that job
    fails, each case alone, so the failure names the aggregate that aborted it."""
    columns = []
    for i, (name, kinds) in enumerate(cases):
        rule = f"(SELECT {_call(name, kinds)} FROM qp_agg_ref WHERE qp_agg_ref.k = key)"
        value = to_sql(compile_expression(rule, policy=POLICY)).strip()
        verdict = to_sql(compile_expression(f"{rule} IS NULL OR true", policy=POLICY))
        columns.append((f"{value} AS v{i}", f"{verdict} AS ok{i}"))
    try:
        rows = frames.selectExpr("key", *[c for pair in columns for c in pair]).collect()
    except Exception:
        for (name, kinds), pair in zip(cases, columns, strict=True):
            try:
                frames.selectExpr("key", *pair).collect()
            except Exception as err:
                raise AssertionError(f"{name}{kinds} aborted the job: {err}") from None
        raise
    return [{r.key: r[f"v{i}"] for r in rows} for i in range(len(cases))]


#: Cases per job: each is two correlated subqueries, and a suite's plan holds a bounded number
#: (``RulePolicy.max_subqueries``).
BATCH = 12


def test_every_aggregate_completes_on_adversarial_reference_data(frames: Any) -> None:
    cases = _cases()
    assert len(cases) > 50  # every catalogued aggregate, numeric ones with every numeric kind
    values = [v for i in range(0, len(cases), BATCH) for v in _values(frames, cases[i : i + BATCH])]
    for (name, kinds), got in zip(cases, values, strict=True):
        assert set(got) == {1, 2, 3, 4}, name
        if _overflows(name, kinds[0]):
            assert got[1] is None, (name, kinds)  # two maxima overflow: null, the row fails
        if AGGREGATES[name].hazard == "overflow" and kinds[0] in ("l", "x"):
            values = [r[COLUMNS[kinds[0]]] for r in _rows(2)]
            divisor = 1 if name.endswith("sum") else len(values)
            assert Decimal(str(got[2])) == sum(values) / divisor, (name, kinds)
        if name in ("count", "count_if"):
            assert got == {1: 2 if name == "count" else 1, 2: 1, 3: 0, 4: 0}


def test_a_lookup_meeting_a_repeated_key_fails_that_row_only(frames: Any) -> None:
    text = "(SELECT s FROM qp_agg_ref WHERE qp_agg_ref.k = key) = 'c'"
    sql = to_sql(compile_expression(text, policy=POLICY))
    got = {r.key: r.ok for r in frames.selectExpr("key", f"{sql} AS ok").collect()}
    # k=1 meets two rows: null (fails), where Spark would abort the job; k=2 meets 'c'
    assert got == {1: None, 2: True, 3: None, 4: None}


@pytest.mark.parametrize("check", ["sum(l) > 0", "avg(x) > 0", "SELECT sum(l) > 0 FROM source"])
def test_a_sql_check_whose_sum_overflows_fails_instead_of_aborting(frames: Any, check: str) -> None:
    spark = frames.sparkSession
    spark.table("qp_agg_ref").createOrReplaceTempView("qp_agg_source")
    query = compile_check(SqlCheck("overflow", check, on="source"), POLICY)
    value = spark.sql(bound_sql(query, {"source": "qp_agg_source"})).first()
    assert value is not None and value[0] is None  # undefined: the check fails, the run goes on


def test_the_values_python_computes() -> None:
    # the expectations above, by hand: two maxima overflow a bigint and a decimal(38,0)
    assert sum(r[1] for r in _rows(1)) > BIG and sum(r[2] for r in _rows(1)) > DEC
    assert math.isnan(_rows(2)[0][3])


def test_without_containment_spark_aborts_the_job(frames: Any) -> None:
    """The control: the same reference data does abort a job written by hand (so the cases
    above meet the hazards they claim to contain)."""
    ansi = frames.sparkSession.conf.get("spark.sql.ansi.enabled") == "true"
    lookup = "(SELECT s FROM qp_agg_ref WHERE qp_agg_ref.k = key)"
    with pytest.raises(
        Exception, match=r"(?i)more than one row|MULTI_VALUE|too many rows|aggregated"
    ):
        frames.selectExpr(f"{lookup} AS v").collect()
    if ansi:
        with pytest.raises(Exception, match=r"(?i)overflow"):
            frames.selectExpr("(SELECT sum(l) FROM qp_agg_ref WHERE qp_agg_ref.k = key)").collect()


def test_refused_before_the_spark_that_contains_it(frames: Any) -> None:
    """corr of a column that does not vary aborted the job on Spark 3.5 with ANSI (the fuzz
    found it there): before Spark 4 the policy refuses it, naming why."""
    import pyspark

    rule = "(SELECT corr(qp_agg_ref.d, qp_agg_ref.l) FROM qp_agg_ref WHERE qp_agg_ref.k = key) > 0"
    if int(pyspark.__version__.split(".")[0]) >= 4:
        assert frames.selectExpr(to_sql(compile_expression(rule, policy=POLICY))).count() == 4
    else:
        with pytest.raises(PolicyError, match="before Spark 4"):
            compile_expression(rule, policy=POLICY)
