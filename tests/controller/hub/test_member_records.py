"""Members' records at the hub (PostgreSQL) equal a recount from the stored hands, done the
other way: each hand's log folded by the engine (who won, how), its own settlement, what it
moved, across two tables and three months. And a member's personal link shows that member's
record and nothing else: the API probed with it."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from controller.hub.ingest import store_handlogs
from controller.hub.member_sync import apply_members, build_members, parse_members
from controller.store import EventStore
from controller.store.member_records import BIG_HAND_NET, all_records, member_record, new_link
from controller.store.members import Members, hand_seat_acts
from controller.store.models import HANDS
from controller.store.owners import OwnerAccounts
from controller.table.handlog import build_handlog, parse_handlog
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from controller.web.records_api import PHONE_FONT
from engine.round.events import Settled, event_from_dict, settlement_from_dict
from engine.round.fold import fold
from tests.controller.hub.hands import played_hands, record_hand
from tests.controller.web.helpers import bearer, wait_image_loaded

PASSWORD = "long enough password"
COUNTED = ("hands", "wins", "self_draws", "deguo", "jingdiao", "chongguan", "big_hands")


def _play(store: EventStore, table: str, members: list[str], n: int, seed: int) -> list[Any]:
    """``n`` hands at ``table``, members sitting down and leaving between hands at random."""
    rng = random.Random(seed)
    seats = Members(store.engine, table_id=table, parlour="p1")
    session = store.start_session(ruleset="xingguo", parlour="p1", table_id=table)
    logs = []
    for i, events in enumerate(played_hands(n, seed=seed)):
        for seat in range(4):
            seats.sit(seat, rng.choice([*members, None]), rng.choice(["card", "staff:ann"]))
        hand_id = record_hand(store, events, session_id=session, hand_no=i + 1)
        payload = build_handlog(
            store.load_hand(hand_id),
            parlour="p1",
            table=table,
            seat_acts=hand_seat_acts(store.engine, hand_id),
        )
        logs.append(parse_handlog(json.dumps(payload)))
    return logs


def _hub(tmp_path: Path, hub: EventStore) -> dict[str, str]:
    """Two tables, one member registered at both (the same id), into the hub."""
    t1 = EventStore.open(f"sqlite:///{tmp_path / 't1.db'}")
    t2 = EventStore.open(f"sqlite:///{tmp_path / 't2.db'}")
    try:
        r1, r2 = Members(t1.engine, table_id="t1"), Members(t2.engine, table_id="t2")
        wang, li, zhao = r1.add("王五"), r1.add("<b>Li</b>"), r1.add("赵六")
        r2.add("王五", member_id=wang.member_id)
        qian = r2.add("钱七")
        logs = _play(t1, "t1", [wang.member_id, li.member_id, zhao.member_id], 40, 1)
        logs += _play(t2, "t2", [wang.member_id, qian.member_id], 30, 2)
        assert len(store_handlogs(hub.engine, logs).stored) == 70
        for name, store in (("t1", t1), ("t2", t2)):
            snapshot = parse_members(json.dumps(build_members(Members(store.engine))))
            apply_members(hub.engine, snapshot, table=name)
    finally:
        t1.close()
        t2.close()
    # three months of play: hand k on day 2k
    start = datetime(2026, 9, 1, 20, 0, tzinfo=UTC)
    with hub.engine.begin() as c:
        for k, log in enumerate(logs):
            when = start + timedelta(days=(k * 2) % 90)
            c.execute(update(HANDS).where(HANDS.c.id == log.hand_id).values(started_at=when))
    return {
        "wang": wang.member_id,
        "li": li.member_id,
        "zhao": zhao.member_id,
        "qian": qian.member_id,
    }


def _recount(hub: EventStore) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = defaultdict(
        lambda: {k: 0 for k in COUNTED} | {"net": 0.0, "weeks": {}, "months": {}}
    )
    for hand in hub.list_hands(status="finished", limit=10_000):
        stored = hub.load_hand(hand.id)
        events = [event_from_dict(e) for e in stored.event_dicts()]
        state = fold(events)
        settled = next(e for e in events if isinstance(e, Settled))
        settlement = settlement_from_dict(settled.settlement)
        if settlement.void or not hand.players:
            continue
        assert hand.net is not None
        for seat, player in enumerate(hand.players):
            if player is None:
                continue
            r = out[player["member_id"]]
            wins = [w for w in state.wins if w.seat == seat]
            got = [line.reason for line in settlement.lines if line.payee == seat]
            net = float(hand.net[seat])
            r["hands"] += 1
            r["wins"] += bool(wins)
            r["self_draws"] += any(
                str(getattr(w.source, "value", w.source)) in ("self", "kong_replacement")
                for w in wins
            )
            r["deguo"] += bool(wins) and any("德国" in g for g in got)
            r["jingdiao"] += bool(wins) and any("精吊" in g for g in got)
            r["chongguan"] += any("冲关" in g for g in got)
            r["big_hands"] += net >= BIG_HAND_NET
            r["net"] += net
            year, week, _ = hand.started_at.isocalendar()
            for key, name in (
                (f"{year}-W{week:02d}", "weeks"),
                (hand.started_at.strftime("%Y-%m"), "months"),
            ):
                r[name][key] = r[name].get(key, 0.0) + net
    return out


def test_records_at_the_hub_equal_a_recount_from_the_stored_hands(
    tmp_path: Path, hub_store: EventStore
) -> None:
    ids = _hub(tmp_path, hub_store)
    expected = _recount(hub_store)
    assert set(expected) == set(ids.values())
    for counted in ("wins", "self_draws", "deguo", "chongguan", "big_hands"):
        assert sum(r[counted] for r in expected.values()) > 0, counted  # a recount of something
    for member_id, want in expected.items():
        got = member_record(hub_store.engine, member_id)
        assert got is not None
        d = got.as_dict()
        assert {k: d[k] for k in COUNTED} == {k: want[k] for k in COUNTED}, member_id
        assert abs(d["net"] - want["net"]) < 1e-9
        assert d["weeks"] == dict(sorted(want["weeks"].items()))
        assert d["months"] == dict(sorted(want["months"].items()))
        assert len(d["months"]) == 3
        # their hands, newest first, and their streaks, from the same nets
        nets = [b - a for a, b in zip([0.0, *d["series"]], d["series"], strict=False)]
        assert [h["net"] for h in d["recent"]] == pytest.approx(nets[::-1][:50])
        assert {h["result"] for h in d["recent"]} <= {
            "self_draw", "win", "dealt_in", "other_won", "draw"
        }  # fmt: skip
        assert all(h["table"] in ("t1", "t2") for h in d["recent"])
        runs, run = [], 0
        for n in nets:
            if n > 0:
                run = run + 1 if run > 0 else 1
            elif n < 0:
                run = run - 1 if run < 0 else -1
            else:
                run = 0
            runs.append(run)
        assert d["streaks"] == {
            "now": runs[-1],
            "best_up": max([0, *runs]),
            "worst_down": max([0, *(-r for r in runs)]),
        }
    assert {r.member_id for r in all_records(hub_store.engine)} == set(expected)
    # Wang played at both tables: one record
    t1_only = [h for h in hub_store.list_hands(limit=10_000) if h.players]
    assert any(ids["wang"] in str(h.players) for h in t1_only)


def test_a_personal_link_shows_one_members_record_and_nothing_else(
    tmp_path: Path, hub_store: EventStore
) -> None:
    ids = _hub(tmp_path, hub_store)
    OwnerAccounts(hub_store).add("boss", hash_password(PASSWORD))
    app = create_app(
        hub_store, LiveHub(), WebAppSettings(hub=True, parlour="p1", secret_key=b"s" * 32)
    )
    with TestClient(app) as client:
        boss = bearer(client, "boss", PASSWORD)
        r = client.post(f"/api/v1/records/by-id/{ids['li']}/link", headers=boss)
        assert r.status_code == 200, r.text
        token = r.json()["token"]
        client.cookies.clear()
        mine = client.get(f"/api/v1/my-record/{token}")
        assert mine.status_code == 200
        assert mine.json()["member_id"] == ids["li"] and mine.json()["name"] == "<b>Li</b>"
        text = mine.text
        for other in ("wang", "zhao", "qian"):
            assert ids[other] not in text
        assert "王五" not in text and "赵六" not in text
        assert client.get(f"/api/v1/my-record/{token}/chart.svg").status_code == 200
        # the token opens nothing else, however it is presented
        hand = hub_store.list_hands(limit=1)[0].id
        for how in ({"Authorization": f"Bearer {token}"}, {"Cookie": f"mjtable_owner={token}"}):
            for path in (
                "/api/v1/records/members",
                "/api/v1/records/members.csv",
                f"/api/v1/records/by-id/{ids['li']}",
                f"/api/v1/records/by-id/{ids['wang']}",
                "/api/v1/records/leaderboards",
                "/api/v1/tables",
                "/api/v1/tables/t1/hands",
                f"/api/v1/hands/{hand}",
                "/api/v1/members",
                "/api/v1/auth/me",
            ):
                got = client.get(path, headers=how)
                assert got.status_code in (401, 403), (path, how, got.status_code)
        assert client.get(f"/api/v1/my-record/{token[:-1]}x").status_code == 404
        # revoked: the link shows nothing any more
        r = client.post(f"/api/v1/records/by-id/{ids['li']}/link/revocation", headers=boss)
        assert r.status_code == 204
        assert client.get(f"/api/v1/my-record/{token}").status_code == 404
        # leaderboards: off until the owners switch them on
        assert client.get("/api/v1/records/leaderboards", headers=boss).status_code == 403
        r = client.put("/api/v1/owner/leaderboards", json={"enabled": True}, headers=boss)
        assert r.status_code == 200
        top = client.get("/api/v1/records/leaderboards?by=wins", headers=boss).json()
        assert top and top == sorted(top, key=lambda x: -x["value"])
        csv = client.get("/api/v1/records/members.csv", headers=boss)
        assert csv.status_code == 200 and "<b>Li</b>" in csv.text


def test_a_members_page_in_chromium(tmp_path: Path, hub_store: EventStore) -> None:
    """The member's own page through their link, in Debian's Chromium: their record, the
    chart, by month and week; a name is text, never markup."""
    from playwright import sync_api

    from tests.controller.web.server import serve
    from tests.controller.web.test_browser import ARGS, CHROMIUM, _shot

    ids = _hub(tmp_path, hub_store)
    token = new_link(hub_store.engine, ids["li"])
    assert token is not None
    want = member_record(hub_store.engine, ids["li"])
    assert want is not None
    hub = LiveHub()
    app = create_app(hub_store, hub, WebAppSettings(hub=True, parlour="p1", secret_key=b"s" * 32))
    with serve(app, hub) as url, sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(f"{url}/m/{token}?lang=zh")
            page.wait_for_selector("body[data-rendered='1']")
            assert page.inner_text("#member-name") == "<b>Li</b>"
            assert page.locator("#member-name b").count() == 0
            assert page.inner_text("[data-count='hands']") == str(want.hands)
            assert page.inner_text("[data-count='wins']") == str(want.wins)
            assert page.locator("#months tr").count() == 1 + len(want.months)
            wait_image_loaded(page.locator("#chart"))
            _shot(page, tmp_path, "member-record", full_page=True)
            # on a phone: their hands newest first, their streaks, a chart whose text reads
            phone = browser.new_page(viewport={"width": 360, "height": 740}, device_scale_factor=2)
            phone.goto(f"{url}/m/{token}?lang=zh")
            phone.wait_for_selector("body[data-rendered='1']")
            rows = phone.locator("#recent tr.hand-row")
            assert rows.count() == min(50, want.hands)
            newest = want.as_dict()["recent"][0]
            assert rows.first.locator("td").nth(1).inner_text() == newest["table"]
            assert "最长连赢" in phone.inner_text("#streaks")
            wait_image_loaded(phone.locator("#chart"))
            px = phone.evaluate(
                "(() => { const i = document.getElementById('chart');"
                " return i.getBoundingClientRect().width / i.naturalWidth; })()"
            )
            assert px * PHONE_FONT >= 12  # the chart's text, in CSS pixels on the phone
            _shot(phone, tmp_path, "member-record-phone", full_page=True)
            phone.close()
            page.goto(f"{url}/m/{'x' * 32}")
            page.wait_for_selector("#gone")
            # the owner makes a member's link on the members' page
            OwnerAccounts(hub_store).add("boss", hash_password(PASSWORD))
            page.goto(f"{url}/owner#/members")
            page.fill("#login-name", "boss")
            page.fill("#login-password", PASSWORD)
            page.click("#login-submit")
            page.wait_for_selector("#records")
            assert page.locator("#records tbody tr").count() == 4
            row = page.locator(f"tr[data-member='{ids['zhao']}']")
            row.locator("[data-link]").click()
            page.wait_for_selector(f"tr[data-member='{ids['zhao']}'] .link-url:has-text('/m/')")
            link = row.locator(".link-url").inner_text()
            page.goto(link)
            page.wait_for_selector("body[data-rendered='1']")
            assert page.inner_text("#member-name") == "赵六"
        finally:
            browser.close()
