"""Versioned ids and their packing into one signed 64-bit value."""

from __future__ import annotations

from dataclasses import dataclass

from quality_py.errors import ModelError

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def pack_id(id_: int, version: int) -> int:
    """Pack ``id`` into the high 32 bits and ``version`` into the low 32 bits (signed 64-bit).

    >>> pack_id(1, 1)
    4294967297
    >>> pack_id(-1, -1)
    -1
    """
    packed = ((id_ << 32) | (version & _MASK32)) & _MASK64
    return packed - (1 << 64) if packed >= (1 << 63) else packed


def unpack_id(packed: int) -> tuple[int, int]:
    """Invert :func:`pack_id`: the high word (arithmetic shift) and the signed low word.

    >>> unpack_id(4294967298)
    (1, 2)
    """
    high = packed >> 32
    low = packed & _MASK32
    if low >= 1 << 31:
        low -= 1 << 32
    return high, low


@dataclass(frozen=True, slots=True)
class Id:
    """A versioned id: ``id`` and ``version`` are 32-bit signed integers.

    >>> Id(100, 1).packed
    429496729601
    >>> Id.unpack(429496729601)
    Id(100, 1)
    """

    id: int
    version: int

    def __post_init__(self) -> None:
        for name in ("id", "version"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ModelError(
                    f"Id.{name} must be an int, got {type(value).__name__}", code="INVALID_ID"
                )
            if not INT_MIN <= value <= INT_MAX:
                raise ModelError(
                    f"Id.{name}={value} does not fit in a 32-bit signed int", code="INVALID_ID"
                )

    @property
    def packed(self) -> int:
        """The id packed as ``pack_id(id, version)`` (the SQL function ``pack_ints``)."""
        return pack_id(self.id, self.version)

    @classmethod
    def unpack(cls, packed: int) -> Id:
        """The :class:`Id` whose :attr:`packed` value is ``packed``."""
        return cls(*unpack_id(packed))

    def __repr__(self) -> str:
        return f"Id({self.id}, {self.version})"
