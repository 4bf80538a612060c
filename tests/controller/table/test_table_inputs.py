"""Acts of people that are not reader or board reports reach the hand through one bounded
queue, ``TableInputs``, applied by ``TableService.act`` on the table loop and stored before
they are published; an input or a report that fails is alerted and the loop goes on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from controller.store import EventStore
from controller.table.alert_sink import AlertSink
from controller.table.dice import DiceRoller
from controller.table.service import TableService
from controller.table.table_inputs import DicePress, TableInputs
from controller.table.tags import TagBook
from controller.tracking.tracker import Tracker
from engine.round.events import DiceRolled
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim import TileSet
from firmware_bridge.table_events import BridgeEvent
from tests.controller.service_helpers import log_of
from tests.controller.table.test_resume_between_hands import Board
from tests.controller.table.test_resume_damaged import _keeper


def test_a_full_queue_refuses_what_does_not_fit() -> None:
    inputs = TableInputs(limit=2)
    assert inputs.put(DicePress()) and inputs.put(DicePress())
    assert not inputs.put(DicePress())  # a stuck button cannot grow it
    assert inputs.pending() == [DicePress(), DicePress()]
    assert inputs.pending() == []


class Reports(Board):
    """The bridge as the service sees it: the reports put in ``events``."""

    def __init__(self) -> None:
        super().__init__()
        self.events: asyncio.Queue[BridgeEvent] = asyncio.Queue()

    async def next_event(self) -> BridgeEvent:
        return await self.events.get()


def _service(store: EventStore, board: Board | None = None) -> tuple[TableService, str]:
    """A service on a hand just started (its break roll due), and the hand's id."""
    keeper = _keeper(store)
    keeper.resume()
    hand_id = keeper.start_hand(None)
    book = TagBook(TileSet(0, KIND_LABELS).registry())
    alerts = AlertSink(keeper, keeper.outlet)
    tracker = Tracker(keeper, book, ZoneMap.standard(), roller=DiceRoller(seed=1), alert=alerts)
    service = TableService(
        keeper, board or Board(), book, keeper.outlet, tracker=tracker, alerts=alerts
    )
    return service, hand_id


def _while_running(service: TableService, body: Callable[[], Awaitable[None]]) -> None:
    async def main() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(service.run(stop))
        try:
            await body()
        finally:
            stop.set()
            await asyncio.wait_for(task, 5.0)

    asyncio.run(main())


async def _until(check: Callable[[], bool]) -> None:
    for _ in range(200):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not in time")


def _rolls(store: EventStore, hand_id: str) -> int:
    return sum(isinstance(e, DiceRolled) for e in log_of(store.load_hand(hand_id)))


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    return EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")


def test_a_dice_press_rolls_on_the_table_loop_and_is_stored(store: EventStore) -> None:
    service, hand_id = _service(store)

    async def press() -> None:
        assert service.inputs.put(DicePress())
        await _until(lambda: _rolls(store, hand_id) == 1)

    _while_running(service, press)
    assert service.keeper.state is not None and len(service.keeper.state.dice) == 1


def test_a_press_queued_before_the_loop_runs_is_taken_first(store: EventStore) -> None:
    service, hand_id = _service(store)
    service.inputs.put(DicePress())

    async def nothing() -> None:
        await asyncio.sleep(0)

    _while_running(service, nothing)
    assert _rolls(store, hand_id) == 1


def test_an_input_that_fails_is_alerted_and_the_loop_goes_on(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, hand_id = _service(store)
    press_dice = service.tracker.press_dice

    def broken(seat: int | None, now: float) -> None:
        raise OSError("the disk is full")

    async def press_twice() -> None:
        monkeypatch.setattr(service.tracker, "press_dice", broken)
        service.inputs.put(DicePress())
        await _until(lambda: bool(store.alerts_of(hand_id)))
        monkeypatch.setattr(service.tracker, "press_dice", press_dice)
        service.inputs.put(DicePress())
        await _until(lambda: _rolls(store, hand_id) == 1)

    _while_running(service, press_twice)
    [alert] = store.alerts_of(hand_id)
    assert alert.kind == "internal_error" and "the disk is full" in alert.detail


def test_a_report_that_fails_is_alerted_and_the_loop_goes_on(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = Reports()
    service, hand_id = _service(store, board)

    def broken(event: BridgeEvent, now: float) -> None:
        raise OSError("the disk is full")

    monkeypatch.setattr(service.tracker, "observe", broken)
    stray = TagIn(Zone(ZoneKind.POOL), b"\xe0\x99\x00\x00\x00\x00\x00\x01", 0.0)

    async def report_then_press() -> None:
        board.events.put_nowait(stray)
        await _until(lambda: bool(store.alerts_of(hand_id)))
        service.inputs.put(DicePress())
        await _until(lambda: _rolls(store, hand_id) == 1)

    _while_running(service, report_then_press)
    [alert] = store.alerts_of(hand_id)
    assert alert.kind == "internal_error" and "the disk is full" in alert.detail
