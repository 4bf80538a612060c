"""Every refusal of the APIs people use, in their words: a Chinese ``detail`` with seats
counted from 1 and no field path, pydantic sentence or English-only line, and its English
in ``en`` beside it. Hostile and wrong inputs to the staff API on a live hand (a real
store's ``HandKeeper``), the login, the members' and the owners' routes."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from tests.controller.test_words import readable
from tests.controller.web.test_staff_api import PASSWORD, _auth, _look, _winner
from tests.controller.web.test_staff_api import client as client  # the live table's app
from tests.controller.web.test_staff_api import keeper as keeper

STAFF = "/api/v1/staff"
FINISH = f"{STAFF}/hands/current/finish"


def _worded(r: Any, said: str) -> None:
    body = r.json()
    assert readable(body["detail"]), body
    assert said in body["detail"], (said, body)
    assert isinstance(body.get("en"), str) and body["en"], body


def test_the_staff_apis_refusals_read_in_words(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    base = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "读卡器没反应"}
    hand_id = seen["hand_id"]
    stored = len(store.load_hand(hand_id).events)
    meld = {"type": "quad", "tiles": "5555m"}
    cases: list[tuple[str, Any, int, str]] = [
        (FINISH, base | {"winners": [_winner(hand="123456789m13579p")]}, 422, "2号位不是胡牌"),
        (FINISH, base | {"winners": [_winner(hand="11111m")]}, 422, "2号位的手牌"),
        (FINISH, base | {"winners": [_winner(hand="x9")]}, 422, "不是一张牌"),
        (FINISH, base | {"winners": [_winner(seat=9)]}, 422, "座位只有1号位到4号位"),
        (FINISH, base | {"winners": [_winner(seat=-1)]}, 422, "座位只有1号位到4号位"),
        (FINISH, base | {"winners": [_winner(**{"from": 1})]}, 422, "点炮的要是别家"),
        (FINISH, base | {"winners": [_winner(melds=[meld])]}, 422, "副露的种类只能是"),
        (FINISH, base | {"winners": [_winner(seat=2), _winner(seat=2)]}, 422, "3号位填了两次"),
        (FINISH, base | {"result": "exhausted", "winners": [_winner()]}, 422, "二者选一"),
        (FINISH, base | {"result": "exhausted", "colour": 1}, 422, "不认识"),
        (FINISH, base | {"result": "exhausted", "seen": 3}, 409, "请看清后再操作"),
        (FINISH, base | {"result": "exhausted", "hand_id": "abc"}, 409, "局号 abc"),
        (FINISH, base | {"result": "lost"}, 422, "结果只能是：流局"),
        (FINISH, base | {"result": "exhausted", "hand_id": "\x00"}, 422, "局号的写法不对"),
        (FINISH, base | {"result": "exhausted", "reason": "x" * 501}, 422, "原因太长"),
        (FINISH, [1, 2], 422, "提交的内容的类型不对"),
        (
            FINISH,
            base | {"result": "exhausted", "seats": [{"seat": 2, "hand": "123m"}]},
            422,
            "3号位的手牌：连副露共 3 张，应有 13 张",
        ),
        (
            f"{STAFF}/adjustments",
            base | {"from_seat": 0, "to_seat": 1, "points": 10**9},
            422,
            "分数不能大于",
        ),
        (
            f"{STAFF}/adjustments",
            base | {"from_seat": 0, "to_seat": 4, "points": 5},
            422,
            "得分的一家：座位只有1号位到4号位",
        ),
        (
            f"{STAFF}/adjustments",
            base | {"from_seat": 0, "to_seat": 1, "points": 5, "reason": ""},
            422,
            "请写明原因",
        ),
        (
            f"{STAFF}/adjustments",
            base | {"from_seat": 2, "to_seat": 2, "points": 5},
            422,
            "出分和得分不能是同一家",
        ),
        (
            f"{STAFF}/hands/current/penalties",
            base | {"seat": 0, "penalty": "foul"},
            422,
            "罚则只能是：诈胡、相公",
        ),
        (
            f"{STAFF}/hands/nosuchhand/void",
            {"seen": seen["seen"], "reason": "r"},
            404,
            "本台没有局号",
        ),
        (f"{STAFF}/hands/current/undo", base, 422, "没有工作人员的操作可以撤销"),
        (f"{STAFF}/hands/current/flip", base | {"indicator": "5s"}, 422, "感应器已看到"),
        (f"{STAFF}/hands/current/flip", base, 422, "翻出的精牌没有填"),
        (f"{STAFF}/dice", {"hand_id": hand_id, "seen": seen["seen"]}, 409, "不该掷骰子"),
        (f"{STAFF}/dice", {"hand_id": hand_id, "seen": 1}, 409, "请看清后再操作"),
        (f"{STAFF}/dice", {"seen": 1}, 422, "局号没有填"),
    ]
    for path, body, code, said in cases:
        r = client.post(path, json=body, headers=staff)
        assert r.status_code == code, (path, body, r.text)
        _worded(r, said)
    # not JSON; a bad Idempotency-Key; no login; another table's staff; an unknown route
    r = client.post(FINISH, content=b"{", headers=staff | {"Content-Type": "application/json"})
    _worded(r, "不是有效的 JSON")
    r = client.post(FINISH, json=base, headers=staff | {"Idempotency-Key": "x"})
    _worded(r, "提交编号的写法不对")
    _worded(client.post(FINISH, json=base | {"result": "exhausted"}), "请先登录")
    other = _auth(client, "bo")
    _worded(client.post(FINISH, json=base, headers=other), "bo 不是 t1 桌的工作人员")
    _worded(client.get(f"{STAFF}/nothing-here", headers=staff), "没有这个地址")
    assert len(store.load_hand(hand_id).events) == stored and keeper.in_progress


def test_the_login_members_and_owners_refusals_read_in_words(client: TestClient) -> None:
    r = client.post("/api/v1/auth/login", json={"name": "ann", "password": "wrong"})
    assert r.status_code == 401
    _worded(r, "名字或密码不对")
    _worded(client.post("/api/v1/auth/login", json={"name": "", "password": "x"}), "名字不能空着")
    owner = _auth(client, "boss")
    staff = _auth(client, "ann")
    _worded(client.get("/api/v1/tables/nope/hands", headers=owner), "没有这张桌")
    _worded(client.get("/api/v1/hands/nope", headers=owner), "没有这一局")
    _worded(client.get("/api/v1/tables/t1/hands?seat=4", headers=owner), "座位只有1号位到4号位")
    _worded(client.get("/api/v1/tables/t1/hands", headers=staff), "老板的功能")
    r = client.post("/api/v1/members/registrations", json={"name": ""}, headers=owner)
    _worded(r, "名字不能空着")
    r = client.put("/api/v1/owner/staff-policy", json={"may_void": "yes"}, headers=owner)
    _worded(r, "允许作废")
    assert PASSWORD  # (the accounts the live table's fixture made)


def test_a_refusal_names_a_seat_with_its_wind_as_the_console_does(
    client: TestClient, keeper: HandKeeper
) -> None:
    # the hand the table shows: 2号位 deals, so 2号位 is 东 and 4号位 西
    client.app.state.ctx.live.publish("hand", {"hand_id": keeper.hand_id, "dealer": 1})  # type: ignore[attr-defined]
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    base = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "读卡器没反应"}
    bad = base | {"winners": [_winner(hand="123456789m13579p")]}
    _worded(client.post(FINISH, json=bad, headers=staff), "2号位（东）不是胡牌")
    twice = base | {"winners": [_winner(seat=3), _winner(seat=3)]}
    _worded(client.post(FINISH, json=twice, headers=staff), "4号位（西）填了两次")
