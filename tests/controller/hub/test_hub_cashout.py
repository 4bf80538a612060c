"""A closed session reaches the hub (PostgreSQL) with its last hand's log: who closed it,
when and why, and the terms then in force; the hub's cash-out, recounted from its own
hands, is the table's. The hub holds no terms of its own."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from controller.hub.ingest import store_handlogs
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import CashoutTerms, OwnerAccounts
from controller.table.cashout import stored_cashout
from controller.table.hand_keeper import HandKeeper
from controller.table.handlog import Handlog, parse_handlog
from controller.table.publication import Outlet
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from engine.round.commands import Audit
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.helpers import bearer
from tests.controller.web.server import serve
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_cashout_terms_browser import owner_page
from tests.controller.web.test_staff_api import PASSWORD


def test_the_hub_cashes_out_a_closed_session_as_the_table_did(pg_url: str) -> None:
    table, hub = EventStore.open("sqlite://"), EventStore.open(pg_url)
    try:
        keeper = HandKeeper(
            table, Outlet(Topics("p1", "t1")), parlour="p1", table="t1", ruleset="xingguo"
        )
        keeper.resume()
        rng = random.Random(21)
        for _ in range(5):
            play_at_keeper(keeper, rng)
        session_id = keeper.session_id
        assert session_id is not None
        audit = Audit("ann", "staff", "2026-12-03T23:00:00+00:00", "打烊")
        terms = CashoutTerms(point_value=0.5, table_fee=30, fee_per="session")
        at_table = keeper.close_session(audit, "staff", terms)
        logs: dict[str, dict[str, object]] = {}
        for e in table.outbox_peek(10_000):
            if e.topic.endswith("/handlog"):
                payload = json.loads(e.payload)
                logs[payload["hand_id"]] = payload  # (the last hand's, sent again, is longer)
        store_handlogs(hub.engine, [parse_handlog(p) for p in logs.values()])
        # the hub's own terms are not the table's: the cash-out keeps those of the close
        at_hub = stored_cashout(hub, session_id, CashoutTerms(), datetime.now(UTC))
        assert at_hub["closed"] and at_hub["closed_by"] == at_table["closed_by"]
        assert at_hub["closed_by"]["reason"] == "打烊"
        for key in ("players", "transfers", "played", "terms"):
            assert at_hub[key] == at_table[key], key
        assert at_hub["fee"]["total"] == 30
        # the hub's session ended when the table closed it
        assert hub.get_session(session_id).ended_at == datetime.fromisoformat(audit.at)
    finally:
        hub.close()
        table.close()


HUB_REFUSAL = "总台不打牌：请到牌桌上操作"  # (en: the hub plays no hand: act at the table)


def _handlogs(table: EventStore) -> list[Handlog]:
    logs: dict[str, dict[str, object]] = {}
    for e in table.outbox_peek(10_000):
        if e.topic.endswith("/handlog"):
            payload = json.loads(e.payload)
            logs[payload["hand_id"]] = payload
    return [parse_handlog(p) for p in logs.values()]


def test_the_hub_neither_shows_nor_takes_cash_out_terms(pg_url: str) -> None:
    """Each table counts its sessions' money with its own terms: the hub answers the
    terms' GET, PUT and last change alike (403, nothing stored), and counts an open
    session in points, whatever its store may hold from before."""
    table, hub = EventStore.open("sqlite://"), EventStore.open(pg_url)
    try:
        keeper = HandKeeper(
            table, Outlet(Topics("p1", "t1")), parlour="p1", table="t1", ruleset="xingguo"
        )
        keeper.resume()
        play_at_keeper(keeper, random.Random(5))
        session_id = keeper.session_id
        assert session_id is not None
        store_handlogs(hub.engine, _handlogs(table))  # (the session is still open)
        accounts = OwnerAccounts(hub)
        accounts.add("boss", hash_password(PASSWORD))
        accounts.add("ann", hash_password(PASSWORD), "staff", ("t1",))
        settings = WebAppSettings(hub=True, parlour="p1", table="hub", secret_key=b"h" * 32)
        terms = {"point_value": 0.5, "currency": "元", "table_fee": 20, "fee_per": "hand"}
        with TestClient(create_app(hub, LiveHub(), settings)) as client:
            assert client.get("/api/v1/public/table").json()["hub"] is True
            assert client.put("/api/v1/owner/cashout-terms", json=terms).status_code == 401
            for who in ("boss", "ann"):
                r = client.get("/api/v1/staff/cashout-terms", headers=bearer(client, who, PASSWORD))
                assert (r.status_code, r.json()["detail"]) == (403, HUB_REFUSAL), who
            boss = bearer(client, "boss", PASSWORD)
            for body in (terms, {**terms, "table_fee": -5}):  # (refused before it is read)
                r = client.put("/api/v1/owner/cashout-terms", json=body, headers=boss)
                assert (r.status_code, r.json()["detail"]) == (403, HUB_REFUSAL), body
            r = client.get("/api/v1/owner/cashout-terms/last-change", headers=boss)
            assert (r.status_code, r.json()["detail"]) == (403, HUB_REFUSAL)
            assert accounts.cashout_terms_changed() == ("", None)
            # terms a hub stored before it refused them count nothing there
            accounts.set_cashout_terms(CashoutTerms(**terms), "boss")  # type: ignore[arg-type]
            r = client.get(f"/api/v1/sessions/{session_id}/cashout", headers=boss)
            assert r.status_code == 200 and not r.json()["closed"]
            assert r.json()["terms"]["point_value"] is None and r.json()["fee"] is None
            assert all(p["money"] is None for p in r.json()["players"])
        # a table takes them, and shows what it took
        with TestClient(create_app(table, LiveHub(), WebAppSettings(table="t1"))) as client:
            OwnerAccounts(table).add("boss", hash_password(PASSWORD))
            boss = bearer(client, "boss", PASSWORD)
            r = client.put("/api/v1/owner/cashout-terms", json=terms, headers=boss)
            assert r.status_code == 200, r.text
            assert client.get("/api/v1/staff/cashout-terms", headers=boss).json() == r.json()
            sheet = client.get(f"/api/v1/sessions/{session_id}/cashout", headers=boss).json()
            assert sheet["terms"]["point_value"] == 0.5 and sheet["fee"]["per"] == "hand"
    finally:
        hub.close()
        table.close()


def test_the_owners_page_on_the_hub_offers_no_terms_form(
    browser: Any,  # noqa: F811
    hub_store: EventStore,
) -> None:
    """In Debian's Chromium: the hub's tables' list has no terms button, and its
    ``#/terms`` says where the terms are set instead of a form the API would refuse."""
    OwnerAccounts(hub_store).add("boss", hash_password(PASSWORD))
    live = LiveHub()
    settings = WebAppSettings(hub=True, parlour="p1", table="hub", secret_key=b"h" * 32)
    with serve(create_app(hub_store, live, settings), live) as url:
        page = owner_page(browser, url, "boss", "?lang=en#/", "#members-link")
        assert page.query_selector("#terms-link") is None
        page.goto(f"{url}/owner?lang=en#/terms")
        page.wait_for_selector("#terms-at-table")
        assert "each table's own" in page.eval_on_selector("#terms-at-table", "e => e.textContent")
        assert page.query_selector("#terms-form") is None
