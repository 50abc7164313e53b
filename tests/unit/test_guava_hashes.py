"""hash_with's hashers computed in Python, against zlib, mmh3 and SipHash's published vectors."""

from __future__ import annotations

import struct
import zlib

import mmh3
from hypothesis import given
from hypothesis import strategies as st

from quality_py.runners.guava_hashes import guava_hash, siphash24


def test_siphash_published_vectors() -> None:
    assert siphash24(b"") == 0x726FDB47DD0E0E31
    assert siphash24(bytes(range(8))) == 0x93F5F5799A932462
    assert siphash24(bytes(range(15))) == 0xA129CA6149BE45E5


@given(st.binary(max_size=60))
def test_codes_are_read_as_the_original_reads_guavas_bytes(data: bytes) -> None:
    def one_long(code: bytes) -> list[int]:
        return [struct.unpack(">q", code + bytes(8 - len(code)))[0]]

    assert guava_hash("ADLER32", data) == one_long(zlib.adler32(data).to_bytes(4, "little"))
    murmur = mmh3.hash(data, 0, signed=False).to_bytes(4, "little")
    assert guava_hash("MURMUR3_32", data) == one_long(murmur)
    assert guava_hash("SIPHASH24", data) == one_long(siphash24(data).to_bytes(8, "little"))
    assert guava_hash("MURMUR3_128", data) == list(
        struct.unpack(">qq", mmh3.hash_bytes(data, 0, True))
    )
