"""A dice press counts once until its roll is shown. The service and its bridge on a pty,
the virtual board at the other end: the board, busy, has not read the centre display's
text with the roll when the dealer's press goes out again (the board repeating it, or
the dealer pressing twice while the service answers the first); that press rolls
nothing new, and the table shows the one roll. A press once the roll is shown rolls the
next roll (the dealer owes the second break roll too), as ever; the commitment holds."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.alert_sink import AlertSink
from controller.table.dice import DiceRoller, check_dice, roll_of
from controller.table.display import parse_status
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.service import TableService
from controller.table.tags import TagBook
from controller.tracking.tracker import Tracker
from engine.round.events import DiceRolled
from engine.tiles import KIND_LABELS
from engine.wall import Dice, second_roller
from firmware_bridge.protocol.link import Link, LinkSettings
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.sim import TileSet
from firmware_bridge.sim.board import VirtualBoard
from firmware_bridge.sim.ports import PtyPort
from firmware_bridge.table import TableBridge
from firmware_bridge.table_events import BridgeEvent, ButtonPressed
from tests.controller.service_helpers import log_of, until

SEED = 0  # the dice seed's number: the break roll 5+4 makes the dealer roll the second too


class Bridge(TableBridge):
    """The bridge, counting the presses the service has taken (each handled at once)."""

    presses = 0

    async def next_event(self) -> BridgeEvent:
        event = await super().next_event()
        self.presses += isinstance(event, ButtonPressed)
        return event


@asynccontextmanager
async def table(store: EventStore) -> AsyncIterator[tuple[TableService, Bridge, VirtualBoard]]:
    """A hand just started at the service (its break roll due), the board on a pty."""
    keeper = HandKeeper(
        store,
        Outlet(Topics("parlour", "t1")),
        parlour="parlour",
        table="t1",
        ruleset="xingguo",
        roller=DiceRoller(seed=SEED),
    )
    keeper.resume()
    keeper.start_hand(None)
    port = PtyPort()
    board = VirtualBoard(port, random.Random(1))
    await board.start()
    bridge = Bridge(
        ZoneMap.standard(),
        board=LinkTransport(port.url, Link(LinkSettings()), backoff_initial=0.02),
    )
    book = TagBook(TileSet(0, KIND_LABELS).registry())
    alerts = AlertSink(keeper, keeper.outlet)
    tracker = Tracker(keeper, book, ZoneMap.standard(), roller=keeper.roller, alert=alerts)
    service = TableService(keeper, bridge, book, keeper.outlet, tracker=tracker, alerts=alerts)
    stop = asyncio.Event()
    try:
        async with bridge:
            task = asyncio.create_task(service.run(stop))
            try:
                yield service, bridge, board
            finally:
                stop.set()
                await asyncio.wait_for(task, 10.0)
    finally:
        await board.close()


def rolls(service: TableService) -> list[tuple[int, int]]:
    stored = service.keeper.store.load_hand(service.keeper.hand_id or "")
    return [(e.a, e.b) for e in log_of(stored) if isinstance(e, DiceRolled)]


def shown_roll(board: VirtualBoard) -> tuple[int, int, int] | None:
    shown = parse_status(board.texts.get(0, ""))
    return None if shown is None else shown.roll


def test_a_press_repeated_before_its_roll_is_shown_rolls_once(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")

    async def main() -> None:
        async with table(store) as (service, bridge, board):
            state = service.keeper.state
            assert state is not None and state.dice_commit is not None
            dealer = state.dealer
            first = roll_of(state.dice_commit.seed, 0)
            procedure = state.wall_rules.procedure
            assert second_roller(procedure, dealer, Dice(*first)) == dealer
            await until(lambda: parse_status(board.texts.get(0, "")) is not None, "the hand shown")

            # the board is busy: what the service sends it waits, unread
            port = board.port
            assert isinstance(port, PtyPort)
            read, unread = port.on_bytes, bytearray()
            port.on_bytes = unread.extend
            board.press(dealer, SeatButton.CONFIRM)
            await until(lambda: len(rolls(service)) == 1, "the press's roll")
            board.press(dealer, SeatButton.CONFIRM)  # again, the roll not on its display yet
            await until(lambda: bridge.presses == 2, "the service to take the press again")
            port.on_bytes = read
            read(bytes(unread))
            await until(lambda: shown_roll(board) is not None, "the roll on the display")
            assert rolls(service) == [first]
            assert shown_roll(board) == (0, *first)

            # the roll shown, the dealer presses for the second break roll
            board.press(dealer, SeatButton.CONFIRM)
            await until(lambda: len(rolls(service)) == 2, "the second roll")
            second = roll_of(state.dice_commit.seed, 1)
            assert rolls(service) == [first, second]
            await until(lambda: shown_roll(board) == (1, *second), "the second roll shown")

        events = log_of(store.load_hand(service.keeper.hand_id or ""))
        assert check_dice(events).ok is True

    asyncio.run(main())
