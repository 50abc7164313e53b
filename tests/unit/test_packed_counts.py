"""Packed rule counts (runners/summary.py): one sum holds a boolean rule's failures and nulls.

The packed value is built here as Spark's sum builds it (a failing row adds 1, a failing row
with a null value adds 2**32), and read back: exact for every count below 2**31 rows, refused
(so the run counts again) where it could be ambiguous.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py.runners.summary import PACKED_ROW_LIMIT, PackedCountsUnsafe, unpack_counts


@given(st.data())
def test_packed_counts_read_back_exactly(data: st.DataObject) -> None:
    rows = data.draw(st.integers(0, PACKED_ROW_LIMIT - 1))
    nulls = data.draw(st.integers(0, rows))
    others = data.draw(st.integers(0, rows - nulls))
    packed = nulls * 2**32 + others  # what the per-row sum adds up to
    assert packed < 2**63  # a BIGINT sum, no overflow
    got = unpack_counts({"rows": rows, "r3_packed": packed if rows else None, "dropped": 1})
    assert got == {"rows": rows, "dropped": 1, "r3_failed": nulls + others, "r3_null": nulls}


@pytest.mark.parametrize(
    "values",
    [
        {"rows": PACKED_ROW_LIMIT, "r0_packed": 5},  # the low half could have carried
        {"rows": 10, "r0_packed": None},  # Spark's try_sum overflowed
    ],
)
def test_packed_counts_that_could_be_wrong_are_refused(values: dict[str, int | None]) -> None:
    with pytest.raises(PackedCountsUnsafe):
        unpack_counts(values)
