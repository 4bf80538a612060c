"""The session cash-out through the staff and owner APIs, on a real store's ``HandKeeper``:
staff close the session (who, when, why stored with its last hand before the public
cash-out goes out), each player's net is the session's, the transfers square them in the
fewest, money only where the owner set a point value and never on the public topic; a
closed session's last hand takes no more acts; the owner's daily cut-off closes it too."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import CashoutTerms, OwnerAccounts
from controller.table.cashout import cashout, cutoff_due, hand_players, last_cutoff
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.web.passwords import hash_password
from engine.cashout import fewest_transfers
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.test_staff_api import PASSWORD, _auth, client  # noqa: F401 (a fixture)

CLOSE = "/api/v1/staff/session/close"


@pytest.fixture
def keeper(store: EventStore) -> HandKeeper:
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    rng = random.Random(7)
    for _ in range(4):
        play_at_keeper(keeper, rng)
    accounts = OwnerAccounts(store)
    accounts.add("boss", hash_password(PASSWORD))
    accounts.add("ann", hash_password(PASSWORD), "staff", ("t1",))
    return keeper


def _seat_nets(store: EventStore, session_id: str) -> list[float]:
    hands = store.list_hands(session_id=session_id, status="finished", limit=1000)
    return [sum(h.net[s] for h in hands if h.net) for s in range(4)]


def test_staff_close_the_session_and_get_the_fewest_transfers(
    client: TestClient,  # noqa: F811 (test_staff_api's, on this module's keeper)
    keeper: HandKeeper,
    store: EventStore,
) -> None:
    staff, owner = _auth(client, "ann"), _auth(client, "boss")
    session_id, last = keeper.session_id, keeper.hand_id
    assert session_id is not None and last is not None
    # the owner sets a point value and a fee per hand; staff may not
    terms = {"point_value": 0.5, "table_fee": 10, "fee_per": "hand"}
    assert client.put("/api/v1/owner/cashout-terms", json=terms, headers=staff).status_code == 403
    r = client.put("/api/v1/owner/cashout-terms", json=terms | {"cutoff": "25:00"}, headers=owner)
    assert r.status_code == 422 and "cutoff" in r.text
    # in words, not the validator's pattern
    assert "每日结算时间写成 时:分（24 小时制），如 06:00，而不是 '25:00'" in r.json()["detail"]
    assert "pattern" not in r.json()["detail"] and "Value error" not in r.json()["detail"]
    assert client.put("/api/v1/owner/cashout-terms", json=terms, headers=owner).status_code == 200
    # open: the standing, not yet closed
    standing = client.get("/api/v1/staff/sessions/latest/cashout", headers=staff).json()
    assert standing["closed"] is False and standing["session_id"] == session_id
    # a reason is required
    assert client.post(CLOSE, json={"reason": ""}, headers=staff).status_code == 422
    r = client.post(CLOSE, json={"reason": "打烊 closing time"}, headers=staff)
    assert r.status_code == 200, r.text
    out = r.json()
    nets = _seat_nets(store, session_id)
    assert [p["net"] for p in out["players"]] == nets  # four guests, by seat
    assert [p["name"] for p in out["players"]] == [None] * 4
    assert len(out["transfers"]) == len(fewest_transfers([int(n * 2) for n in nets]))
    left = list(nets)
    for t in out["transfers"]:
        left[t["from"]] += t["points"]
        left[t["to"]] -= t["points"]
        assert t["money"] == round(t["points"] * 0.5, 2)
    assert left == [0, 0, 0, 0]
    assert out["fee"] == {"total": 40.0, "per": "hand", "hours": out["fee"]["hours"], "played": 4}
    assert [p["fee"] for p in out["players"]] == [10.0] * 4
    assert out["closed_by"]["by"] == "ann" and out["closed_by"]["reason"] == "打烊 closing time"
    # stored with the last hand, before the public message; the session ended
    event = store.load_hand(last).events[-1]
    assert event.type == "session_closed" and event.payload["terms"]["point_value"] == 0.5
    assert store.get_session(session_id).ended_at is not None
    published = [e for e in store.outbox_peek(10_000) if e.topic.endswith("/cashout")]
    assert published and published[-1].retain
    public = json.loads(published[-1].payload)
    assert [p["net"] for p in public["players"]] == nets
    assert "money" not in published[-1].payload and "member_id" not in published[-1].payload
    # the hub-bound log carries the close (the hand's log is sent again)
    logs = [json.loads(e.payload) for e in store.outbox_peek(10_000) if "handlog" in e.topic]
    assert logs[-1]["events"][-1]["type"] == "session_closed"
    # once closed: no second close, no act on its last hand
    assert client.post(CLOSE, json={"reason": "again"}, headers=staff).status_code == 422
    seen = client.get("/api/v1/staff/hands/current", headers=staff).json()
    assert seen["session_id"] is None
    body = {"hand_id": last, "seen": seen["seen"], "from_seat": 0, "to_seat": 1}
    r = client.post(
        "/api/v1/staff/adjustments", json=body | {"points": 5, "reason": "x"}, headers=staff
    )
    assert r.status_code == 409 and "closed" in r.text
    # the owner's API and the staff's latest say the same, with the terms of the close
    assert client.put("/api/v1/owner/cashout-terms", json={}, headers=owner).status_code == 200
    again = client.get(f"/api/v1/sessions/{session_id}/cashout", headers=owner).json()
    assert again["players"] == out["players"] and again["transfers"] == out["transfers"]
    latest = client.get("/api/v1/staff/sessions/latest/cashout", headers=staff).json()
    assert latest["closed"] is True and latest["transfers"] == out["transfers"]
    assert client.get(f"/api/v1/sessions/{session_id}/cashout", headers=staff).status_code == 403
    # the next hand starts a new session
    play_at_keeper(keeper, random.Random(8))
    assert keeper.session_id not in (None, session_id)


def test_the_owners_see_who_set_the_terms_last(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,
) -> None:
    staff, owner = _auth(client, "ann"), _auth(client, "boss")
    last = "/api/v1/owner/cashout-terms/last-change"
    assert client.get(last, headers=owner).json() == {"by": None, "at": None}
    assert client.get(last, headers=staff).status_code == 403
    assert client.get("/api/v1/staff/cashout-terms", headers=staff).json()["table_fee"] is None
    before = datetime.now(UTC).replace(microsecond=0)
    terms = {"point_value": 1, "table_fee": 5, "fee_per": "hour", "cutoff": "06:00"}
    assert client.put("/api/v1/owner/cashout-terms", json=terms, headers=owner).status_code == 200
    changed = client.get(last, headers=owner).json()
    assert changed["by"] == "boss" and datetime.fromisoformat(changed["at"]) >= before
    # refused: nothing stored, the last change stands
    r = client.put("/api/v1/owner/cashout-terms", json=terms | {"table_fee": -5}, headers=owner)
    assert r.status_code == 422 and r.json()["en"].startswith("table_fee:")
    assert r.json()["detail"].startswith("台费")
    assert client.get(last, headers=owner).json() == changed
    assert client.get("/api/v1/staff/cashout-terms", headers=staff).json()["table_fee"] == 5


def test_a_hand_in_play_keeps_the_session_open(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,
) -> None:
    staff = _auth(client, "ann")
    play_at_keeper(keeper, random.Random(3), 30)
    assert keeper.in_progress and not keeper.unplayed
    r = client.post(CLOSE, json={"reason": "closing"}, headers=staff)
    assert r.status_code == 409 and "in progress" in r.text


def test_a_hand_started_but_not_played_is_aborted_by_the_close(
    client: TestClient,  # noqa: F811
    keeper: HandKeeper,
    store: EventStore,
) -> None:
    staff = _auth(client, "ann")
    last = keeper.hand_id
    fresh = keeper.start_hand(None)
    assert keeper.unplayed
    r = client.post(CLOSE, json={"reason": "closing"}, headers=staff)
    assert r.status_code == 200, r.text
    assert store.load_hand(fresh).hand.status == "aborted"
    assert store.load_hand(last or "").events[-1].type == "session_closed"


def test_a_member_who_moves_seats_is_one_player_and_guests_are_seats() -> None:
    ann, bo = {"member_id": "a" * 32, "name": "王五"}, {"member_id": "b" * 32, "name": "Bo"}
    at = datetime(2026, 12, 3, 20, tzinfo=UTC)

    def hand(n: int, players: Any, net: tuple[float, ...]) -> SimpleNamespace:
        return SimpleNamespace(
            id=f"h{n}", table_seq=n, started_at=at, status="finished", net=net, players=players
        )

    hands = [
        hand(1, [ann, None, bo, None], (10, -5, -3, -2)),
        hand(2, [None, ann, None, bo], (-4, 6.5, 0, -2.5)),  # ann and bo moved seats
        hand(3, None, (1, 1, -1, -1)),  # a hand stored before members: four guests
    ]
    out = cashout("s1", hands, terms=CashoutTerms(), started_at=at, ended_at=at)  # type: ignore[arg-type]
    named = {p["name"] or f"seat {p['seat']}": p for p in out["players"]}
    assert named["王五"]["net"] == 16.5 and named["王五"]["seats"] == [0, 1]
    assert named["Bo"]["net"] == -5.5 and named["Bo"]["played"] == 2
    assert sum(p["net"] for p in out["players"]) == 0
    assert out["players"][0]["money"] is None and out["fee"] is None
    assert hand_players(None) == hand_players([ann]) == [None] * 4
    assert hand_players([ann, None, None, bo]) == [ann, None, None, bo]


def test_the_daily_cutoff_is_the_latest_time_of_day_passed() -> None:
    now = datetime.fromisoformat("2026-12-04T05:30:00+08:00")
    assert last_cutoff("06:00", now) == datetime.fromisoformat("2026-12-03T06:00:00+08:00")
    assert last_cutoff("05:30", now) == now
    started = datetime.fromisoformat("2026-12-03T20:00:00+08:00")
    assert cutoff_due("04:00", started, now) and not cutoff_due("06:00", started, now)
    assert not cutoff_due(None, started, now)
