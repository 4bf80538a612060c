"""The virtual table's tiles: 136 tags with deterministic UIDs, and the registry they make.

Kind labels are opaque here (the bridge knows no tiles): the caller passes them, e.g. the
engine's kind names; the default is the integers 0–33. Tag ``i`` is kind ``kinds[i // 4]``,
copy ``i % 4``: the enrolment order.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from firmware_bridge.registry import COPIES, KindLabel, RegistryEntry, TagRegistry, TileTag

DEFAULT_KINDS: tuple[KindLabel, ...] = tuple(range(34))
_ISO15693_PREFIX = b"\xe0\x04"  # ISO 15693, manufacturer code 0x04: what real tiles carry
_EPC_HEADER = b"\x30"  # an SGTIN-96 header: what a UHF tag's EPC usually starts with


def make_uids(seed: int, count: int, *, epc: bool = False) -> list[bytes]:
    """`count` distinct 8-byte UIDs (or, `epc`, 96-bit EPCs), the same for the same seed."""
    uids: list[bytes] = []
    seen: set[bytes] = set()
    n = 0
    while len(uids) < count:
        digest = hashlib.sha256(f"mjtable-sim:{seed}:{n}".encode()).digest()
        n += 1
        uid = _EPC_HEADER + digest[:11] if epc else _ISO15693_PREFIX + digest[:6]
        if uid not in seen:
            seen.add(uid)
            uids.append(uid)
    return uids


class TileSet:
    """Every tag of the set, in enrolment order, with the kind and copy it is stuck on."""

    def __init__(
        self,
        seed: int = 0,
        kinds: Sequence[KindLabel] = DEFAULT_KINDS,
        copies: int = COPIES,
        *,
        epc: bool = False,
    ) -> None:
        """`epc`: UHF tiles, known by a 96-bit EPC instead of an ISO 15693 UID."""
        self.seed = seed
        self.kinds = tuple(kinds)
        self.copies = copies
        count = len(self.kinds) * copies
        self.uids: tuple[bytes, ...] = tuple(make_uids(seed, count, epc=epc))
        self._index = {uid: i for i, uid in enumerate(self.uids)}

    def __len__(self) -> int:
        return len(self.uids)

    def tile_of(self, uid: bytes) -> TileTag | None:
        i = self._index.get(uid)
        if i is None:
            return None
        return TileTag(self.kinds[i // self.copies], i % self.copies)

    def registry(self) -> TagRegistry:
        entries = (
            RegistryEntry(uid, TileTag(self.kinds[i // self.copies], i % self.copies))
            for i, uid in enumerate(self.uids)
        )
        return TagRegistry(entries, kinds=self.kinds, copies=self.copies)

    def write_registry(self, path: str | os.PathLike[str]) -> Path:
        """The registry file the controller loads, so both sides agree on every tag."""
        self.registry().save(path)
        return Path(path)
