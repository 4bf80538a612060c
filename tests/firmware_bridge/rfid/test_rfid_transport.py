"""The reader transport over a real pty, against a hand-driven reader on the master side:
poll() on idle (the gap timeout), HF presence snapshots, and the HF keepalive that keeps a
dead reader from looking like an empty zone. Plus the bridge's own bookkeeping for readers
that report through the board (a loop:// link talking to itself)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
import serial  # type: ignore[import-untyped]

from firmware_bridge.protocol import DisplayText, Inventory, Status, TableState, WallOrder
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.rfid import inventory as inventory_module
from firmware_bridge.rfid.events import Inventory as ReaderInventory
from firmware_bridge.rfid.hf_frame import HfCodec, encode_ack, encode_rf_on, encode_tag_read
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.ref_frame import RefCodec, encode_inventory
from firmware_bridge.rfid.sessions import make_session
from firmware_bridge.rfid.transport import ReaderTransport
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim.ports import PtyPort
from firmware_bridge.table import NoBoard, TableBridge
from firmware_bridge.table_events import (
    BridgeEvent,
    DeviceState,
    ReaderBack,
    ReaderSilent,
    TableStatus,
)
from tests.firmware_bridge.sim_helpers import until

UID_A = bytes.fromhex("e004010000000001")
UID_B = bytes.fromhex("e004010000000002")


@contextlib.asynccontextmanager
async def _ref_reader(got: list[ReaderInventory]) -> AsyncIterator[tuple[PtyPort, ReaderTransport]]:
    """An inventory reader's pty and the host's transport on it, open and flushed."""
    port = PtyPort()
    await port.plug()
    transport = ReaderTransport(port.url, RefCodec(), on_inventory=got.append)
    async with asyncio.timeout(30), transport:
        await until(lambda: transport.connected)
        await asyncio.sleep(0.1)  # the host's open flushes input: write after it
        yield port, transport
    await port.unplug()


@pytest.mark.timeout(60)
def test_a_half_frame_is_dropped_on_idle_and_the_next_frame_decoded() -> None:
    async def scenario() -> None:
        got: list[ReaderInventory] = []
        async with _ref_reader(got) as (port, transport):
            port.write(encode_inventory(4, 0, [UID_A])[:9])
            await until(lambda: transport.stats.gap_resets == 1)  # judged by poll() only
            port.write(encode_inventory(4, 1, [UID_A, UID_B]))
            await until(lambda: len(got) == 1)
        assert got[0].reader_id == 4 and got[0].uids == {UID_A, UID_B}
        assert transport.stats.frames == 1 and transport.stats.bytes_discarded == 9

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_a_host_behind_the_line_takes_only_each_readers_newest_set_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Sets of one reader read together (a slow host: the line ran ahead of it) are stale
    but the newest; the older ones are dropped and counted, never tracked, and three or
    more of one reader at once are warned of."""

    async def scenario() -> None:
        got: list[ReaderInventory] = []
        async with _ref_reader(got) as (port, transport):
            port.write(
                encode_inventory(4, 0, [UID_A])
                + encode_inventory(5, 0, [UID_B])
                + encode_inventory(4, 1, [UID_B])
            )
            await until(lambda: transport.stats.frames == 3)
            await asyncio.sleep(0.05)
            assert [(i.reader_id, i.uids) for i in got] == [(5, {UID_B}), (4, {UID_B})]
            assert transport.stats.stale_sets == 1 and transport.inventories == 2
            assert "behind" not in caplog.text  # a scan late: no news
            port.write(b"".join(encode_inventory(6, seq, [UID_A]) for seq in range(3)))
            await until(lambda: transport.stats.frames == 6)
            await asyncio.sleep(0.05)
        assert got[-1].reader_id == 6 and transport.stats.stale_sets == 3

    with caplog.at_level("WARNING", logger="firmware_bridge.rfid.transport"):
        asyncio.run(scenario())
    assert "read 3 sets of one reader at once; 3 stale sets dropped" in caplog.text


@pytest.mark.timeout(60)
def test_hf_presence_is_judged_only_as_of_the_readers_last_frame() -> None:
    """On the transport's own clock, moved by the test: a loaded machine that runs the
    transport late (an ack read long after the tag, a snapshot after the test looked)
    changes no time the presence is judged by. The transport has run at a new time once
    the reader hears the keepalive written then."""

    async def scenario() -> None:
        port = PtyPort()
        answering = True
        now = 0.0
        keepalives = acks = 0

        def on_bytes(data: bytes) -> None:
            nonlocal keepalives, acks
            keepalives += data.count(encode_rf_on())
            if answering:  # every host command is RF on: the keepalive
                port.write(encode_ack(0x01))
                acks += 1

        async def tick(seconds: float = 0.1) -> None:
            """The clock `seconds` on (a keepalive's interval or more), and the
            transport's loop run at the new time: it wrote the keepalive then due."""
            nonlocal now
            heard = keepalives
            now += seconds
            await until(lambda: keepalives > heard)

        port.on_bytes = on_bytes
        await port.plug()
        got: list[ReaderInventory] = []
        transport = ReaderTransport(
            port.url,
            HfCodec(reader_id=7),
            on_inventory=got.append,
            presence_timeout=0.3,
            snapshot_interval=0.05,
            keepalive_interval=0.1,
            clock=lambda: now,
        )
        async with asyncio.timeout(30), transport:
            while not keepalives:  # opened: the clock runs until the reader hears it
                now += 0.1
                await asyncio.sleep(0.01)
            while not got or not got[-1].uids:
                port.write(encode_tag_read(UID_A))
                await tick()
            seen = len(got) - 1
            assert got[seen].reader_id == 7 and got[seen].uids == {UID_A}
            # The reader dies: no reads, no acks. Its tag is never reported gone, and no
            # inventory comes at all (the bridge will call the reader silent).
            answering = False
            await until(lambda: transport.other_events == acks)  # its last frame read
            await tick()  # and the snapshot as of it taken
            count = len(got)
            for _ in range(6):
                await tick()
            assert len(got) == count and all(inv.uids == {UID_A} for inv in got[seen:])
            # Back to life with the tag lifted: the acks carry time on, the tag expires.
            answering = True
            while got[-1].uids:
                await tick()
            assert got[-1].t > got[count - 1].t + 0.3
        assert transport.other_events > 0  # the acks
        await port.unplug()

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_readers_on_the_board_feed_the_same_tracker_and_silence_alarms() -> None:
    zones = ZoneMap({1: Zone(ZoneKind.HAND, 0), 2: Zone(ZoneKind.JING)})

    async def scenario() -> None:
        # loop:// delivers what the bridge sends back to the bridge: a board that echoes.
        bridge = TableBridge(zones, board=LinkTransport("loop://"), silent_after=0.3)
        events: list[BridgeEvent] = []
        async with asyncio.timeout(30), bridge:
            task = asyncio.create_task(_collect(bridge, events))
            await until(lambda: sum(isinstance(e, ReaderSilent) for e in events) == 2)
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_A,)))
            bridge.send(Inventory(reader=9, zone=0, uids=(UID_B,)))  # not in the zone map
            bridge.send(DisplayText(0, "echo"))  # not something a board reports
            bridge.send(WallOrder(68, 136, (UID_A,)))  # a chunk with nothing before it
            await until(lambda: bridge.counters.bad_wall_order_chunks == 1)
            task.cancel()
        assert TagIn(Zone(ZoneKind.HAND, 0), UID_A, _t(events, TagIn)) in events
        assert [e.reader_id for e in events if isinstance(e, ReaderBack)] == [1]
        counters = bridge.counters
        assert counters.unknown_readers == 1 and counters.unexpected_messages == 1
        assert counters.reader_silent_alarms >= 2
        assert bridge.tracker.last_scan(1) is not None

    asyncio.run(scenario())


ECHO_ZONES = ZoneMap({1: Zone(ZoneKind.HAND, 0), 2: Zone(ZoneKind.JING)})
HAND_0 = Zone(ZoneKind.HAND, 0)


@contextlib.asynccontextmanager
async def _board_reader_letting_b_go(
    silent_after: float,
) -> AsyncIterator[tuple[TableBridge, list[BridgeEvent]]]:
    """A bridge on a board that echoes (loop://), whose reader 1 has sent A and B, then A
    alone: B's TagOut is due. Yields the bridge and every event it gave so far."""
    bridge = TableBridge(ECHO_ZONES, board=LinkTransport("loop://"), silent_after=silent_after)
    events: list[BridgeEvent] = []
    async with asyncio.timeout(30), bridge:
        task = asyncio.create_task(_collect(bridge, events))
        try:
            await until(lambda: bridge.board is not None and bridge.board.connected)
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_A, UID_B)))
            await until(lambda: sum(isinstance(e, TagIn) for e in events) == 2)
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_A,)))
            yield bridge, events
        finally:
            task.cancel()


@pytest.mark.timeout(60)
def test_a_set_the_board_sent_stands_until_it_sends_another() -> None:
    """A board sends a reader's set when it changes (and repeats it only each second): a tag
    missing from the newest set is out after the tracker's debounce, not at the repeat; a
    reader the board stops forwarding is still called silent, and its set stands no more."""

    async def scenario() -> None:
        async with _board_reader_letting_b_go(silent_after=1.0) as (bridge, events):
            sent = time.monotonic()  # and nothing more is sent
            await until(lambda: any(isinstance(e, TagOut) for e in events))
            took = time.monotonic() - sent
            await until(
                lambda: any(isinstance(e, ReaderSilent) and e.reader_id == 1 for e in events)
            )
            await asyncio.sleep(0.3)  # standing sets would be fed again every 0.1 s
        out, silenced = [e for e in events if isinstance(e, TagOut)]
        assert (out.zone, out.uid) == (HAND_0, UID_B)
        assert took < 0.7, took  # the tracker's 0.25 s and two scans, not a repeat's 1 s
        assert (silenced.zone, silenced.uid) == (HAND_0, UID_A)  # a silent reader's set: gone
        assert bridge.tracker.present(HAND_0) == frozenset()

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_a_build_takes_every_tag_out_and_a_late_set_naming_one_is_not_believed() -> None:
    """The board shuffles: every tile is in the machine. Each tag the bridge held is out at
    once (before the board's state: a tag still due its TagOut must not stand into the next
    hand), the board's standing sets go with them, and a set that still names a tag held
    before (sent before the build, read after it) is not taken for one put down, until a
    set without it; a tag in a set after that is in again."""

    async def scenario() -> None:
        async with _board_reader_letting_b_go(silent_after=60.0) as (bridge, events):
            bridge.send(Status(TableState.SHUFFLING))
            await until(lambda: any(isinstance(e, TableStatus) for e in events))
            after = [e for e in events if isinstance(e, TagIn | TagOut | TableStatus)][2:]
            assert [type(e) for e in after] == [TagOut, TagOut, TableStatus], after
            assert {(e.zone, e.uid) for e in after[:2]} == {(HAND_0, UID_A), (HAND_0, UID_B)}
            del events[:]
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_A, UID_B)))  # a late set
            await asyncio.sleep(0.4)  # standing sets would be fed again every 0.1 s
            assert not any(isinstance(e, TagIn | TagOut) for e in events), events
            assert bridge.tracker.present(HAND_0) == frozenset()
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_B,)))  # A left: caught up on A
            bridge.send(Inventory(reader=1, zone=0, uids=(UID_A, UID_B)))
            await until(lambda: any(isinstance(e, TagIn) for e in events))
            await asyncio.sleep(0.2)
        assert [(e.zone, e.uid) for e in events if isinstance(e, TagIn)] == [(HAND_0, UID_A)]
        assert bridge.tracker.present(HAND_0) == frozenset({UID_A})  # B: still a late reading

    asyncio.run(scenario())


async def _collect(bridge: TableBridge, events: list[BridgeEvent]) -> None:
    async for event in bridge:
        events.append(event)


def _t(events: list[BridgeEvent], kind: type) -> float:
    return next(e.t for e in events if isinstance(e, kind))


def test_board_commands_need_a_board() -> None:
    bridge = TableBridge(ZoneMap.standard())
    with pytest.raises(NoBoard):
        bridge.roll_dice()
    assert bridge.counters.board_messages == 0 and time.monotonic() > 0


@pytest.mark.timeout(60)
def test_an_idle_zone_costs_the_bridge_no_decoding_and_no_diffing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader repeating the same inventory (an idle table: 650 frames a second) through
    the bridge: read straight from the pty (not pyserial's read(), a select() more per
    frame), its UIDs decoded once (every repeat hands the tracker the same set), and the
    tracker's per-tag work done once. A hung-up pty still ends the connection."""
    pyserial_reads: list[int] = []
    real_read = serial.Serial.read

    def read(self: serial.Serial, size: int = 1) -> bytes:
        pyserial_reads.append(size)
        return bytes(real_read(self, size))

    monkeypatch.setattr(serial.Serial, "read", read)
    sightings: list[float] = []
    real_sighting = inventory_module._Sighting

    def sighting(last_seen: float) -> object:
        sightings.append(last_seen)
        return real_sighting(last_seen)

    monkeypatch.setattr(inventory_module, "_Sighting", sighting)
    zones = ZoneMap({4: Zone(ZoneKind.HAND, 0)})

    async def scenario() -> None:
        port = PtyPort(tmp_path / "reader-4")
        await port.plug()
        reader = ReaderTransport(str(tmp_path / "reader-4"), RefCodec())
        bridge = TableBridge(zones, readers=[reader], silent_after=60.0)  # a slow CI is not silence
        seen_sets: list[frozenset[bytes]] = []
        update = bridge.tracker.update

        def counting_update(inventory: ReaderInventory) -> list[Any]:
            seen_sets.append(inventory.uids)
            return update(inventory)

        bridge.tracker.update = counting_update  # type: ignore[method-assign]
        async with asyncio.timeout(30), bridge:
            await until(lambda: reader.connected)
            await asyncio.sleep(0.1)  # the host's open flushes input: write after it
            for seq in range(50):
                port.write(encode_inventory(4, seq, [UID_A, UID_B]))
                await asyncio.sleep(0.002)
            # all read; a host behind the line (a loaded machine) passes on only the newest
            # of the sets it read at once (the rest are counted stale)
            await until(lambda: len(seen_sets) + reader.stats.stale_sets == 50)
            events = [await bridge.next_event() for _ in range(3)]
            await port.unplug()  # the pty hangs up: EIO on the host's side
            await until(lambda: not reader.connected)
        assert [type(e) for e in events] == [DeviceState, TagIn, TagIn]
        assert all(s is seen_sets[0] for s in seen_sets)
        assert len(sightings) == 2  # the two tags, once
        assert pyserial_reads == []
        assert reader.disconnects == 1 and reader.stats.frames == 50

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_a_read_with_nothing_ready_is_no_hang_up() -> None:
    """A tty read with no byte ready returns nothing (pyserial's VMIN=0), as after a
    readiness another read took its bytes: the connection stays. A hung-up pty still ends
    it (the idle-zone test above)."""

    async def scenario() -> None:
        got: list[ReaderInventory] = []
        async with _ref_reader(got) as (port, transport):
            conn = transport._conn
            assert conn is not None
            conn.transport._read_ready()  # type: ignore[attr-defined]  # nothing to read
            port.write(encode_inventory(4, 0, [UID_A]))
            await until(lambda: len(got) == 1)
            assert transport.connected and transport.disconnects == 0

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_an_inventory_reader_wakes_the_loop_only_for_a_frame_cut_off() -> None:
    """No partial frame, no timer: a quiet or steadily reporting inventory port costs no
    wake-ups of its own; a half frame is still given up after the gap timeout."""

    async def scenario() -> None:
        port = PtyPort()
        await port.plug()
        codec = RefCodec(gap_timeout=0.05)
        polls: list[float] = []
        real_poll = codec.poll

        def poll(now: float) -> list[Any]:
            polls.append(now)
            return real_poll(now)

        codec.poll = poll  # type: ignore[method-assign]
        got: list[ReaderInventory] = []
        transport = ReaderTransport(port.url, codec, on_inventory=got.append)
        async with asyncio.timeout(30), transport:
            await until(lambda: transport.connected)
            await asyncio.sleep(0.1)  # the host's open flushes input: write after it
            for seq in range(10):
                port.write(encode_inventory(4, seq, [UID_A]))
                await asyncio.sleep(0.03)
            await until(lambda: len(got) == 10)  # a busy machine reads them late
            assert polls == []
            port.write(encode_inventory(4, 10, [UID_A])[:9])
            await until(lambda: transport.stats.gap_resets == 1)
            assert 0 < len(polls) <= 4
        await port.unplug()

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_a_polled_reader_wakes_the_loop_only_when_its_round_is_due() -> None:
    """A multi-antenna reader that answers nothing: the session's round timeout still asks
    again (and alerts), but the loop is not woken 20 times a second in between."""

    async def scenario() -> None:
        port = PtyPort()
        await port.plug()
        session = make_session("a0", "a0 reader 1", 1, [1, 2], round_timeout=0.3)
        polls: list[float] = []
        real_poll = session.poll

        def poll(now: float) -> Any:
            polls.append(now)
            return real_poll(now)

        session.poll = poll  # type: ignore[method-assign]
        transport = ReaderTransport.for_session(port.url, session)
        async with asyncio.timeout(30), transport:
            await until(lambda: transport.connected)
            await asyncio.sleep(1.5)
            # asked again every 0.3 s: five timeouts, a poll for each (and none between)
            assert 4 <= session.timeouts <= 6, session.timeouts
            assert len(polls) <= session.timeouts + 1, (len(polls), session.timeouts)
            assert transport.alerts >= 1  # no_answer: two rounds in a row went unanswered
        await port.unplug()

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_a_polled_reader_that_only_sends_garbage_still_times_out_its_round() -> None:
    """Bytes that never make a frame must not keep the round timeout from firing (the loop
    once judged silence only after a wait with no bytes at all)."""

    async def scenario() -> None:
        port = PtyPort()
        await port.plug()
        session = make_session("a0", "a0 reader 1", 1, [1, 2], round_timeout=0.3)
        transport = ReaderTransport.for_session(port.url, session)
        async with asyncio.timeout(30), transport:
            await until(lambda: transport.connected)
            for _ in range(75):  # 1.5 s of noise, a few bytes every 20 ms
                port.write(b"\x55\x13\x37")
                await asyncio.sleep(0.02)
            assert session.timeouts >= 3, session.timeouts
            assert transport.alerts >= 1
        await port.unplug()

    asyncio.run(scenario())


class _LateLine:
    """A reader line that opens when the test says (a Pi slow to start): what the bridge
    reads of a ReaderTransport, with no device behind it."""

    url = "late://reader"
    session = None

    def __init__(self) -> None:
        self.listeners: list[Any] = []

    def add_state_listener(self, listener: Any) -> None:
        self.listeners.append(listener)

    def deliver_to(self, *_: Any) -> None:
        pass

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    def opened(self) -> None:
        for listener in self.listeners:
            listener("connected")


@pytest.mark.timeout(60)
def test_a_reader_never_heard_is_silent_only_silent_after_from_when_its_line_opened() -> None:
    """A line that opened late has had no time to report: its readers' silence counts from
    the opening, not from the bridge's start (else every reader is called silent at once
    on a slow start)."""
    now = [0.0]
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return now[0]

    async def a_watch_tick() -> None:  # the watcher reads the clock once a tick
        seen = reads[0]
        await until(lambda: reads[0] >= seen + 2)

    async def scenario() -> None:
        line = _LateLine()
        bridge = TableBridge(
            ECHO_ZONES, readers=[cast(ReaderTransport, line)], silent_after=3.0, clock=clock
        )
        events: list[BridgeEvent] = []
        async with asyncio.timeout(30), bridge:
            task = asyncio.create_task(_collect(bridge, events))
            try:
                now[0] = 2.5
                line.opened()
                now[0] = 4.0  # 4 s after the start, 1.5 s after the opening
                await a_watch_tick()
                assert not any(isinstance(e, ReaderSilent) for e in events), events
                now[0] = 6.0  # 3.5 s after the opening: silent now
                await until(lambda: any(isinstance(e, ReaderSilent) for e in events))
            finally:
                task.cancel()

    asyncio.run(scenario())
