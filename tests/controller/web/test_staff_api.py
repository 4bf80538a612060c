"""The staff API on a table's live hand (the desk answering in-process from a real store's
``HandKeeper``): each act validated and bounded, a clear 4xx and nothing stored on bad
input, never a concealed tile to staff, and only this table's staff."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.cli.settle import settle_data
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import OwnerAccounts, StaffPolicy
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from engine.round.events import event_from_dict
from engine.round.staff import session_totals
from tests.controller.service_helpers import act_at, play_at_keeper
from tests.controller.web.helpers import bearer

SECRET = b"s" * 32
PASSWORD = "long enough password"


@pytest.fixture
def keeper(store: EventStore) -> HandKeeper:
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    play_at_keeper(keeper, random.Random(5), 30)
    accounts = OwnerAccounts(store)
    accounts.add("boss", hash_password(PASSWORD))
    accounts.add("ann", hash_password(PASSWORD), "staff", ("t1",))
    accounts.add("bo", hash_password(PASSWORD), "staff", ("t2",))
    return keeper


@pytest.fixture
def client(store: EventStore, keeper: HandKeeper) -> Iterator[TestClient]:
    async def desk(item: Any) -> dict[str, Any]:
        return handle(keeper, item)

    app = create_app(
        store,
        LiveHub(),
        WebAppSettings(table="t1", secret_key=SECRET),
        staff_desk=desk,
    )
    with TestClient(app) as c:
        yield c


def _auth(client: TestClient, name: str) -> dict[str, str]:
    return bearer(client, name, PASSWORD)


def _look(client: TestClient, auth: dict[str, str]) -> dict[str, Any]:
    r = client.get("/api/v1/staff/hands/current", headers=auth)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _winner(**extra: Any) -> dict[str, Any]:
    return {"seat": 1, "hand": "123456789m1234p", "tile": "1m", "from": "self"} | extra


def test_staff_see_no_concealed_tile_of_a_hand_in_play(
    client: TestClient, keeper: HandKeeper
) -> None:
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    assert seen["winners_read"] is None and seen["in_progress"]
    text = str(seen)
    for key in ("'hands'", "'hand'", "concealed", "order", "request"):
        assert key not in text, key
    assert all(isinstance(s["tiles"], int) for s in seen["public"]["seats"])


def test_bad_acts_are_refused_and_nothing_is_stored(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    base = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "reader 3 silent"}
    hand_id = seen["hand_id"]
    stored = len(store.load_hand(hand_id).events)
    finish = "/api/v1/staff/hands/current/finish"
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        (finish, base | {"winners": [_winner()]}, 422, "winners[0]"),  # not a win
        (finish, base | {"winners": [_winner(hand="123456789m12345p")]}, 422, "winners[0]"),
        (finish, base | {"winners": [_winner(hand="11111m")]}, 422, "winners[0]"),
        (finish, base | {"winners": [_winner(seat=9)]}, 422, "seat"),
        (finish, base | {"result": "exhausted", "winners": [_winner()]}, 422, "not both"),
        (finish, base | {"result": "exhausted", "colour": 1}, 422, "colour"),
        (finish, base | {"result": "exhausted", "seen": 3}, 409, "seen"),
        (finish, base | {"result": "exhausted", "hand_id": "abc"}, 409, "not the hand"),
        (
            "/api/v1/staff/adjustments",
            base | {"from_seat": 0, "to_seat": 1, "points": 10**9},
            422,
            "points",
        ),
        (
            "/api/v1/staff/adjustments",
            base | {"from_seat": 0, "to_seat": 1, "points": 5, "reason": "x" * 501},
            422,
            "reason",
        ),
        (  # (the engine's check, the only one)
            "/api/v1/staff/adjustments",
            base | {"from_seat": 2, "to_seat": 2, "points": 5},
            422,
            "to_seat: the same seat as from_seat",
        ),
        (
            "/api/v1/staff/hands/current/penalties",
            base | {"seat": 0, "penalty": "xianggong"},
            422,
            "owner sets one",
        ),
        ("/api/v1/staff/hands/nosuchhand/void", {"seen": seen["seen"], "reason": "r"}, 404, ""),
        ("/api/v1/staff/hands/current/undo", base, 422, "no act"),
        # the readers saw this hand's 精; a flip is one tile
        ("/api/v1/staff/hands/current/flip", base | {"indicator": "5s"}, 422, "readers saw"),
        ("/api/v1/staff/hands/current/flip", base | {"indicator": "5s5s5"}, 422, "indicator"),
        ("/api/v1/staff/hands/current/flip", base, 422, "indicator"),
        # the dice button: a roll not due, a press that saw another moment
        ("/api/v1/staff/dice", {"hand_id": hand_id, "seen": seen["seen"]}, 409, "no roll"),
        ("/api/v1/staff/dice", {"hand_id": hand_id, "seen": 1}, 409, "moved on"),
        ("/api/v1/staff/dice", {"seen": 1}, 422, "hand_id"),
    ]
    for path, body, code, word in cases:
        r = client.post(path, json=body, headers=staff)
        assert r.status_code == code, (path, body, r.text)
        assert word in r.text, (word, r.text)
    # a reason of a megabyte never reaches the table
    big = client.post(finish, json=base | {"reason": "x" * 1_000_000}, headers=staff)
    assert big.status_code == 413
    # no token, or another table's staff
    assert client.post(finish, json=base | {"result": "exhausted"}).status_code == 401
    other = _auth(client, "bo")
    assert (
        client.post(finish, json=base | {"result": "exhausted"}, headers=other).status_code == 403
    )
    assert len(store.load_hand(hand_id).events) == stored and keeper.in_progress


def test_acts_change_the_totals_and_a_replayed_request_does_nothing(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    base = {"hand_id": seen["hand_id"], "reason": "dispute at the table"}
    r = client.post(
        "/api/v1/staff/hands/current/penalties",
        json=base | {"seen": seen["seen"], "seat": 3, "penalty": "false_win"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    adjust = base | {"seen": r.json()["seen"], "from_seat": 0, "to_seat": 2, "points": 9}
    r = client.post("/api/v1/staff/adjustments", json=adjust, headers=staff)
    assert r.status_code == 200, r.text
    again = client.post("/api/v1/staff/adjustments", json=adjust, headers=staff)
    assert again.status_code == 409  # replayed: nothing stored twice
    seen = _look(client, staff)
    assert seen["totals"] == [11, 20, 29, -60]
    assert [a["type"] for a in seen["acts"]] == ["penalty_applied", "adjusted"]
    assert seen["acts"][1]["by"] == "ann" and seen["acts"][1]["role"] == "staff"
    r = client.post(
        "/api/v1/staff/hands/current/finish",
        json=base | {"seen": seen["seen"], "result": "exhausted"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    assert r.json()["settlement"]["notes"][-1] == "工作人员录入 (entered by staff ann)"
    hand = store.load_hand(seen["hand_id"])
    log = [event_from_dict(e.payload) for e in hand.events]
    finished = next(e.to_dict() for e in log if e.type == "finished_by_staff")
    assert settle_data(finished["request"])["lines"] == r.json()["settlement"]["lines"]
    assert tuple(keeper.session.totals) == session_totals(log)
    assert hand.hand.status == "finished"


def test_the_owners_policy_bars_staff_from_voiding(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    OwnerAccounts(store).set_staff_policy(StaffPolicy(may_void=False), "boss")
    staff, owner = _auth(client, "ann"), _auth(client, "boss")
    seen = _look(client, staff)
    path = f"/api/v1/staff/hands/{seen['hand_id']}/void"
    body = {"seen": seen["seen"], "reason": "tiles fell"}
    assert client.post(path, json=body, headers=staff).status_code == 403
    r = client.post(path, json=body, headers=owner)
    assert r.status_code == 200, r.text
    assert r.json()["settlement"]["void"] is True and not keeper.in_progress


def test_the_owners_log_shows_each_act_with_who_and_why(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    staff, owner = _auth(client, "ann"), _auth(client, "boss")
    seen = _look(client, staff)
    base = {"hand_id": seen["hand_id"], "reason": "相公 at seat 2"}
    r = client.post(
        "/api/v1/staff/adjustments",
        json=base | {"seen": seen["seen"], "from_seat": 1, "to_seat": 3, "points": 4},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    r = client.post(
        "/api/v1/staff/hands/current/finish",
        json=base | {"seen": r.json()["seen"], "result": "exhausted"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    replay = client.get(f"/api/v1/hands/{seen['hand_id']}/replay", headers=owner).json()
    assert replay["check"] is None
    texts = [s["text"] for s in replay["steps"]]
    assert {
        "zh": "工作人员 ann：调整：2号位 付 4号位 4（相公 at seat 2）",
        "en": "staff ann: seat 2 pays seat 4 4 (adjustment) — 相公 at seat 2",
    } in texts
    assert any(t["zh"].startswith("工作人员 ann：手动结束本局：流局") for t in texts)
    hand = client.get(f"/api/v1/hands/{seen['hand_id']}", headers=owner).json()
    assert hand["hand"]["net"] == [0, -4, 0, 4]  # what the hand moved: the adjustment beside a 流局


def test_a_win_is_corrected_through_the_api_after_its_settlement(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    from engine.round.commands import Audit, Void

    act_at(keeper, Void(Audit("boss", "owner", "t", "start afresh")))
    rng = random.Random(1)
    while not (keeper.state is not None and keeper.state.wins and not keeper.in_progress):
        play_at_keeper(keeper, rng)
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    assert seen["in_progress"] is False and seen["winners_read"]
    w = seen["winners_read"][0]
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "the 1m was a 7m"}
    bad = client.post(
        "/api/v1/staff/hands/current/correction",
        json=body | {"seat": w["seat"], "hand": "123456789m1234p", "melds": w["melds"]},
        headers=staff,
    )
    assert bad.status_code == 422 and "hand" in bad.json()["en"]
    assert "号位的手牌：连副露共" in bad.json()["detail"]
    r = client.post(
        "/api/v1/staff/hands/current/correction",
        json=body | {"seat": w["seat"], "hand": w["hand"], "melds": w["melds"]},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    act = r.json()["events"][0]
    assert act["type"] == "win_corrected" and act["read"]["hand"] == w["hand"]
    assert "request" not in act
    assert store.load_hand(seen["hand_id"]).events[-2].payload["type"] == "win_corrected"


def test_a_state_change_from_another_sites_page_is_refused_and_stores_nothing(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    login = {"name": "ann", "password": PASSWORD}
    evil = {"Origin": "http://evil.example:8081", "Sec-Fetch-Site": "cross-site"}
    refused = client.post("/api/v1/auth/login", json=login, headers=evil)
    assert refused.status_code == 403 and "another site" in refused.json()["en"]
    assert "别的网站" in refused.json()["detail"]
    assert "mjtable_owner" not in client.cookies
    assert client.post("/api/v1/auth/login", json=login).status_code == 200  # the cookie
    seen = _look(client, {})
    stored = len(store.load_hand(seen["hand_id"]).events)
    adjust = {
        "hand_id": seen["hand_id"],
        "seen": seen["seen"],
        "reason": "dispute at the table",
        "from_seat": 0,
        "to_seat": 2,
        "points": 9,
    }
    for headers in (
        evil,
        {"Origin": "http://evil.example:8081"},  # a browser without Fetch Metadata
        {"Sec-Fetch-Site": "same-site"},  # another port of this host: another origin
        {"Origin": "null"},  # a sandboxed frame
        {"Origin": "http://testserver:8081", "Sec-Fetch-Site": "cross-site"},
    ):
        r = client.post("/api/v1/staff/adjustments", json=adjust, headers=headers)
        assert r.status_code == 403, (headers, r.text)
        assert client.delete("/api/v1/staff/nothing", headers=headers).status_code == 403
    assert len(store.load_hand(seen["hand_id"]).events) == stored
    # this site's own page (the cookie), then a script (its bearer token, no browser headers)
    own = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    r = client.post("/api/v1/staff/adjustments", json=adjust, headers=own)
    assert r.status_code == 200, r.text
    script = _auth(client, "ann")
    adjust["seen"] = r.json()["seen"]
    r = client.post("/api/v1/staff/adjustments", json=adjust, headers=script)
    assert r.status_code == 200, r.text
    assert len(store.load_hand(seen["hand_id"]).events) == stored + 2


def test_the_look_says_what_a_finish_needs_and_a_partial_finish_settles(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    assert seen["needs"]["exhausted"]["confirm_only"] is True  # xingguo: a 流局 settles nothing
    assert seen["needs"]["self_draw"]["others"]["jing"] == ["jing"]
    base = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": ""}
    finish = "/api/v1/staff/hands/current/finish"
    # what xingguo does not read of a seat is refused in words, and nothing is stored
    stored = len(store.load_hand(seen["hand_id"]).events)
    partial = [{"seat": s, "partial": True} for s in (0, 2, 3)]
    bad = [{"seat": 0, "partial": True, "hand": "E"}, *partial[1:]]
    r = client.post(finish, json=base | {"result": "exhausted", "seats": bad}, headers=staff)
    assert r.status_code == 422 and "1号位" in r.json()["detail"], r.text
    assert len(store.load_hand(seen["hand_id"]).events) == stored
    r = client.post(
        finish,
        json=base | {"result": "exhausted", "seats": [*partial, {"seat": 1, "partial": True}]},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    assert r.json()["settlement"]["void"] is True
    act = next(e for e in store.load_hand(seen["hand_id"]).events if e.type == "finished_by_staff")
    assert all(s["partial"] for s in act.payload["request"]["seats"])
    assert settle_data(act.payload["request"])["void"] is True
