"""The members API: owners and this table's staff register, edit, deactivate and delete
members; bad input is a 422 naming the field and stores nothing; seats change between hands
only, each act stored with who did it before the public seats topic says it."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.members import Members
from controller.store.owners import OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.seating import Seating, seats_payload
from controller.table.staff_acts import handle
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from controller.web.records_api import qr_svg
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.helpers import bearer

SECRET = b"s" * 32
PASSWORD = "long enough password"


@pytest.fixture
def keeper(store: EventStore) -> HandKeeper:
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    accounts = OwnerAccounts(store)
    accounts.add("boss", hash_password(PASSWORD))
    accounts.add("ann", hash_password(PASSWORD), "staff", ("t1",))
    accounts.add("bo", hash_password(PASSWORD), "staff", ("t2",))
    return keeper


@pytest.fixture
def client(store: EventStore, keeper: HandKeeper) -> Iterator[TestClient]:
    seating = Seating(keeper)

    async def desk(item: Any) -> dict[str, Any]:
        return handle(keeper, item, seat=seating.handle)

    app = create_app(
        store,
        LiveHub(),
        WebAppSettings(table="t1", parlour="demo", secret_key=SECRET),
        staff_desk=desk,
    )
    with TestClient(app) as c:
        yield c


def _auth(client: TestClient, name: str) -> dict[str, str]:
    return bearer(client, name, PASSWORD)


def test_staff_register_edit_deactivate_and_delete(client: TestClient, store: EventStore) -> None:
    ann = _auth(client, "ann")
    r = client.post(
        "/api/v1/members/registrations",
        json={"name": " 王五 ", "card_tag": "04:A1:B2:C3"},
        headers=ann,
    )
    assert r.status_code == 201, r.text
    wang = r.json()
    assert (wang["name"], wang["card_tag"], wang["active"]) == ("王五", "04a1b2c3", True)
    mid = wang["member_id"]
    r = client.patch(
        f"/api/v1/members/by-id/{mid}", json={"name": "王五哥", "active": False}, headers=ann
    )
    assert r.status_code == 200 and r.json()["name"] == "王五哥" and not r.json()["active"]
    r = client.patch(f"/api/v1/members/by-id/{mid}", json={"card_tag": None}, headers=ann)
    assert r.status_code == 200 and r.json()["card_tag"] is None
    assert [m["member_id"] for m in client.get("/api/v1/members", headers=ann).json()] == [mid]
    assert client.post(f"/api/v1/members/by-id/{mid}/deletion", headers=ann).status_code == 204
    assert client.get("/api/v1/members", headers=ann).json() == []
    assert client.post(f"/api/v1/members/by-id/{mid}/deletion", headers=ann).status_code == 404


def test_bad_input_is_a_422_naming_the_field_and_stores_nothing(
    client: TestClient, store: EventStore
) -> None:
    boss = _auth(client, "boss")
    client.post(
        "/api/v1/members/registrations", json={"name": "Li", "card_tag": "04a1b2c3"}, headers=boss
    )
    cases: list[tuple[dict[str, Any], str]] = [
        ({"name": ""}, "name"),
        ({"name": "x" * 33}, "name"),
        ({"name": "x" * 1000}, "name"),
        ({"name": "a\nb"}, "name"),
        ({"name": "a\u202eb"}, "name"),  # a bidi override
        ({"name": 7}, "name"),
        ({"name": "ok", "card_tag": "zz" * 5}, "card_tag"),
        ({"name": "ok", "card_tag": "04a1b2c3"}, "card_tag"),  # Li's
        ({"name": "ok", "extra": 1}, "extra"),
    ]
    for body, field in cases:
        r = client.post("/api/v1/members/registrations", json=body, headers=boss)
        assert r.status_code == 422, (body, r.text)
        assert field in r.json()["en"], (body, r.text)
        assert field not in r.json()["detail"], (body, r.text)  # in words, not a field name
    assert [m.name for m in Members(store.engine).all()] == ["Li"]


def test_only_owners_and_this_tables_staff(client: TestClient) -> None:
    assert client.get("/api/v1/members").status_code == 401
    bo = _auth(client, "bo")  # staff of another table
    assert client.get("/api/v1/members", headers=bo).status_code == 403
    assert (
        client.post("/api/v1/members/registrations", json={"name": "x"}, headers=bo).status_code
        == 403
    )


def test_a_seat_sent_again_with_its_key_gets_the_first_answer(
    client: TestClient, store: EventStore
) -> None:
    ann = _auth(client, "ann")
    li = client.post("/api/v1/members/registrations", json={"name": "Li"}, headers=ann).json()
    keyed = ann | {"Idempotency-Key": "seat-0123456789"}
    body = {"member_id": li["member_id"]}
    first = client.put("/api/v1/members/seats/2", json=body, headers=keyed)
    assert first.status_code == 200 and first.json()["acts"], first.text
    again = client.put("/api/v1/members/seats/2", json=body, headers=keyed)
    assert again.status_code == 200 and again.json() == first.json()
    other = client.put("/api/v1/members/seats/1", json=body, headers=keyed)
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["en"]
    assert len(Members(store.engine, table_id="t1").acts()) == 1


class DiskFull(Exception):
    """The outbox's insert fails (as a full disk would fail it)."""


def _seats_published(store: EventStore) -> list[dict[str, Any]]:
    """The retained seats messages in the outbox, oldest first (what the publisher sends)."""
    rows = store.outbox_peek(limit=10_000)
    return [json.loads(r.payload) for r in rows if r.topic.endswith("/seats") and r.retain]


def test_a_seat_act_and_its_seats_message_are_stored_together_or_not_at_all(
    client: TestClient, store: EventStore
) -> None:
    """A write that fails between the seat act and its publication stores neither (nor the
    key's answer): the seats topic never lags the store; the same key then does the act
    once, and again answers the first answer, storing nothing."""
    ann = _auth(client, "ann")
    li = client.post("/api/v1/members/registrations", json={"name": "李四"}, headers=ann).json()
    members = Members(store.engine, table_id="t1")
    published = len(_seats_published(store))

    def fail_outbox(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO OUTBOX"):
            raise DiskFull(statement)

    keyed = ann | {"Idempotency-Key": "seat-crash-0123456789"}
    body = {"member_id": li["member_id"]}
    event.listen(store.engine, "before_cursor_execute", fail_outbox)
    try:
        with pytest.raises(DiskFull):
            client.put("/api/v1/members/seats/2", json=body, headers=keyed)
    finally:
        event.remove(store.engine, "before_cursor_execute", fail_outbox)
    assert members.acts() == [] and members.seating() == [None] * 4  # neither stored
    assert len(_seats_published(store)) == published

    first = client.put("/api/v1/members/seats/2", json=body, headers=keyed)
    assert first.status_code == 200, first.text
    assert [(a["seat"], a["name"], a["by"]) for a in first.json()["acts"]] == [
        (2, "李四", "staff:ann")
    ]
    assert _seats_published(store)[-1] == seats_payload(members.seating())
    assert _seats_published(store)[-1] == {"seats": [None, None, "李四", None]}
    count = len(_seats_published(store))
    again = client.put("/api/v1/members/seats/2", json=body, headers=keyed)
    assert again.status_code == 200 and again.json() == first.json()
    assert len(members.acts()) == 1 and len(_seats_published(store)) == count


def test_a_seat_refused_is_said_in_words_seats_counted_from_one(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    """The seat route refuses as the staff's acts do (one mapping), Chinese first."""
    ann = _auth(client, "ann")
    li = client.post("/api/v1/members/registrations", json={"name": "Li"}, headers=ann).json()
    r = client.put("/api/v1/members/seats/1", json={"member_id": "0" * 32}, headers=ann)
    assert r.status_code == 404 and r.json()["detail"] == f"没有这位会员（{'0' * 32}）", r.text
    client.patch(f"/api/v1/members/by-id/{li['member_id']}", json={"active": False}, headers=ann)
    r = client.put("/api/v1/members/seats/1", json={"member_id": li["member_id"]}, headers=ann)
    assert r.status_code == 422 and r.json()["detail"] == "会员：这位会员已停用", r.text
    play_at_keeper(keeper, random.Random(5), 10)
    r = client.put("/api/v1/members/seats/3", json={"member_id": None}, headers=ann)
    assert r.status_code == 409 and r.json()["detail"] == "本局进行中：换座请在两局之间", r.text
    assert "seats[" not in r.text and Members(store.engine, table_id="t1").acts() == []


def test_seats_change_between_hands_by_a_named_person(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    ann = _auth(client, "ann")
    li = client.post(
        "/api/v1/members/registrations", json={"name": "<i>Li</i>"}, headers=ann
    ).json()
    r = client.put("/api/v1/members/seats/3", json={"member_id": li["member_id"]}, headers=ann)
    assert r.status_code == 200, r.text
    assert r.json()["players"][3] == {"member_id": li["member_id"], "name": "<i>Li</i>"}
    seats = client.get("/api/v1/members/seats", headers=ann).json()
    assert [(a["seat"], a["by"]) for a in seats["acts"]] == [(3, "staff:ann")]
    r = client.put("/api/v1/members/seats/4", json={"member_id": None}, headers=ann)
    assert r.status_code == 422
    r = client.put("/api/v1/members/seats/1", json={"member_id": "0" * 32}, headers=ann)
    assert r.status_code == 404
    # a hand in progress: the seats stay as they are
    play_at_keeper(keeper, random.Random(5), 10)
    assert keeper.in_progress
    r = client.put("/api/v1/members/seats/3", json={"member_id": None}, headers=ann)
    assert r.status_code == 409, r.text
    assert len(Members(store.engine, table_id="t1").acts()) == 1
    hand = store.load_hand(keeper.hand_id or "")
    assert hand.hand.players == [
        None,
        None,
        None,
        {"member_id": li["member_id"], "name": "<i>Li</i>"},
    ]


def test_the_owners_hand_log_and_replay_name_who_sat_where(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    boss = _auth(client, "boss")
    wang = client.post("/api/v1/members/registrations", json={"name": "王五"}, headers=boss).json()
    r = client.put("/api/v1/members/seats/0", json={"member_id": wang["member_id"]}, headers=boss)
    assert r.status_code == 200, r.text
    hand_id = play_at_keeper(keeper, random.Random(7))
    assert not keeper.in_progress
    listed = client.get("/api/v1/tables/t1/hands", headers=boss).json()
    assert listed[0]["players"] == [
        {"member_id": wang["member_id"], "name": "王五"},
        None,
        None,
        None,
    ]
    acts = client.get(f"/api/v1/hands/{hand_id}", headers=boss).json()["seat_acts"]
    assert [(a["seat"], a["name"], a["by"]) for a in acts] == [(0, "王五", "owner:boss")]
    steps = client.get(f"/api/v1/hands/{hand_id}/replay", headers=boss).json()["steps"]
    zh = " ".join(s["text"]["zh"] for s in steps)
    en = " ".join(s["text"]["en"] for s in steps)
    assert "王五" in zh and "1号位" not in zh, zh[:500]
    assert "王五" in en and "seat 1 " not in en
    assert "2号位" in zh  # a guest's seat keeps its number


def test_the_owners_sessions_name_who_played_them(
    client: TestClient, keeper: HandKeeper, store: EventStore
) -> None:
    boss = _auth(client, "boss")
    add = "/api/v1/members/registrations"
    wang = client.post(add, json={"name": "<b>王五</b>"}, headers=boss).json()
    li = client.post(add, json={"name": "Li"}, headers=boss).json()
    zhao = client.post(add, json={"name": "赵六"}, headers=boss).json()

    def sit(seat: int, member: dict[str, Any]) -> None:
        body = {"member_id": member["member_id"]}
        r = client.put(f"/api/v1/members/seats/{seat}", json=body, headers=boss)
        assert r.status_code == 200, r.text

    sit(2, li)
    sit(0, wang)
    play_at_keeper(keeper, random.Random(7))
    session_id = keeper.session_id
    sit(3, wang)  # 王五 moves, 赵六 sits down: between hands
    sit(1, zhao)
    play_at_keeper(keeper, random.Random(8))
    listed = client.get("/api/v1/tables/t1/sessions", headers=boss).json()
    assert [s["id"] for s in listed] == [session_id]
    expected = [
        {"member_id": wang["member_id"], "name": "<b>王五</b>", "seats": [0, 3]},
        {"member_id": li["member_id"], "name": "Li", "seats": [2]},
        {"member_id": zhao["member_id"], "name": "赵六", "seats": [1]},
    ]
    assert listed[0]["players"] == expected
    one = client.get(f"/api/v1/sessions/{session_id}", headers=boss).json()
    assert one["players"] == expected
    # a deleted member leaves the session's players; the others stay, in order
    r = client.post(f"/api/v1/members/by-id/{zhao['member_id']}/deletion", headers=boss)
    assert r.status_code == 204, r.text
    one = client.get(f"/api/v1/sessions/{session_id}", headers=boss).json()
    assert one["players"] == expected[:2]
    assert store.get_session(session_id or "").players == expected[:2]


def test_staff_at_the_table_hand_a_member_their_link_as_a_qr_code(client: TestClient) -> None:
    ann, boss = _auth(client, "ann"), _auth(client, "boss")
    mid = client.post("/api/v1/members/registrations", json={"name": "王五"}, headers=ann).json()[
        "member_id"
    ]
    assert (
        client.post(f"/api/v1/records/by-id/{mid}/link", headers=_auth(client, "bo")).status_code
        == 403
    )
    made = client.post(f"/api/v1/records/by-id/{mid}/link", headers=ann)
    assert made.status_code == 200, made.text
    link = made.json()
    qr = client.get(link["qr"])  # no login: the token in the path is the key
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    assert qr.content == qr_svg(f"http://testserver{link['url']}")
    assert qr.content.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')  # an image alone
    assert client.get(link["url"]).status_code == 200
    # a new link ends the old one's code; a revoked link has none
    again = client.post(f"/api/v1/records/by-id/{mid}/link", headers=boss).json()
    assert client.get(link["qr"]).status_code == 404
    revoked = client.post(f"/api/v1/records/by-id/{mid}/link/revocation", headers=boss)
    assert revoked.status_code == 204
    assert client.get(again["qr"]).status_code == 404
    assert client.get("/api/v1/my-record/" + "x" * 32 + "/qr.svg").status_code == 404
