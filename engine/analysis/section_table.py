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
with the same tiles added). Regenerate after changing the section rules with
``python -m engine.analysis.write_section_table``, which holds the builder (tests check the
file against a fresh build).
"""

from __future__ import annotations

import struct
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from importlib import resources
from itertools import compress
from operator import eq

MAX_TILES = 11
FILE = "suit_sections.bin"
RECORD = struct.Struct("<9s10b9H2b")
_KEY = 9  # bytes of a key, at the start of its record
_BITS10 = tuple(1 << g for g in range(10))

# (usable vector, per position: the usable entries one tile fewer there keeps, as bits)
Facts = tuple[tuple[int, ...], tuple[int, ...]]

# The records, and per record the first 8 bytes of its key as a big-endian integer: the
# records are in key order, so a key is found by a binary search over those (288 KB; a dict
# from key to offset took 3.8 MB, which a table service on a Pi pays for from the first
# hand). Records decode on demand (a dict of decoded tuples would take 14 MB more).
_RAW = b""
_PREFIXES: array[int] | None = None


def _load() -> array[int]:
    """The records' key prefixes (the file is read on first use)."""
    global _RAW, _PREFIXES
    if _PREFIXES is None:
        _RAW = zlib.decompress((resources.files("engine.analysis") / FILE).read_bytes())
        starts = range(0, len(_RAW), RECORD.size)
        _PREFIXES = array("Q", (int.from_bytes(_RAW[i : i + 8], "big") for i in starts))
    return _PREFIXES


def _offset(key: bytes) -> int | None:
    """Where the record of a stored key starts in the records, or None (not stored)."""
    prefixes = _load()
    prefix = int.from_bytes(key[:8], "big")
    i = bisect_left(prefixes, prefix)
    # keys sharing the first 8 bytes lie together (at most 5: the 9th count is 0..4)
    while i < len(prefixes) and prefixes[i] == prefix:
        at = i * RECORD.size
        if _RAW[at : at + _KEY] == key:
            return at
        i += 1
    return None


def stored(key: bytes) -> Facts | None:
    """The stored facts of a canonical suit key, or None (more tiles than stored). The
    file is read on first use."""
    at = _offset(key)
    if at is None:
        return None
    rec = RECORD.unpack_from(_RAW, at)
    return rec[1:11], rec[11:20]


def stored_need(key: bytes) -> tuple[int, int] | None:
    """The stored free need (n0, n1) of a canonical suit key, or None (not stored)."""
    at = _offset(key)
    if at is None:
        return None
    n0, n1 = _NEED.unpack_from(_RAW, at + _NEED_AT)
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
