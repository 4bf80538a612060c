"""The cash-out in Debian's Chromium: staff close the session on the console (the desk
answering in-process from a real store's ``HandKeeper``), the table display shows each
player's net and who pays whom from the live stream (points only), and the printable
page shows the owner's money and table fee, laid out for paper.

Set MJTABLE_SCREENSHOTS=docs/screenshots to refresh the screenshots docs/players.md shows.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.members import Members
from controller.store.owners import CashoutTerms, OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.helpers import wait_image_loaded
from tests.controller.web.server import serve
from tests.controller.web.test_browser import _shot, browser  # noqa: F401 (a fixture)
from tests.controller.web.test_staff_api import PASSWORD
from tests.controller.web.test_staff_console import _log_in

SECRET = b"p" * 32
SHANGHAI = timezone(timedelta(hours=8))


@pytest.fixture
def site(store: EventStore) -> Iterator[tuple[str, HandKeeper]]:
    hub = LiveHub()
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1"), live=hub), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    members = Members(store.engine, table_id="t1", parlour="demo")
    wang, li = members.add("王五"), members.add("李四")
    members.sit(0, wang.member_id, "ann")
    members.sit(1, li.member_id, "ann")
    rng = random.Random(11)
    for n in range(6):
        if n == 3:  # 王五 moves to seat 3 between hands: one player all the same
            members.sit(2, wang.member_id, "ann")
        play_at_keeper(keeper, rng)
    accounts = OwnerAccounts(store)
    accounts.add("ann", hash_password(PASSWORD), "staff", ("t1",))
    accounts.add("boss", hash_password(PASSWORD))
    terms = CashoutTerms(point_value=2, table_fee=20, fee_per="hand")
    accounts.set_cashout_terms(terms, "boss")

    async def desk(item: Any) -> dict[str, Any]:
        return handle(keeper, item)

    settings = WebAppSettings(parlour="demo", table="t1", secret_key=SECRET)
    with serve(create_app(store, hub, settings, staff_desk=desk), hub) as url:
        yield url, keeper


def test_the_cash_out_on_the_console_the_display_and_paper(
    browser: Any,  # noqa: F811
    site: tuple[str, HandKeeper],
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, keeper = site
    session_id = keeper.session_id
    assert session_id is not None
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 820, "height": 1180})  # a tablet
    console = context.new_page()
    console.on("pageerror", lambda e: errors.append(str(e)))
    _log_in(console, url)
    console.click("#staff-more > summary")  # the session, behind the menu of rare acts
    console.wait_for_selector("#session-head:has-text('尚未结束')")  # the standing, still open
    console.click("#close-session")  # no reason: refused, nothing stored
    console.wait_for_selector("#close-error:has-text('请先填写原因')")
    assert keeper.session_id == session_id
    console.fill("#close-reason", "打烊")
    console.click("#close-session")
    console.wait_for_selector("#session-head:has-text('本场结算')")
    assert keeper.session_id is None and store.get_session(session_id).ended_at is not None
    hands = sorted(store.list_hands(session_id=session_id, limit=100), key=lambda h: h.table_seq)
    wang = sum(h.net[0] for h in hands[:3]) + sum(h.net[2] for h in hands[3:])
    guests = {  # a guest is the seat: 3号位 before 王五 sat there, 1号位 after he left it
        "1号位": sum(h.net[0] for h in hands[3:]),
        "3号位": sum(h.net[2] for h in hands[:3]),
        "4号位": sum(h.net[3] for h in hands),
    }
    nets = {"王五": wang, "李四": sum(h.net[1] for h in hands), **guests}
    transfers = console.query_selector_all("#session-cashout .transfer")
    assert 1 <= len(transfers) <= 4
    assert "元" in console.text_content("#session-cashout")  # money for staff
    console.locator("#session-form").scroll_into_view_if_needed()
    _shot(console, tmp_path, "cashout-console")

    display = browser.new_page(viewport={"width": 1280, "height": 800})
    display.on("pageerror", lambda e: errors.append(str(e)))
    display.goto(f"{url}/display")
    display.wait_for_selector("body[data-cashout='yes']")
    text = display.text_content("#cashout")
    assert "本场结算 · 6局" in text and "谁付给谁" in text and "王五" in text
    assert "元" not in text  # points only in public
    rows = display.query_selector_all("#cashout .cashout-player")
    shown = {
        r.query_selector("td").text_content(): float(r.query_selector(".num").text_content())
        for r in rows
    }
    assert shown == nets  # five players: two members (one moved seats) and three guests
    assert len(display.query_selector_all("#cashout .transfer")) == len(transfers)
    _shot(display, tmp_path, "cashout-display")

    sheet = context.new_page()  # the console's login (its cookie)
    sheet.on("pageerror", lambda e: errors.append(str(e)))
    sheet.goto(f"{url}/cashout")
    sheet.wait_for_selector("body[data-ready='yes']")
    assert "打烊" in sheet.text_content("#meta") and "台费" in sheet.text_content("#meta")
    # staff make a member's personal link and show it as a QR code for their phone
    buttons = sheet.query_selector_all("#links button[data-member]")
    assert len(buttons) == 2  # the two members; the guests have no link
    buttons[0].click()
    sheet.wait_for_selector("#links .qr img")
    wait_image_loaded(sheet.locator("#links .qr img"))
    assert "/m/" in sheet.text_content("#links .qr .meta")
    sheet.emulate_media(media="print")
    assert not sheet.is_visible("#print")  # the buttons stay off the paper
    _shot(sheet, tmp_path, "cashout-print", full_page=True)
    sheet.pdf(path=str(tmp_path / "cashout.pdf"))
    assert (tmp_path / "cashout.pdf").stat().st_size > 1000
    # the owner finds the session on the table's page, and its sheet
    owner = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    owner.on("pageerror", lambda e: errors.append(str(e)))
    owner.goto(f"{url}/owner")
    owner.fill("#login-name", "boss")
    owner.fill("#login-password", PASSWORD)
    owner.click("#login-submit")
    owner.click("#tables a")
    row = owner.wait_for_selector(f"#sessions tr[data-session='{session_id}']")
    # who played it, by name, in the order they first sat
    assert row.query_selector(".session-players").text_content() == "王五、李四"
    # named by its day, never by its id
    assert re.fullmatch(
        r"\d{1,2}月\d{1,2}日 第1场", row.query_selector(".session-name").text_content()
    )
    assert session_id[:8] not in row.text_content()
    link = row.query_selector("a").get_attribute("href")
    assert link == f"/cashout?session={session_id}"
    owner.goto(url + link)
    owner.wait_for_selector("body[data-ready='yes']")
    assert owner.text_content("#title").startswith("本场结算")
    assert owner.text_content("#sheet") == sheet.text_content("#sheet")
    # a stranger gets no cash-out sheet
    stranger = browser.new_page()
    stranger.goto(f"{url}/cashout")
    stranger.wait_for_selector("#error:has-text('log in')")
    assert errors == []
    context.close()


@pytest.fixture
def guests_then_members(store: EventStore) -> Iterator[tuple[str, HandKeeper, LiveHub]]:
    """A hand played by four guests, then 王五, 李四 and 张三丰 sit at seats 1-3 (the seats
    topic says so) and four more hands are played."""
    hub = LiveHub()
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1"), live=hub), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    members = Members(store.engine, table_id="t1", parlour="demo")
    rng = random.Random(48)
    play_at_keeper(keeper, rng)
    for seat, name in enumerate(["王五", "李四", "张三丰"]):
        members.sit(seat, members.add(name).member_id, "staff:ann" if seat else "card")
    hub.publish("seats", {"seats": ["王五", "李四", "张三丰", None]})
    for _ in range(4):
        play_at_keeper(keeper, rng)
    OwnerAccounts(store).add("ann", hash_password(PASSWORD), "staff", ("t1",))

    async def desk(item: Any) -> dict[str, Any]:
        return handle(keeper, item)

    settings = WebAppSettings(parlour="demo", table="t1", secret_key=SECRET)
    with serve(create_app(store, hub, settings, staff_desk=desk), hub) as url:
        yield url, keeper, hub


def _shown(page: Any, box: str) -> tuple[dict[str, float], list[tuple[str, str, str]]]:
    """A cash-out view's rows (name: net) and transfers, as the page shows them."""
    rows = page.query_selector_all(f"{box} .cashout-player")
    names = [r.eval_on_selector("td", "td => td.firstChild.textContent") for r in rows]
    assert len(set(names)) == len(names), names  # nobody twice
    nets = {
        n: float(r.query_selector(".num").text_content()) for n, r in zip(names, rows, strict=True)
    }
    pays = [
        (
            *li.eval_on_selector_all("b", "bs => bs.map((b) => b.textContent)"),
            li.text_content().split()[-2],
        )
        for li in page.query_selector_all(f"{box} .transfer")
    ]
    return nets, pays


def test_guests_results_stay_theirs_after_members_sit_in_their_seats(
    browser: Any,  # noqa: F811
    guests_then_members: tuple[str, HandKeeper, LiveHub],
    store: EventStore,
    tmp_path: Path,
) -> None:
    url, keeper, hub = guests_then_members
    session_id = keeper.session_id
    assert session_id is not None
    errors: list[str] = []
    context = browser.new_context(
        viewport={"width": 820, "height": 1180}, timezone_id="Asia/Shanghai"
    )
    console = context.new_page()
    console.on("pageerror", lambda e: errors.append(str(e)))
    _log_in(console, url)
    console.click("#staff-more > summary")  # the session, behind the menu of rare acts
    console.wait_for_selector("#session-head:has-text('尚未结束')")
    # the seat acts in the parlour's time, seats as their stickers say, who in words
    acts = Members(store.engine, table_id="t1").acts()
    console.wait_for_selector(f"#seat-acts li:nth-child({len(acts)})")  # (loaded on opening)
    local = [a.at.astimezone(SHANGHAI).strftime("%H:%M:%S") for a in acts]
    shown_acts = [li.text_content() for li in console.query_selector_all("#seat-acts li")]
    assert shown_acts == [
        f"{at} · {a.seat + 1}号位 · {a.name} · {'会员卡' if a.by == 'card' else '员工 ann'}"
        for at, a in zip(local, acts, strict=True)
    ]
    console.fill("#close-reason", "打烊")
    console.click("#close-session")
    console.wait_for_selector("#session-head:has-text('本场结算')")
    sheet = store.list_hands(session_id=session_id, limit=100)
    hands = sorted(sheet, key=lambda h: h.table_seq or 0)
    nets = {
        "王五": sum(h.net[0] for h in hands[1:]),
        "李四": sum(h.net[1] for h in hands[1:]),
        "张三丰": sum(h.net[2] for h in hands[1:]),
        "1号位": hands[0].net[0],
        "2号位": hands[0].net[1],
        "3号位": hands[0].net[2],
        "4号位": sum(h.net[3] for h in hands),
    }
    published = hub.last("cashout")
    labels = [p["label"] for p in published["players"]]
    paid = [
        (labels[t["from"]], labels[t["to"]], f"{t['points']:g}") for t in published["transfers"]
    ]
    on_console = _shown(console, "#session-cashout")
    assert on_console == ({k: pytest.approx(v) for k, v in nets.items()}, paid)
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    display.on("pageerror", lambda e: errors.append(str(e)))
    display.goto(f"{url}/display")
    display.wait_for_selector("body[data-cashout='yes']")
    assert _shown(display, "#cashout") == on_console
    _shot(display, tmp_path, "cashout-guests-then-members")
    # the next hand starts a new session: staff still find the closed sheet on /cashout
    play_at_keeper(keeper, random.Random(1))
    assert keeper.session_id not in (None, session_id)
    sheet = context.new_page()
    sheet.on("pageerror", lambda e: errors.append(str(e)))
    sheet.goto(f"{url}/cashout")
    sheet.wait_for_selector("body[data-ready='yes']")
    assert sheet.text_content("#title").startswith("本场累计")  # the new session, open
    sheet.click(f"#recent a[data-session='{session_id}']")
    sheet.wait_for_selector("#title:has-text('本场结算')")
    assert _shown(sheet, "#sheet") == on_console
    # a code made for 王五: on paper his name with his code under it, and nobody else's
    sheet.click("#links .link:has(b:text-is('王五')) button")
    sheet.wait_for_selector("#links .link.with-code .qr img")
    sheet.emulate_media(media="print")
    shown = [r for r in sheet.query_selector_all("#links .link") if r.is_visible()]
    assert [r.query_selector("b").text_content() for r in shown] == ["王五"]
    name, code = shown[0].query_selector("b"), shown[0].query_selector(".qr img")
    assert code.bounding_box()["y"] > name.bounding_box()["y"]  # under the name
    assert sheet.is_visible("#links h2") and not sheet.is_visible("#recent")
    _shot(sheet, tmp_path, "cashout-print-codes", full_page=True)
    assert errors == []
    context.close()
