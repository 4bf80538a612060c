"""Where every tag of the virtual table lies: in the machine, in the wall, or in a zone.

Sans-IO and clock-free; randomness comes from the RNG passed in. Moves that cannot happen
physically are refused with a reason, never raised.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from firmware_bridge.protocol.messages import TableState
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim.moves import (
    FlipToJing,
    MoveTag,
    PlaceCard,
    Rejection,
    TakeFromWall,
)

_JING = Zone(ZoneKind.JING)

# Where a tag lies: a zone, a ring position in the wall, or None (inside the machine).
Place = Zone | int | None


class TableModel:
    def __init__(self, uids: Sequence[bytes]) -> None:
        self.uids = tuple(uids)
        self._place: dict[bytes, Place] = dict.fromkeys(self.uids)
        self._wall: list[bytes | None] = []
        self._zones: dict[Zone, set[bytes]] = {}
        self.state = TableState.IDLE
        self.hand = 0
        self.lift_order: tuple[bytes, ...] = ()
        # tags that are no tiles (member cards), where a player laid them
        self._cards: dict[bytes, Zone] = {}

    # --- inspection -------------------------------------------------------------------

    @property
    def wall(self) -> tuple[bytes | None, ...]:
        return tuple(self._wall)

    def place_of(self, uid: bytes) -> Place:
        return self._place.get(uid)

    def tags_in(self, zone: Zone) -> frozenset[bytes]:
        cards = {uid for uid, z in self._cards.items() if z == zone}
        return frozenset(self._zones.get(zone, ())) | cards

    def zones(self) -> dict[Zone, frozenset[bytes]]:
        out = {z: set(tags) for z, tags in self._zones.items() if tags}
        for uid, zone in self._cards.items():
            out.setdefault(zone, set()).add(uid)
        return {z: frozenset(tags) for z, tags in out.items()}

    # --- the machine ----------------------------------------------------------------------

    def collect(self) -> None:
        """Every tile goes back into the machine (the end of a hand)."""
        self._place = dict.fromkeys(self.uids)
        self._wall = []
        self._zones.clear()

    def build_wall(self, rng: random.Random) -> tuple[bytes, ...]:
        """Shuffle and raise the walls: a seeded permutation, indexed by ring position.
        Tiles still out on the table are swept in first."""
        self.collect()
        order = list(self.uids)
        rng.shuffle(order)
        self._wall = list(order)
        for position, uid in enumerate(order):
            self._place[uid] = position
        self.lift_order = tuple(order)
        self.hand += 1
        return self.lift_order

    # --- moves ------------------------------------------------------------------------------

    def take_from_wall(self, move: TakeFromWall) -> Rejection | None:
        if not 0 <= move.position < len(self._wall):
            return Rejection(move, f"no wall position {move.position}")
        uid = self._wall[move.position]
        if uid is None:
            return Rejection(move, f"wall position {move.position} is empty")
        self._put(uid, move.to)
        return None

    def move_tag(self, move: MoveTag | FlipToJing) -> Rejection | None:
        to = move.to if isinstance(move, MoveTag) else _JING
        if move.tag not in self._place:
            return Rejection(move, f"no tag {move.tag.hex()} on this table")
        if self._place[move.tag] is None:
            return Rejection(move, f"tag {move.tag.hex()} is inside the machine")
        self._put(move.tag, to)
        return None

    def place_card(self, move: PlaceCard) -> Rejection | None:
        """A card (not a tile) laid on a zone or taken away; cards stay out of the machine."""
        if move.tag in self._place:
            return Rejection(move, f"tag {move.tag.hex()} is a tile of this table")
        if move.to is None:
            self._cards.pop(move.tag, None)
        else:
            self._cards[move.tag] = move.to
        return None

    def _put(self, uid: bytes, to: Zone) -> None:
        place = self._place[uid]
        if isinstance(place, int):
            self._wall[place] = None
        elif isinstance(place, Zone):
            self._zones[place].discard(uid)
        self._zones.setdefault(to, set()).add(uid)
        self._place[uid] = to
