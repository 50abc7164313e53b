"""The original's ``za_*`` hashes in Python: one field after another, each seeded by the last.

The original wraps a "zero allocation" Java hashing library in a proxy that hashes every field
on its own, with the previous field's hash as the seed (read from its ``ZeroAllocation.scala``):

* 64-bit hashes (``XX``, ``MURMUR3_64``): ``h = 0``, then for each non-null field
  ``h = hash(bytes, seed=h)``; the result is ``[h]``;
* 128-bit hashes (``XXH3``, ``MURMUR3_128``): ``(lo, hi) = (0, 0)``, then for each non-null
  field ``(lo, hi) = hash128(bytes, seed=lo)``; the result is ``[lo, hi]``.

A null field hashes nothing (the seed passes on). The bytes of a field are built in SQL before
this runs (ints 4 and longs 8 bytes little-endian, strings UTF-8: see
:mod:`quality_py.sql.library.za`). The hashes: ``XX`` is XXH64 and ``XXH3`` is XXH3's 128-bit
hash, both from the ``xxhash`` package (the reference C implementation; Spark's own
``xxhash64`` cannot be seeded); ``MURMUR3_64``/``MURMUR3_128`` are MurmurHash3 x64 128 (the
64-bit one its first half), written here because the seed is a whole long, where ``mmh3`` takes
32 bits (``mmh3`` is used when the seed fits, which the first field's always does).

>>> za_hash("XX", [b"a"]) == za_hash("XX", [None, b"a", None])  # nulls hash nothing
True
>>> za_hash("MURMUR3_128", [])  # no field: the initial state
[0, 0]
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

__all__ = ["ZA_HASHES", "murmur3_x64_128", "za_hash"]

_MASK = (1 << 64) - 1
_C1, _C2 = 0x87C37B91114253D5, 0x4CF5AD432745937F


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _MASK
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _MASK
    return k ^ (k >> 33)


def _mix_k1(k1: int) -> int:
    k1 = (k1 * _C1) & _MASK
    k1 = ((k1 << 31) | (k1 >> 33)) & _MASK
    return (k1 * _C2) & _MASK


def _mix_k2(k2: int) -> int:
    k2 = (k2 * _C2) & _MASK
    k2 = ((k2 << 33) | (k2 >> 31)) & _MASK
    return (k2 * _C1) & _MASK


def murmur3_x64_128(data: bytes, seed: int) -> tuple[int, int]:
    """MurmurHash3 x64 128 of ``data`` with a 64-bit ``seed`` (both halves start at the seed,
    as the zero-allocation library seeds it); the two 64-bit halves, unsigned.

    >>> import mmh3
    >>> murmur3_x64_128(b"quality", 7) == mmh3.hash64(b"quality", 7, signed=False)
    True
    """
    seed &= _MASK
    if seed < 1 << 32:  # mmh3 is the same algorithm for 32-bit seeds, and fast
        import mmh3

        low, high = mmh3.hash64(data, seed=seed, x64arch=True, signed=False)
        return low, high
    return _murmur3_python(data, seed)


def _murmur3_python(data: bytes, seed: int) -> tuple[int, int]:
    """MurmurHash3 x64 128 for any 64-bit (unsigned) seed."""
    h1 = h2 = seed
    length = len(data)
    whole = length - length % 16
    for lo, hi in struct.iter_unpack("<QQ", data[:whole]):
        h1 ^= _mix_k1(lo)
        h1 = ((h1 << 27) | (h1 >> 37)) & _MASK
        h1 = ((h1 + h2) * 5 + 0x52DCE729) & _MASK
        h2 ^= _mix_k2(hi)
        h2 = ((h2 << 31) | (h2 >> 33)) & _MASK
        h2 = ((h2 + h1) * 5 + 0x38495AB5) & _MASK
    tail = data[whole:]
    if tail:
        h1 ^= _mix_k1(int.from_bytes(tail[:8], "little"))
        h2 ^= _mix_k2(int.from_bytes(tail[8:], "little"))
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & _MASK
    return h1, (h2 + h1) & _MASK


def _xx(data: bytes, seed: int) -> tuple[int, ...]:
    import xxhash

    return (xxhash.xxh64_intdigest(data, seed),)


def _xxh3(data: bytes, seed: int) -> tuple[int, ...]:
    import xxhash

    both = xxhash.xxh3_128_intdigest(data, seed)
    return both & _MASK, both >> 64


def _murmur3_64(data: bytes, seed: int) -> tuple[int, ...]:
    return murmur3_x64_128(data, seed)[:1]


#: Hash name -> (the hash of bytes with an unsigned 64-bit seed, the number of longs it gives).
ZA_HASHES: dict[str, tuple[Callable[[bytes, int], tuple[int, ...]], int]] = {
    "XX": (_xx, 1),
    "MURMUR3_64": (_murmur3_64, 1),
    "XXH3": (_xxh3, 2),
    "MURMUR3_128": (murmur3_x64_128, 2),
}


def za_hash(name: str, fields: Sequence[bytes | None]) -> list[int]:
    """The chained hash ``name`` of the fields' bytes as signed longs (``None``: a null field).

    >>> import xxhash
    >>> first = xxhash.xxh64_intdigest(b"a", 0)
    >>> za_hash("XX", [b"a", b"b"]) == [_signed(xxhash.xxh64_intdigest(b"b", first))]
    True
    """
    hash_of, count = ZA_HASHES[name]
    state: tuple[int, ...] = (0,) * count
    for value in fields:
        if value is not None:
            state = hash_of(value, state[0])
    return [_signed(v) for v in state]
