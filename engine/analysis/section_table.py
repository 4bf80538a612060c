"""The common suit sections, solved ahead of time: usable vectors, one-tile-fewer facts, and
the wildcards they need to be complete.

``suit_tables.usable`` solves a section key the first time it is asked, and a long run of
hands keeps meeting new keys (a bot's discard looks at every key one tile away): after
hundreds of hands, each hand still cost a few searches. Every canonical suit key of up
to ``MAX_TILES`` tiles is stored instead, in ``suit_sections.bin`` beside this module;
keys with more tiles in one suit are rare and still solved on demand.

A record per canonical key (``suit_tables.canonical``), in key order: the key (9 bytes),
its usable vector (10 signed bytes) and, per position, the usable entries that one tile
fewer there leaves as they are (9 little-endian 16-bit masks over the 10 entries; 0
where no tile is held), then its need with no per-kind limit (``suit_tables``: n0 and n1, 2
signed bytes; need is shift/mirror-invariant too when a kind may be added any number of
times, since a group reaching past one end of the run has a twin reaching past the other
with the same tiles added). The file holds the records in blocks of ``BLOCK`` records,
each compressed on its own: a header (``HEADER``: magic, records per block, blocks), per
block its first key and compressed length (``ENTRY``), then the blocks. Regenerate after
changing the section rules with ``python -m engine.analysis.write_section_table``, which
holds the builder (tests check the file against a fresh build).
"""

from __future__ import annotations

import struct
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from importlib import resources
from itertools import compress
from operator import eq

MAX_TILES = 11
FILE = "suit_sections.bin"
RECORD = struct.Struct("<9s10b9H2b")
_KEY = 9  # bytes of a key, at the start of its record
_BITS10 = tuple(1 << g for g in range(10))
BLOCK = 64  # records a block
HEADER = struct.Struct("<4sHI")
MAGIC = b"MJS2"
ENTRY = struct.Struct("<9sI")

# (usable vector, per position: the usable entries one tile fewer there keeps, as bits)
Facts = tuple[tuple[int, ...], tuple[int, ...]]

# Every table service holds this from its first hand, so it stays compressed: the file
# (300 KB), each block's first key and where it starts; a lookup decompresses one block of
# 3.7 KB (a few recent ones are kept). The records whole took 1.7 MB (and a dict from key
# to record 3.8 MB more); the tables of ``suit_tables`` in front of this keep the answers
# a long run asks again.
_DATA = b""
_FIRSTS: list[bytes] = []
_STARTS = array("I")


def _load() -> list[bytes]:
    """Each block's first key (the file is read on first use)."""
    global _DATA, _FIRSTS, _STARTS
    if not _FIRSTS:
        data = (resources.files("engine.analysis") / FILE).read_bytes()
        firsts, starts = blocks_index(data)
        _DATA, _FIRSTS, _STARTS = data, firsts, starts
    return _FIRSTS


def blocks_index(data: bytes) -> tuple[list[bytes], array[int]]:
    """A file's blocks: their first keys and their offsets (one more: the end)."""
    magic, per_block, count = HEADER.unpack_from(data)
    if magic != MAGIC or per_block != BLOCK:
        raise ValueError(f"{FILE}: not a table of {BLOCK}-record blocks (regenerate it)")
    firsts: list[bytes] = []
    starts = array("I")
    at = HEADER.size + count * ENTRY.size
    for i in range(count):
        first, size = ENTRY.unpack_from(data, HEADER.size + i * ENTRY.size)
        firsts.append(first)
        starts.append(at)
        at += size
    starts.append(at)
    if at != len(data):
        raise ValueError(f"{FILE}: {len(data)} bytes, the index says {at}")
    return firsts, starts


@lru_cache(maxsize=32)
def _block(i: int) -> bytes:
    return zlib.decompress(_DATA[_STARTS[i] : _STARTS[i + 1]])


def records(data: bytes) -> Iterator[bytes]:
    """Every record of a file's bytes, in key order (the builder's tests read them)."""
    firsts, starts = blocks_index(data)
    for i in range(len(firsts)):
        block = zlib.decompress(data[starts[i] : starts[i + 1]])
        for at in range(0, len(block), RECORD.size):
            yield block[at : at + RECORD.size]


def _key_of(block: bytes, record: int) -> bytes:
    at = record * RECORD.size
    return block[at : at + _KEY]


def _record(key: bytes) -> tuple[bytes, int] | None:
    """The block holding a stored key's record and where the record starts, or None."""
    firsts = _load()
    i = bisect_right(firsts, key) - 1  # the last block starting at or before the key
    if i < 0 or len(key) != _KEY:
        return None
    block = _block(i)
    # the records of a block are in key order too
    j = bisect_left(range(len(block) // RECORD.size), key, key=lambda r: _key_of(block, r))
    if j * RECORD.size < len(block) and _key_of(block, j) == key:
        return block, j * RECORD.size
    return None


def stored(key: bytes) -> Facts | None:
    """The stored facts of a canonical suit key, or None (more tiles than stored). The
    file is read on first use."""
    found = _record(key)
    if found is None:
        return None
    rec = RECORD.unpack_from(*found)
    return rec[1:11], rec[11:20]


def stored_need(key: bytes) -> tuple[int, int] | None:
    """The stored free need (n0, n1) of a canonical suit key, or None (not stored)."""
    found = _record(key)
    if found is None:
        return None
    block, at = found
    n0, n1 = _NEED.unpack_from(block, at + _NEED_AT)
    return n0, n1


_NEED = struct.Struct("<2b")
_NEED_AT = RECORD.size - _NEED.size


def kept_by_fewer(
    key: bytes, vec: Sequence[int], usable_of: Callable[[bytes], Sequence[int]]
) -> tuple[int, ...]:
    """Per position of ``key``: the entries of its usable vector ``vec`` (bits over 10)
    that one tile fewer there leaves as they are (0 where no tile is held)."""
    same: list[int] = []
    for i, c in enumerate(key):
        bits = 0
        if c:
            fewer = bytearray(key)
            fewer[i] = c - 1
            bits = sum(compress(_BITS10, map(eq, usable_of(bytes(fewer)), vec)))
        same.append(bits)
    return tuple(same)
