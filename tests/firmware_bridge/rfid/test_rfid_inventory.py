"""Zones and the inventory tracker: TagIn at once, TagOut only after a debounced absence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid import (
    Inventory,
    InventoryTracker,
    RefCodec,
    TagIn,
    TagOut,
    Zone,
    ZoneKind,
    ZoneMap,
    encode_inventory,
)
from firmware_bridge.rfid import inventory as inventory_module

A, B, C = (bytes.fromhex(f"e00401500000000{i}") for i in (1, 2, 3))
HAND0 = Zone(ZoneKind.HAND, 0)
POOL = Zone(ZoneKind.POOL)


def inv(reader: int, t: float, *uids: bytes) -> Inventory:
    return Inventory(reader, 0, frozenset(uids), t)


def test_zone_parse_and_str() -> None:
    assert Zone.parse("hand:0") == HAND0
    assert Zone.parse("pool") == POOL
    assert str(Zone(ZoneKind.DISCARDS, 3)) == "discards:3"
    for bad in ("hand", "pool:1", "hand:4", "table:0", "hand:x"):
        with pytest.raises(ValueError):
            Zone.parse(bad)


def test_standard_zone_maps() -> None:
    per_seat = ZoneMap.standard()
    assert per_seat[1] == HAND0 and per_seat[13] == Zone(ZoneKind.JING) and len(per_seat) == 13
    pooled = ZoneMap.standard(centre_pool=True)
    assert pooled[9] == POOL and pooled[10] == Zone(ZoneKind.JING) and len(pooled) == 10


def test_zone_map_config_round_trip(tmp_path: Path) -> None:
    zones = ZoneMap.standard(centre_pool=True)
    path = tmp_path / "zones.json"
    zones.save(path)
    assert json.loads(path.read_text())["readers"]["9"] == "pool"
    assert dict(ZoneMap.load(path)) == dict(zones)
    with pytest.raises(ValueError, match="reader id"):
        ZoneMap.from_config({"one": "hand:0"})


def test_tag_in_at_once_and_out_after_debounce() -> None:
    tracker = InventoryTracker(ZoneMap({1: HAND0}), out_after_scans=2, out_after_seconds=0.25)
    assert tracker.update(inv(1, 0.0, A, B)) == [TagIn(HAND0, A, 0.0), TagIn(HAND0, B, 0.0)]
    assert tracker.update(inv(1, 0.2, A, B)) == []
    assert tracker.update(inv(1, 0.4, A)) == []  # B missing once
    assert tracker.update(inv(1, 0.6, A)) == [TagOut(HAND0, B, 0.6, last_seen=0.2)]
    assert tracker.present(HAND0) == {A}


def test_single_misread_gives_no_spurious_tag_out() -> None:
    tracker = InventoryTracker(ZoneMap({1: HAND0}))
    events = []
    for i in range(10):
        t = i * 0.2
        uids = (A,) if i == 4 else (A, B)  # B missed by one scan only
        events += tracker.update(inv(1, t, *uids))
    assert events == [TagIn(HAND0, A, 0.0), TagIn(HAND0, B, 0.0)]
    assert tracker.present(HAND0) == {A, B}


def test_fast_reader_needs_the_time_threshold_too() -> None:
    tracker = InventoryTracker(ZoneMap({1: HAND0}), out_after_scans=2, out_after_seconds=0.25)
    tracker.update(inv(1, 0.00, A))
    assert tracker.update(inv(1, 0.05, A)) == []
    assert tracker.update(inv(1, 0.10)) == []
    assert tracker.update(inv(1, 0.15)) == []  # 2 scans but only 0.1 s
    assert tracker.update(inv(1, 0.30)) == [TagOut(HAND0, A, 0.30, last_seen=0.05)]


def test_silent_reader_removes_nothing() -> None:
    tracker = InventoryTracker(ZoneMap({1: HAND0}))
    tracker.update(inv(1, 0.0, A))
    assert tracker.update(inv(2, 100.0)) == []  # another, unmapped reader
    assert tracker.unknown_readers == 1
    assert tracker.present(HAND0) == {A}
    assert tracker.last_scan(1) == 0.0


def test_tile_moving_between_zones() -> None:
    discards = Zone(ZoneKind.DISCARDS, 0)
    tracker = InventoryTracker(ZoneMap({1: HAND0, 2: discards}))
    tracker.update(inv(1, 0.0, A, B))
    tracker.update(inv(2, 0.0))
    assert tracker.update(inv(2, 0.3, A)) == [TagIn(discards, A, 0.3)]
    assert set(tracker.zone_of(A)) == {HAND0, discards}  # in both until the debounce
    tracker.update(inv(1, 0.4, B))
    assert tracker.update(inv(1, 0.8, B)) == [TagOut(HAND0, A, 0.8, last_seen=0.0)]
    assert tracker.zone_of(A) == [discards]


def test_zone_covered_by_two_readers() -> None:
    tracker = InventoryTracker(ZoneMap({9: POOL, 10: POOL}), out_after_scans=1)
    assert tracker.update(inv(9, 0.0, A)) == [TagIn(POOL, A, 0.0)]
    assert tracker.update(inv(10, 0.1, A)) == []
    assert tracker.update(inv(9, 0.5)) == []  # reader 10 still sees it
    assert tracker.update(inv(10, 0.6)) == [TagOut(POOL, A, 0.6, last_seen=0.1)]


def test_codec_to_tracker() -> None:
    codec = RefCodec()
    tracker = InventoryTracker(ZoneMap.standard())
    stream = encode_inventory(1, 0, [A, C]) + encode_inventory(1, 1, [A]) + b"\x00\xff"
    stream += encode_inventory(1, 2, [A])
    events = []
    for i, e in enumerate(codec.feed(stream, 0.0)):
        assert isinstance(e, Inventory)
        events += tracker.update(Inventory(e.reader_id, e.seq, e.uids, i * 0.2))
    assert events == [TagIn(HAND0, A, 0.0), TagIn(HAND0, C, 0.0), TagOut(HAND0, C, 0.4, 0.0)]


def test_all_out_takes_every_tag_out_and_forgets_every_sighting() -> None:
    discards = Zone(ZoneKind.DISCARDS, 0)
    tracker = InventoryTracker(ZoneMap({1: HAND0, 2: discards, 9: POOL, 10: POOL}))
    tracker.update(inv(1, 0.0, A, B))
    tracker.update(inv(1, 0.1, A))  # B: missed once, its TagOut not yet due
    tracker.update(inv(9, 0.1, C))
    tracker.update(inv(10, 0.15, C))
    assert tracker.all_out(0.2) == [
        TagOut(HAND0, A, 0.2, last_seen=0.1),
        TagOut(HAND0, B, 0.2, last_seen=0.0),
        TagOut(POOL, C, 0.2, last_seen=0.15),
    ]
    assert all(not tracker.present(z) for z in (HAND0, discards, POOL))
    assert tracker.all_out(0.3) == []  # a repeat (walls rising after shuffling) is harmless


def test_after_all_out_a_reader_naming_a_tag_it_held_is_not_believed_until_it_leaves_it_out() -> (
    None
):
    """A scan sent before the build and read after it (a stalled host reads each port's
    backlog in no fixed order), or the reader's own debounce: not a tile put down."""
    discards = Zone(ZoneKind.DISCARDS, 0)
    tracker = InventoryTracker(ZoneMap({1: HAND0, 2: discards}))
    tracker.update(inv(1, 0.0, A, B))
    tracker.all_out(1.0)
    held = frozenset({A, B})
    assert tracker.update(Inventory(1, 0, held, 1.01)) == []
    assert tracker.update(Inventory(1, 0, held, 1.02)) == []  # the same set again
    assert tracker.update(inv(1, 1.03, A, B, C)) == [TagIn(HAND0, C, 1.03)]  # C is new
    assert tracker.update(inv(2, 1.03, A)) == [TagIn(discards, A, 1.03)]  # another reader
    assert tracker.update(inv(1, 1.04, B, C)) == []  # caught up on A
    assert tracker.update(inv(1, 1.05, A, B, C)) == [TagIn(HAND0, A, 1.05)]
    assert tracker.present(HAND0) == {A, C}
    # B is named in every scan: believed once HELD_OVER_SECONDS have passed (a tile left
    # lying in the zone through the build is there after all)
    late = 1.0 + inventory_module.HELD_OVER_SECONDS
    assert tracker.update(inv(1, late, A, B, C)) == [TagIn(HAND0, B, late)]


class NaiveTracker:
    """The tracker as it was before repeated scans took a short cut: every scan refreshes
    every sighting. The oracle for the short cut."""

    def __init__(self, zones: ZoneMap, out_after_scans: int, out_after_seconds: float) -> None:
        self.zones = zones
        self.scans, self.seconds = out_after_scans, out_after_seconds
        self.seen: dict[int, dict[bytes, list[float]]] = {r: {} for r in zones}
        self.present: dict[Zone, set[bytes]] = {z: set() for z in zones.values()}
        self.held: dict[int, tuple[set[bytes], float]] = {}

    def all_out(self, now: float) -> list[TagIn | TagOut]:
        events: list[TagIn | TagOut] = []
        for zone, present in self.present.items():
            for uid in sorted(present):
                seen = [
                    self.seen[r][uid][0] for r in self.zones.readers_of(zone) if uid in self.seen[r]
                ]
                events.append(TagOut(zone, uid, now, max(seen, default=now)))
            present.clear()
        for reader, seen_by_reader in self.seen.items():
            if seen_by_reader:
                held = self.held.get(reader, (set(), now))[0] | set(seen_by_reader)
                self.held[reader] = (held, now + inventory_module.HELD_OVER_SECONDS)
            seen_by_reader.clear()
        return events

    def update(self, inventory: Inventory) -> list[TagIn | TagOut]:
        zone, now, seen = (
            self.zones[inventory.reader_id],
            inventory.t,
            self.seen[inventory.reader_id],
        )
        uids = inventory.uids
        if inventory.reader_id in self.held:
            tags, until = self.held[inventory.reader_id]
            tags = tags & uids
            if not tags or now >= until:
                del self.held[inventory.reader_id]
            else:
                self.held[inventory.reader_id] = (tags, until)
                uids = uids - tags
        inventory = Inventory(inventory.reader_id, 0, uids, now)
        for uid in inventory.uids:
            seen[uid] = [now, 0]  # last seen, missed scans
        gone = []
        for uid, sighting in seen.items():
            if uid not in inventory.uids:
                sighting[1] += 1
                if sighting[1] >= self.scans and now - sighting[0] >= self.seconds:
                    gone.append(uid)
        last_seen = {uid: seen.pop(uid)[0] for uid in gone}
        present = self.present[zone]
        events: list[TagIn | TagOut] = []
        for uid in sorted(gone):
            if uid in present and not any(uid in self.seen[r] for r in self.zones.readers_of(zone)):
                present.discard(uid)
                events.append(TagOut(zone, uid, now, last_seen[uid]))
        for uid in sorted(inventory.uids - present):
            present.add(uid)
            events.append(TagIn(zone, uid, now))
        return events


scans = st.lists(
    st.tuples(
        st.sampled_from([1, 2, 9, 0]),  # reader 9 shares the pool with reader 10; 0: all_out
        st.floats(0.0, 0.2),
        st.sampled_from([(), (A,), (A, B), (A, B, C), (B, C)]),
        st.booleans(),  # repeat the reader's last scan (the idle table's case)
    ),
    max_size=60,
)


@given(scans, st.integers(1, 3), st.sampled_from([0.0, 0.1, 0.25]))
def test_repeated_scans_short_cut_matches_the_naive_tracker(
    steps: list[tuple[int, float, tuple[bytes, ...], bool]], out_scans: int, out_seconds: float
) -> None:
    zones = ZoneMap({1: HAND0, 2: Zone(ZoneKind.DISCARDS, 0), 9: POOL, 10: POOL})
    tracker = InventoryTracker(zones, out_after_scans=out_scans, out_after_seconds=out_seconds)
    naive = NaiveTracker(zones, out_scans, out_seconds)
    t, last = 0.0, {}
    for reader, dt, uids, repeat in steps:
        t += dt
        if reader == 0:  # the board starts a build
            assert tracker.all_out(t) == naive.all_out(t)
            continue
        reader = 10 if reader == 9 and dt > 0.1 else reader
        tags = last.get(reader, frozenset(uids)) if repeat else frozenset(uids)
        last[reader] = tags  # the same set object again, as RefCodec hands it back
        scan = Inventory(reader, 0, tags, t)
        assert tracker.update(scan) == naive.update(scan)
        for zone in zones.values():
            assert tracker.present(zone) == naive.present[zone]
        assert tracker.last_scan(reader) == t


def test_a_repeated_scan_does_no_per_tag_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """The idle table's case: a scan equal to the last one creates no sightings."""
    made = []

    def sighting(last_seen: float) -> object:
        made.append(last_seen)
        return real(last_seen)

    real = inventory_module._Sighting
    monkeypatch.setattr(inventory_module, "_Sighting", sighting)
    tracker = InventoryTracker(ZoneMap({1: HAND0}))
    uids = frozenset({A, B, C})
    tracker.update(Inventory(1, 0, uids, 0.0))
    assert len(made) == 3
    for i in range(1, 50):
        assert tracker.update(Inventory(1, i, frozenset(uids), i * 0.02)) == []
    assert len(made) == 3
    assert tracker.last_scan(1) == 49 * 0.02


def test_a_silent_readers_sightings_stop_counting() -> None:
    """Two readers watch one zone; the first falls silent: what it alone saw is out at once,
    what the other still sees stays; its next scan brings its tags in again."""
    tracker = InventoryTracker(ZoneMap({1: HAND0, 2: HAND0, 3: POOL}))
    tracker.update(inv(1, 0.0, A, B))
    tracker.update(inv(2, 0.0, A))
    tracker.update(inv(3, 0.0, C))
    out = tracker.reader_silent(1, 3.5)
    assert [(e.zone, e.uid, e.t, e.last_seen) for e in out] == [(HAND0, B, 3.5, 0.0)]
    assert tracker.present(HAND0) == {A} and tracker.present(POOL) == {C}
    assert tracker.reader_silent(1, 4.0) == []  # once
    back = tracker.update(inv(1, 5.0, A, B))
    assert [(type(e), e.uid) for e in back] == [(TagIn, B)]
    assert tracker.reader_silent(9, 6.0) == []  # a reader no zone lists
