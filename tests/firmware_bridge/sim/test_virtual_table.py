"""End to end over real ptys: the TableBridge connected to the virtual table.

The table is moved by a scripted driver; the bridge must report what physically happened:
status, the lift order, TagIn/TagOut per zone (and none that did not happen, even with
misreads and a lossy line), buttons in order, dice, and recovery from an unplugged reader.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from firmware_bridge.protocol.messages import LedMode, SeatButton, TableState
from firmware_bridge.registry import TagRegistry, TileTag
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.transport import CodecName
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim import (
    EndHand,
    FlipToJing,
    MoveTag,
    PressButton,
    ScriptedDriver,
    SimSettings,
    VirtualTable,
)
from firmware_bridge.table_events import (
    BOARD,
    ButtonPressed,
    DeviceState,
    DiceRolled,
    LiftOrder,
    ReaderBack,
    ReaderSilent,
    TableStatus,
)
from tests.firmware_bridge.sim_helpers import bridge_agrees, deal, hand, running, until

DISCARDS_0 = Zone(ZoneKind.DISCARDS, 0)
MELDS_1 = Zone(ZoneKind.MELDS, 1)
JING = Zone(ZoneKind.JING)
PRESSES = 40  # enough board frames that a 10 % lossy line surely loses some


@pytest.mark.timeout(60)
def test_bridge_sees_status_lift_order_and_every_move(tmp_path: Path) -> None:
    driver = ScriptedDriver(deal(3))
    registry = tmp_path / "registry.json"
    table = VirtualTable(SimSettings(seed=7, registry_path=registry), driver)

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(lambda: bool(log.of(LiftOrder)))
            await until(lambda: any(e.state is TableState.WALLS_UP for e in log.of(TableStatus)))
            lift = log.of(LiftOrder)[0]
            assert isinstance(lift, LiftOrder)
            # the board's link is heard up before anything the board reports over it
            board = [e for e in log.events if isinstance(e, DeviceState | TableStatus)]
            up = next(
                i for i, e in enumerate(board) if isinstance(e, DeviceState) and e.state == "up"
            )
            assert up < next(i for i, e in enumerate(board) if isinstance(e, TableStatus))
            assert lift.uids == table.model.lift_order and len(set(lift.uids)) == 136

            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            assert bridge.tracker.present(hand(2)) == frozenset(lift.uids[6:9])

            first, second = lift.uids[0], lift.uids[1]
            meld_tags = lift.uids[3:5]
            driver.add(
                MoveTag(first, DISCARDS_0),
                *(MoveTag(t, MELDS_1) for t in meld_tags),
                FlipToJing(lift.uids[100]),
            )
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            await until(lambda: bridge.tracker.zone_of(first) == [DISCARDS_0])

        tags = log.tag_events()
        assert TagIn(DISCARDS_0, first, _t(tags, TagIn, DISCARDS_0, first)) in tags
        outs = {(e.zone, e.uid) for e in tags if isinstance(e, TagOut)}
        assert outs == {(hand(0), first), *((hand(1), t) for t in meld_tags)}
        ins = [(e.zone, e.uid) for e in tags if isinstance(e, TagIn)]
        assert len(ins) == len(set(ins)) == 12 + 4  # dealt, then moved: each seen once
        assert (JING, lift.uids[100]) in ins
        assert second in bridge.tracker.present(hand(0))

    asyncio.run(scenario())
    loaded = TagRegistry.load(registry)
    assert len(loaded) == 136 and not loaded.validate()
    assert loaded.lookup(table.tiles.uids[5]) == TileTag(1, 1)


def _t(tags: list[TagIn | TagOut], kind: type, zone: Zone, uid: bytes) -> float:
    return next(e.t for e in tags if isinstance(e, kind) and e.zone == zone and e.uid == uid)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("codec", ["ref", "hf"])
def test_misreads_and_a_lossy_line_report_only_real_moves(codec: CodecName) -> None:
    driver = ScriptedDriver(deal(4))
    config = SimSettings(seed=3, codec=codec, misread_rate=0.15, drop_rate=0.1)
    table = VirtualTable(config, driver)

    async def scenario() -> None:
        # A tag vanishes from 0.6 s of scans (7 at 10/s) by misreads alone with probability
        # 0.15**7 ≈ 2e-6: the tracker's thresholds must fit the readers' misread rate.
        async with running(table, out_after_seconds=0.6) as log:
            bridge = log.bridge
            await until(lambda: bool(log.of(LiftOrder)))
            lift = log.of(LiftOrder)[0]
            assert isinstance(lift, LiftOrder)
            # the board's link is heard up before anything the board reports over it
            board = [e for e in log.events if isinstance(e, DeviceState | TableStatus)]
            up = next(
                i for i, e in enumerate(board) if isinstance(e, DeviceState) and e.state == "up"
            )
            assert (
                up < next(i for i, e in enumerate(board) if isinstance(e, TableStatus))
                and lift.uids == table.model.lift_order
            )
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            moved = lift.uids[0:2]
            driver.add(*(MoveTag(t, DISCARDS_0) for t in moved))
            driver.add(*(PressButton(s % 4, SeatButton(1 + s % 6)) for s in range(PRESSES)))
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            await until(lambda: len(log.of(ButtonPressed)) == PRESSES)
            await asyncio.sleep(1.0)  # long enough for a spurious TagOut to show up

        outs = {(e.zone, e.uid) for e in log.tag_events() if isinstance(e, TagOut)}
        assert outs == {(hand(0), t) for t in moved}
        assert [(e.seat, e.button) for e in log.of(ButtonPressed)] == [
            (s % 4, SeatButton(1 + s % 6)) for s in range(PRESSES)
        ]
        assert sum(r.stats.misreads for r in table.readers) > 0
        lossy = sum(r.noise.stats.lost + r.noise.stats.corrupted for r in table.readers)
        assert lossy > 0 and table.board.noise.stats.lost + table.board.noise.stats.corrupted > 0
        assert sum(r.stats.bad_checksums + r.stats.malformed for r in bridge.readers) > 0
        assert bridge.board is not None
        assert bridge.board.link.counters.retransmits + table.board.link.counters.retransmits > 0

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_an_unplugged_reader_is_reported_silent_its_tags_go_out_and_come_back(
    tmp_path: Path,
) -> None:
    driver = ScriptedDriver(deal(2))
    table = VirtualTable(SimSettings(seed=11, link_dir=tmp_path), driver)
    hand0_reader = next(i for i, r in enumerate(table.readers) if r.reader_ids == (1,))
    url = table.readers[hand0_reader].port.url
    assert url == str(tmp_path / "reader-1")

    async def scenario() -> None:
        async with running(table, silent_after=0.6) as log:
            bridge = log.bridge
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            before = bridge.tracker.present(hand(0))
            assert len(before) == 2

            await table.unplug_reader(hand0_reader)
            await until(lambda: _states(log.of(DeviceState), url)[-1:] == ["disconnected"])
            await until(lambda: any(e.reader_id == 1 for e in log.of(ReaderSilent)))
            # what it alone read is no longer there: its tags are out, it stays silent
            await until(lambda: bridge.tracker.present(hand(0)) == frozenset())
            lift = table.model.lift_order
            driver.add(MoveTag(lift[2], hand(0)))  # seat 1's tile lands in seat 0's hand
            await until(lambda: driver.pending == 0 and table.idle)
            await asyncio.sleep(0.5)
            assert bridge.tracker.present(hand(0)) == frozenset()

            await table.replug_reader(hand0_reader)
            await until(lambda: any(e.reader_id == 1 for e in log.of(ReaderBack)))
            await until(lambda: bridge_agrees(table, bridge))

        states = _states(log.of(DeviceState), url)
        assert states == ["connected", "disconnected", "connected"]
        assert _states(log.of(DeviceState), BOARD)[-1] == "up"
        outs = [e for e in log.tag_events() if isinstance(e, TagOut)]
        silenced = [(hand(0), uid) for uid in sorted(before)]
        assert [(e.zone, e.uid) for e in outs] == [*silenced, (hand(1), table.model.lift_order[2])]
        assert bridge.readers[hand0_reader].connects == 2

    asyncio.run(scenario())


def _states(events: list[DeviceState], device: str) -> list[str]:
    return [e.state for e in events if e.device == device]


@pytest.mark.timeout(60)
def test_dice_display_led_and_a_new_hand() -> None:
    driver = ScriptedDriver(deal(1))
    table = VirtualTable(SimSettings(seed=5, codec="ref", bus=True), driver)

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            bridge.roll_dice(2)
            bridge.show_text(0, "东风 第1局")
            bridge.set_led(3, LedMode.BLINK_SLOW, 255, 0, 0)
            await until(lambda: bool(log.of(DiceRolled)))
            dice = log.of(DiceRolled)[0]
            assert isinstance(dice, DiceRolled) and dice.values == table.board.dice
            assert len(dice.values) == 2 and all(1 <= v <= 6 for v in dice.values)
            await until(lambda: table.board.texts.get(0) == "东风 第1局" and 3 in table.board.leds)

            first = table.model.lift_order
            driver.add(EndHand())
            await until(lambda: len(log.of(LiftOrder)) == 2)
            await until(lambda: bridge_agrees(table, bridge))

        second = log.of(LiftOrder)[1]
        assert isinstance(second, LiftOrder) and second.uids != first
        assert sorted(second.uids) == sorted(first)
        assert table.model.hand == 2 and table.stats.hands == 2
        states = [e.state for e in log.of(TableStatus)]
        assert states[-3:] == [TableState.SHUFFLING, TableState.WALLS_RISING, TableState.WALLS_UP]
        outs = {(e.zone, e.uid) for e in log.tag_events() if isinstance(e, TagOut)}
        assert outs == {(hand(s), first[s]) for s in range(4)}  # the tiles went back in

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_the_machine_shuffles_once_no_reader_names_a_tile_of_the_last_hand() -> None:
    """People take seconds to push the tiles in; a reader that reports changes holds a tile
    taken away for its own debounce. The virtual table, much quicker, waits for the readers
    to let go before it reports SHUFFLING, as a real one would be long past them."""
    driver = ScriptedDriver(deal(2))
    table = VirtualTable(SimSettings(seed=4, codec="ref", report="change", scan_interval=0.02))
    table.driver = driver
    holding_at_shuffle: list[bool] = []
    set_state = table.board.set_state

    def record(state: TableState, faults: tuple[int, ...] = ()) -> None:
        if state is TableState.SHUFFLING:
            holding_at_shuffle.append(any(r.reports_tags() for r in table.readers))
        set_state(state, faults)

    table.board.set_state = record  # type: ignore[method-assign]

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            assert any(r.reports_tags() for r in table.readers)
            driver.add(EndHand())
            await until(lambda: len(log.of(LiftOrder)) == 2)

        assert holding_at_shuffle == [False, False]  # the first build, and the one after
        statuses = [i for i, e in enumerate(log.events) if isinstance(e, TableStatus)]
        shuffled = next(
            i
            for i in statuses[1:]
            if log.events[i].state is TableState.SHUFFLING  # type: ignore[union-attr]
        )
        assert not any(isinstance(e, TagIn) for e in log.events[shuffled:])  # nothing stale

    asyncio.run(scenario())


@pytest.mark.timeout(60)
def test_socket_urls_and_a_centre_pool() -> None:
    zones = ZoneMap.standard(centre_pool=True)
    driver = ScriptedDriver(deal(1))
    table = VirtualTable(SimSettings(seed=2, zones=zones, transport="socket"), driver)

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge))
            assert table.board_url.startswith("socket://127.0.0.1:")
            lift = table.model.lift_order
            driver.add(MoveTag(lift[0], Zone(ZoneKind.POOL)))
            await until(lambda: bridge.tracker.zone_of(lift[0]) == [Zone(ZoneKind.POOL)])
            assert log.of(LiftOrder)

    asyncio.run(scenario())
