"""The za_* hash chains in Python (no JVM): MurmurHash3 with a whole-long seed against mmh3 and
the test reference, and the chain's rules (nulls hash nothing, each field seeds the next)
against chains made here from the references (tests/hash_references.py, xxhash)."""

from __future__ import annotations

import struct

import mmh3
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from quality_py.runners.zero_allocation import _murmur3_python, murmur3_x64_128, za_hash
from tests.hash_references import murmur3_128, xxh64

MASK = (1 << 64) - 1


def signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


@given(st.binary(max_size=80), st.integers(0, 2**32 - 1))
def test_the_python_murmur3_is_mmh3_where_mmh3_takes_the_seed(data: bytes, seed: int) -> None:
    assert _murmur3_python(data, seed) == mmh3.hash64(data, seed=seed, signed=False)


@given(st.binary(max_size=80), st.integers(2**32, 2**64 - 1))
def test_long_seeds_match_the_reference(data: bytes, seed: int) -> None:
    assert murmur3_x64_128(data, seed) == murmur3_128(data, seed)
    assert murmur3_x64_128(data, seed - 2**64) == murmur3_128(data, seed)  # a Java long


@given(st.lists(st.one_of(st.none(), st.binary(max_size=40)), max_size=6))
def test_chains_seed_each_field_with_the_last_hash(fields: list[bytes | None]) -> None:
    h = 0
    lo = hi = 0
    m_lo = m_hi = 0
    for value in fields:
        if value is None:
            continue
        h = xxh64(value, h)
        both = xxhash.xxh3_128_intdigest(value, lo)
        lo, hi = both & MASK, both >> 64
        m_lo, m_hi = murmur3_128(value, m_lo)
    assert za_hash("XX", fields) == [signed(h)]
    assert za_hash("XXH3", fields) == [signed(lo), signed(hi)]
    assert za_hash("MURMUR3_128", fields) == [signed(m_lo), signed(m_hi)]
    assert za_hash("MURMUR3_64", fields) == [signed(m_lo)]


def test_two_fields_by_hand() -> None:
    a, n = b"a", struct.pack("<q", 1)
    first = mmh3.hash64(a, seed=0, signed=False)[0]  # the first field's seed is 0: mmh3 applies
    second = murmur3_128(n, first)
    assert za_hash("MURMUR3_64", [a, None, n]) == [signed(second[0])]
