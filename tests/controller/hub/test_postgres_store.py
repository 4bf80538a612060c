"""The store and its migrations on a real PostgreSQL (a throwaway cluster), and the hub's
idempotent ingestion: duplicates stored once, any arrival order."""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, inspect, select

from controller.hub.aliases import alias
from controller.hub.ingest import store_handlogs
from controller.hub.queries import seat_totals, table_ids
from controller.store import EventStore, make_engine
from controller.store.migrate import current_revision, head_revision, upgrade
from controller.store.models import EVENTS, HANDS, METADATA, SESSIONS, SETTLEMENTS
from controller.store.tables import list_tables, table_hands
from controller.table.handlog import Handlog, build_handlog, parse_handlog
from tests.controller.hub.hands import played_hands, record_hand

pytestmark = pytest.mark.timeout(180)


def test_migrations_run_on_postgresql(pg_url: str) -> None:
    upgrade(pg_url)
    upgrade(pg_url)  # idempotent
    engine = make_engine(pg_url)
    try:
        assert current_revision(engine) == head_revision()
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, METADATA) == []
        columns = {c["name"]: c for c in inspect(engine).get_columns("hands")}
        assert {"parlour", "table_id"} <= set(columns)
        assert str(columns["started_at"]["type"]) == "TIMESTAMP"
        assert columns["started_at"]["type"].timezone  # type: ignore[attr-defined]
        indexes = {i["name"] for i in inspect(engine).get_indexes("hands")}
        assert "ix_hands_table_started" in indexes
    finally:
        engine.dispose()


def test_event_store_on_postgresql(pg_url: str) -> None:
    store = EventStore.open(pg_url)
    try:
        sid = store.start_session(ruleset="xingguo", parlour="p1", table_id="t1")
        hands = played_hands(2)
        ids = [record_hand(store, h, session_id=sid, hand_no=i + 1) for i, h in enumerate(hands)]
        loaded = store.load_hand(ids[0])
        assert loaded.event_dicts() == hands[0]
        assert loaded.hand.started_at.tzinfo is not None
        assert [h.id for h in store.unacked_handlogs()] == ids
        assert store.mark_handlog_acked(ids[0]) and not store.mark_handlog_acked(ids[0])
        assert [h.id for h in store.unacked_handlogs()] == ids[1:]
    finally:
        store.close()


def _logs(n: int, tables: tuple[str, ...] = ("t1", "t2", "t3")) -> list[Handlog]:
    """Handlogs as tables would send them: each table's hands in its own sessions."""
    source = EventStore.open("sqlite://")
    try:
        out: list[Handlog] = []
        for t_index, table in enumerate(tables):
            sid = source.start_session(ruleset="xingguo", parlour="p1", table_id=table)
            for i, events in enumerate(played_hands(n, seed=t_index)):
                hid = record_hand(source, events, session_id=sid, hand_no=i + 1)
                payload = build_handlog(source.load_hand(hid), parlour="p1", table=table)
                out.append(parse_handlog(payload))
        return out
    finally:
        source.close()


def _counts(store: EventStore) -> dict[str, Any]:
    with store.engine.connect() as c:
        return {
            "hands": c.scalar(select(func.count()).select_from(HANDS)),
            "events": c.scalar(select(func.count()).select_from(EVENTS)),
            "settlements": c.scalar(select(func.count()).select_from(SETTLEMENTS)),
            "sessions": c.scalar(select(func.count()).select_from(SESSIONS)),
        }


def test_ingestion_duplicates_and_reordering(pg_url: str) -> None:
    store = EventStore.open(pg_url)
    try:
        logs = _logs(4)
        shuffled = logs[:]
        random.Random(7).shuffle(shuffled)
        first = store_handlogs(store.engine, shuffled[:5] + shuffled[:2])  # dupes in a batch
        assert sorted(first.stored) == sorted(h.hand_id for h in shuffled[:5])
        assert sorted(first.duplicates) == sorted(h.hand_id for h in shuffled[:2])
        second = store_handlogs(store.engine, list(reversed(shuffled)))
        assert sorted(second.stored) == sorted(h.hand_id for h in shuffled[5:])
        assert sorted(second.acked) == sorted(h.hand_id for h in logs)
        again = store_handlogs(store.engine, logs)
        assert again.stored == [] and len(again.duplicates) == len(logs)

        n_events = sum(len(h.events) for h in logs)
        assert _counts(store) == {"hands": 12, "events": n_events, "settlements": 12, "sessions": 3}
        for log in logs:
            stored = store.load_hand(log.hand_id)
            assert stored.event_dicts() == list(log.events)
            assert stored.settlement == log.settlement
            assert stored.hand.net == log.net
            assert (stored.hand.status, stored.hand.result) == ("finished", log.result)
            assert stored.hand.started_at == log.started_at
        # A session starts with its earliest hand, whichever arrived first.
        for table in ("t1", "t2", "t3"):
            earliest = min(h.started_at for h in logs if h.table == table)
            session = store.get_session(next(h for h in logs if h.table == table).session_id or "")
            assert session.table_id == table and session.started_at == earliest
        # The owners' queries see every table, each with its own hands.
        tables = {t.table_id: t.hands for t in list_tables(store, default_table="hub")}
        assert tables == {"hub": 0, "t1": 4, "t2": 4, "t3": 4}
        t2 = table_hands(store, "t2", default_table="hub", oldest_first=True)
        assert [h.id for h in t2] == [h.hand_id for h in logs if h.table == "t2"]
        # The hub's indexed queries agree.
        assert table_ids(store) == ["t1", "t2", "t3"]
        t2_logs = [h for h in logs if h.table == "t2"]
        assert [h.id for h in table_hands(store, "t2")] == [h.hand_id for h in t2_logs][::-1]
        winner = t2_logs[0].winner
        if winner is not None:
            won = table_hands(store, "t2", seat=winner, oldest_first=True)
            assert [h.id for h in won] == [
                h.hand_id for h in t2_logs if winner in (h.winner, h.discarder)
            ]
        since = t2_logs[1].started_at
        totals = seat_totals(store, "t2", since=since)
        assert totals.hands == 3
        assert totals.net == tuple(sum(h.net[s] for h in t2_logs[1:]) for s in range(4))
    finally:
        store.close()


def test_hands_outside_sessions_keep_their_table(pg_url: str) -> None:
    store = EventStore.open(pg_url)
    try:
        log = _logs(1, ("t9",))[0]
        lone = Handlog(**{**{f: getattr(log, f) for f in log.__slots__}, "session_id": None})
        later = Handlog(
            **{
                **{f: getattr(log, f) for f in log.__slots__},
                "hand_id": "later",
                "session_id": None,
                "started_at": log.started_at + timedelta(minutes=5),
                "table_seq": (log.table_seq or 0) + 1,
            }
        )
        assert store_handlogs(store.engine, [later, lone]).stored == ["later", log.hand_id]
        with store.engine.connect() as c:
            rows = c.execute(select(HANDS.c.id, HANDS.c.parlour, HANDS.c.table_id)).all()
        assert sorted(rows) == sorted([("later", "p1", "t9"), (log.hand_id, "p1", "t9")])
    finally:
        store.close()


def test_a_second_hand_at_a_tables_number_is_refused_unless_it_is_the_same_hand(
    pg_url: str,
) -> None:
    store = EventStore.open(pg_url)
    try:
        c1, c2 = _logs(2, ("c1",)), _logs(1, ("c2",))
        own, taken = c1[0], c2[0]
        assert own.table_seq == 1
        assert store_handlogs(store.engine, [taken, own]).stored == [taken.hand_id, own.hand_id]

        def at_one(**change: Any) -> Handlog:
            return dataclasses.replace(c1[1], **({"table_seq": 1} | change))

        # c2's hand id sent by c1 (stored under c1's alias), and an id nobody sent, at 1
        copied, made_up = at_one(hand_id=taken.hand_id), at_one(hand_id="f" * 32)
        refused = store_handlogs(store.engine, [copied, made_up, own])
        assert refused.stored == [] and refused.duplicates == [own.hand_id]
        assert set(refused.rejected) == {taken.hand_id, "f" * 32}
        assert all("table_seq 1" in why for why in refused.rejected.values())
        # two new hands at one number in one batch: the first only
        twice = store_handlogs(store.engine, [c1[1], at_one(hand_id="e" * 32, table_seq=2)])
        assert twice.stored == [c1[1].hand_id] and list(twice.rejected) == ["e" * 32]
        # c1's own hand under its alias, at a number of its own, then again: one hand
        aliased = dataclasses.replace(c1[1], hand_id=taken.hand_id, table_seq=3)
        assert store_handlogs(store.engine, [aliased]).stored == [taken.hand_id]
        again = store_handlogs(store.engine, [aliased])
        assert again.duplicates == [taken.hand_id] and not again.rejected
        with store.engine.connect() as c:
            rows = c.execute(
                select(HANDS.c.table_seq, HANDS.c.id).where(HANDS.c.table_id == "c1")
            ).all()
        assert sorted(rows) == [
            (1, own.hand_id),
            (2, c1[1].hand_id),
            (3, alias("p1", "c1", taken.hand_id)),
        ]
    finally:
        store.close()
