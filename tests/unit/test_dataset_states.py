"""Merge laws of analyzer states, and metric(merge of parts) == metric(whole) (no JVM).

States are built from values by a plain-Python oracle (what the Spark aggregates compute), so
these tests check the algebra; tests/spark/test_dataset_analyzers.py checks Spark's states.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import reduce
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.dataset.states import (
    BinCountsState,
    BucketsState,
    CoMomentsState,
    ExtremeState,
    MomentsState,
    RatioState,
    SizeState,
    SumState,
    TypeCountsState,
)

values = st.lists(
    st.none() | st.floats(allow_nan=True, allow_infinity=True, width=64) | st.integers(-1000, 1000),
    max_size=30,
)
finite = st.lists(st.none() | st.floats(-1e6, 1e6) | st.integers(-1000, 1000), max_size=30)


def _nums(xs: list[Any]) -> list[float]:
    return [float(x) for x in xs if x is not None]


EDGES = (-10.0, 0.0, 10.0, 100.0)


def _bins(xs: list[Any]) -> BinCountsState:
    """Rows per bin [e0, e1), [e1, e2), [e2, e3] counted one by one; NaN and values beyond the
    edges are outside; None is null."""
    counts = [0, 0, 0]
    outside = nulls = 0
    for x in xs:
        if x is None:
            nulls += 1
            continue
        v = float(x)
        for i in range(3):
            last = i == 2
            if EDGES[i] <= v and (v <= EDGES[i + 1] if last else v < EDGES[i + 1]):
                counts[i] += 1
                break
        else:
            outside += 1
    return BinCountsState(tuple(counts), outside, nulls, len(xs))


def _key(v: float) -> tuple[int, float]:
    return (1, 0.0) if math.isnan(v) else (0, v)


ORACLES: dict[str, Callable[[list[Any]], Any]] = {
    "size": lambda xs: SizeState(len(xs)),
    "types": lambda xs: TypeCountsState(
        sum(x is None for x in xs),
        sum(x is not None and math.isfinite(x) and x == int(x) for x in xs),
        sum(x is not None and math.isfinite(x) and x != int(x) for x in xs),
        0,
        sum(x is not None and not math.isfinite(x) for x in xs),
    ),
    "completeness": lambda xs: RatioState(len(_nums(xs)), len(xs)),
    "bins": _bins,
    # the day each value falls on (floor), as the buckets of has_no_gaps
    "buckets": lambda xs: BucketsState(tuple(sorted({math.floor(v) for v in _finite(xs)}))),
    "min": lambda xs: ExtremeState(min(_nums(xs), key=_key) if _nums(xs) else None, False),
    "max": lambda xs: ExtremeState(max(_nums(xs), key=_key) if _nums(xs) else None, True),
    "sum": lambda xs: SumState(math.fsum(_nums(xs)) if _nums(xs) else 0.0, len(_nums(xs))),
    "moments": lambda xs: MomentsState(
        len(_nums(xs)),
        (m := math.fsum(_nums(xs)) / len(_nums(xs))) if _nums(xs) else 0.0,
        math.fsum((v - m) ** 2 for v in _nums(xs)) if _nums(xs) else 0.0,
    ),
}
EXACT = {"size", "completeness", "min", "max", "types", "bins", "buckets"}


def _finite(xs: list[Any]) -> list[float]:
    return [v for v in _nums(xs) if math.isfinite(v)]


def _same(a: Any, b: Any, exact: bool) -> bool:
    if exact:
        return repr(a) == repr(b)  # repr compares NaN equal to NaN
    fa, fb = a.to_dict(), b.to_dict()
    for k in fa:
        x, y = fa[k], fb[k]
        if isinstance(x, float) and not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6):
            return False
        if not isinstance(x, float) and x != y:
            return False
    return True


def _split(xs: list[Any], cuts: list[int]) -> list[list[Any]]:
    points = sorted({min(c, len(xs)) for c in cuts})
    parts, start = [], 0
    for p in [*points, len(xs)]:
        parts.append(xs[start:p])
        start = p
    return parts  # may include empty partitions


@settings(max_examples=200, deadline=None)
@given(values, st.lists(st.integers(0, 30), max_size=4))
def test_exact_states_merge_like_the_whole(xs: list[Any], cuts: list[int]) -> None:
    for name in EXACT:
        oracle = ORACLES[name]
        parts = [oracle(p) for p in _split(xs, cuts)]
        merged = reduce(lambda a, b: a.merge(b), parts)
        assert _same(merged, oracle(xs), exact=True), name


@settings(max_examples=200, deadline=None)
@given(finite, st.lists(st.integers(0, 30), max_size=4))
def test_floating_states_merge_within_1e9(xs: list[Any], cuts: list[int]) -> None:
    for name in ("sum", "moments"):
        oracle = ORACLES[name]
        parts = [oracle(p) for p in _split(xs, cuts)]
        merged = reduce(lambda a, b: a.merge(b), parts)
        assert _same(merged, oracle(xs), exact=False), name


@given(finite, finite, finite)
def test_identity_commutativity_associativity(a: list[Any], b: list[Any], c: list[Any]) -> None:
    for name, oracle in ORACLES.items():
        exact = name in EXACT
        sa, sb, sc = oracle(a), oracle(b), oracle(c)
        empty = oracle([])
        assert _same(sa.merge(empty), sa, exact) and _same(empty.merge(sa), sa, exact), name
        assert _same(sa.merge(sb), sb.merge(sa), exact), name
        assert _same(sa.merge(sb).merge(sc), sa.merge(sb.merge(sc)), exact), name


@given(
    st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), max_size=20), st.integers(0, 20)
)
def test_co_moments_merge_like_the_whole(pairs: list[tuple[float, float]], cut: int) -> None:
    def state(ps: list[tuple[float, float]]) -> CoMomentsState:
        if not ps:
            return CoMomentsState()
        n = len(ps)
        mx = math.fsum(p[0] for p in ps) / n
        my = math.fsum(p[1] for p in ps) / n
        return CoMomentsState(
            n,
            mx,
            my,
            math.fsum((x - mx) * (y - my) for x, y in ps),
            math.fsum((x - mx) ** 2 for x, _ in ps),
            math.fsum((y - my) ** 2 for _, y in ps),
        )

    merged = state(pairs[:cut]).merge(state(pairs[cut:]))
    assert _same(merged, state(pairs), exact=False)


@given(st.sets(st.integers(-50, 50), max_size=30))
def test_missing_buckets_are_the_span_less_the_held(held: set[int]) -> None:
    """By hand: every integer from the first to the last held bucket that is not held."""
    expected = [b for b in range(min(held), max(held) + 1) if b not in held] if held else []
    assert list(BucketsState(tuple(sorted(held))).missing()) == expected
