"""The virtual table: tiles, board and readers over ptys (or TCP), moved by a driver.

It shuffles (a seeded permutation), raises the walls (the lift order is the wall by ring
position), then carries out the moves its driver asks for while its board and readers
report them over the same protocols as the hardware. No mahjong rules live here: which
tile goes where is the driver's decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from firmware_bridge.protocol.messages import Message, SeatButton, TableState
from firmware_bridge.registry import KindLabel
from firmware_bridge.rfid.zones import Zone, ZoneMap
from firmware_bridge.sim.antennas import AntennaField, FieldModel
from firmware_bridge.sim.board import VirtualBoard
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.moves import (
    Driver,
    EndHand,
    FlipToJing,
    IdleDriver,
    Move,
    MoveTag,
    Pause,
    PlaceCard,
    PressButton,
    Rejection,
    TableView,
    TakeFromWall,
)
from firmware_bridge.sim.ports import PtyPort, SimPort, TcpPort
from firmware_bridge.sim.readers import DEFAULT_SCAN_INTERVAL, ReportMode, VirtualReaderPort
from firmware_bridge.sim.tiles import DEFAULT_KINDS, TileSet

log = logging.getLogger(__name__)

CodecName = Literal["ref", "hf", "a0", "iso15693"]
MULTI_ANTENNA = ("a0", "iso15693")
ANTENNAS_PER_READER = 8
COLLECT_WAIT = 2.0
"""Longest a new hand waits for the readers to stop reporting the last hand's tiles (a
reader's hold is a quarter second; an unplugged reader must not stop a new hand)."""
COLLECT_POLL = 0.005


@dataclass(frozen=True, slots=True)
class SimReaderPort:
    """One serial line of readers: an HF reader (one id), a bus of inventory readers, or
    a multi-antenna reader at `address` whose antenna ports 1, 2, ... are `reader_ids`."""

    codec: CodecName
    reader_ids: tuple[int, ...]
    address: int = 1


@dataclass(frozen=True)
class SimSettings:
    seed: int = 0
    kinds: Sequence[KindLabel] = DEFAULT_KINDS
    zones: ZoneMap = field(default_factory=ZoneMap.standard)
    codec: CodecName = "ref"
    bus: bool = False
    """ref only: all readers on one line (reader ids in the frames) instead of one each."""
    report: ReportMode = "scan"
    """ref only: a frame every scan, or only what changes (and a sign of life): readers.py."""
    reader_ports: tuple[SimReaderPort, ...] | None = None
    """Explicit reader lines; overrides `codec` and `bus`."""
    scan_interval: float = DEFAULT_SCAN_INTERVAL
    misread_rate: float = 0.0
    """Chance that a tag is missing from one scan (on average over where tags lie, for
    multi-antenna readers)."""
    border_rate: float = 0.0
    """Multi-antenna readers: chance per tag and round of a read by a neighbouring zone's
    antenna (only tiles near a border are; see sim/antennas.py)."""
    round_time_scale: float = 1.0
    """Multi-antenna readers: their rounds take this times as long as real ones (tests
    speed the table up)."""
    drop_rate: float = 0.0
    """Chance that a frame (reader frame, or board frame either way) is lost or corrupted."""
    lift_reader: bool = True
    """The board reports the lift order (WallOrder) when the walls are up."""
    shuffle_time: float = 0.2
    rise_time: float = 0.1
    move_interval: float = 0.02
    """Pause after each physical move (a hand moving a tile takes time)."""
    idle_interval: float = 0.1
    """How soon an idle driver is asked again (sooner if something changes)."""
    transport: Literal["pty", "socket"] = "pty"
    link_dir: Path | None = None
    """pty only: keep stable names here (symlinks `board`, `reader-<id>`, `bus-<first id>`)
    that follow each port across unplug/replug, as udev does."""
    registry_path: Path | None = None
    """Write the tag registry here on start."""
    auto_start: bool = True
    """Shuffle and raise the walls as soon as the table starts."""

    def tile_set(self) -> TileSet:
        """The tiles this table plays with (the same set on every call: it comes from the seed)."""
        return TileSet(self.seed, self.kinds, epc=self.codec == "a0")

    def ports(self) -> tuple[SimReaderPort, ...]:
        if self.reader_ports is not None:
            return self.reader_ports
        ids = tuple(sorted(self.zones))
        if self.codec in MULTI_ANTENNA:
            # Readers of 8 antennas each: the first takes the first 8 zones, and so on.
            n = ANTENNAS_PER_READER
            chunks = [ids[i : i + n] for i in range(0, len(ids), n)]
            return tuple(SimReaderPort(self.codec, c, k + 1) for k, c in enumerate(chunks))
        if self.codec == "ref" and self.bus:
            return (SimReaderPort("ref", ids),)
        return tuple(SimReaderPort(self.codec, (r,)) for r in ids)


@dataclass(slots=True)
class SimStats:
    moves: int = 0
    rejected: int = 0
    hands: int = 0
    driver_errors: int = 0


class VirtualTable:
    def __init__(self, config: SimSettings | None = None, driver: Driver | None = None) -> None:
        self.config = config = config or SimSettings()
        self.driver: Driver = driver or IdleDriver()
        self.rng = random.Random(config.seed)
        self.tiles = config.tile_set()
        self.model = TableModel(self.tiles.uids)
        self.field = AntennaField(
            FieldModel(miss_rate=config.misread_rate, border_rate=config.border_rate),
            random.Random(f"{config.seed}:field"),
            covered=lambda zone: bool(config.zones.readers_of(zone)),
        )
        self.stats = SimStats()
        self.board = VirtualBoard(
            self._make_port("board"),
            random.Random(f"{config.seed}:board"),
            drop_rate=config.drop_rate,
            # The board's lift reader is HF and its WallOrder carries 8-byte UIDs: a table
            # of UHF tiles (EPCs) has none (docs/rfid.md).
            lift_reader=config.lift_reader and config.codec != "a0",
            on_command=self._on_command,
        )
        self.readers: list[VirtualReaderPort] = []
        for spec in config.ports():
            ids = spec.reader_ids
            if spec.codec in MULTI_ANTENNA:
                name = f"{spec.codec}-{spec.address}"
            else:
                name = f"reader-{ids[0]}" if len(ids) == 1 else f"bus-{ids[0]}"
            self.readers.append(
                VirtualReaderPort(
                    self._make_port(name),
                    spec.codec,
                    spec.reader_ids,
                    config.zones,
                    self.model.tags_in,
                    random.Random(f"{config.seed}:{name}"),
                    scan_interval=config.scan_interval,
                    misread_rate=config.misread_rate,
                    drop_rate=config.drop_rate,
                    field=self.field,
                    table=self.model.zones,
                    address=spec.address,
                    round_time_scale=config.round_time_scale,
                    report=config.report if spec.codec == "ref" else "scan",
                )
            )
        self._rejected: list[Rejection] = []
        self._changed = asyncio.Event()
        self._walls_up = asyncio.Event()
        self._busy = asyncio.Lock()
        self._idle = False
        self._task: asyncio.Task[None] | None = None

    def _make_port(self, name: str) -> SimPort:
        if self.config.transport == "socket":
            return TcpPort()
        link_dir = self.config.link_dir
        return PtyPort(link_dir / name if link_dir is not None else None)

    # --- life cycle ---------------------------------------------------------------------

    async def start(self) -> None:
        if self.config.registry_path is not None:
            self.tiles.write_registry(self.config.registry_path)
        await self.board.start()
        for reader in self.readers:
            await reader.start()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for reader in self.readers:
            await reader.close()
        await self.board.close()

    async def __aenter__(self) -> VirtualTable:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- what the host connects to -------------------------------------------------------

    @property
    def board_url(self) -> str:
        return self.board.port.url

    @property
    def registry_path(self) -> Path | None:
        return self.config.registry_path

    # --- the physical table ------------------------------------------------------------------

    def view(self) -> TableView:
        rejected, self._rejected = tuple(self._rejected), []
        return TableView(
            hand=self.model.hand,
            state=self.model.state,
            wall=self.model.wall,
            lift_order=self.model.lift_order,
            zones=self.model.zones(),
            dice=self.board.dice,
            texts=dict(self.board.texts),
            leds=dict(self.board.leds),
            rejected=rejected,
            t=time.monotonic(),
        )

    @property
    def idle(self) -> bool:
        """The driver was asked and had nothing to do: every move it asked for is done."""
        return self._idle

    async def wait_walls_up(self) -> None:
        await self._walls_up.wait()

    async def new_hand(self) -> None:
        """Tiles return into the table, which shuffles and raises the walls."""
        self._walls_up.clear()
        self.model.collect()
        await self._until_readers_clear()
        self._set_state(TableState.SHUFFLING)
        await asyncio.sleep(self.config.shuffle_time)
        self._set_state(TableState.WALLS_RISING)
        await asyncio.sleep(self.config.rise_time)
        lift_order = self.model.build_wall(self.rng)
        self.model.state = TableState.WALLS_UP
        self.board.walls_up(lift_order)
        self.stats.hands += 1
        self._walls_up.set()
        self._changed.set()

    async def _until_readers_clear(self) -> None:
        """People take seconds to push the tiles in, and the machine shuffles only then: by
        that time no reader names a tile of the last hand. The virtual table is quicker, so
        it waits until no plugged reader reports a tile (at most ``COLLECT_WAIT``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + COLLECT_WAIT
        while loop.time() < deadline and any(
            r.port.plugged and r.reports_tags() for r in self.readers
        ):
            await asyncio.sleep(COLLECT_POLL)

    async def execute(self, move: Move) -> Rejection | None:
        """Carry out one move (for drivers and tests); a refused move is also counted."""
        async with self._busy:
            return await self._execute(move)

    async def _execute(self, move: Move) -> Rejection | None:
        rejection: Rejection | None = None
        if isinstance(move, Pause):
            await asyncio.sleep(move.seconds)
            return None
        if isinstance(move, EndHand):
            await self.new_hand()
            return None
        if isinstance(move, PressButton):
            self.board.press(move.seat, move.button)
        elif isinstance(move, TakeFromWall):
            rejection = self.model.take_from_wall(move)
        elif isinstance(move, MoveTag | FlipToJing):
            rejection = self.model.move_tag(move)
        elif isinstance(move, PlaceCard):
            rejection = self.model.place_card(move)
        if rejection is not None:
            self.stats.rejected += 1
            self._rejected.append(rejection)
            log.info("move refused: %s", rejection.reason)
        else:
            self.stats.moves += 1
        await asyncio.sleep(self.config.move_interval)
        return rejection

    def place_card(self, tag: bytes, to: Zone | None) -> Rejection | None:
        """A person lays a card (no tile) on ``to``, or takes it away, whatever the driver
        is doing (a player does not wait for the bots' pause to end)."""
        rejection = self.model.place_card(PlaceCard(tag, to))
        self._changed.set()
        return rejection

    def press(self, seat: int, button: SeatButton) -> None:
        self.board.press(seat, button)

    # --- unplugging, for tests and demos ----------------------------------------------------

    async def unplug_reader(self, index: int) -> None:
        await self.readers[index].port.unplug()

    async def replug_reader(self, index: int) -> None:
        await self.readers[index].port.plug()

    # --- the driver loop ----------------------------------------------------------------------

    def _set_state(self, state: TableState) -> None:
        self.model.state = state
        self.board.set_state(state)

    def _on_command(self, msg: Message) -> None:
        self._changed.set()  # a dice result or a prompt may be what the driver waits for

    async def _run(self) -> None:
        self.board.set_state(TableState.IDLE)
        if self.config.auto_start:
            async with self._busy:
                await self.new_hand()
        while True:
            await self._walls_up.wait()
            self._changed.clear()
            try:
                moves = await self.driver.next_moves(self.view())
            except Exception:  # a driver bug must not take the table down with it
                log.exception("driver failed")
                self.stats.driver_errors += 1
                moves = ()
            self._idle = not moves  # no await since next_moves returned: no one sees a gap
            if not moves:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.config.idle_interval):
                        await self._changed.wait()
                continue
            async with self._busy:
                for move in moves:
                    await self._execute(move)
