"""The readers' CRC (binascii's C code) against the bitwise definition of
CRC-16/CCITT-FALSE, on any bytes and any starting value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.crc16 import crc16


def bitwise(data: bytes, crc: int = 0xFFFF) -> int:
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1 == bitwise(b"123456789")


@given(st.binary(max_size=1200), st.integers(0, 0xFFFF))
def test_same_as_the_bitwise_definition(data: bytes, start: int) -> None:
    assert crc16(data, start) == bitwise(data, start)
    assert crc16(bytearray(data)) == crc16(memoryview(data)) == bitwise(data)
