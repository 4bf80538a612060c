"""A hand the table cannot explain for ``stuck_after`` seconds waits for staff: the status
and the display say so, and the tracker applies nothing more to it, even once the reader
is back, until staff finish or void it. On the tracker harness of test_tracker, through
the service's own loop steps (``handle``, ``tick``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.config import TrackerSettings
from controller.process.metrics import Metrics
from controller.store import EventStore
from controller.table.service import ServiceSettings
from engine.round.state import Phase
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.sim import TileSet
from firmware_bridge.table_events import LiftOrder, ReaderBack, ReaderSilent
from tests.controller.alert_helpers import alert_table
from tests.controller.tracking.test_tracker import GRACE, discards, hand

DISCREPANCIES = {"xianggong", "duplicate_tag", "tile_misplaced", "tile_missing"}
"""What the readers' picture of a hand, against the hand, is alerted as after the grace."""
WINDOW = 10.0
NOTICE = "2号读卡器无响应：请工作人员手动结束或作废本局"
"""The notice's one line: Chinese only (the English is the pages' on their toggle)."""


class Live:
    def __init__(self) -> None:
        self.status: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []

    def publish(self, topic: str, payload: Any) -> None:
        if topic == "status":
            self.status.append(payload)
        elif topic == "alerts":
            self.alerts.append(payload)


class Beeper:
    def __init__(self) -> None:
        self.beeps = 0

    def beep(self, on_time: float = 0.1, off_time: float = 0.1, n: int = 1) -> None:
        self.beeps += 1


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
    (said,) = live.status
    assert (said["state"], said["hand"], said["hand_id"], said["text"]) == (
        "online",
        "waiting_for_staff",
        "h1",
        NOTICE,
    )
    assert said["why"] == {"zh": "2号读卡器无响应", "en": "reader 2 silent"}
    assert [a.kind for a in store.alerts_of("h1")] == ["reader_silent", "waiting_for_staff"]
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


def test_a_silent_reader_holds_the_hand_within_5_s_of_being_reported_by_default(
    tmp_path: Path,
) -> None:
    """With the configured default, the notice comes within 5 s of the table reporting a
    reader silent (it reports one after ``reader_silent_after`` without a scan)."""
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    live = Live()
    t, service = alert_table(store, TileSet(0, KIND_LABELS).registry(), live=live)
    service.options = ServiceSettings(stuck_after=TrackerSettings().stuck_after)
    service.board = Shown()
    service.keeper.state = None  # type: ignore[misc]  # (the display's text: not asked here)
    t.to_play()
    service.handle(ReaderSilent(2, hand(1), t.now, t.now), t.at())
    service.tick(t.at(5.0))
    assert [s.get("hand") for s in live.status] == ["waiting_for_staff"] and t.tracker.held


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
    resumed = service.book.tiles_of(tiles.uids)
    keeper.state = SimpleNamespace(order=resumed, dealer=0, player_claim=None)  # resumed
    service._show = lambda: None  # type: ignore[method-assign]  # (its text: not asked here)
    reshuffled = tuple(reversed(tiles.uids))
    service.handle(LiftOrder(reshuffled, t.now), t.at())  # the table's walls now
    assert live.status[-1]["hand"] == "waiting_for_staff" and t.tracker.held  # (at once)

    # staff void it; the next hand starts on the walls up in the same step (_maybe_start)
    keeper.hand_id, keeper.in_progress = "h2", True
    keeper.state = SimpleNamespace(
        order=service.book.tiles_of(reshuffled), dealer=0, player_claim=None
    )
    service.tick(t.at())
    assert keeper.waiting is None  # (its status: the screens of the new hand's commit)
    assert not t.tracker.held


def _counted(metrics: Metrics) -> dict[str, float]:
    """``mjtable_alerts_total`` by kind."""
    return {
        s.labels["kind"]: s.value
        for m in metrics.registry.collect()
        if m.name == "mjtable_alerts"
        for s in m.samples
        if s.name == "mjtable_alerts_total"
    }


def test_a_hand_waiting_for_staff_raises_no_more_alerts_of_its_discrepancies(
    tmp_path: Path,
) -> None:
    """The one notice says the hand waits for staff: what the readers see of it meanwhile
    (the players play on, a tile comes and goes, each standing for several grace times)
    is not alerted again and again, not counted, stored, published or beeped. A reader
    that goes silent or a stranger's tag still is; and once staff end the hand the next
    one is alerted as ever."""
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    live, metrics = Live(), Metrics()
    registry = TileSet(0, KIND_LABELS).registry()
    t, service = alert_table(store, registry, live=live, window=WINDOW, metrics=metrics)
    service.alerts.beeper = beeper = Beeper()
    service.board = Shown()
    service.keeper.state = None  # type: ignore[misc]  # (the display's text: not asked here)
    t.to_play()
    service.handle(ReaderSilent(2, hand(1), t.now, t.now), t.at())
    service.tick(t.at(service.options.stuck_after))
    held = ["reader_silent", "waiting_for_staff"]  # (the hold: stored with the hand)
    assert t.tracker.held and [a.kind for a in store.alerts_of("h1")] == held

    def discrepancies() -> list[str]:
        return [a.kind for a in store.alerts_of("h1") if a.kind in DISCREPANCIES]

    def tick_for(seconds: float) -> None:
        end = t.now + seconds
        while t.now < end:
            service.tick(t.at(0.25))

    # the dealer discards (not applied: the seat holds one tile less than the hand says),
    # a tile of seat 2's read in seat 3's discards too, and the discard comes and goes
    counted = _counted(metrics)
    tile = t.state.hands[0][0]
    t.move(tile, hand(0), discards(0))
    t.tag_in(discards(3), t.state.hands[2][0])
    for _ in range(4):
        tick_for(GRACE * 2)
        t.tag_out(discards(0), tile)
        tick_for(GRACE * 2)
        t.tag_in(discards(0), tile)
    tick_for(WINDOW)  # (any summary the gate holds goes out)
    assert discrepancies() == []
    assert [m for m in live.alerts if m["kind"] in DISCREPANCIES] == []
    assert _counted(metrics) == counted  # the counter stays flat
    assert beeper.beeps == 1  # (the silent reader's)
    assert live.status[-1]["hand"] == "waiting_for_staff"  # the one notice stands

    # what staff need whatever the hand still goes out
    service.handle(ReaderSilent(3, hand(2), t.now, t.now), t.at())
    stranger = b"\xe0\x04\x00\x00\x00\x00\x00\x01"
    service.handle(TagIn(discards(1), stranger, t.now), t.at())
    assert [a.kind for a in store.alerts_of("h1")] == [*held, "reader_silent", "unknown_tag"]
    assert beeper.beeps == 3

    # staff end the hand; the next hand starts on a new wall and is alerted as ever
    service.keeper.in_progress = False  # type: ignore[misc]
    service.tick(t.at())
    service.handle(ReaderBack(2, hand(1), t.now), t.at())
    service.handle(ReaderBack(3, hand(2), t.now), t.at())
    t.new_wall(2)
    service.keeper.hand_id, service.keeper.in_progress = "h2", True  # type: ignore[misc]
    service.tick(t.at())
    assert not t.tracker.held
    t.to_play()
    tick_for(GRACE + 1)
    assert store.alerts_of("h2") == []
    t.tag_in(discards(3), t.state.hands[2][0])  # a tile in two zones, for the grace time
    tick_for(GRACE + 1)
    raised = sorted(a.kind for a in store.alerts_of("h2"))
    assert raised == ["duplicate_tag", "tile_misplaced", "xianggong"]  # (seat 2 holds 12)
    assert all(_counted(metrics)[k] == counted.get(k, 0) + 1 for k in raised)
