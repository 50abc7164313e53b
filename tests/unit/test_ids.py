from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py import Id, ModelError
from quality_py import pack_id as pack_ints
from quality_py import unpack_id as unpack

INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)

# Reference values from the behaviour contract (semantics 2.1).
REFERENCE = [
    ((1, 1), 4294967297),
    ((1, 2), 4294967298),
    ((1024, 9084), 4398046520188),
    ((50, 1), 214748364801),
    ((100, 1), 429496729601),
    ((10, 2), 42949672962),
    ((20, 1), 85899345921),
    ((31, 3), 133143986179),
    ((-1, -1), -1),
    ((0, -1), 4294967295),
    ((-(2**31), -(2**31)), -9223372034707292160),
]


@pytest.mark.parametrize(("pair", "packed"), REFERENCE)
def test_pack_reference_values(pair: tuple[int, int], packed: int) -> None:
    assert pack_ints(*pair) == packed
    assert Id(*pair).packed == packed
    assert unpack(packed) == pair
    assert Id.unpack(packed) == Id(*pair)


@given(INT32, INT32)
def test_pack_unpack_round_trip(i: int, v: int) -> None:
    packed = pack_ints(i, v)
    assert -(2**63) <= packed < 2**63
    assert unpack(packed) == (i, v)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_unpack_pack_round_trip(packed: int) -> None:
    assert pack_ints(*unpack(packed)) == packed


@given(INT32, INT32, INT32, INT32)
def test_packing_orders_by_id_then_version_for_non_negative_ids(
    a: int, b: int, c: int, d: int
) -> None:
    x, y = (abs(a) % 2**31, abs(b) % 2**31), (abs(c) % 2**31, abs(d) % 2**31)
    assert (pack_ints(*x) < pack_ints(*y)) == (x < y)


@pytest.mark.parametrize("bad", [(2**31, 1), (1, -(2**31) - 1), (1.0, 1), ("1", 1), (True, 1)])
def test_id_rejects_values_outside_int32(bad: tuple[object, object]) -> None:
    with pytest.raises(ModelError) as err:
        Id(*bad)  # type: ignore[arg-type]
    assert err.value.code == "INVALID_ID"


def test_id_is_frozen_and_hashable() -> None:
    ident = Id(1, 2)
    with pytest.raises(AttributeError):
        ident.id = 3  # type: ignore[misc]
    assert {ident: 1}[Id(1, 2)] == 1
