"""Consistent Overhead Byte Stuffing: removes every 0x00 so 0x00 can delimit frames.

Overhead is at most one byte per 254 bytes of data (plus one), unlike SLIP's worst case of 2x.
"""

from __future__ import annotations


class CobsError(ValueError):
    """The bytes are not a valid COBS encoding."""


def cobs_encode(data: bytes) -> bytes:
    """Encode `data` so that the result contains no 0x00 byte."""
    out = bytearray()
    runs = data.split(b"\x00")
    last = len(runs) - 1
    # Each zero-free run becomes <len+1><run>; the zero that followed it is implied.
    for i, run in enumerate(runs):
        while len(run) >= 254:
            # A full 254-byte block (code 0xFF) implies no zero after it.
            out.append(0xFF)
            out += run[:254]
            run = run[254:]
            if not run and i == last:
                return bytes(out)
        out.append(len(run) + 1)
        out += run
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Decode one COBS block sequence (without its 0x00 delimiter). Raises CobsError."""
    out = bytearray()
    i = 0
    n = len(data)
    if n == 0:
        raise CobsError("empty")
    while i < n:
        code = data[i]
        if code == 0:
            raise CobsError(f"zero byte at {i}")
        end = i + code
        if end > n:
            raise CobsError(f"block at {i} runs past the end")
        block = data[i + 1 : end]
        if 0 in block:
            raise CobsError(f"zero byte inside block at {i}")
        out += block
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)
