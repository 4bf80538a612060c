"""Build ``suit_sections.bin`` (see ``section_table``); run it as a module to regenerate it.

The builder solves every key afresh with the searches of ``suit_tables`` (never the stored
file), so it lives here rather than beside the reader: ``suit_tables`` reads the file
through ``section_table``, and this module reads both.
"""

from __future__ import annotations

import zlib
from importlib import resources
from itertools import product

from engine.analysis.section_table import (
    BLOCK,
    ENTRY,
    FILE,
    HEADER,
    MAGIC,
    MAX_TILES,
    RECORD,
    Facts,
    kept_by_fewer,
)
from engine.analysis.suit_tables import Section, canonical, solve_need, solve_usable

NeedMemo = dict[tuple[bytes, bytes | None], tuple[int, int]]


def facts(key: bytes, memo: dict[bytes, tuple[int, ...]]) -> Facts:
    """A suit key's usable vector and, per position, the entries one tile fewer keeps,
    solved with the search (``memo``: the search's own, never the stored file)."""
    vec = solve_usable(Section.SUIT, key, memo, table=False)
    fewer = kept_by_fewer(key, vec, lambda k: solve_usable(Section.SUIT, k, memo, table=False))
    return vec, fewer


def free_need(key: bytes, memo: NeedMemo) -> tuple[int, int]:
    """A suit key's need with no per-kind limit, solved with the search (``memo``: its own)."""
    return solve_need(Section.SUIT, key, None, memo)


def canonical_keys(max_tiles: int = MAX_TILES) -> list[bytes]:
    """Every canonical suit key of at most ``max_tiles`` tiles, sorted."""
    keys: set[bytes] = set()
    for counts in product(range(5), repeat=9):
        if sum(counts) <= max_tiles:
            keys.add(canonical(Section.SUIT, bytes(counts))[0])
    return sorted(keys)


def build(max_tiles: int = MAX_TILES) -> bytes:
    """The file's bytes: the index, then the records in blocks, each compressed with zlib."""
    memo: dict[bytes, tuple[int, ...]] = {}
    needs: NeedMemo = {}
    keys = canonical_keys(max_tiles)
    index = bytearray(HEADER.pack(MAGIC, BLOCK, -(-len(keys) // BLOCK)))
    blocks = bytearray()
    for b in range(0, len(keys), BLOCK):
        block = bytearray()
        for key in keys[b : b + BLOCK]:
            vec, same = facts(key, memo)
            block += RECORD.pack(key, *vec, *same, *free_need(key, needs))
        packed = zlib.compress(bytes(block), 9)
        index += ENTRY.pack(keys[b], len(packed))
        blocks += packed
    return bytes(index + blocks)


def main() -> None:
    data = build()
    with resources.as_file(resources.files("engine.analysis") / FILE) as target:
        target.write_bytes(data)
    print(f"wrote {target} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
