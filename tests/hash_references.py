"""Hash references written from their specifications for the tests, using no library and none
of quality_py's code: XXH64 and MurmurHash3 x64 128 with a whole 64-bit seed (which ``mmh3``
cannot take). Each is checked against published vectors or ``mmh3`` in the tests that use it."""

from __future__ import annotations

import struct

MASK = (1 << 64) - 1


# --- XXH64 from its specification ---------------------------------------------------------
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & MASK


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & MASK, 31) * _P1) & MASK


def xxh64(data: bytes, seed: int) -> int:
    """XXH64 of ``data`` (unsigned), the reference algorithm, no library."""
    seed &= MASK
    n, pos = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & MASK, (seed + _P2) & MASK, seed, (seed - _P1) & MASK]
        while pos + 32 <= n:
            for k in range(4):
                v[k] = _round(v[k], struct.unpack_from("<Q", data, pos + 8 * k)[0])
            pos += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & MASK
        for lane in v:
            h = ((h ^ _round(0, lane)) * _P1 + _P4) & MASK
    else:
        h = (seed + _P5) & MASK
    h = (h + n) & MASK
    while pos + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, pos)[0])
        h = (_rotl(h, 27) * _P1 + _P4) & MASK
        pos += 8
    if pos + 4 <= n:
        h ^= (struct.unpack_from("<I", data, pos)[0] * _P1) & MASK
        h = (_rotl(h, 23) * _P2 + _P3) & MASK
        pos += 4
    for byte in data[pos:]:
        h ^= (byte * _P5) & MASK
        h = (_rotl(h, 11) * _P1) & MASK
    h ^= h >> 33
    h = (h * _P2) & MASK
    h ^= h >> 29
    h = (h * _P3) & MASK
    return h ^ (h >> 32)


# --- MurmurHash3 x64 128 with a 64-bit seed, byte by byte as the reference C code ------------
def murmur3_128(data: bytes, seed: int) -> tuple[int, int]:
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed & MASK
    nblocks = len(data) // 16
    for block in range(nblocks):
        k1 = int.from_bytes(data[16 * block : 16 * block + 8], "little")
        k2 = int.from_bytes(data[16 * block + 8 : 16 * block + 16], "little")
        k1 = (_rotl((k1 * c1) & MASK, 31) * c2) & MASK
        h1 = (((_rotl(h1 ^ k1, 27) + h2) & MASK) * 5 + 0x52DCE729) & MASK
        k2 = (_rotl((k2 * c2) & MASK, 33) * c1) & MASK
        h2 = (((_rotl(h2 ^ k2, 31) + h1) & MASK) * 5 + 0x38495AB5) & MASK
    tail = data[16 * nblocks :]
    k1 = k2 = 0
    for pos in range(len(tail) - 1, -1, -1):  # the reference's fall-through switch
        if pos >= 8:
            k2 ^= tail[pos] << (8 * (pos - 8))
        else:
            k1 ^= tail[pos] << (8 * pos)
    if len(tail) > 8:
        h2 ^= (_rotl((k2 * c2) & MASK, 33) * c1) & MASK
    if tail:
        h1 ^= (_rotl((k1 * c1) & MASK, 31) * c2) & MASK

    def fmix(k: int) -> int:
        k = ((k ^ (k >> 33)) * 0xFF51AFD7ED558CCD) & MASK
        k = ((k ^ (k >> 33)) * 0xC4CEB9FE1A85EC53) & MASK
        return k ^ (k >> 33)

    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & MASK
    h2 = (h2 + h1) & MASK
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & MASK
    return h1, (h2 + h1) & MASK
