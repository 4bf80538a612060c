"""The staff console on the dealer page, in Debian's Chromium: staff log in, see the
table's banner when the hand waits for them, and act on a live hand (the desk answering
in-process from a real store's ``HandKeeper``): a penalty undone, a refused non-win shown
beside its form with nothing stored, a win entered with the tile picker and settled as
``mjtable settle`` settles it, a void that needs a reason.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/staff.md shows.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from controller.cli.settle import settle_data
from controller.store import EventStore
from controller.store.owners import OwnerAccounts, StoreLoss
from controller.table.hand_keeper import HandKeeper
from controller.table.staff_acts import handle
from controller.table.staff_notice import StaffNotice
from controller.web import LiveHub, WebAppSettings, create_app
from engine.round.commands import Audit, Void
from engine.round.events import event_from_dict
from engine.round.projection import public_view
from engine.round.staff import read_winners
from engine.tiles import kind_name, parse_kind
from tests.controller.service_helpers import act_at, play_at_keeper
from tests.controller.web.server import serve
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD, keeper  # noqa: F401 (a fixture)

SECRET = b"c" * 32
STUCK = StaffNotice("h", "3号读卡器无响应", "reader 3 silent")


def console_site(store: EventStore, table: HandKeeper) -> Iterator[tuple[str, LiveHub]]:
    """The web app of ``store`` whose staff desk acts on ``table`` in-process."""

    async def desk(item: Any) -> dict[str, Any]:
        return handle(table, item)

    hub = LiveHub()
    settings = WebAppSettings(parlour="demo", table="t1", secret_key=SECRET)
    with serve(create_app(store, hub, settings, staff_desk=desk), hub) as url:
        yield url, hub


@pytest.fixture
def site(
    store: EventStore,
    keeper: HandKeeper,  # noqa: F811
) -> Iterator[tuple[str, LiveHub]]:
    yield from console_site(store, keeper)


def _winning_hand(table: HandKeeper) -> tuple[int, list[str]]:
    """A seat without melds and a plain winning hand (four sets and a pair, no 精) made
    of tiles no other seat holds, nobody discarded and no meld shows."""
    state = table.state
    assert state is not None
    seat = next(s for s in range(4) if not state.melds[s])
    left = [4] * 34
    for s in range(4):
        held = [*state.discards[s], *(t for m in state.melds[s] for t in m.tiles)]
        if s != seat:
            held += state.hands[s]
        for t in held:
            left[t // 4] -= 1
    for name in public_view(state)["jing"].values():
        left[parse_kind(name)] = 0
    hand: list[int] = []

    def take(kinds: list[int]) -> bool:
        if all(left[k] >= kinds.count(k) for k in kinds):
            for k in kinds:
                left[k] -= 1
            hand.extend(kinds)
            return True
        return False

    pair = next(k for k in range(34) if take([k, k]))
    assert pair is not None
    for _ in range(4):
        chows = ([k, k + 1, k + 2] for k in range(27) if k % 9 <= 6)
        pungs = ([k, k, k] for k in range(34))
        assert any(take(kinds) for kinds in (*pungs, *chows)), "no set left"
    return seat, [kind_name(k) for k in sorted(hand)]


def _tap(page: Any, tiles: list[str]) -> None:
    for name in tiles:
        page.click(f'#picker [data-kind="{name}"]')


def _log_in(page: Any, url: str) -> None:
    page.goto(f"{url}/dealer")
    page.click(".staff-door summary")
    page.fill("#staff-name", "ann")
    page.fill("#staff-password", PASSWORD)
    page.click("#staff-submit")
    page.wait_for_selector("#staff-hand-head")


def _events(store: EventStore, hand_id: str) -> int:
    return len(store.load_hand(hand_id).events)


def test_staff_finish_a_hand_on_the_console(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],
    keeper: HandKeeper,  # noqa: F811 (a hand 30 moves in; staff ann of t1)
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, hub = site
    hand_id = keeper.hand_id
    assert hand_id is not None
    page = browser.new_page(viewport={"width": 820, "height": 1180})  # a tablet; CSP enforced
    errors: list[str] = []
    page.on(
        "console",  # (a refused request is the browser's console error too: not the page's)
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource")
            else None
        ),
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}/dealer")
    page.wait_for_selector('#live-banner[data-state="connected"]')
    # without a login: the players' view, and a door for staff
    assert page.query_selector("#staff-view") is None
    page.click(".staff-door summary")
    page.fill("#staff-name", "ann")
    page.fill("#staff-password", "wrong password")
    page.click("#staff-submit")
    page.wait_for_selector("#staff-error:has-text('用户名或密码错误')")
    page.fill("#staff-password", PASSWORD)
    page.click("#staff-submit")
    page.wait_for_selector("#staff-hand-head")
    page.reload()  # the login outlives a reload
    page.wait_for_selector("#staff-hand-head")
    assert "进行中" in page.text_content("#staff-hand-head")
    # the hand cannot go on by itself: the table says so
    notice = STUCK.status() | {"hand_id": keeper.hand_id}
    hub.publish("status", {"state": "online"} | notice)
    page.wait_for_selector("#stuck-banner:not([hidden])")
    said = page.text_content("#stuck-banner") or ""
    assert said.startswith("等待工作人员3号读卡器无响应处理办法: 牌桌已不再跟踪本局"), said
    assert not re.search("[A-Za-z]", said)  # Chinese only: the English is on the toggle
    # nothing concealed on the page: a seat shows its count, never its tiles
    state = keeper.state
    assert state is not None
    _shot(page, tmp_path, "staff-console", full_page=True)

    # the table waits for staff: the finish entry is open at the top; a penalty (behind
    # the menu of rare acts), then undone
    page.wait_for_selector("#task-title:has-text('等待工作人员')")
    page.wait_for_selector("#finish-entry:not([hidden])")
    page.click("#staff-more > summary")
    page.select_option("#pen-seat", "2")
    page.fill("#pen-reason", "declared 胡 on 13 tiles")
    page.click("#pen-go")
    page.wait_for_selector('#staff-acts [data-act="penalty_applied"]')
    # the act in the service's words (engine.round.narration), seats as on the stickers
    assert "工作人员 ann：3号位 诈胡" in (page.text_content("#staff-acts") or "")
    _shot(page, tmp_path, "staff-penalty", full_page=True)
    page.fill("#undo-reason", "wrong seat")
    page.click("#undo")
    page.wait_for_selector('#staff-acts [data-act="staff_undone"]')
    page.wait_for_selector("#undo-error.ok:has-text('已完成')")  # (it fades in a few seconds)
    assert page.input_value("#undo-reason") == ""  # the next act asks its own reason
    _shot(page, tmp_path, "staff-undo", full_page=True)
    assert keeper.in_progress
    log = [e.type for e in keeper.log]
    assert log[-2:] == ["penalty_applied", "staff_undone"]

    # an adjustment: no points is asked for before anything is sent; a seat paying itself
    # is the API's refusal; then 5 from seat 1 to seat 2
    keys: list[str | None] = []
    page.on(
        "request",
        lambda r: keys.append(r.headers.get("idempotency-key")) if "/adjust" in r.url else None,
    )
    page.fill("#adj-reason", "相公 at seat 1")
    page.click("#adj-go")
    page.wait_for_selector("#adj-error:has-text('请填写分数')")
    page.fill("#adj-points", "5")
    page.select_option("#adj-to", "0")
    page.click("#adj-go")
    page.wait_for_selector("#adj-error:not(.ok):not(:has-text('请填写分数')):not(:empty)")
    page.select_option("#adj-to", "1")
    page.click("#adj-go")
    page.wait_for_selector('#staff-acts [data-act="adjusted"]')
    page.wait_for_selector('[data-seat="1"] .total:has-text("+5")')
    _shot(page, tmp_path, "staff-adjust", full_page=True)
    assert keeper.log[-1].type == "adjusted"
    assert "null" not in (page.text_content("#staff-view") or "")
    # a second tap on 执行: the form was emptied once done, the act is not sent again
    assert page.input_value("#adj-reason") == page.input_value("#adj-points") == ""
    page.click("#adj-go")
    page.wait_for_selector("#adj-error:has-text('请填写分数')")
    assert [e.type for e in keeper.log].count("adjusted") == 1
    assert len(keys) == 2 and all(keys) and keys[0] != keys[1]  # one key a submission

    # typed notation counts as tapped tiles do
    west = int(page.text_content('#picker [data-left="W"]') or "0")
    page.fill("#fin-hand", "W 3z")
    expect(page.locator('#picker [data-left="W"]')).to_have_text(str(west - 2))
    page.fill("#fin-hand", "")

    # a non-win: refused beside the form, nothing stored, the hand stays open
    seat, tiles = _winning_hand(keeper)
    page.select_option("#fin-seat", str(seat))
    page.click("#fin-hand")
    _tap(page, ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p", "7p"])
    page.click("#fin-tile")
    _tap(page, ["1m"])
    page.select_option("#fin-from", "self")
    stored = _events(store, hand_id)
    page.click("#fin-settle")
    page.wait_for_selector("#finish-error:has-text('号位不是胡牌')")
    assert _events(store, hand_id) == stored and keeper.in_progress
    _shot(page, tmp_path, "staff-refused", full_page=True)

    # the win entered with the picker: the counts left follow what is entered
    page.click("#pick-clear")
    page.click("#fin-hand")
    page.click("#pick-clear")
    before = int(page.text_content(f'#picker [data-left="{tiles[0]}"]') or "0")
    _tap(page, tiles)
    after = int(page.text_content(f'#picker [data-left="{tiles[0]}"]') or "0")
    assert after == before - tiles.count(tiles[0])
    assert page.input_value("#fin-hand").replace(" ", "") == _notation(tiles)
    page.click("#fin-tile")
    _tap(page, [tiles[-1]])
    page.fill("#fin-reason", "reader 3 silent")
    page.click("#fin-settle")
    page.wait_for_selector("#roll-dice-error.ok")  # 已完成, in the task card
    page.wait_for_selector('#staff-acts [data-act="finished_by_staff"]')
    assert not keeper.in_progress
    assert "已结算" in page.text_content("#staff-hand-head")
    net = page.text_content("#staff-settlement") or ""
    _shot(page, tmp_path, "staff-finish", full_page=True)
    hand = store.load_hand(hand_id)
    events = [event_from_dict(e.payload) for e in hand.events]
    finished = next(e.to_dict() for e in events if e.type == "finished_by_staff")
    assert finished["by"] == "ann" and finished["reason"] == "reader 3 silent"
    assert finished["winners"][0]["seat"] == seat
    settled = next(e.to_dict() for e in reversed(events) if e.type == "settled")
    assert settle_data(finished["request"])["lines"] == settled["settlement"]["lines"]
    winner_net = settled["settlement"]["net"][seat]
    assert f"{seat + 1}号位 +{winner_net}" in net and "工作人员录入" in net
    assert "entered by" not in net  # the page's words, not the engine's note

    # a void needs a reason, asked before anything is sent; then the hand is void
    page.wait_for_selector("#task-title:has-text('本局已结算')")
    page.click("#void-open")
    page.click("#void-go")
    page.wait_for_selector("#void-error:has-text('请先填写原因')")
    page.fill("#void-reason", "tiles fell off the table")
    page.click("#void-go")
    page.wait_for_selector('#staff-acts [data-act="hand_voided"]')
    _shot(page, tmp_path, "staff-void", full_page=True)
    page.click("#lang")  # Chinese first, English a tap away
    page.wait_for_selector("#staff h2:has-text('Staff · ann')")
    assert "Hand void" in (page.text_content("#staff-settlement") or "")
    assert page.text_content("#task-title") == "Hand voided"
    assert errors == [], errors


def _notation(tiles: list[str]) -> str:
    """What the console writes for these kinds: digits grouped by suit, honours last."""
    out = ""
    for suit in "mps":
        digits = "".join(t[0] for t in tiles if t[1:] == suit)
        out += f"{digits}{suit}" if digits else ""
    return out + "".join(t for t in tiles if len(t) == 1)


def test_a_won_hand_fills_the_form_and_its_tiles_are_corrected(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],
    keeper: HandKeeper,  # noqa: F811 (a hand 30 moves in; staff ann of t1)
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, _ = site
    act_at(keeper, Void(Audit("boss", "owner", "t", "start afresh")))
    rng = random.Random(1)
    while not (keeper.state is not None and keeper.state.wins and not keeper.in_progress):
        play_at_keeper(keeper, rng)
    (read, *_) = read_winners(keeper.state)
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    _log_in(page, url)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # the won hand lies face up: the readers' picture is the starting point
    assert page.input_value("#fin-seat") == str(read["seat"])
    assert page.input_value("#fin-hand") == read["hand"]
    assert page.input_value("#fin-tile") == read["tile"]
    rows = page.query_selector_all("#fin-melds [data-meld-row]")
    assert len(rows) == len(read["melds"])
    assert page.is_enabled("#fin-correct")
    page.click("#open-finish")  # the settled hand's entry, to correct it
    page.fill("#fin-reason", "checked at the table")
    page.click("#fin-correct")
    page.wait_for_selector('#staff-acts [data-act="win_corrected"]')
    _shot(page, tmp_path, "staff-correction", full_page=True)
    assert keeper.hand_id is not None
    last = store.load_hand(keeper.hand_id).events[-2].payload
    assert last["type"] == "win_corrected" and last["by"] == "ann"
    assert last["corrected"]["hand"].replace(" ", "") == read["hand"].replace(" ", "")
    assert last["corrected"]["melds"] == last["read"]["melds"]  # the melds as read, sent back
    page.click("#staff-logout")  # back to the players' view
    page.wait_for_selector(".staff-door summary")
    assert page.query_selector("#staff-view") is None
    page.reload()
    page.wait_for_selector(".staff-door summary")


def test_staff_acknowledge_a_loss_of_the_store_on_the_console(
    browser: Any,  # noqa: F811
    site: tuple[str, LiveHub],
    store: EventStore,
) -> None:
    """The loss the last start found stays on the console until acknowledged, with a
    reason (none: refused, nothing kept); then it is gone, and who, when and why kept."""
    lost = "the last hand this store settled (hand 2 of session s1, id h2) is not in it"
    found = StoreLoss(hand_id="h2", table_seq=2, problems=[lost], found_at=datetime.now(UTC))
    OwnerAccounts(store).set_store_loss(found, "table")
    url, _ = site
    page = browser.new_page()
    _log_in(page, url)
    page.wait_for_selector("#store-loss li")
    assert page.text_content("#store-loss li") == lost
    page.click("#ack-loss")  # no reason
    expect(page.locator("#ack-error")).to_contain_text("请写明原因")
    assert OwnerAccounts(store).store_loss().open
    page.fill("#ack-reason", "换了存储卡")
    page.click("#ack-loss")
    expect(page.locator("#store-loss h3")).to_have_count(0)
    done = OwnerAccounts(store).store_loss()
    assert (done.acknowledged_by, done.why, done.open) == ("ann", "换了存储卡", False)
    page.close()
