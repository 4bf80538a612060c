"""Bounded memos: a dict until the limit, then forgotten whole; sized and cleared together."""

from __future__ import annotations

from engine.memo import BoundedMemo, MemoRegistry


def test_a_memo_forgets_everything_at_its_limit() -> None:
    memo: BoundedMemo[int, str] = BoundedMemo(MemoRegistry(), "g", 3)
    for k in range(3):
        assert memo.put(k, str(k)) == str(k)
    assert memo.get(2) == "2" and len(memo) == 3
    memo.put(3, "3")
    assert dict(memo) == {3: "3"}


def test_the_registry_sizes_per_group_and_clears_all() -> None:
    registry = MemoRegistry()
    a: BoundedMemo[int, int] = BoundedMemo(registry, "x", 10)
    b: BoundedMemo[int, int] = BoundedMemo(registry, "x", 10)
    c: BoundedMemo[int, int] = BoundedMemo(registry, "y", 10)
    a.put(1, 1)
    b.put(1, 1)
    b.put(2, 2)
    c.put(1, 1)
    assert registry.sizes() == {"x": 3, "y": 1}
    registry.clear()
    assert registry.sizes() == {"x": 0, "y": 0}


def test_make_room_forgets_only_a_full_memo() -> None:
    memo: BoundedMemo[int, int] = BoundedMemo(MemoRegistry(), "g", 2)
    memo[1] = 1  # a search adding its own keys
    memo.make_room()
    assert dict(memo) == {1: 1}
    memo[2] = 2
    memo.make_room()
    assert dict(memo) == {}


def test_the_analysis_tables_are_bounded_memos() -> None:
    """A table service runs for weeks: every table the readings fill key by key is sized
    (the suit tables were plain dicts that only ever grew)."""
    from engine.analysis import suit_tables

    tables = [*suit_tables._USABLE_MEMO.values()]
    for t in (suit_tables.need_table(s) for s in suit_tables.Section):
        tables += [t.table, t.plus]
    assert all(isinstance(t, BoundedMemo) and t.limit <= 10_000 for t in tables)
