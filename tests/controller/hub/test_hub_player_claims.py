"""The hub (PostgreSQL) keeps the players' acts with each hand: a table without readers
where the phones claim, confirm and dispute sends its hands' logs, the hub stores them,
and the owners see each claim and answer there (who: the seat and the phone; when)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.hub.ingest import store_handlogs
from controller.store import EventStore
from controller.table.handlog import build_handlog, parse_handlog
from tests.controller.hub.owners import owners_api
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import call, join_all, staff_token
from tests.controller.play.test_phone_claims import WIN, _act, _me, _ready
from tests.controller.web.readerless_table import ReaderlessTable


@pytest.mark.timeout(300)
def test_the_hub_stores_and_shows_the_claims_answers_and_disputes(
    mosquitto: Mosquitto, tmp_path: Path, hub_store: EventStore
) -> None:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        base = site.url
        api = f"{base}/api/v1/play"
        tokens = join_all(base)
        win = {"hand": WIN, "tile": "9p", "from": "self"}

        # a claim disputed by 3号位, finished by staff
        me = _ready(base, tokens)
        body = _act(me) | {"seat": 1, "result": "win", "win": win}
        assert call(f"{api}/claim", body, token=tokens[1]).status == 200
        view = _me(base, tokens[2])
        no = _act(view) | {"seat": 2, "agree": False}
        assert call(f"{api}/answer", no, token=tokens[2]).status == 200
        staff = {"Authorization": f"Bearer {staff_token(base)}"}
        look = call(f"{base}/api/v1/staff/hands/current", headers=staff).body
        finish = _act(look) | {
            "reason": "3号位有异议：核对后结束",
            "winners": [{"seat": 1, "hand": WIN, "tile": "9p", "from": "self"}],
            "seats": [{"seat": s, "partial": True, "hand": ""} for s in (0, 2, 3)],
        }
        done = call(f"{base}/api/v1/staff/hands/current/finish", finish, headers=staff)
        assert done.status == 200, done.body

        # a claim confirmed by the three others
        me = _ready(base, tokens)
        body = _act(me) | {"seat": 0, "result": "win", "win": win}
        assert call(f"{api}/claim", body, token=tokens[0]).status == 200
        for seat in (1, 2, 3):
            view = _me(base, tokens[seat])
            yes = _act(view) | {"seat": seat, "agree": True, "jing": [0, 0]}
            assert call(f"{api}/answer", yes, token=tokens[seat]).status == 200
        table = site.run.store
        hands = table.list_hands(status="finished", limit=10)
        logs = [
            parse_handlog(build_handlog(table.load_hand(h.id), parlour="p1", table="t1"))
            for h in hands
        ]
    finally:
        site.halt()

    result = store_handlogs(hub_store.engine, logs)
    assert sorted(result.stored) == sorted(h.id for h in hands)
    disputed, confirmed = sorted(hands, key=lambda h: h.hand_no)
    with owners_api(hub_store) as client:
        shown = {}
        for hand in (disputed, confirmed):
            got = client.get(f"/api/v1/hands/{hand.id}/events")
            assert got.status_code == 200, got.text
            shown[hand.id] = [e["data"] | {"type": e["type"]} for e in got.json()["events"]]

    def acts(hand_id: str) -> list[tuple[str, int, bool | None, str]]:
        return [
            (e["type"], e["seat"], e.get("agree"), e["by"].split(":phone:")[0])
            for e in shown[hand_id]
            if e["type"] in ("claim_made", "claim_answered")
        ]

    assert acts(disputed.id) == [
        ("claim_made", 1, None, "seat1:guest"),
        ("claim_answered", 2, False, "seat2:guest"),
    ]
    assert acts(confirmed.id) == [("claim_made", 0, None, "seat0:guest")] + [
        ("claim_answered", s, True, f"seat{s}:guest") for s in (1, 2, 3)
    ]
    for events in shown.values():
        assert all(e["at"] for e in events if e["type"].startswith("claim_"))
    finished = {h: next(e for e in shown[h] if e["type"] == "finished_by_staff") for h in shown}
    assert finished[disputed.id]["role"] == "staff" and finished[disputed.id]["by"] == "ann"
    assert finished[confirmed.id]["role"] == "player"
    assert hub_store.load_hand(confirmed.id).settlement == table.load_hand(confirmed.id).settlement
