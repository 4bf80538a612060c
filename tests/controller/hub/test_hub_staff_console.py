"""Staff finish a hand on the console, with real parts end to end: the service on its
virtual table (ptys, bot players) over a real Mosquitto, a reader unplugged mid-hand; the
hand waits for staff (the banner on the dealer page); in Debian's Chromium staff log in,
choose the winner and tap the tiles; the settlement is ``mjtable settle``'s on the same
input; the table's handlog reaches the hub, which keeps the hand in PostgreSQL with the
act (who, when, why) and acknowledges it.

The service runs in a thread of its own (its own event loop: ``ReaderlessTable``'s, with the
virtual table's readers); Playwright's sync API drives the page from the test's thread."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from controller.cli.settle import settle_data
from controller.store import EventStore
from engine.round.events import event_from_dict
from tests.controller.hub.tables import PARLOUR, start_hub, stop_hub
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD, until
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD
from tests.controller.web.test_staff_console import _notation, _tap, _winning_hand

STUCK = "1号读卡器无响应"  # (the notice card: why, then what to do)


def _site(mosquitto: Mosquitto, hub_store: EventStore, tmp_path: Path) -> ReaderlessTable:
    """The service on its virtual table (its readers) and the hub beside it, on the
    service's loop: ready once the hand waits for staff; it ends once the hub acknowledged."""
    # the players look at the settlement before the table collects the tiles (the hand
    # just settled stays current for the console until the next one starts)
    site = ReaderlessTable(
        mosquitto,
        tmp_path,
        readers=None,
        seed=22,
        parlour=PARLOUR,
        reader_silent_after=0.5,
        stuck_after=1.0,
    )
    hub: list[Any] = []

    async def held(run: Any) -> None:
        hub.extend(start_hub(hub_store, mosquitto.url))
        await asyncio.wait_for(hub[0].connected.wait(), GUARD)
        await until(lambda: len(run.keeper.log) >= 30, "a hand well under way")
        await run.table.unplug_reader(0)
        await until(lambda: run.service.tracker.held, "the hand to wait for staff")

    async def acked(run: Any) -> None:
        try:
            await until(lambda: not run.store.unacked_handlogs(), "the hub's ack", GUARD)
        finally:
            await stop_hub(*hub)

    site.ready_when, site.after = held, acked
    return site


@pytest.mark.timeout(300)
def test_staff_finish_on_the_console_a_hand_whose_reader_was_unplugged_and_the_hub_keeps_it(
    browser: Any,  # noqa: F811
    mosquitto: Mosquitto,
    hub_store: EventStore,
    tmp_path: Path,
) -> None:
    site = _site(mosquitto, hub_store, tmp_path)
    site.start()
    keeper = site.run.keeper
    hand_id, held_at = keeper.hand_id, len(keeper.log)
    seat, tiles = _winning_hand(keeper)  # (the hand is held: its picture stays as it is)

    page = browser.new_page(viewport={"width": 820, "height": 1180})
    page.goto(f"http://127.0.0.1:{site.port}/dealer")
    page.wait_for_selector(f"#stuck-banner:has-text('{STUCK}')")  # anyone sees why
    page.click(".staff-door summary")
    page.fill("#staff-name", "ann")
    page.fill("#staff-password", PASSWORD)
    page.click("#staff-submit")
    page.wait_for_selector("#staff-hand-head")
    assert "进行中" in (page.text_content("#staff-hand-head") or "")
    page.wait_for_selector("#finish-entry:not([hidden])")  # the task: finish it by hand
    page.select_option("#fin-seat", str(seat))
    page.select_option("#fin-from", "self")
    page.click("#fin-hand")
    page.click("#pick-clear")
    _tap(page, tiles)
    assert page.input_value("#fin-hand").replace(" ", "") == _notation(tiles)
    page.click("#fin-tile")
    _tap(page, [tiles[-1]])
    page.fill("#fin-reason", "reader 1 unplugged")
    assert len(keeper.log) == held_at  # nothing applied while it waited
    page.click("#fin-settle")
    page.wait_for_selector("#roll-dice-error.ok")  # 已完成, in the task card
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')
    net = page.text_content("#staff-settlement") or ""
    assert "工作人员录入" in net and "entered by" not in net  # the page's words, not the note
    site.halt()  # (once the hub acknowledged the hand)

    table = site.run.store.load_hand(hand_id)
    events = [event_from_dict(d) for d in table.event_dicts()]
    finished = next(e.to_dict() for e in events if e.type == "finished_by_staff")
    assert (finished["by"], finished["role"], finished["reason"]) == (
        "ann",
        "staff",
        "reader 1 unplugged",
    )
    assert finished["winners"][0]["seat"] == seat
    # the settlement is mjtable settle's on the input the act keeps
    assert table.settlement is not None
    assert settle_data(finished["request"])["lines"] == table.settlement["lines"]
    assert f"{seat + 1}号位 +{table.settlement['net'][seat]}" in net
    # the hub keeps the hand as the table does, the act with it
    at_hub = hub_store.load_hand(hand_id)
    assert at_hub.event_dicts() == table.event_dicts()
    assert at_hub.settlement == table.settlement and at_hub.hand.net == table.hand.net
    acts = [d for d in at_hub.event_dicts() if d["type"] == "finished_by_staff"]
    assert [(a["by"], a["role"], a["at"], a["reason"]) for a in acts] == [
        (finished["by"], finished["role"], finished["at"], finished["reason"])
    ]
