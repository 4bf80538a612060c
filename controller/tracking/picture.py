"""Where each tag lies, as the readers last said it, and where the engine puts each tile.

A tile can be in several zones at once for a moment (the new zone reports it before the old
one lets it go); its latest zone is the one that counts. Tags that are not tiles are not
kept at all (a flood of strangers must not grow memory): they never take part in a move.
"""

from __future__ import annotations

from collections import Counter

from controller.table.tags import BadTag, Card, TagBook
from engine.round.state import SEATS, RoundState
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap

JING_ZONE = Zone(ZoneKind.JING)


class TablePicture:
    def __init__(self, book: TagBook, zones: ZoneMap) -> None:
        self.book = book
        self.zones = zones
        self.observed = frozenset(zones.values())
        """The zones a reader reports on now: a zone whose readers are all silent is not."""
        self._silent: set[int] = set()
        self._at: dict[int, list[Zone]] = {}  # tile -> zones it is in, latest last
        self._entered: dict[int, float] = {}

    # --- what the readers report ---------------------------------------------------------

    def tag_in(self, zone: Zone, uid: bytes, now: float) -> BadTag | Card | None:
        """Record the tag in ``zone``; a tag that is not a tile is returned, not recorded."""
        found = self.book.tile_of(uid)
        if not isinstance(found, int):
            return found
        zs = self._at.setdefault(found, [])
        if zone in zs:
            zs.remove(zone)
        zs.append(zone)
        self._entered[found] = now
        return None

    def tag_out(self, zone: Zone, uid: bytes) -> None:
        found = self.book.tile_of(uid)
        if not isinstance(found, int):
            return
        zs = self._at.get(found)
        if zs and zone in zs:
            zs.remove(zone)

    def reader_silent(self, reader: int, zone: Zone) -> None:
        """A silent reader's last report is no picture of its zone: once no reader reports
        on the zone, its tiles are read nowhere and nothing is expected to be read there
        (a discard from a hand whose reader is unplugged is no tile in two zones)."""
        self._silent.add(reader)
        if zone in self.observed and set(self.zones.readers_of(zone) or [reader]) <= self._silent:
            self.observed = self.observed - {zone}
            for zs in self._at.values():
                if zone in zs:
                    zs.remove(zone)

    def reader_back(self, reader: int, zone: Zone) -> None:
        """It reports again: its scans bring the zone's tiles back in (TagIn)."""
        self._silent.discard(reader)
        if zone in self.zones.values():
            self.observed = self.observed | {zone}

    # --- what it shows ---------------------------------------------------------------------

    def zone_of(self, tile: int) -> Zone | None:
        zs = self._at.get(tile)
        return zs[-1] if zs else None

    def zones_of(self, tile: int) -> list[Zone]:
        """Every zone the tile is read in, latest last."""
        return list(self._at.get(tile, ()))

    def entered(self, tile: int) -> float:
        """When the tile last entered a zone."""
        return self._entered[tile]

    def tiles_in(self, zone: Zone) -> list[int]:
        """Tiles whose latest zone is ``zone``, in the order they arrived."""
        found = [t for t, zs in self._at.items() if zs and zs[-1] == zone]
        return sorted(found, key=lambda t: self._entered.get(t, 0.0))

    def read_tiles(self) -> list[int]:
        """Every tile read somewhere now."""
        return [t for t, zs in self._at.items() if zs]

    def counts(self) -> Counter[Zone]:
        """How many tiles each zone holds (by latest zone)."""
        return Counter(zs[-1] for zs in self._at.values() if zs)

    # --- the zones of a seat (None: no reader looks there) ----------------------------------

    @staticmethod
    def hand(seat: int) -> Zone:
        return Zone(ZoneKind.HAND, seat)

    def melds(self, seat: int) -> Zone | None:
        z = Zone(ZoneKind.MELDS, seat)
        return z if z in self.observed else None

    def discards(self, seat: int) -> Zone | None:
        z = Zone(ZoneKind.DISCARDS, seat)
        if z in self.observed:
            return z
        pool = Zone(ZoneKind.POOL)
        return pool if pool in self.observed else None

    # --- the engine's picture ----------------------------------------------------------------

    def expected_zones(self, st: RoundState) -> dict[int, Zone | None]:
        """Where the engine puts each tile it knows out of the wall (None: unread zone)."""
        out: dict[int, Zone | None] = {}

        def put(tiles: list[int] | tuple[int, ...], zone: Zone | None) -> None:
            for t in tiles:
                out[t] = zone if zone in self.observed else None

        for s in range(SEATS):
            put(st.hands[s], self.hand(s))
            for m in st.melds[s]:
                put(m.tiles, Zone(ZoneKind.MELDS, s))
            put(st.discards[s], self.discards(s))
        wall = st.wall
        if wall is not None:
            for f in (wall.flip, wall.xia_jing):
                if f is not None and f.tile is not None and not wall.is_taken(f.position):
                    put([f.tile], JING_ZONE)
        return out
