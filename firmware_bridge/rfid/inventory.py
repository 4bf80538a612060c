"""Successive inventories per zone -> TagIn / TagOut events, debounced against misreads.

A tag that appears is reported at once (TagIn). A tag that vanishes is reported (TagOut)
only when it has been missing from ``out_after_scans`` consecutive scans of every reader
that saw it **and** not seen for ``out_after_seconds``. Defaults: 2 scans and 0.25 s, so one
misread scan never produces a TagOut, and a fast reader (>8 scans/s) still needs a quarter
second of absence. Set one threshold to 1 scan / 0 s to rely on the other alone. Absence is
concluded at a scan, or when the bridge judges a reader silent (``reader_silent``): what a
reader no longer reports is no longer known to be there.

Readers repeat the same inventory scan after scan (13 readers, 50 scans a second each, on
an idle table): a scan equal to the reader's last one, while every tag the reader holds was
in it, changes nothing but the time, and costs one set comparison (an identity check when
the codec hands back the same set, as RefCodec does for a byte-equal frame).
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.rfid.events import Inventory
from firmware_bridge.rfid.zones import Zone, ZoneMap

DEFAULT_OUT_AFTER_SCANS = 2
DEFAULT_OUT_AFTER_SECONDS = 0.25
HELD_OVER_SECONDS = 1.0
"""After ``all_out``, how long a reader's scans that still name a tag it held before are not
believed (see there)."""


@dataclass(frozen=True, slots=True)
class TagIn:
    zone: Zone
    uid: bytes
    t: float


@dataclass(frozen=True, slots=True)
class TagOut:
    """``t`` is the scan that confirmed the absence; ``last_seen`` the last scan with the tag."""

    zone: Zone
    uid: bytes
    t: float
    last_seen: float


TagEvent = TagIn | TagOut


@dataclass(slots=True)
class _Sighting:
    last_seen: float
    missed: int = 0


class InventoryTracker:
    def __init__(
        self,
        zones: ZoneMap,
        *,
        out_after_scans: int = DEFAULT_OUT_AFTER_SCANS,
        out_after_seconds: float = DEFAULT_OUT_AFTER_SECONDS,
    ) -> None:
        self.zones = zones
        self._zone_of = dict(zones)  # a plain dict: looked up for every scan
        self.out_after_scans = max(1, out_after_scans)
        self.out_after_seconds = max(0.0, out_after_seconds)
        self._seen: dict[int, dict[bytes, _Sighting]] = {r: {} for r in zones}
        self._present: dict[Zone, set[bytes]] = {z: set() for z in zones.values()}
        self._last_scan: dict[int, float] = {}
        self._steady: dict[int, frozenset[bytes]] = {}
        """Per reader, its last scan's tags while that scan held every tag it has seen
        (none pending a TagOut): their sightings date from the reader's last scan."""
        self._held_over: dict[int, tuple[set[bytes], float]] = {}
        """Per reader, the tags it held when ``all_out`` was called, and until when a scan
        naming them is taken for one sent before (see there)."""
        self.unknown_readers = 0
        """Inventories from readers the zone map does not know (ignored, counted)."""

    def update(self, inventory: Inventory) -> list[TagEvent]:
        reader = inventory.reader_id
        zone = self._zone_of.get(reader)
        if zone is None:
            self.unknown_readers += 1
            return []
        now = inventory.t
        uids = inventory.uids
        if self._held_over:
            uids = self._not_held_over(reader, uids, now)
        last_scan = self._last_scan.get(reader, now)
        self._last_scan[reader] = now
        seen = self._seen[reader]
        steady = self._steady.get(reader)
        if steady is not None:
            if steady is uids or steady == uids:
                return []
            del self._steady[reader]
            for sighting in seen.values():  # each was in every scan up to the last one
                sighting.last_seen = last_scan
        for uid in uids:
            seen[uid] = _Sighting(now)
        gone: list[bytes] = []
        for uid, sighting in seen.items():
            if uid in uids:
                continue
            sighting.missed += 1
            if (
                sighting.missed >= self.out_after_scans
                and now - sighting.last_seen >= self.out_after_seconds
            ):
                gone.append(uid)
        last_seen = {uid: seen.pop(uid).last_seen for uid in gone}

        present = self._present[zone]
        events = self._out(zone, last_seen, now)
        for uid in sorted(uids - present):
            present.add(uid)
            events.append(TagIn(zone, uid, now))
        if len(seen) == len(uids):
            self._steady[reader] = uids
        return events

    def all_out(self, now: float) -> list[TagEvent]:
        """Every tile went into the machine (the board starts a new build): each tag held
        present is out now, its debounce or not, and no sighting carries over. Without this
        a tag whose TagOut was still due (the last hand's discard, its absence read late
        after a stall) would stand in its old zone into the next hand, where the tile may
        be the next one drawn from the new wall: the table's tracker would take the old
        reading for a draw and a discard nobody made.

        A scan that still names a tag its reader held here is not believed either, until
        a scan of that reader leaves the tag out (or ``HELD_OVER_SECONDS`` pass): it was
        sent before the build and reaches us after the board's word (a stalled host reads
        each port's backlog in no fixed order), or the reader's own debounce still holds
        the tile. A tag in a scan after one without it is new, as always."""
        for reader, seen_by_reader in self._seen.items():
            if seen_by_reader:
                held, _ = self._held_over.get(reader, (set(), now))
                self._held_over[reader] = (held | set(seen_by_reader), now + HELD_OVER_SECONDS)
        events: list[TagEvent] = []
        for zone, present in self._present.items():
            readers = self.zones.readers_of(zone)
            for uid in sorted(present):
                seen = [self._last_seen(r, uid) for r in readers if uid in self._seen[r]]
                events.append(TagOut(zone, uid, now, max(seen, default=now)))
            present.clear()
        for seen_by_reader in self._seen.values():
            seen_by_reader.clear()
        self._steady.clear()
        return events

    def reader_silent(self, reader: int, now: float) -> list[TagEvent]:
        """The reader stopped reporting (unplugged, dead): its sightings no longer count as
        presence. A tag it alone held in its zone is out now; one another reader of the zone
        still sees stays. Its next scan, if it comes back, brings TagIns as a first scan."""
        seen = self._seen.get(reader)
        zone = self._zone_of.get(reader)
        if not seen or zone is None:
            return []
        last = {uid: self._last_seen(reader, uid) for uid in seen}
        seen.clear()
        self._steady.pop(reader, None)
        self._last_scan.pop(reader, None)
        return self._out(zone, last, now)

    def _out(self, zone: Zone, last_seen: dict[bytes, float], now: float) -> list[TagEvent]:
        """TagOut for each tag no longer seen by a reader, unless another reader of the
        zone still sees it."""
        present = self._present[zone]
        events: list[TagEvent] = []
        for uid in sorted(last_seen):
            if uid in present and not self._seen_elsewhere_in_zone(zone, uid):
                present.discard(uid)
                events.append(TagOut(zone, uid, now, last_seen[uid]))
        return events

    def _last_seen(self, reader: int, uid: bytes) -> float:
        if reader in self._steady:  # every tag it holds was in each scan up to its last
            return self._last_scan[reader]
        return self._seen[reader][uid].last_seen

    def _not_held_over(self, reader: int, uids: frozenset[bytes], now: float) -> frozenset[bytes]:
        """The scan's tags less those held over from before ``all_out`` (see there)."""
        held = self._held_over.get(reader)
        if held is None:
            return uids
        tags, until = held
        tags &= uids  # a tag this scan leaves out: the reader has caught up on it
        if not tags or now >= until:
            del self._held_over[reader]
            return uids
        return uids - tags

    def present(self, zone: Zone) -> frozenset[bytes]:
        return frozenset(self._present.get(zone, ()))

    def zone_of(self, uid: bytes) -> list[Zone]:
        """Every zone currently holding ``uid`` (more than one is an anomaly for the caller)."""
        return sorted(z for z, uids in self._present.items() if uid in uids)

    def last_scan(self, reader_id: int) -> float | None:
        """When the tracker last took a scan of the reader (TableBridge judges a reader's
        silence on what the reader itself sent: a board's standing sets are scans too)."""
        return self._last_scan.get(reader_id)

    def _seen_elsewhere_in_zone(self, zone: Zone, uid: bytes) -> bool:
        return any(uid in self._seen[r] for r in self.zones.readers_of(zone))
