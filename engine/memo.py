"""Bounded memos and the registry that clears and sizes a module's memos together (the
bots' evaluation and the reading enumerator keep theirs in them; the benchmark measures
cold start by clearing them).

A ``BoundedMemo`` is a dict, so the hot paths read it with the dict's own ``get``; only a
miss pays a method call (``put``), which forgets the whole memo once it holds ``limit``
keys: the keys a long run meets keep changing, and a full clear is cheaper than tracking
which ones are old.
"""

from __future__ import annotations

from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(dict[K, V]):
    """A dict that forgets everything when a new key would take it past ``limit``."""

    __slots__ = ("group", "limit")

    def __init__(self, registry: MemoRegistry, group: str, limit: int) -> None:
        super().__init__()
        self.group = group  # sizes add up per group (``MemoRegistry.sizes``)
        self.limit = limit
        registry.memos.append(self)

    def put(self, key: K, value: V) -> V:
        self.make_room()
        self[key] = value
        return value

    def make_room(self) -> None:
        """Forget everything if full: for a caller about to add keys itself (a search that
        memoises its sub-keys as it goes)."""
        if len(self) >= self.limit:
            self.clear()


class MemoRegistry:
    """The memos of one module: made through it, cleared and sized together."""

    __slots__ = ("memos",)

    def __init__(self) -> None:
        self.memos: list[BoundedMemo[Any, Any]] = []

    def clear(self) -> None:
        for m in self.memos:
            m.clear()

    def sizes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for m in self.memos:
            out[m.group] = out.get(m.group, 0) + len(m)
        return out
