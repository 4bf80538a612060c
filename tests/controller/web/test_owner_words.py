"""What owners see of a hand staff handled: a voided hand listed as void (作废), and the
replay of a hand entered by staff on a table without readers showing the tiles entered
(a real store's ``HandKeeper``; the owners' API as the pages read it)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from playwright.sync_api import expect

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.table.staff_requests import HandAct, Look
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from engine.round.commands import Audit, Finish, StaffCommand, Void
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET
from tests.controller.web.helpers import bearer
from tests.controller.web.server import serve
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)

AUDIT = Audit("ann", "staff", "2026-12-03T21:00:00+00:00", "")
FOUR_SEATS = [
    {"seat": 0, "hand": "19m19p19s1234567z", "melds": [], "discards": "2m"},
    {"seat": 1, "hand": "2223334445556m", "melds": [], "discards": "5p"},
    {"seat": 2, "hand": "2223334445556p", "melds": [], "discards": "5s"},
    {"seat": 3, "hand": "2223334445556s", "melds": [], "discards": "6m"},
]


def _act(keeper: HandKeeper, command: StaffCommand) -> None:
    seen = handle(keeper, Look())["seen"]
    handle(keeper, HandAct(command, keeper.hand_id or "", seen))


def _two_hands(store: EventStore) -> tuple[str, str]:
    """On table t9 without readers: a 流局 staff entered with every seat, then a hand
    staff voided (牌墙倒了); the owner boss may log in."""
    OwnerAccounts(store).add(OWNER, hash_password(PASSWORD))
    store_keeper = HandKeeper(
        store, Outlet(Topics("demo", "t9")), parlour="demo", table="t9", ruleset="xingguo"
    )
    store_keeper.resume()
    entered = store_keeper.start_hand(None)  # no readers: the whole result from staff
    _act(store_keeper, Finish.of(AUDIT, [], FOUR_SEATS, indicator="1m"))
    voided = store_keeper.start_hand(None)
    why = Audit("ann", "staff", "2026-12-03T21:10:00+00:00", "牌墙倒了")
    _act(store_keeper, Void(why))
    return entered, voided


def test_owners_see_a_void_as_void_and_the_tiles_staff_entered(store: EventStore) -> None:
    entered, voided = _two_hands(store)
    app = create_app(store, LiveHub(), WebAppSettings(table="t9", secret_key=SECRET))
    client = TestClient(app)
    owner = bearer(client, OWNER, PASSWORD)
    rows = {h["id"]: h for h in client.get("/api/v1/tables/t9/hands", headers=owner).json()}
    assert rows[entered]["result"] == "draw" and rows[voided]["result"] == "void"
    assert rows[entered]["entered_by_staff"] and not rows[voided]["entered_by_staff"]
    assert rows[voided]["voided"] == {
        "by": "ann",
        "role": "staff",
        "at": "2026-12-03T21:10:00+00:00",
        "reason": "牌墙倒了",
    }
    assert rows[entered]["voided"] is None
    replay = client.get(f"/api/v1/hands/{entered}/replay", headers=owner).json()
    last = replay["steps"][-1]["view"]["seats"]
    assert last[1]["hand"] == [
        "2m",
        "2m",
        "2m",
        "3m",
        "3m",
        "3m",
        "4m",
        "4m",
        "4m",
        "5m",
        "5m",
        "5m",
        "6m",
    ]
    assert [s["tiles"] for s in last] == [13, 13, 13, 13] and last[0]["entered"] is True


def test_the_owners_pages_say_who_voided_why_which_hands_staff_entered_and_when(
    store: EventStore,
    browser: Any,  # noqa: F811
) -> None:
    entered, voided = _two_hands(store)
    app = create_app(store, LiveHub(), WebAppSettings(table="t9", secret_key=SECRET))
    with serve(app, LiveHub()) as url:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{url}/owner")
        page.fill("#login-name", OWNER)
        page.fill("#login-password", PASSWORD)
        page.click("#login-submit")
        page.wait_for_selector("#tables a")
        page.goto(f"{url}/owner#/t/t9")
        row = page.locator(f'#hands tr[data-hand="{voided}"]')
        expect(row).to_contain_text("作废 · 工作人员 ann：牌墙倒了")
        expect(page.locator(f'#hands tr[data-hand="{entered}"]')).to_contain_text(
            "流局 · 工作人员录入"
        )
        assert "staff:" not in (page.locator("#hands").inner_text())
        page.goto(f"{url}/owner#/h/{entered}")
        page.click("#last")
        # the last step (staff's finish) at its own time, and the tiles staff entered
        expect(page.locator("#step-at")).to_contain_text("2026")
        expect(page.locator("#board")).not_to_contain_text("0 张")
        page.close()
