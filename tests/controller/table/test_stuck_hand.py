"""A hand the table cannot explain for ``stuck_after`` seconds waits for staff: the status
and the display say so, and the tracker applies nothing more to it, even once the reader
is back, until staff finish or void it. On the tracker harness of test_tracker, through
the service's own loop steps (``handle``, ``tick``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.store import EventStore
from engine.round.state import Phase
from engine.tiles import KIND_LABELS
from firmware_bridge.sim import TileSet
from firmware_bridge.table_events import LiftOrder, ReaderBack, ReaderSilent
from tests.controller.alert_helpers import alert_table
from tests.controller.tracking.test_tracker import discards, hand

NOTICE = "2号读卡器无响应：请工作人员手动结束本局 (reader 2 silent: finish this hand by hand)"


class Live:
    def __init__(self) -> None:
        self.status: list[dict[str, Any]] = []

    def publish(self, topic: str, payload: Any) -> None:
        if topic == "status":
            self.status.append(payload)


class Shown:
    def __init__(self) -> None:
        self.texts: list[tuple[int, str]] = []

    def show_text(self, target: int, text: str) -> None:
        self.texts.append((target, text))


def test_a_hand_unexplained_too_long_waits_for_staff_whatever_the_readers_see(
    tmp_path: Path,
) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    live = Live()
    t, service = alert_table(store, TileSet(0, KIND_LABELS).registry(), live=live)
    board = Shown()
    service.board = board
    service.keeper.state = None  # type: ignore[misc]  # (the display's text: not asked here)
    t.to_play()
    stuck_after = service.options.stuck_after
    service.handle(ReaderSilent(2, hand(1), t.now, t.now), t.at())  # seat 1's hand reader
    service.tick(t.at(stuck_after / 2))
    assert live.status == []  # not yet: a reader may come back at once
    service.tick(t.at(stuck_after))
    assert live.status == [{"state": "online", "hand": "waiting_for_staff", "text": NOTICE}]
    assert (0, NOTICE) in board.texts

    # the reader comes back and the dealer discards: the hand waits all the same
    events = len(t.port.log)
    service.handle(ReaderBack(2, hand(1), t.now), t.at())
    tile = t.state.hands[0][0]
    t.move(tile, hand(0), discards(0))
    service.tick(t.at(5.0))  # no claim-window timeout either
    t.tracker.press_dice(None, t.at())
    assert len(t.port.log) == events and t.state.phase is Phase.TURN
    assert live.status[-1]["hand"] == "waiting_for_staff"

    # staff end it (here: the hand is over); the next hand is tracked as ever
    service.keeper.in_progress = False  # type: ignore[misc]
    service.tick(t.at())
    assert live.status[-1] == {"state": "online"}
    service.keeper.hand_id, service.keeper.in_progress = "h2", True  # type: ignore[misc]
    service.tick(t.at())
    assert not t.tracker.held
    t.tracker.reconcile(t.at())
    assert t.state.discards[0] == [tile]  # what the readers see now is applied again


def test_the_next_hand_on_walls_up_as_staff_end_one_is_not_held_for_the_old_walls(
    tmp_path: Path,
) -> None:
    """A resumed hand whose walls changed waits for staff. When staff end it the table's
    new walls are already up, so the next hand starts at once, before the stuck check runs
    again: the old hand's changed walls are not the new hand's, and it is not held."""
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    live = Live()
    tiles = TileSet(0, KIND_LABELS)
    t, service = alert_table(store, tiles.registry(), live=live)
    service.board = Shown()
    keeper: Any = service.keeper
    keeper.state = SimpleNamespace(order=service.book.tiles_of(tiles.uids))  # resumed hand's
    service._show = lambda: None  # type: ignore[method-assign]  # (its text: not asked here)
    reshuffled = tuple(reversed(tiles.uids))
    service.handle(LiftOrder(reshuffled, t.now), t.at())  # the table's walls now
    service.tick(t.at(service.options.stuck_after))
    assert live.status[-1]["hand"] == "waiting_for_staff" and t.tracker.held

    # staff void it; the next hand starts on the walls up in the same step (_maybe_start)
    keeper.hand_id, keeper.in_progress = "h2", True
    keeper.state = SimpleNamespace(order=service.book.tiles_of(reshuffled))
    service.tick(t.at())
    assert live.status[-1] == {"state": "online"}
    assert not t.tracker.held
