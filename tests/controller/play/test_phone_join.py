"""Players join a table without readers from their phones: the session's join code (the
display's QR code), one phone a seat, a guest's name or a member's personal link, and
staff freeing a seat. Hostile joins are refused in words (4xx) and store nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.store.member_records import new_link
from controller.store.members import Members
from controller.web.records_api import qr_svg
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import PHONE, call, staff_token
from tests.controller.web.helpers import wait_image_loaded
from tests.controller.web.readerless_table import ReaderlessTable
from tests.controller.web.test_browser import (
    _shot,
    browser,  # noqa: F401 (a fixture)
)


@pytest.mark.timeout(240)
def test_a_phone_joins_a_free_seat_with_the_sessions_code_and_sees_only_public_things(
    table: Any,
) -> None:
    base = f"http://127.0.0.1:{table.port}"
    api = f"{base}/api/v1/play"
    joined = call(f"{api}/join")
    assert joined.status == 200, joined.body
    code = joined.body["code"]
    assert joined.body["url"] == f"/t/t1?code={code}"
    qr = call(f"{api}/join/qr.svg")
    assert qr.status == 200
    assert qr.body.encode() == qr_svg(f"{base}/t/t1?code={code}")  # the QR is the link

    me = call(f"{api}/seats/1/join", {"table": "t1", "code": code, "name": "王五"})
    assert me.status == 200, me.body
    token = me.body["token"]
    view = call(f"{api}/me", token=token)
    assert view.status == 200, view.body
    assert view.body["seat"] == 1 and view.body["name"] == "王五"
    assert view.body["seat_words"] == "2号位"
    assert view.body["seats"] == [None, "王五", None, None]
    assert view.body["dealer"] in range(4) and view.body["totals"] == [0, 0, 0, 0]
    text = json.dumps(view.body)
    assert "hands" not in text and "request" not in text  # nothing concealed

    # a member, by their personal link
    members = Members(table.run.store.engine, table_id="t1")
    li = members.add("李四")
    link = new_link(table.run.store.engine, li.member_id)
    assert link is not None
    member = call(f"{api}/seats/2/join", {"table": "t1", "code": code, "member_link": link})
    assert member.status == 200, member.body
    assert member.body["name"] == "李四" and member.body["member"] is True

    log_before = len(table.run.keeper.log)
    acts_before = len(members.acts())
    hostile = [
        (f"{api}/seats/1/join", {"table": "t1", "code": code, "name": "赵六"}, 409, "2号位已有人"),
        (f"{api}/seats/0/join", {"table": "t1", "code": "ABCDEF", "name": "赵六"}, 403, "入桌码"),
        (f"{api}/seats/0/join", {"table": "t2", "code": code, "name": "赵六"}, 404, "t1"),
        (f"{api}/seats/0/join", {"table": "t1", "code": code, "name": "\u202e"}, 422, "名字"),
        (f"{api}/seats/0/join", {"table": "t1", "code": code, "member_link": "x" * 20}, 403, "会"),
        (f"{api}/seats/3/join", {"table": "t1", "code": code, "member_link": link}, 409, "3号位"),
        (f"{api}/seats/4/join", {"table": "t1", "code": code, "name": "赵六"}, 422, ""),
        (f"{api}/seats/0/join", {"table": "t1", "code": code, "name": "a", "x": 1}, 422, ""),
    ]
    for url, body, status, words in hostile:
        got = call(url, body)
        assert got.status == status, (body, got.body)
        assert words in got.detail, got.detail
    big = call(f"{api}/seats/0/join", raw=b'{"name": "' + b"x" * 5000 + b'"}')
    assert big.status == 413, big.body
    deep = call(f"{api}/seats/0/join", raw=b"[" * 3000 + b"]" * 3000)
    assert 400 <= deep.status < 500, deep.body
    assert call(f"{api}/me", token="not-a-token").status == 401
    assert call(f"{api}/me").status == 401
    assert len(table.run.keeper.log) == log_before and len(members.acts()) == acts_before
    assert call(f"{api}/seats").body["seats"] == [None, "王五", "李四", None]

    # staff free a seat: the phone that held it is out, another may sit there
    staff = staff_token(base)
    auth = {"Authorization": f"Bearer {staff}"}
    freed = call(f"{base}/api/v1/staff/phones/1/release", {}, headers=auth)
    assert freed.status == 200, freed.body
    assert call(f"{api}/me", token=token).status == 401
    assert call(f"{base}/api/v1/staff/phones/1/release", {}, headers=auth).status == 404
    assert call(f"{base}/api/v1/staff/phones/1/release", {}).status == 401
    again = call(f"{api}/seats/1/join", {"table": "t1", "code": code, "name": "赵六"})
    assert again.status == 200, again.body

    # every join (a guest's too) and the release are recorded, who and when, for the owners
    joins = call(f"{base}/api/v1/staff/phones/joins", headers=auth)
    assert joins.status == 200, joins.body
    seen = [(j["act"], j["seat"], j["name"], j["by"]) for j in reversed(joins.body["joins"])]
    assert seen == [
        ("join", 1, "王五", f"phone:{me.body['sid']}"),
        ("join", 2, "李四", f"phone:{member.body['sid']}"),
        ("release", 1, "王五", "staff:ann"),
        ("join", 1, "赵六", f"phone:{again.body['sid']}"),
    ]
    assert joins.body["joins"][2]["member_id"] == li.member_id
    assert all(j["at"] for j in joins.body["joins"])
    assert call(f"{base}/api/v1/staff/phones/joins").status == 401


@pytest.mark.timeout(300)
def test_a_restart_keeps_the_phones_seated_with_the_same_code(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        api = f"{site.url}/api/v1/play"
        code = call(f"{api}/join").body["code"]
        joined = call(f"{api}/seats/2/join", {"table": "t1", "code": code, "name": "王五"})
        assert joined.status == 200, joined.body
    finally:
        site.halt()
    site.start(fresh=False)  # a restart on the same data and port: the session goes on
    try:
        assert call(f"{api}/join").body["code"] == code
        me = call(f"{api}/me", token=joined.body["token"])
        assert me.status == 200, me.body
        assert me.body["seat"] == 2 and me.body["sid"] == joined.body["sid"]
        assert call(f"{api}/seats").body["seats"] == [None, None, "王五", None]
    finally:
        site.halt()


@pytest.mark.timeout(240)
def test_many_joins_from_one_address_are_refused_and_the_table_plays_on(table: Any) -> None:
    api = f"http://127.0.0.1:{table.port}/api/v1/play"
    code = call(f"{api}/join").body["code"]
    answers = [
        call(f"{api}/seats/0/join", {"table": "t1", "code": "WRONG1", "name": "x"}).status
        for _ in range(40)
    ]
    assert set(answers) == {403, 429} and answers.count(429) >= 25, answers
    refused = call(f"{api}/seats/0/join", {"table": "t1", "code": code, "name": "x"})
    assert refused.status == 429 and "秒后再试" in refused.detail
    assert call(f"{api}/seats").body["seats"] == [None] * 4
    assert table.run.keeper.in_progress  # the table plays on


@pytest.mark.timeout(300)
def test_four_phones_join_by_the_displays_qr_link(
    browser: Any,  # noqa: F811
    table: Any,
    tmp_path: Path,
) -> None:
    base = f"http://127.0.0.1:{table.port}"
    display = browser.new_page(viewport={"width": 1280, "height": 800})
    display.goto(f"{base}/display")
    display.wait_for_selector("#join-card:not([hidden]) #join-code:has-text('入桌码')")
    link = call(f"{base}/api/v1/play/join").body["url"]
    assert display.text_content("#join-code") == f"入桌码 {link.split('=')[1]}"
    wait_image_loaded(display.locator("#join-qr"))  # (its request starts with the code shown)
    contexts = [browser.new_context(viewport=PHONE) for _ in range(4)]
    names = ["张三", "李四", "王五", "赵六"]
    pages = []
    for seat, (ctx, name) in enumerate(zip(contexts, names, strict=True)):
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.goto(base + link)
        page.fill("#guest-name", name)
        page.click(f"#seat-{seat}")
        page.wait_for_selector(f"#my-seat:has-text('{seat + 1}号位')")
        assert page.text_content("#my-name") == name
        assert errors == []
        pages.append(page)
    pages[0].wait_for_selector("#totals:has-text('赵六')")
    _shot(pages[0], tmp_path, "play-seat")
    late = browser.new_context(viewport=PHONE).new_page()
    late.goto(base + link)
    late.wait_for_selector("#seat-0[disabled]")  # every seat is taken
    _shot(late, tmp_path, "play-join")
    for c in contexts:
        c.close()
