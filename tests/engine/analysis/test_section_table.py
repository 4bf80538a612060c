"""The stored suit sections: the file matches a fresh search, and lookups agree with it."""

from __future__ import annotations

import random
import tracemalloc
import zlib
from importlib import resources

import pytest

from engine.analysis import section_table, write_section_table
from engine.analysis.suit_tables import (
    Section,
    canonical,
    need_table,
    solve_need,
    solve_usable,
    usable,
)


def test_the_file_is_what_a_fresh_build_writes() -> None:
    # compare records, not zlib output (another zlib may compress the same bytes otherwise)
    on_disk = (resources.files("engine.analysis") / section_table.FILE).read_bytes()
    built = write_section_table.build()
    assert list(section_table.records(on_disk)) == list(section_table.records(built))
    assert section_table.blocks_index(on_disk)[0] == section_table.blocks_index(built)[0]


def test_stored_facts_agree_with_the_search() -> None:
    rng = random.Random(5)
    memo: dict[bytes, tuple[int, ...]] = {}
    needs: dict[tuple[bytes, bytes | None], tuple[int, int]] = {}
    checked = 0
    while checked < 400:
        counts = [0] * 9
        for _ in range(rng.randint(0, 14)):
            i = rng.randrange(9)
            if counts[i] < 4:
                counts[i] += 1
        key = canonical(Section.SUIT, bytes(counts))[0]
        found = section_table.stored(key)
        if sum(counts) > section_table.MAX_TILES:
            assert found is None
            assert section_table.stored_need(key) is None
        else:
            assert found == write_section_table.facts(key, memo)
            assert section_table.stored_need(key) == write_section_table.free_need(key, needs)
            checked += 1
        # whatever is stored, usable answers as the search does, for the key as it is
        searched = solve_usable(Section.SUIT, key, memo, table=False)
        assert usable(Section.SUIT, bytes(counts)) == searched
        # and so does the free need (read from the canonical key's record)
        assert need_table(Section.SUIT).fill(bytes(counts)) == solve_need(
            Section.SUIT, bytes(counts), None, needs
        )


def test_only_canonical_keys_are_stored() -> None:
    assert section_table.stored(bytes([0, 0, 1, 1, 1, 0, 0, 0, 0])) is None  # shifted
    assert section_table.stored(bytes([1, 1, 1, 0, 0, 0, 0, 0, 0])) is not None


def test_the_binary_search_finds_every_stored_key_and_nothing_else() -> None:
    """Differential: the key-order search against a dict of every record's key."""
    data = (resources.files("engine.analysis") / section_table.FILE).read_bytes()
    at = {record[:9]: record for record in section_table.records(data)}
    for key, record in at.items():
        rec = section_table.RECORD.unpack(record)
        assert section_table.stored(key) == (rec[1:11], rec[11:20])
        assert section_table.stored_need(key) == rec[20:22]
    rng = random.Random(11)
    # keys sharing a stored key's first 8 bytes, and random ones: found only when stored
    near = [key[:8] + bytes([c]) for key in at for c in range(5)]
    other = [bytes(rng.choice((0, 0, 1, 2, 3, 4)) for _ in range(9)) for _ in range(20_000)]
    for key in [*near, *other, b"", b"\x01", b"\x01" * 10, b"\x05" * 9]:
        assert (section_table.stored(key) is not None) == (key in at), key


def test_the_loaded_table_stays_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table service holds it from its first hand: the compressed blocks (325 KB),
    their index and a few recent blocks, not the records whole (1.7 MB) nor a dict entry
    per key (3.8 MB more), however many keys are asked."""
    monkeypatch.setattr(section_table, "_FIRSTS", [])
    section_table._block.cache_clear()
    data = (resources.files("engine.analysis") / section_table.FILE).read_bytes()
    keys = [record[:9] for record in section_table.records(data)]
    tracemalloc.start()
    try:
        for key in keys[::7]:  # every block, many times over
            assert section_table.stored(key) is not None
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 600_000, held


def test_a_file_of_another_layout_is_refused() -> None:
    data = (resources.files("engine.analysis") / section_table.FILE).read_bytes()
    with pytest.raises(ValueError, match="regenerate"):
        section_table.blocks_index(zlib.compress(b"old layout"))
    with pytest.raises(ValueError, match="the index says"):
        section_table.blocks_index(data[:-1])
