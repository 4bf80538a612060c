"""The virtual table's sans-IO parts: tiles, the physical model, line noise; the lift-order
assembler; and the table's driver loop (refused moves, a failing driver)."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Callable, Sequence

import pytest

from firmware_bridge.protocol.framing import Frame, FrameDecoder, encode_frame
from firmware_bridge.protocol.messages import TableState, WallOrder
from firmware_bridge.protocol.wall_order import WallOrderAssembler
from firmware_bridge.registry import TileTag
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import (
    FlipToJing,
    Move,
    MoveTag,
    ScriptedDriver,
    SimSettings,
    TableModel,
    TableView,
    TakeFromWall,
    TileSet,
    VirtualTable,
    make_uids,
)
from firmware_bridge.sim.noise import DelimitedNoise, FrameNoise
from firmware_bridge.sim.ports import PtyPort

HAND_0 = Zone(ZoneKind.HAND, 0)
JING = Zone(ZoneKind.JING)


def test_tiles_are_deterministic_distinct_and_enrolled_in_order() -> None:
    assert make_uids(1, 136) == make_uids(1, 136) != make_uids(2, 136)
    tiles = TileSet(seed=9, kinds=["1m", "2m"], copies=4)
    assert len(tiles) == 8 and len(set(tiles.uids)) == 8
    assert all(uid[:2] == b"\xe0\x04" for uid in tiles.uids)
    assert tiles.tile_of(tiles.uids[5]) == TileTag("2m", 1)
    assert tiles.tile_of(b"\x00" * 8) is None
    registry = tiles.registry()
    assert registry.lookup(tiles.uids[3]) == TileTag("1m", 3) and not registry.validate()


def test_the_wall_is_a_seeded_permutation_and_moves_follow_tags() -> None:
    uids = make_uids(0, 136)
    model = TableModel(uids)
    order = model.build_wall(random.Random(5))
    assert order == TableModel(uids).build_wall(random.Random(5))
    assert sorted(order) == sorted(uids) and order != tuple(uids)
    assert model.wall == order and model.hand == 1

    assert model.take_from_wall(TakeFromWall(0, HAND_0)) is None
    assert model.wall[0] is None and model.tags_in(HAND_0) == {order[0]}
    assert model.move_tag(FlipToJing(order[1])) is None
    assert model.place_of(order[1]) == JING and model.wall[1] is None
    assert model.move_tag(MoveTag(order[0], JING)) is None
    assert model.tags_in(HAND_0) == frozenset() and model.tags_in(JING) == set(order[:2])

    refused = [
        model.take_from_wall(TakeFromWall(0, HAND_0)),  # already taken
        model.take_from_wall(TakeFromWall(136, HAND_0)),
        model.move_tag(MoveTag(b"\x01" * 8, HAND_0)),
    ]
    assert all(r is not None for r in refused)
    model.collect()
    assert model.wall == () and model.zones() == {}
    assert model.move_tag(MoveTag(order[5], HAND_0)) is not None  # inside the machine


def test_frame_noise_loses_and_corrupts_at_its_rate() -> None:
    noise = FrameNoise(0.3, random.Random(1))
    frame = bytes(range(1, 40))
    out = [noise.apply(frame) for _ in range(2000)]
    damaged = sum(o != frame for o in out)
    assert 500 < damaged < 700
    assert (
        noise.stats.lost == out.count(b"") and noise.stats.corrupted == damaged - noise.stats.lost
    )
    with pytest.raises(ValueError):
        FrameNoise(1.5, random.Random())


def test_delimited_noise_cuts_at_delimiters_whatever_the_chunks() -> None:
    frames = [Frame(0x20, seq=i, payload=bytes([i, 0, i])) for i in range(50)]
    wire = b"".join(encode_frame(f) for f in frames)
    clean = DelimitedNoise(FrameNoise(0.0, random.Random(0)))
    lossy = DelimitedNoise(FrameNoise(0.2, random.Random(0)))
    chunks = [wire[i : i + 7] for i in range(0, len(wire), 7)]
    assert b"".join(clean.apply(c) for c in chunks) == wire
    decoder = FrameDecoder()
    got = decoder.feed(b"".join(lossy.apply(c) for c in chunks))
    assert set(got) <= set(frames) and 25 < len(got) < 50
    assert len(got) + lossy.noise.stats.lost + decoder.errors == 50


def test_wall_order_assembles_and_drops_what_does_not_fit() -> None:
    uids = tuple(make_uids(3, 136))
    assembler = WallOrderAssembler()
    assert assembler.add(WallOrder(0, 136, uids[:68])) is None
    assert assembler.add(WallOrder(68, 136, uids[68:])) == uids
    assert assembler.add(WallOrder(68, 136, uids[68:])) is None  # a repeat: no start
    assert assembler.add(WallOrder(0, 136, uids[:60])) is None
    assert assembler.add(WallOrder(68, 136, uids[68:])) is None  # a gap
    twice = uids[:68] + uids[:68]
    assembler.add(WallOrder(0, 136, twice[:68]))
    assert assembler.add(WallOrder(68, 136, twice[68:])) is None  # a UID seen twice
    assert assembler.completed == 1 and assembler.bad_chunks == 3


class _FailingOnce:
    def __init__(self, then: Sequence[Move]) -> None:
        self.calls = 0
        self.then = list(then)
        self.seen: list[TableView] = []

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        self.calls += 1
        self.seen.append(view)
        if self.calls == 1:
            raise RuntimeError("a bug in the driver")
        moves, self.then = self.then, []
        return moves


@pytest.mark.timeout(60)
def test_the_table_survives_a_failing_driver_and_reports_refused_moves() -> None:
    driver = _FailingOnce([TakeFromWall(200, HAND_0), TakeFromWall(0, HAND_0)])
    table = VirtualTable(SimSettings(seed=1, reader_ports=(), idle_interval=0.02), driver)

    async def scenario() -> None:
        async with asyncio.timeout(30), table:
            await table.wait_walls_up()
            await _until(lambda: any(v.rejected for v in driver.seen))

    asyncio.run(scenario())
    assert table.stats.driver_errors == 1 and table.stats.rejected == 1
    assert table.stats.moves == 1 and table.model.state is TableState.WALLS_UP
    rejected = next(v.rejected for v in driver.seen if v.rejected)
    assert rejected[0].move == TakeFromWall(200, HAND_0) and "200" in rejected[0].reason
    view = driver.seen[-1]
    assert (
        view.tags_in(HAND_0) == {view.lift_order[0]}
        and view.position_of(view.lift_order[0]) is None
    )
    assert view.position_of(view.lift_order[1]) == 1 and view.zone_of(view.lift_order[0]) == HAND_0


def test_scripted_driver_hands_out_its_moves_once() -> None:
    driver = ScriptedDriver([TakeFromWall(0, HAND_0)])
    driver.add(FlipToJing(b"\x02" * 8))
    view = TableView(1, TableState.WALLS_UP, (), (), {})
    assert len(asyncio.run(driver.next_moves(view))) == 2 and driver.pending == 0
    assert asyncio.run(driver.next_moves(view)) == [] and driver.last_view is view


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_an_unplugged_ptys_url_opens_nothing_when_its_number_is_given_to_another_pty() -> None:
    """A host reopening a closed pty's bare /dev/pts path would read the next pty the kernel
    numbers so, another process's line (two test workers, or anyone on the machine): the
    host gets a name that goes with the port."""

    async def scenario() -> None:
        port = PtyPort()
        await port.plug()
        url, number = port.url, port.path
        assert os.path.realpath(url) == number
        await port.unplug()
        taken: list[int] = []
        try:
            for _ in range(64):  # the kernel gives the lowest free number: ours, most often
                master, slave = os.openpty()
                taken += [master, slave]
                if os.ttyname(slave) == number:
                    break
            with pytest.raises(OSError):
                os.close(os.open(url, os.O_RDWR | os.O_NOCTTY))
        finally:
            for fd in taken:
                os.close(fd)
        await port.plug()  # and it follows the port to its new pty
        try:
            assert port.url == url and os.path.realpath(url) == port.path
        finally:
            await port.unplug()

    asyncio.run(scenario())
