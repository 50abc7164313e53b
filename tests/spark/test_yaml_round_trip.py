"""``from_yaml(to_yaml(x), type)`` equals ``x`` for every Spark type (sql/library/expressions.py).

A property test generates nested types (arrays, maps keyed by numbers, dates, decimals, text and
structs, structs) and values; the expected value is the input itself, compared in Python as
collected (NaN equal to NaN). Types Python cannot collect (year-month intervals) and keys Python
cannot build (arrays) are built and compared in SQL.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quality_py import functions as Q

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

Kind = tuple[str, st.SearchStrategy[Any]]


def _decimal(p: int, s: int) -> Kind:
    # one digit short of the precision: pyspark 3.5 converts a full-precision decimal inside a
    # map back to Python with one digit too many (DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION)
    digits = st.integers(-(10 ** (p - 1)) + 1, 10 ** (p - 1) - 1)
    return f"decimal({p},{s})", digits.map(lambda n: Decimal(n).scaleb(-s))


_TIMES = st.datetimes(dt.datetime(1900, 1, 2), dt.datetime(2200, 1, 1))
LEAVES: list[Kind] = [
    ("boolean", st.booleans()),
    ("tinyint", st.integers(-128, 127)),
    ("smallint", st.integers(-(2**15), 2**15 - 1)),
    ("int", st.integers(-(2**31), 2**31 - 1)),
    ("bigint", st.integers(-(2**63), 2**63 - 1)),
    ("float", st.floats(width=32)),
    ("double", st.floats()),
    _decimal(38, 18),
    _decimal(10, 0),
    _decimal(5, 5),
    ("string", st.text(max_size=8)),
    ("binary", st.binary(max_size=6).map(bytearray)),
    ("date", st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31))),
    ("timestamp", _TIMES),
    ("timestamp_ntz", _TIMES),
    ("interval day to second", st.timedeltas(dt.timedelta(days=-9999), dt.timedelta(days=9999))),
]
#: Map keys: anything hashable Spark accepts as a key (NaN is not equal to itself: no floats).
KEYS = [k for k in LEAVES if k[0] not in ("float", "double", "binary", "boolean")]


def _nullable(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), values)


@st.composite
def kinds(draw: st.DrawFn, depth: int = 2) -> Kind:
    if depth == 0:
        return draw(st.sampled_from(LEAVES))
    shape = draw(st.sampled_from(["leaf", "array", "map", "struct", "struct_key"]))
    if shape == "leaf":
        return draw(st.sampled_from(LEAVES))
    if shape == "array":
        ddl, inner = draw(kinds(depth - 1))
        return f"array<{ddl}>", st.lists(_nullable(inner), max_size=3)
    if shape in ("map", "struct_key"):
        if shape == "map":
            kddl, keys = draw(st.sampled_from(KEYS))
        else:
            parts = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=2))
            kddl = "struct<" + ",".join(f"k{i}:{d}" for i, (d, _) in enumerate(parts)) + ">"
            keys = st.tuples(*[_nullable(v) for _, v in parts])
        vddl, values = draw(kinds(depth - 1))
        return f"map<{kddl},{vddl}>", st.dictionaries(keys, _nullable(values), max_size=3)
    fields = draw(st.lists(kinds(depth - 1), min_size=1, max_size=3))
    ddl = "struct<" + ",".join(f"`f {i}`:{d}" for i, (d, _) in enumerate(fields)) + ">"
    return ddl, st.tuples(*[_nullable(v) for _, v in fields])


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_every_type_round_trips(spark: Any, data: st.DataObject) -> None:
    ddl, values = data.draw(kinds())
    rows = data.draw(st.lists(_nullable(values), min_size=1, max_size=3))
    df = spark.createDataFrame([(i, v) for i, v in enumerate(rows)], f"i int, x {ddl}")
    back = Q.expr(f"from_yaml(to_yaml(x), '{ddl}')", over=df)
    got = df.select("i", "x", back.alias("y")).orderBy("i").collect()
    for r in got:
        assert _same(r.x, r.y), (ddl, r.x, r.y)
    assert df.select(back.alias("y")).schema["y"].dataType == df.schema["x"].dataType


@pytest.mark.parametrize(
    ("value", "ddl"),
    [
        ("map(array(1, 2), 'a', array(3), 'b')", "map<array<int>,string>"),
        (
            "map(array(named_struct('a', 1)), map(1, 'x'))",
            "map<array<struct<a:int>>,map<int,string>>",
        ),
        ("interval '10-11' year to month", "interval year to month"),
        ("array(interval '-3' year)", "array<interval year>"),
        ("timestamp'2024-03-10 02:30:00.123456'", "timestamp"),
        ("named_struct('a', cast('ab' as varchar(5)))", "struct<a:varchar(5)>"),
        ("map(1.5BD, null)", "map<decimal(2,1),void>"),
        ("cast(null as int)", "int"),
        ("null", "void"),
    ],
)
def test_types_python_cannot_collect_round_trip_in_sql(spark: Any, value: str, ddl: str) -> None:
    df = spark.sql(f"SELECT {value} AS x")
    back = Q.expr(f"from_yaml(to_yaml(x), '{ddl}')", over=df)
    out = df.select(back.alias("y"), "x")
    # maps are not comparable in Spark: compare their entries (sorted by key) as JSON
    left = Q.expr("to_yaml(x)", over=df)
    right = Q.expr(f"to_yaml(from_yaml(to_yaml(x), '{ddl}'))", over=df)
    row = df.select(left.alias("a"), right.alias("b")).first()
    assert row.a == row.b
    assert out.schema["y"].dataType.simpleString() == out.schema["x"].dataType.simpleString()


def test_microseconds_and_text_keys_read_as_written(spark: Any) -> None:
    df = spark.sql(
        "SELECT timestamp_ntz'2024-01-02 03:04:05.123456' AS t, map(1, 'a', 20, 'b') AS m"
    )
    row = df.select(
        Q.expr("to_yaml(t)", over=df).alias("t"), Q.expr("to_yaml(m)", over=df).alias("m")
    ).first()
    assert row.t == '"2024-01-02T03:04:05.123456"'
    assert row.m == '[{"key":1,"value":"a"},{"key":20,"value":"b"}]'
