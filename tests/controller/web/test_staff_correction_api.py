"""Correcting a result entered by hand (a staff finish, the players' claim) over the staff
API, once it settled and before the next hand starts: the whole result entered anew (a
wrong winner, wrong tiles, a wrong way of winning), an act with who, when and why that a
replay folds, the totals, the hand's row and the owners' log following it."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from controller.cli.settle import settle_data
from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from engine.round.events import event_from_dict
from engine.round.fold import fold
from engine.round.staff import session_totals
from engine.settlement.ledger import plain
from tests.controller.web.test_staff_api import _auth, _look, client, keeper  # noqa: F401

CORRECTION = "/api/v1/staff/hands/current/correction"
PARTIAL = [{"seat": s, "partial": True} for s in (0, 2, 3)]
# what was entered: 2号位 self-drew its 1m; what happened: 1号位 won on 3号位's 9s
ENTERED = {"seat": 1, "hand": "123456789m123p55p", "tile": "5p", "from": "self"}
AS_IT_WAS = {"seat": 0, "hand": "12345678s22p789p9s", "tile": "9s", "from": 2}
OTHERS = [{"seat": s, "partial": True} for s in (1, 2, 3)]


def _finish(client: TestClient, staff: dict[str, str]) -> dict[str, Any]:  # noqa: F811
    seen = _look(client, staff)
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "as they said"}
    r = client.post(
        "/api/v1/staff/hands/current/finish",
        json=body | {"winners": [ENTERED], "seats": PARTIAL},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    return _look(client, staff)


def test_a_result_entered_by_hand_is_corrected_whole_after_it_settled(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811
    store: EventStore,
) -> None:
    staff, owner = _auth(client, "ann"), _auth(client, "boss")
    seen = _finish(client, staff)
    # the look offers what was entered, to correct it from
    entered = seen["entered"]
    assert [w["seat"] for w in entered["winners"]] == [1]
    assert entered["winners"][0]["hand"] == ENTERED["hand"]
    assert [s["seat"] for s in entered["seats"]] == [0, 2, 3]
    assert all(s["partial"] for s in entered["seats"])
    before = list(seen["totals"])
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": "1号位 won on a 9s"}
    r = client.post(
        CORRECTION, json=body | {"winners": [AS_IT_WAS], "seats": OTHERS}, headers=staff
    )
    assert r.status_code == 200, r.text
    act = r.json()["events"][0]
    assert act["type"] == "result_corrected" and "request" not in act
    assert [w["seat"] for w in act["was"]] == [1] and [w["seat"] for w in act["winners"]] == [0]
    assert act["by"] == "ann" and act["role"] == "staff" and act["at"]
    assert act["reason"] == "1号位 won on a 9s"

    # the store: the act and its settlement, which a replay folds to the same totals
    hand = store.load_hand(seen["hand_id"])
    log = [event_from_dict(e.payload) for e in hand.events]
    assert [e.type for e in log[-2:]] == ["result_corrected", "settled"]
    corrected = log[-2].to_dict()
    settlement = settle_data(corrected["request"])
    assert settlement["lines"] == r.json()["settlement"]["lines"]
    state = fold(log)
    assert state.settlement is not None and list(state.settlement.net) == settlement["net"]
    assert tuple(keeper.session.totals) == session_totals(log)
    after = _look(client, staff)
    assert after["totals"] == [plain(t) for t in keeper.session.totals]
    assert after["totals"] != before
    assert hand.hand.result == "win" and hand.hand.winner == 0 and hand.hand.discarder == 2
    assert list(hand.hand.net or ()) == settlement["net"]
    assert after["entered"]["winners"][0]["seat"] == 0  # corrected again from here
    assert after["public"]["settlement"]["net"] == settlement["net"]
    # the owners' log says it, who and why
    replay = client.get(f"/api/v1/hands/{seen['hand_id']}/replay", headers=owner).json()
    assert replay["check"] is None
    said = [s["text"]["zh"] for s in replay["steps"] if s["type"] == "result_corrected"]
    assert said == [
        "工作人员 ann：更正录入的结果：2号位 自摸五筒 → 1号位 胡3号位打的九条（1号位 won on a 9s）"
    ], said


def test_a_wrong_correction_is_refused_in_words_and_an_undo_puts_the_entry_back(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811
    store: EventStore,
) -> None:
    staff = _auth(client, "ann")
    seen = _finish(client, staff)
    totals, stored = seen["totals"], len(store.load_hand(seen["hand_id"]).events)
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": ""}
    not_a_win = AS_IT_WAS | {"hand": "123456789m13579p"}
    for wrong, words in (
        ({"winners": [not_a_win], "seats": OTHERS}, "1号位"),
        ({"winners": [AS_IT_WAS], "seat": 0, "hand": "123m"}, "二者选一"),
        ({"seat": 0, "hand": AS_IT_WAS["hand"]}, "1号位本局没有胡牌"),
    ):
        r = client.post(CORRECTION, json=body | wrong, headers=staff)
        assert r.status_code == 422, r.text
        detail = r.json()["detail"]
        assert words in detail and "seats[" not in detail and "winners[" not in detail, detail
    assert len(store.load_hand(seen["hand_id"]).events) == stored
    r = client.post(
        CORRECTION, json=body | {"winners": [AS_IT_WAS], "seats": OTHERS}, headers=staff
    )
    assert r.status_code == 200, r.text
    assert _look(client, staff)["totals"] != totals
    r = client.post(
        "/api/v1/staff/hands/current/undo",
        json=body | {"seen": r.json()["seen"], "reason": "wrong hand"},
        headers=staff,
    )
    assert r.status_code == 200, r.text
    back = _look(client, staff)
    assert back["totals"] == totals and back["entered"]["winners"][0]["seat"] == 1
    log = [event_from_dict(e.payload) for e in store.load_hand(seen["hand_id"]).events]
    assert tuple(keeper.session.totals) == session_totals(log)


def test_a_voided_hand_has_no_entered_result_to_correct(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,  # noqa: F811
) -> None:
    from engine.round.commands import Audit, Void
    from tests.controller.service_helpers import act_at

    act_at(keeper, Void(Audit("boss", "owner", "t", "start afresh")))
    staff = _auth(client, "ann")
    seen = _look(client, staff)
    assert seen["entered"] is None  # (voided: nothing entered stands)
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "reason": ""}
    r = client.post(
        CORRECTION, json=body | {"winners": [AS_IT_WAS], "seats": OTHERS}, headers=staff
    )
    assert r.status_code == 422, r.text
    assert r.json()["detail"] == "本局已经作废"
