"""TableBridge: the table board's link and the RFID reader ports as one stream of events.

This is what the controller consumes: board reports (status, lift order, seat buttons,
dice), TagIn/TagOut per zone from every reader (on their own ports or sharing the board),
reader-silent alarms, and device line changes; and the commands it sends to the board
(display text, LEDs, dice). Tags stay UIDs and zones: turning them into tiles and moves
is the controller's job.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self

from firmware_bridge.protocol.link import Link, LinkState
from firmware_bridge.protocol.messages import (
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Led,
    LedMode,
    Message,
    Status,
    TableState,
    WallOrder,
)
from firmware_bridge.protocol.messages import Inventory as BoardInventory
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.protocol.wall_order import WallOrderAssembler
from firmware_bridge.rfid.events import Inventory
from firmware_bridge.rfid.inventory import (
    DEFAULT_OUT_AFTER_SCANS,
    DEFAULT_OUT_AFTER_SECONDS,
    InventoryTracker,
)
from firmware_bridge.rfid.rounds import RoundResolver
from firmware_bridge.rfid.sessions import make_session
from firmware_bridge.rfid.transport import CodecName, ReaderTransport
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.serial_port import CONNECTED
from firmware_bridge.table_events import (
    BOARD,
    BridgeEvent,
    ButtonPressed,
    DeviceState,
    DiceRolled,
    LiftOrder,
    ReaderBack,
    ReaderSilent,
    TableStatus,
)

DEFAULT_SILENT_AFTER = 3.0
BOARD_SET_STANDS = 0.1
"""A board sends a reader's set at once when it changes, and an unchanged one only each
second (docs/protocol.md 5.6): in between the set stands, and the bridge shows it to the
tracker this often, as a reader that reports every scan would. Else a tile taken out of a
board's zone was out only at the board's next repeat (the tracker waits for two scans
without it); what the board says is still the only sign of a reader's life."""


class NoBoard(RuntimeError):
    """A board command on a bridge configured without a board."""


@dataclass(frozen=True, slots=True)
class ReaderLine:
    """A reader port to open: `ref` (inventory readers, ids from the frames), `hf` (one
    reader, reported as `reader_id`), or a multi-antenna reader (`a0`, `iso15693`) at bus
    `address` whose antenna ports 1, 2, ... report as `antennas` (zone-map reader ids)."""

    url: str
    codec: CodecName = "ref"
    reader_id: int = 0
    address: int = 1
    antennas: tuple[int, ...] = ()
    baud: int = 115_200

    def transport(self, resolver: RoundResolver | None = None, **options: Any) -> ReaderTransport:
        """Multi-antenna readers of one table share a ``resolver`` (open_readers)."""
        options.setdefault("baudrate", self.baud)
        if self.codec in ("a0", "iso15693"):
            name = f"{self.codec} reader {self.address} on {self.url}"
            session = make_session(self.codec, name, self.address, self.antennas, resolver=resolver)
            return ReaderTransport.for_session(self.url, session, **options)
        return ReaderTransport.for_codec(self.url, self.codec, self.reader_id, **options)


def open_readers(lines: Sequence[ReaderLine], **options: Any) -> list[ReaderTransport]:
    """Transports for a table's reader lines; multi-antenna readers share one resolver, so
    a border read by one reader's antenna is judged against a tag's home on another's."""
    resolver = RoundResolver({})
    return [line.transport(resolver, **options) for line in lines]


@dataclass(frozen=True, slots=True)
class BridgeCounters:
    board_messages: int
    unexpected_messages: int
    """Board messages the bridge does not expect from a board (counted, ignored)."""
    bad_wall_order_chunks: int
    unknown_readers: int
    """Inventories from reader ids the zone map does not know."""
    reader_silent_alarms: int


class TableBridge:
    def __init__(
        self,
        zones: ZoneMap,
        *,
        board: LinkTransport | None = None,
        readers: Sequence[ReaderTransport] = (),
        silent_after: float = DEFAULT_SILENT_AFTER,
        out_after_scans: int = DEFAULT_OUT_AFTER_SCANS,
        out_after_seconds: float = DEFAULT_OUT_AFTER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.zones = zones
        self.board = board
        self.readers = list(readers)
        self.silent_after = silent_after
        self.tracker = InventoryTracker(
            zones, out_after_scans=out_after_scans, out_after_seconds=out_after_seconds
        )
        self._clock = clock
        self._events: asyncio.Queue[BridgeEvent] = asyncio.Queue()
        self._wall_order = WallOrderAssembler()
        self._silent: set[int] = set()
        self._heard: dict[int, float] = {}
        """When each reader last reported (its own frame, or the board's set)."""
        self._board_sets: dict[int, frozenset[bytes]] = {}
        """The last set the board sent of each of its readers the zone map knows."""
        self._standing: asyncio.Task[None] | None = None
        self._running = False
        self._opened = clock()
        """The bridge's start or a device line's latest opening, whichever came later: a
        reader never heard is silent ``silent_after`` from then."""
        self._tasks: list[asyncio.Task[None]] = []
        self._board_messages = 0
        self._unexpected = 0
        self._alarms = 0
        # Every device's messages are handled in its read callback, in the order they
        # arrive, with no task woken per frame (13 readers send 650 frames a second).
        if board is not None:
            board.add_state_listener(self._state_listener(BOARD))
            board.deliver_to(self._on_board_message)
        for reader in self.readers:
            reader.add_state_listener(self._state_listener(reader.url))
            reader.deliver_to(self._on_inventory, self._emit)

    @classmethod
    def open(
        cls,
        zones: ZoneMap,
        board_url: str | None,
        readers: Sequence[ReaderLine] = (),
        *,
        link: Link | None = None,
        silent_after: float = DEFAULT_SILENT_AFTER,
    ) -> Self:
        """Transports for the given URLs (not started: use `async with` or start())."""
        board = LinkTransport(board_url, link) if board_url is not None else None
        ports = open_readers(readers)
        return cls(zones, board=board, readers=ports, silent_after=silent_after)

    # --- life cycle ---------------------------------------------------------------------

    async def start(self) -> None:
        if self._tasks:
            return
        self._running = True
        self._opened = self._clock()
        if self.board is not None:
            await self.board.start()
        for reader in self.readers:
            await reader.start()
        self._tasks.append(asyncio.get_running_loop().create_task(self._watch_readers()))

    async def close(self) -> None:
        self._running = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        self._standing = None
        self._board_sets.clear()
        if self.board is not None:
            await self.board.close()
        for reader in self.readers:
            await reader.close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- events -------------------------------------------------------------------------------

    async def next_event(self) -> BridgeEvent:
        return await self._events.get()

    def __aiter__(self) -> AsyncIterator[BridgeEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[BridgeEvent]:
        while True:
            yield await self._events.get()

    @property
    def counters(self) -> BridgeCounters:
        return BridgeCounters(
            board_messages=self._board_messages,
            unexpected_messages=self._unexpected,
            bad_wall_order_chunks=self._wall_order.bad_chunks,
            unknown_readers=self.tracker.unknown_readers,
            reader_silent_alarms=self._alarms,
        )

    # --- commands to the board ------------------------------------------------------------------

    def show_text(self, target: int, text: str) -> int:
        """Display 0 is the centre, 1–4 the seats. Raises ValueError for text over 200
        UTF-8 bytes, LinkQueueFull when the board has been away too long. Returns the
        message's number: the board shows the text once ``acknowledged()`` reaches it."""
        return self.send(DisplayText(target, text))

    def acknowledged(self) -> int | None:
        """How many of the messages sent the board has acknowledged; None while its link
        is not up (what it shows cannot be known)."""
        board = self.board
        if board is None or board.state != LinkState.UP.value:
            return None
        return board.acknowledged

    def set_led(self, led: int, mode: LedMode, red: int = 0, green: int = 0, blue: int = 0) -> None:
        self.send(Led(led, mode, red, green, blue))

    def roll_dice(self, count: int = 2) -> None:
        """The board answers with DiceRolled."""
        self.send(DiceRoll(count))

    def send(self, msg: Message) -> int:
        if self.board is None:
            raise NoBoard(f"no board to send {type(msg).__name__} to")
        return self.board.send(msg)

    # --- plumbing -----------------------------------------------------------------------------

    def _emit(self, event: BridgeEvent) -> None:
        self._events.put_nowait(event)

    def _state_listener(self, device: str) -> Callable[[str], None]:
        def listener(state: str) -> None:
            now = self._clock()
            if state == CONNECTED:  # a reader not heard yet had no line to report on before
                self._opened = max(self._opened, now)
            self._emit(DeviceState(device, state, now))

        return listener

    def _on_board_message(self, msg: Message) -> None:
        self._board_messages += 1
        now = self._clock()
        if isinstance(msg, Status):
            if msg.state in (TableState.SHUFFLING, TableState.WALLS_RISING):
                self._tiles_in_machine(now)
            self._emit(TableStatus(msg.state, msg.faults, now))
        elif isinstance(msg, WallOrder):
            order = self._wall_order.add(msg)
            if order is not None:
                self._emit(LiftOrder(order, now))
        elif isinstance(msg, ButtonPress):
            acked = None if self.board is None else self.board.acked_by_sender
            self._emit(ButtonPressed(msg.seat, msg.button, now, acked))
        elif isinstance(msg, DiceResult):
            self._emit(DiceRolled(msg.values, now))
        elif isinstance(msg, BoardInventory):
            # Readers that share the board: the same tracker as readers on their own ports.
            uids = frozenset(msg.uids)
            if msg.reader in self.zones:
                self._board_sets[msg.reader] = uids
                if self._standing is None and self._running:  # a board that forwards readers
                    self._standing = asyncio.get_running_loop().create_task(
                        self._stand_board_sets()
                    )
                    self._tasks.append(self._standing)
            self._on_inventory(Inventory(msg.reader, 0, uids, now))
        else:
            self._unexpected += 1

    def _tiles_in_machine(self, now: float) -> None:
        """A build starts: every tile is inside the machine, so no reading of the last hand
        may stand into the next. Readers hold a tag that left until their debounce ends
        (multi-antenna ones through missed rounds, the tracker two scans and a quarter
        second, longer when a stall delays the scans), and a tag still held that lands in
        the same zone again would bring no TagIn: all are out now."""
        for reader in self.readers:
            if reader.session is not None:
                reader.session.resolver.clear()
        self._board_sets.clear()
        for event in self.tracker.all_out(now):
            self._emit(event)

    def _on_inventory(self, inventory: Inventory) -> None:
        reader = inventory.reader_id
        self._heard[reader] = inventory.t
        if reader in self._silent:
            self._silent.discard(reader)
            self._emit(ReaderBack(reader, self.zones[reader], inventory.t))
        self._track(inventory)

    def _track(self, inventory: Inventory) -> None:
        """A scan to the tracker, and what it saw come and go to the events."""
        for event in self.tracker.update(inventory):
            self._emit(event)

    async def _watch_readers(self) -> None:
        interval = min(0.25, self.silent_after / 4)
        while True:
            await asyncio.sleep(interval)
            now = self._clock()
            for reader, zone in self.zones.items():
                last = self._heard.get(reader)
                since = self._opened if last is None else last
                if reader not in self._silent and now - since > self.silent_after:
                    self._silent.add(reader)
                    self._alarms += 1
                    self._emit(ReaderSilent(reader, zone, last, now))
                    self._board_sets.pop(reader, None)  # a board's last set stands no more
                    for event in self.tracker.reader_silent(reader, now):
                        self._emit(event)

    async def _stand_board_sets(self) -> None:
        while True:
            await asyncio.sleep(BOARD_SET_STANDS)
            now = self._clock()
            for reader, uids in self._board_sets.items():
                self._track(Inventory(reader, 0, uids, now))
