"""A closed session reaches the hub (PostgreSQL) with its last hand's log: who closed it,
when and why, and the terms then in force; the hub's cash-out, recounted from its own
hands, is the table's."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

from controller.hub.handlog import parse_handlog
from controller.hub.ingest import store_handlogs
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import CashoutTerms
from controller.table.cashout import stored_cashout
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from engine.round.staff import Audit
from tests.controller.service_helpers import play_at_keeper


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
