"""A restart between hands: the last hand stands as it ended, and the centre display shows
it (its number, its event count, the nets) until new walls come, exactly as before the
restart. Players wait for that display before they let the table shuffle: a restart that
showed only "waiting for the first walls" left them, and the table, waiting for ever."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.alert_sink import AlertSink
from controller.table.dice import DiceRoller
from controller.table.display import parse_status
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.service import TableService
from controller.table.tags import TagBook
from controller.tracking.tracker import Alert, Tracker
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.sim import TileSet
from firmware_bridge.table_events import BridgeEvent
from tests.controller.table.test_resume_damaged import _keeper, _play_out


class Board:
    """The bridge as the service sees it: no events, the display's texts kept."""

    def __init__(self) -> None:
        self.texts: dict[int, str] = {}

    async def next_event(self) -> BridgeEvent:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    def show_text(self, target: int, text: str) -> None:
        self.texts[target] = text

    def acknowledged(self) -> None:
        return None  # (what the display shows: not known)


def _shown_after_start(store: EventStore) -> tuple[dict[int, str], HandKeeper]:
    """A service started on the store (it resumes), and what its display shows at once."""
    keeper = _keeper(store)
    keeper.resume()
    board = Board()
    book = TagBook(TileSet(0, KIND_LABELS).registry())
    outlet = Outlet(Topics("parlour", "t1"))
    alerts: list[Alert] = []
    sink = AlertSink(keeper, outlet)
    tracker = Tracker(
        keeper, book, ZoneMap.standard(), roller=DiceRoller(seed=1), alert=alerts.append
    )
    service = TableService(keeper, board, book, outlet, tracker=tracker, alerts=sink)

    async def briefly() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(service.run(stop))
        await asyncio.sleep(0.05)
        stop.set()
        await task

    asyncio.run(briefly())
    assert alerts == []
    return board.texts, keeper


def test_a_restart_between_hands_shows_the_last_hand_as_it_ended(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    try:
        first = _keeper(store)
        first.resume()
        hand_id = _play_out(first, seed=3)
        assert first.state is not None and first.state.settlement is not None
        net = first.state.settlement.net
        events = len(first.log)

        texts, keeper = _shown_after_start(store)
        assert keeper.hand_id == hand_id and len(keeper.log) == events
        assert keeper.state is not None and keeper.state.finished and not keeper.in_progress
        assert keeper.state.settlement is not None and keeper.state.settlement.net == net
        shown = parse_status(texts[0])
        assert shown is not None and (shown.hand_no, shown.seq) == (1, events)
        assert texts[1].startswith("第1局")  # each seat's score for the hand, again

        # and the next walls start hand 2 as they would have
        assert keeper.start_hand(None) != hand_id
        assert keeper.in_progress and keeper.state is not None
        assert keeper.state.started.hand_no == 2
    finally:
        store.close()


def test_a_fresh_session_shows_it_waits_for_walls(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    try:
        texts, keeper = _shown_after_start(store)
        assert keeper.state is None
        assert parse_status(texts[0]) is None and "waiting for the first walls" in texts[0]
    finally:
        store.close()
