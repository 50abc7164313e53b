"""What a rule needs to know of a loaded bloom filter to test membership in it."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BloomSpec:
    """A bloom filter's name and shape: ``bits`` (a multiple of 64), ``hashes`` per value, the
    false-positive rate it was built for, the Spark type of the values hashed, and the number of
    distinct values it holds.

    >>> spec = BloomSpec.sized("ids", items=1_000_000, fpp=0.01, value_type="bigint")
    >>> spec.bits, spec.hashes
    (9804416, 7)
    """

    name: str
    bits: int
    hashes: int
    fpp: float
    value_type: str
    items: int = 0

    @classmethod
    def sized(cls, name: str, items: int, fpp: float, value_type: str) -> BloomSpec:
        """The optimal shape for ``items`` values at ``fpp``, sized for 90% of ``fpp`` so the
        measured rate stays within the one asked for (hashes are not ideal)."""
        if not 0.0 < fpp < 1.0:
            raise ValueError(f"a false-positive rate is between 0 and 1, not {fpp}")
        n = max(int(items), 1)
        target = fpp * 0.9
        bits = math.ceil(-n * math.log(target) / (math.log(2) ** 2))
        bits = max(64, -(-bits // 64) * 64)
        hashes = max(1, round(bits / n * math.log(2)))
        return cls(name, bits, hashes, fpp, value_type, n)
