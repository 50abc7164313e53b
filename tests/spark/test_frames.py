"""The tests' frames through Arrow (tests/frames.py) hold what PySpark's own list path holds.

The oracle is PySpark itself: the same rows and schema through ``createDataFrame``'s list path
(called from outside ``tests.``, so not routed) give the same schema, the same values and the
same errors.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import frames

pytestmark = pytest.mark.semantics  # what each pyspark's own list path holds


def _listed(spark: Any, rows: list[Any], ddl: str) -> Any:
    """The list path: the class's own method, not the tests' routing on the session."""
    original = type(spark).createDataFrame
    return original(spark, rows, ddl)


def _same(left: list[Any], right: list[Any]) -> bool:
    def norm(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return sorted((norm(k), norm(x)) for k, x in v.items())
        return v

    return norm(left) == norm(right)


DDL = "i int, l bigint, d double, x decimal(10,2), s string, b boolean, dt date, bin binary"
ROWS = [
    (1, 2**40, 1.5, Decimal("1.25"), "a", True, datetime.date(2024, 1, 5), b"\x00"),
    (None, None, None, None, None, None, None, None),
    (-(2**31), -(2**63), -0.0, Decimal("-99999999.99"), "", False, datetime.date(1, 1, 1), b""),
]


def test_flat_rows_go_through_arrow_and_read_back_the_same(spark: Any) -> None:
    before = frames.WAYS["arrow"]
    built = spark.createDataFrame(ROWS, DDL)
    assert frames.WAYS["arrow"] == before + 1
    listed = _listed(spark, ROWS, DDL)
    assert built.schema == listed.schema
    assert built.collect() == listed.collect() == [tuple(r) for r in ROWS]


def test_a_rule_meets_arrow_rows_in_tasks_with_generated_code(spark: Any) -> None:
    plan = spark.createDataFrame(ROWS, DDL).selectExpr("i + 1 AS j")._jdf.queryExecution()
    physical = plan.executedPlan().toString()
    assert "WholeStageCodegen" in physical or "*(" in physical, physical
    assert "LocalTableScan [j" not in physical  # not folded into the plan on the driver


def test_nested_and_nan_rows_read_back_the_same(spark: Any) -> None:
    ddl = "a array<int>, m map<string,int>, st struct<p: int, q: string>, d double"
    rows = [
        ([1, None], {"k": 1, "z": None}, (1, "x"), float("nan")),
        (None, None, None, float("inf")),
        ([], {}, (None, None), None),
    ]
    built = spark.createDataFrame(rows, ddl)
    listed = _listed(spark, rows, ddl)
    assert built.schema == listed.schema
    assert _same([list(r) for r in built.collect()], [list(r) for r in listed.collect()])


def test_timestamps_read_back_the_same(spark: Any) -> None:
    utc, plus2 = datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=2))
    ddl = "t timestamp, n timestamp_ntz, a array<timestamp>"
    rows = [
        (datetime.datetime(2024, 1, 5, 10, 30, 0, 123456), datetime.datetime(2024, 2, 29), None),
        (datetime.datetime(2024, 1, 5, 10, 30, tzinfo=plus2), None, [None]),
        (
            datetime.datetime(1000, 1, 1, tzinfo=utc),
            datetime.datetime(9999, 12, 31, 23, 59, 59),
            [],
        ),
        (None, datetime.datetime(1970, 1, 1), [datetime.datetime(1969, 12, 31, 23, 59, 59)]),
    ]
    before = frames.WAYS["arrow"]
    built = spark.createDataFrame(rows, ddl)
    spark4 = int(__import__("pyspark").__version__.split(".")[0]) >= 4
    assert frames.WAYS["arrow"] == before + spark4  # pyspark 3.5: the list's way
    listed = _listed(spark, rows, ddl)
    assert built.schema == listed.schema
    assert built.collect() == listed.collect()
    texts = built.selectExpr("CAST(t AS STRING)").collect()
    assert texts[1][0] == "2024-01-05 08:30:00"  # by hand: 10:30 at +02:00, in UTC


@pytest.mark.parametrize(
    ("rows", "ddl"),
    [
        ([(1.5,)], "a int"),  # a float for an int
        ([(2**31,)], "a int"),  # out of range
        ([("x",)], "a double"),
        ([(None,)], "a int not null"),
    ],
)
def test_a_wrong_value_raises_what_the_list_path_raises(
    spark: Any, rows: list[Any], ddl: str
) -> None:
    with pytest.raises((TypeError, ValueError)) as ours:
        spark.createDataFrame(rows, ddl).collect()
    with pytest.raises((TypeError, ValueError)) as theirs:
        _listed(spark, rows, ddl).collect()
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


_row = st.tuples(
    st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)),
    st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
    st.one_of(st.none(), st.text(max_size=5)),
    st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-5, 5)), max_size=3)),
)


@settings(max_examples=15, deadline=None)
@given(st.lists(_row, max_size=6))
def test_any_rows_read_back_as_the_list_path_reads_them(spark: Any, rows: list[Any]) -> None:
    ddl = "n int, d double, s string, a array<int>"
    built = spark.createDataFrame(rows, ddl)
    listed = _listed(spark, rows, ddl)
    assert built.schema == listed.schema
    assert _same([list(r) for r in built.collect()], [list(r) for r in listed.collect()])
