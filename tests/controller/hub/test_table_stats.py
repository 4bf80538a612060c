"""``table_stats`` (the list of tables) and the nets on the hands rows (seat totals) agree
with the hands and sessions themselves after any mix of writes: a Pi's sessions and hands
started, settled and aborted, and the hub's ingestion with duplicates, out of order. On
SQLite and on a real PostgreSQL; and migration 0005 back-fills both from older data."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import case, func, select, text

from controller.hub.ingest import store_handlogs
from controller.hub.queries import seat_totals, table_ids
from controller.store import EventStore, make_engine
from controller.store.migrate import upgrade
from controller.store.models import HANDS, SESSIONS, SETTLEMENTS
from controller.store.tables import list_tables, table_record
from controller.table.handlog import Handlog, build_handlog, parse_handlog
from tests.controller.hub.hands import played_hands, record_hand

pytestmark = pytest.mark.timeout(180)
TABLES = ("", "t1", "t2", "t3")


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'stats.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    store = EventStore.open(url)
    try:
        yield store
    finally:
        store.close()


def recount(store: EventStore) -> dict[str, tuple[int, int, int]]:
    """(sessions, hands, open hands) per table, counted from the rows themselves."""
    key = func.coalesce(HANDS.c.table_id, "")
    hands = select(
        key, func.count(), func.sum(case((HANDS.c.status == "open", 1), else_=0))
    ).group_by(key)
    sessions = select(SESSIONS.c.table_id, func.count()).group_by(SESSIONS.c.table_id)
    out: dict[str, list[int]] = {}
    with store.engine.connect() as c:
        for tid, n in c.execute(sessions):
            out.setdefault(tid, [0, 0, 0])[0] += n
        for tid, n, n_open in c.execute(hands):
            row = out.setdefault(tid, [0, 0, 0])
            row[1] += n
            row[2] += int(n_open)
    return {tid: (s, h, o) for tid, (s, h, o) in out.items()}


def listed(store: EventStore, default_table: str) -> dict[str, tuple[int, int, int]]:
    return {
        t.table_id: (t.sessions, t.hands, t.open_hands)
        for t in list_tables(store, default_table=default_table)
    }


def expected(counts: dict[str, tuple[int, int, int]], default_table: str) -> dict[str, Any]:
    merged: dict[str, list[int]] = {default_table: [0, 0, 0]}
    for tid, values in counts.items():
        row = merged.setdefault(tid or default_table, [0, 0, 0])
        for i, v in enumerate(values):
            row[i] += v
    return {tid: tuple(v) for tid, v in merged.items()}


def test_a_pis_writes_keep_the_rollup_exact(any_store: EventStore) -> None:
    store, rng = any_store, random.Random(7)
    hands = played_hands(6)
    sessions: list[tuple[str, str]] = []
    open_hands: list[str] = []
    for _ in range(60):
        move = rng.randrange(5)
        if move == 0 or not sessions:
            table = rng.choice(TABLES)
            sessions.append((store.start_session(ruleset="xingguo", table_id=table), table))
        elif move == 1:
            sid, _table = rng.choice(sessions)
            record_hand(store, rng.choice(hands), session_id=sid)
        elif move == 2:
            table = rng.choice(TABLES)
            open_hands.append(store.start_hand(ruleset="jian", table_id=table or None))
        elif move == 3 and open_hands:
            store.abort_hand(open_hands.pop(rng.randrange(len(open_hands))), "test")
        else:
            record_hand(store, rng.choice(hands))  # outside any session
    counts = recount(store)
    assert listed(store, "t1") == expected(counts, "t1")
    assert listed(store, "t9") == expected(counts, "t9")
    for tid, values in expected(counts, "t2").items():
        record = table_record(store, tid, default_table="t2")
        assert record is not None and (record.sessions, record.hands, record.open_hands) == values
    assert table_record(store, "nowhere", default_table="t2") is None


def _handlogs(store: EventStore) -> list[Handlog]:
    """Hands of three tables, stored on a 'Pi' and turned into handlogs."""
    logs, sessions = [], {}
    for i, events in enumerate(played_hands(9, seed=3)):
        table = f"t{i % 3 + 1}"
        if table not in sessions:
            sessions[table] = store.start_session(ruleset="xingguo", table_id=table)
        sid = sessions[table]
        hid = record_hand(store, events, session_id=sid, hand_no=i + 1)
        logs.append(parse_handlog(build_handlog(store.load_hand(hid), parlour="p", table=table)))
    return logs


def test_the_hubs_ingestion_keeps_the_rollup_and_nets_exact(
    any_store: EventStore, tmp_path: Path
) -> None:
    pi = EventStore.open(f"sqlite:///{tmp_path / 'pi.db'}")
    try:
        logs = _handlogs(pi)
    finally:
        pi.close()
    rng = random.Random(3)
    batches = [rng.sample(logs, k=4) for _ in range(5)] + [list(reversed(logs))]
    for batch in batches:
        store_handlogs(any_store.engine, batch + batch[:1])  # duplicates in and across
    counts = recount(any_store)
    assert listed(any_store, "hub") == expected(counts, "hub")
    assert table_ids(any_store) == ["t1", "t2", "t3"]
    with any_store.engine.connect() as c:
        rows = c.execute(
            select(HANDS.c.table_id, SETTLEMENTS.c.net_0, SETTLEMENTS.c.net_3).join(
                SETTLEMENTS, SETTLEMENTS.c.hand_id == HANDS.c.id
            )
        ).all()
        copied = c.execute(select(func.count()).where(HANDS.c.net_0.is_not(None))).scalar()
    assert copied == len(rows) == 9
    for table in ("t1", "t2", "t3"):
        totals = seat_totals(any_store, table)
        mine = [r for r in rows if r.table_id == table]
        assert totals.hands == len(mine) == 3
        assert totals.net[0] == pytest.approx(sum(r.net_0 for r in mine))
        assert totals.net[3] == pytest.approx(sum(r.net_3 for r in mine))
        first = list_tables(any_store, default_table=None)[0]
        assert first.first_seen is not None and first.last_seen is not None


def test_migration_0005_backfills_nets_and_the_rollup(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0004")
    at = datetime(2026, 1, 1)  # as SQLite stores them: naive UTC
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO sessions (id, parlour, table_id, ruleset, options, started_at)"
                " VALUES ('s1', 'p', 't1', 'jian', '{}', :at)"
            ),
            {"at": at},
        )
        for hid, status in (("h1", "finished"), ("h2", "open")):
            c.execute(
                text(
                    "INSERT INTO hands (id, session_id, hand_no, ruleset, status, started_at,"
                    f" table_id) VALUES ('{hid}', 's1', 1, 'jian', '{status}', :at, 't1')"
                ),
                {"at": at},
            )
        c.execute(
            text(
                "INSERT INTO settlements (hand_id, ruleset, void, net_0, net_1, net_2, net_3,"
                " payload, created_at) VALUES ('h1', 'jian', 0, 6, -2, -2, -2, '{}', :at)"
            ),
            {"at": at},
        )
    upgrade(engine)
    store = EventStore(engine)
    try:
        assert seat_totals(store, "t1").net == (6, -2, -2, -2)
        assert seat_totals(store, "t1").hands == 1
        (t1,) = list_tables(store, default_table=None)
        assert (t1.table_id, t1.parlour, t1.sessions, t1.hands, t1.open_hands) == (
            "t1",
            "p",
            1,
            2,
            1,
        )
        assert t1.first_seen is not None and t1.first_seen.replace(tzinfo=None) == at
    finally:
        store.close()
