"""Versioned ids and their packing into one signed 64-bit value."""

from __future__ import annotations

import hashlib
import re
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


#: What a name may look like: a letter, digit or underscore, then also ``.`` and ``-``.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,99}")
#: Ids derived from names start here, above the small ids people write by hand.
DERIVED_ID_BASE = 1_000_000


def check_name(name: object, item_id: Id | None, kind: str) -> None:
    """Refuse a name that is not None and not 1-100 letters, digits, ``_``, ``.`` or ``-``.

    >>> check_name("dep_time.not-null", None, "rule")
    >>> check_name("has space", None, "rule")
    Traceback (most recent call last):
    ...
    quality_py.errors.ModelError: [INVALID_MODEL] rule name 'has space' ...
    """
    if name is None:
        return
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ModelError(
            f"{kind} name {name!r} must be 1-100 letters, digits, '_', '.' or '-', "
            "starting with a letter, digit or '_'",
            item_id=item_id,
            item_kind=kind,
        )


def id_from_name(name: str) -> int:
    """The id an item named ``name`` gets when it has none: stable across runs, machines and
    versions of this library, so versioning works on named items without written ids.

    It is ``1,000,000 + (the first 4 bytes of SHA-256(name), big-endian) mod 2,146,483,647``:
    from 1,000,000 to 2**31 - 1, above the small ids people write by hand. Two names of one
    suite that meet on an id are refused as duplicate ids; give one of them an ``id``.

    >>> id_from_name("carrier_known")
    284750657
    """
    check_name(name, None, "item")
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return DERIVED_ID_BASE + int.from_bytes(digest[:4], "big") % (INT_MAX - DERIVED_ID_BASE)
