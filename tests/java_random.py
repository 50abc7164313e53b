"""``java.util.Random`` as its documentation specifies it (a 48-bit linear congruential
generator, ``nextDouble`` from 53 bits, ``nextGaussian`` by the polar method), so that tests can
rebuild the random series of Deequ's own test suites (``new Random(1)``) as facts.
"""

from __future__ import annotations

import math

_MULTIPLIER = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    """``new java.util.Random(seed)``.

    >>> r = JavaRandom(42)
    >>> [r.next_int_bits(32) for _ in range(2)]
    [-1170105035, 234785527]
    """

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ _MULTIPLIER) & _MASK
        self._next_gaussian: float | None = None

    def next_int_bits(self, bits: int) -> int:
        """``next(bits)``: the top ``bits`` of the new seed, as a signed 32-bit int."""
        self._seed = (self._seed * _MULTIPLIER + 0xB) & _MASK
        value = self._seed >> (48 - bits)
        return value - (1 << 32) if value >= 1 << 31 else value

    def next_double(self) -> float:
        high = self.next_int_bits(26) & ((1 << 26) - 1)
        low = self.next_int_bits(27) & ((1 << 27) - 1)
        return ((high << 27) + low) * (1.0 / (1 << 53))

    def next_gaussian(self) -> float:
        if self._next_gaussian is not None:
            value, self._next_gaussian = self._next_gaussian, None
            return value
        while True:
            v1 = 2 * self.next_double() - 1
            v2 = 2 * self.next_double() - 1
            s = v1 * v1 + v2 * v2
            if 0 < s < 1:
                break
        multiplier = math.sqrt(-2 * math.log(s) / s)
        self._next_gaussian = v2 * multiplier
        return v1 * multiplier
