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
