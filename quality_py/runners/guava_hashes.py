"""The original's ``hash_with`` hashers that Spark lacks, in Python: Guava's MurmurHash3 (32 and
128 bits), Adler-32 and SipHash-2-4 over the fed bytes, as the longs the original reads.

The original feeds every field into one Guava ``Hasher`` (the bytes are built in SQL: see
:mod:`quality_py.sql.library.digests`), takes ``hash().asBytes()`` and reads them as big-endian
longs, padding the last with zero bytes. Guava writes a 32-bit hash code little-endian and a
64-bit one (SipHash) little-endian too, so a 32-bit code ``c`` becomes the long whose
big-endian bytes are ``c``'s four little-endian bytes and four zeros.

* ``MURMUR3_128``: ``Hashing.murmur3_128()``, MurmurHash3 x64 128 with seed 0 (``mmh3``);
* ``MURMUR3_32``: ``Hashing.murmur3_32()``, MurmurHash3 x86 32 with seed 0 (``mmh3``; Guava's
  old variant differs from the fixed one only for strings hashed as characters, which the
  original never does: it feeds bytes);
* ``ADLER32``: ``Hashing.adler32()`` (``zlib.adler32``);
* ``SIPHASH24``: ``Hashing.sipHash24()``, SipHash-2-4 with Guava's key ``00 01 .. 0f`` (the
  reference test key), written here from the SipHash paper.

>>> guava_hash("ADLER32", b"")  # adler32 of nothing is 1: bytes 01 00 00 00, then zeros
[72057594037927936]
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

__all__ = ["GUAVA_LONGS", "guava_hash", "siphash24"]

_MASK = (1 << 64) - 1
#: Guava's ``sipHash24()`` key: k0, k1 read little-endian from bytes 00..0f.
_K0, _K1 = 0x0706050403020100, 0x0F0E0D0C0B0A0908


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _sip_rounds(v0: int, v1: int, v2: int, v3: int, rounds: int) -> tuple[int, int, int, int]:
    for _ in range(rounds):
        v0 = (v0 + v1) & _MASK
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _MASK
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _MASK
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _MASK
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(data: bytes, k0: int = _K0, k1: int = _K1) -> int:
    """SipHash-2-4 of ``data`` (unsigned 64 bits).

    >>> hex(siphash24(bytes(range(15))))  # the SipHash paper's example
    '0xa129ca6149be45e5'
    """
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    whole = len(data) - len(data) % 8
    for (m,) in struct.iter_unpack("<Q", data[:whole]):
        v3 ^= m
        v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = ((len(data) & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= last
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _as_longs(code: bytes) -> list[int]:
    """Guava's hash-code bytes as the original's big-endian longs (the last padded)."""
    padded = code + b"\0" * (-len(code) % 8)
    return [v for (v,) in struct.iter_unpack(">q", padded)]


def _murmur3_128(data: bytes) -> bytes:
    import mmh3

    return mmh3.hash_bytes(data, 0, True)


def _murmur3_32(data: bytes) -> bytes:
    import mmh3

    return mmh3.hash(data, seed=0, signed=False).to_bytes(4, "little")


#: Hash name -> (Guava's hash-code bytes of the fed bytes, the number of longs they make).
GUAVA_LONGS: dict[str, tuple[Callable[[bytes], bytes], int]] = {
    "MURMUR3_128": (_murmur3_128, 2),
    "MURMUR3_32": (_murmur3_32, 1),
    "ADLER32": (lambda data: zlib.adler32(data).to_bytes(4, "little"), 1),
    "SIPHASH24": (lambda data: siphash24(data).to_bytes(8, "little"), 1),
}


def guava_hash(name: str, data: bytes) -> list[int]:
    """The longs the original's ``hash_with(name, ...)`` gives for the fed bytes ``data``."""
    return _as_longs(GUAVA_LONGS[name][0](data))
