"""The session's recent hands on the staff API: staff of this table see each finished hand
of the live session (result, nets, acts, voided or not), newest first and bounded, and
void an earlier one by the id the list gives them, without the owners' log."""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.store.staff_marks import staff_marks
from controller.table.hand_keeper import HandKeeper
from engine.round.commands import Audit, Undo, Void
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.test_staff_api import _auth, client, keeper  # noqa: F401 (fixtures)

RECENT = "/api/v1/staff/hands/recent"


def _recent(client: TestClient, auth: dict[str, str], **params: Any) -> dict[str, Any]:  # noqa: F811
    r = client.get(RECENT, headers=auth, params=params)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_staff_list_their_sessions_hands_and_void_an_earlier_one(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811 (hand 1, 30 moves in; staff ann of t1)
    store: EventStore,
) -> None:
    first = keeper.hand_id
    assert isinstance(keeper.execute(Void(Audit("ann", "staff", "t", "tiles fell"))), list)
    rng = random.Random(7)
    second = play_at_keeper(keeper, rng)
    third = play_at_keeper(keeper, rng)
    play_at_keeper(keeper, rng, 8)  # hand 4 in play
    staff = _auth(client, "ann")

    listed = _recent(client, staff)
    assert listed["session_id"] == keeper.session_id and listed["current"] == keeper.hand_id
    assert listed["may_void"] and listed["may_adjust"]
    hands = listed["hands"]
    assert [h["hand_id"] for h in hands] == [third, second, first]  # newest first
    assert [h["hand_no"] for h in hands] == [3, 2, 1]
    assert hands[2]["voided"] and hands[2]["result"] == "void"
    assert [a["type"] for a in hands[2]["acts"]] == ["hand_voided"]
    assert "工作人员 ann" in hands[2]["acts"][0]["text"]["zh"]
    assert not hands[1]["voided"] and hands[1]["voided_in"] is None
    assert hands[1]["net"] == store.load_hand(second).settlement["net"]  # type: ignore[index]
    assert "request" not in str(hands)  # (a staff finish's concealed seats: never here)
    assert len(_recent(client, staff, limit=1)["hands"]) == 1

    # hand 2 voided from hand 4, by the id the list gave
    r = client.post(
        f"/api/v1/staff/hands/{second}/void",
        json={"seen": listed["seen"], "reason": "wrong scores"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    again = {h["hand_no"]: h for h in _recent(client, staff)["hands"]}
    assert again[2]["voided"] and again[2]["voided_in"] == 4
    assert not again[3]["voided"]

    # the hand in progress voided: listed at once, as voided
    current = keeper.hand_id
    r = client.post(
        f"/api/v1/staff/hands/{current}/void",
        json={"seen": len(keeper.log), "reason": "tiles fell"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    (latest, *_) = _recent(client, staff)["hands"]
    assert (latest["hand_id"], latest["result"], latest["voided"]) == (current, "void", True)


def test_the_recent_hands_are_bounded_and_only_this_tables_staffs(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811
) -> None:
    staff, other = _auth(client, "ann"), _auth(client, "bo")  # bo: staff of t2
    for limit in (0, 21, "x"):
        r = client.get(RECENT, headers=staff, params={"limit": limit})
        assert r.status_code == 422, r.text
    assert client.get(RECENT, headers=other).status_code == 403
    assert client.get(RECENT).status_code == 401
    assert _recent(client, staff)["hands"] == []  # hand 1 is still in play


def test_a_void_undone_marks_no_hand_and_the_hand_may_be_voided_again(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811 (hand 1, 30 moves in; staff ann of t1)
    store: EventStore,
) -> None:
    assert isinstance(keeper.execute(Void(Audit("ann", "staff", "t", "tiles fell"))), list)
    rng = random.Random(7)
    second = play_at_keeper(keeper, rng)
    play_at_keeper(keeper, rng, 8)  # hand 3 in play
    staff = _auth(client, "ann")

    def void_second() -> int:
        seen = _recent(client, staff)["seen"]
        body = {"seen": seen, "reason": "wrong scores"}
        return client.post(
            f"/api/v1/staff/hands/{second}/void", json=body, headers=staff
        ).status_code

    def marked() -> dict[str, Any] | None:
        record = store.load_hand(second).hand
        mark = staff_marks(store.engine, [record]).get(second)
        return None if mark is None else mark.voided

    assert void_second() == 200
    assert marked() is not None and marked()["reason"] == "wrong scores"  # type: ignore[index]
    assert isinstance(keeper.execute(Undo(Audit("ann", "staff", "t", "wrong hand"))), list)
    # the owners' log and the console: hand 2 stands again
    assert marked() is None
    assert not {h["hand_no"]: h for h in _recent(client, staff)["hands"]}[2]["voided"]
    assert void_second() == 200  # and may be voided again
    assert {h["hand_no"]: h for h in _recent(client, staff)["hands"]}[2]["voided_in"] == 3
