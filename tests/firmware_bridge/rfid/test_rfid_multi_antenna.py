"""Multi-antenna readers (UHF A0, HF ISC) end to end over real ptys: the virtual readers
answer the bridge's sessions, antennas miss tags and read border tags on the wrong antenna,
and the bridge still reports only what physically happened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware_bridge.rfid.events import ReaderAlert
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import MoveTag, ScriptedDriver, SimSettings, VirtualTable
from firmware_bridge.sim.table import CodecName
from firmware_bridge.table_events import DeviceState, ReaderBack, ReaderSilent
from tests.firmware_bridge.sim_helpers import bridge_agrees, deal, hand, running
from tests.firmware_bridge.sim_helpers import until as _until


async def until(condition: Callable[[], bool], what: str = "", seconds: float = 20.0) -> None:
    """Like sim_helpers.until, but a wait that never ends fails naming what it waited for."""
    try:
        async with asyncio.timeout(seconds):
            await _until(condition)
    except TimeoutError:
        raise AssertionError(f"waited {seconds:g} s in vain for {what or condition}") from None


DISCARDS = [Zone(ZoneKind.DISCARDS, s) for s in range(4)]
MELDS_0 = Zone(ZoneKind.MELDS, 0)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("codec", ["a0", "iso15693"])
def test_misses_and_border_reads_report_only_real_moves(codec: CodecName) -> None:
    driver = ScriptedDriver(deal(4))
    config = SimSettings(seed=5, codec=codec, misread_rate=0.05, border_rate=0.02, drop_rate=0.05)
    table = VirtualTable(config, driver)
    assert [(r.address, r.reader_ids) for r in table.readers] == [
        (1, tuple(range(1, 9))),
        (2, tuple(range(9, 14))),
    ]
    assert {len(t) for t in table.tiles.uids} == {12 if codec == "a0" else 8}

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(
                lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge),
                "the deal, read",
            )
            lift = table.model.lift_order
            moves = [MoveTag(lift[s * 4], DISCARDS[s]) for s in range(4)]
            moves.append(MoveTag(lift[1], MELDS_0))
            driver.add(*moves)
            await until(
                lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge),
                "the moves, read",
            )
            # The run must have seen both faults it is about: rounds per second vary with
            # the machine's load, so wait for them rather than for a fixed time.
            await until(
                lambda: table.field.misses > 0 and table.field.border_reads > 0,
                "a missed tag and a border read",
                seconds=60.0,
            )
            await asyncio.sleep(1.5)  # several rounds: time for a false move to show up

        lift = table.model.lift_order
        dealt = {(hand(p // 4), lift[p]) for p in range(16)}
        moved = {(m.to, m.tag) for m in moves}
        ins = [(e.zone, e.uid) for e in log.tag_events() if isinstance(e, TagIn)]
        expected = dealt | moved
        assert sorted(ins) == sorted(expected), (
            f"false moves {set(ins) - expected}, missed {expected - set(ins)}, {len(ins)} in"
        )
        outs = {(e.zone, e.uid) for e in log.tag_events() if isinstance(e, TagOut)}
        assert outs == {(hand(0), lift[1])} | {(hand(s), lift[s * 4]) for s in range(4)}
        sessions = [r.session for r in bridge.readers if r.session is not None]
        assert len(sessions) == 2 and all(s.info.firmware == "8.2" for s in sessions)

    asyncio.run(scenario())


@pytest.mark.timeout(90)
@pytest.mark.parametrize("codec", ["a0", "iso15693"])
def test_a_reader_unplugged_mid_hand_reads_nothing_until_it_comes_back(
    codec: CodecName, tmp_path: Path
) -> None:
    driver = ScriptedDriver(deal(2))
    # Stable names, as udev makes them: a replugged pty gets a new /dev/pts number.
    table = VirtualTable(SimSettings(seed=8, codec=codec, link_dir=tmp_path), driver)
    mark_tags = 0

    async def scenario() -> None:
        nonlocal mark_tags
        async with running(table, silent_after=1.5) as log:
            bridge = log.bridge
            await until(
                lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge),
                "the deal, read",
            )
            # Every antenna has reported and none is silent: what follows is the unplugging's.
            await until(
                lambda: all(bridge.tracker.last_scan(r) for r in table.config.zones),
                "every antenna reporting",
            )
            before = bridge.tracker.present(hand(0))
            mark = len(log.events)
            mark_tags = len(log.tag_events())
            url = table.readers[0].port.url
            await table.unplug_reader(0)

            def since(kind: type) -> list:  # type: ignore[type-arg]
                return [e for e in log.events[mark:] if isinstance(e, kind)]

            await until(
                lambda: any(e.device == url for e in since(DeviceState)), "the port's disconnection"
            )
            assert [e.state for e in since(DeviceState) if e.device == url] == ["disconnected"]
            await until(
                lambda: {e.reader_id for e in since(ReaderSilent)} >= set(range(1, 9)),
                "each antenna silent",
            )
            await asyncio.sleep(0.3)
            assert before and bridge.tracker.present(hand(0)) == frozenset()  # nothing known
            await table.replug_reader(0)
            await until(
                lambda: {e.reader_id for e in since(ReaderBack)} >= set(range(1, 9)),
                "each antenna back",
            )
            await until(lambda: bridge_agrees(table, bridge), "agreement after the replug")
        # out when silent, in again at the replug: nothing else moved
        outs = {(e.zone, e.uid) for e in log.tag_events()[mark_tags:] if isinstance(e, TagOut)}
        ins = {(e.zone, e.uid) for e in log.tag_events()[mark_tags:] if isinstance(e, TagIn)}
        assert outs == ins and hand(0) in {zone for zone, _ in outs}

    asyncio.run(scenario())


@pytest.mark.timeout(90)
def test_a_missing_antenna_and_a_hung_reader_raise_alerts_naming_them() -> None:
    driver = ScriptedDriver(deal(1))
    table = VirtualTable(SimSettings(seed=9, codec="a0"), driver)

    async def scenario() -> None:
        async with running(table) as log:
            bridge = log.bridge
            await until(
                lambda: driver.pending == 0 and table.idle and bridge_agrees(table, bridge),
                "the deal, read",
            )
            multi = table.readers[1].multi
            assert multi is not None
            multi.missing.add(3)
            await until(
                lambda: any(a.code == "antenna_missing" for a in log.of(ReaderAlert)),
                "an antenna_missing alert",
            )
            alert = next(a for a in log.of(ReaderAlert) if a.code == "antenna_missing")
            assert (
                alert.antenna == 3
                and "a0 reader 2" in alert.reader
                and "antenna 3" in alert.message
            )
            multi.missing.clear()
            multi.mute = True
            await until(
                lambda: any(a.code == "no_answer" for a in log.of(ReaderAlert)), "a no_answer alert"
            )
            multi.mute = False
            await until(lambda: bridge_agrees(table, bridge), "agreement after the hang")
            await asyncio.sleep(0.5)
        assert not [e for e in log.tag_events() if isinstance(e, TagOut)]

    asyncio.run(scenario())
