"""Turn single-tag reads into a presence set, so HF readers look like inventory readers."""

from __future__ import annotations

from firmware_bridge.rfid.events import Inventory, TagRead

DEFAULT_PRESENCE_TIMEOUT = 1.5
"""A tag not re-read for this long is gone. Must exceed the codec's hold time plus the
reader's re-read interval, or a tag lying still would flicker out and in."""


class PresenceTracker:
    """Collects :class:`TagRead` values of one reader; :meth:`snapshot` gives an Inventory.

    Call :meth:`snapshot` at a steady rate (e.g. every 0.2 s) and pass the result to the
    :class:`~firmware_bridge.rfid.inventory.InventoryTracker` like any other inventory.
    """

    def __init__(self, reader_id: int, timeout: float = DEFAULT_PRESENCE_TIMEOUT) -> None:
        self.reader_id = reader_id
        self.timeout = timeout
        self._last_read: dict[bytes, float] = {}
        self._seq = 0

    def observe(self, read: TagRead) -> None:
        previous = self._last_read.get(read.uid)
        if previous is None or read.t > previous:
            self._last_read[read.uid] = read.t

    def present(self, now: float) -> frozenset[bytes]:
        gone = [uid for uid, t in self._last_read.items() if now - t > self.timeout]
        for uid in gone:
            del self._last_read[uid]
        return frozenset(self._last_read)

    def snapshot(self, now: float) -> Inventory:
        inventory = Inventory(self.reader_id, self._seq, self.present(now), now)
        self._seq = (self._seq + 1) & 0xFF
        return inventory
