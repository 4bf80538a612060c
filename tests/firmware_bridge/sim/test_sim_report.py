"""Reference readers that report only changes (docs/rfid.md, "Report modes"): what they
send, and that a host sees the same tiles come and go as from readers that report every
scan. Sans-IO: the virtual reader's scans on a manual clock, decoded by the host's own
codec and tracker."""

from __future__ import annotations

import random

import pytest

from firmware_bridge.rfid.events import Inventory
from firmware_bridge.rfid.inventory import InventoryTracker, TagIn, TagOut
from firmware_bridge.rfid.ref_frame import RefCodec
from firmware_bridge.rfid.zones import Zone, ZoneMap
from firmware_bridge.sim.ports import PtyPort
from firmware_bridge.sim.readers import REPORT_HOLD, REPORT_REFRESH, VirtualReaderPort

SCAN = 0.02
ZONES = ZoneMap.standard()
READERS = (1, 5, 9)  # a hand, a meld area and a discard pile on one bus


def uid(n: int) -> bytes:
    return bytes((0xE0, 0x04, 0x01, 0x50, 0, 0, n >> 8, n & 0xFF))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Host:
    """The service's side of a reader line: the codec and the inventory tracker."""

    def __init__(self) -> None:
        self.codec = RefCodec()
        self.tracker = InventoryTracker(ZONES)
        self.frames = 0
        self.events: list[TagIn | TagOut] = []

    def feed(self, data: bytes, now: float) -> None:
        for event in self.codec.feed(data, now):
            assert isinstance(event, Inventory)
            self.frames += 1
            self.events += self.tracker.update(event)


def reader(
    where: dict[Zone, set[bytes]], clock: Clock, report: str, misread: float = 0.0
) -> VirtualReaderPort:
    return VirtualReaderPort(
        PtyPort(),  # never plugged: the test calls scan() itself
        "ref",
        READERS,
        ZONES,
        lambda zone: frozenset(where.get(zone, ())),
        random.Random(7),
        scan_interval=SCAN,
        misread_rate=misread,
        clock=clock,
        report=report,  # type: ignore[arg-type]
    )


def run(port: VirtualReaderPort, host: Host, clock: Clock, seconds: float) -> None:
    for _ in range(round(seconds / SCAN)):
        host.feed(port.scan(), clock.now)
        clock.now += SCAN


def test_an_unchanged_zone_is_repeated_each_second_and_a_change_at_once_then_every_scan() -> None:
    hand = Zone.parse("hand:0")
    where = {hand: {uid(1), uid(2)}}
    clock, host = Clock(), Host()
    port = reader(where, clock, "change")
    run(port, host, clock, 10.0)
    # the first set (and its hold), then one frame per reader each refresh
    per_reader = host.frames / len(READERS)
    assert per_reader <= REPORT_HOLD / SCAN + 1 + 10 / REPORT_REFRESH + 1, per_reader
    assert host.codec.stats.seq_gaps == 0  # seq counts the frames sent, not the scans
    assert {(e.zone, e.uid) for e in host.events} == {(hand, uid(1)), (hand, uid(2))}

    before = host.frames
    where[hand].add(uid(3))
    host.feed(port.scan(), clock.now)
    assert host.events[-1] == TagIn(hand, uid(3), clock.now)  # in the same scan
    clock.now += SCAN
    run(port, host, clock, 0.5)
    # every scan of the hold, for the reader whose zone changed, and no other
    held = host.frames - before
    assert round(REPORT_HOLD / SCAN) <= held <= round(REPORT_HOLD / SCAN) + len(READERS) + 1


def test_a_tile_taken_away_is_out_as_soon_as_from_a_reader_reporting_every_scan() -> None:
    hand, discards = Zone.parse("hand:0"), Zone.parse("discards:0")
    times: dict[str, float] = {}
    for report in ("scan", "change"):
        where = {hand: {uid(1), uid(2)}}
        clock, host = Clock(), Host()
        port = reader(where, clock, report)
        run(port, host, clock, 5.0)
        where[hand].discard(uid(2))
        where[discards] = {uid(2)}
        moved = clock.now
        run(port, host, clock, 2.0)
        outs = [e for e in host.events if isinstance(e, TagOut)]
        assert [(e.zone, e.uid) for e in outs] == [(hand, uid(2))], report
        times[report] = outs[0].t - moved
    # the reader's own judgement (2 scans, 0.25 s) then the host's (2 frames of the hold)
    assert times["scan"] <= times["change"] <= times["scan"] + 0.25 + 2 * SCAN, times


def test_misreads_are_no_change() -> None:
    hand = Zone.parse("hand:0")
    where = {hand: {uid(n) for n in range(14)}}
    clock, host = Clock(), Host()
    port = reader(where, clock, "change", misread=0.2)
    run(port, host, clock, 20.0)
    assert port.stats.misreads > 500
    assert not [e for e in host.events if isinstance(e, TagOut)]
    # the first set's hold, then the refreshes: nothing for a misread scan
    assert host.frames / len(READERS) <= REPORT_HOLD / SCAN + 1 + 20 / REPORT_REFRESH + 1


@pytest.mark.parametrize("seed", range(12))
def test_the_host_sees_the_same_tiles_come_and_go_in_both_modes(seed: int) -> None:
    """A random walk of tiles between zones with misreads: both modes end every stretch with
    the same tiles present, and every move is in (TagIn) at the scan it happens."""
    rng = random.Random(seed)
    zones = [ZONES[r] for r in READERS]
    moves = []
    for _ in range(25):
        moves.append((rng.randrange(20), rng.choice(zones), rng.choice([0.04, 0.3, 1.5])))
    seen: dict[str, list[tuple[Zone, frozenset[bytes]]]] = {}
    ins: dict[str, list[tuple[Zone, bytes, float]]] = {}
    for report in ("scan", "change"):
        where: dict[Zone, set[bytes]] = {z: set() for z in zones}
        clock, host = Clock(), Host()
        port = reader(where, clock, report, misread=0.03)
        stretch = []
        for tile, zone, wait in moves:
            for tiles in where.values():
                tiles.discard(uid(tile))
            where[zone].add(uid(tile))
            run(port, host, clock, wait)
            if wait > 1.0:  # long enough for every debounce: the host must agree
                stretch += [(z, host.tracker.present(z)) for z in zones]
                assert all(host.tracker.present(z) == frozenset(where[z]) for z in zones)
        seen[report] = stretch
        ins[report] = [(e.zone, e.uid, round(e.t, 6)) for e in host.events if isinstance(e, TagIn)]
    assert seen["scan"] == seen["change"]
    assert set(ins["change"]) <= set(ins["scan"])  # no TagIn a misread did not cause too


def test_only_reference_readers_report_changes() -> None:
    with pytest.raises(ValueError, match="only reference readers"):
        VirtualReaderPort(
            PtyPort(), "hf", (1,), ZONES, lambda z: frozenset(), random.Random(), report="change"
        )
    with pytest.raises(ValueError, match="unknown report mode"):
        reader({}, Clock(), "sometimes")
