"""Reassembles the lift order from WALL_ORDER messages (136 tags need two). Sans-IO.

The link delivers in order, so chunks arrive start = 0, then each following the last. A
chunk that does not fit (another total, a gap, a repeat from a restarted board) is counted
and the partial order dropped; a chunk starting at 0 always begins a new order.
"""

from __future__ import annotations

from firmware_bridge.protocol.messages import WallOrder


class WallOrderAssembler:
    def __init__(self) -> None:
        self._uids: list[bytes] = []
        self._total: int | None = None
        self.completed = 0
        self.bad_chunks = 0

    def add(self, chunk: WallOrder) -> tuple[bytes, ...] | None:
        """Returns the whole order when this chunk completes it."""
        if chunk.start == 0:
            self._uids, self._total = [], chunk.total
        elif self._total != chunk.total or chunk.start != len(self._uids):
            self.bad_chunks += 1
            self._uids, self._total = [], None
            return None
        self._uids += chunk.uids
        if len(self._uids) < chunk.total:
            return None
        order = tuple(self._uids)
        self._uids, self._total = [], None
        if len(order) != chunk.total or len(set(order)) != len(order):
            self.bad_chunks += 1  # a UID twice: the lift reader misread, not a wall
            return None
        self.completed += 1
        return order
