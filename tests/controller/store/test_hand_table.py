"""A hand records its table (``hands.table_id``), so the owners' queries use the index:
set when a hand starts, back-filled from its session by migration 0004, and a hand with no
table (outside any session, stored before) listed under the configured table."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from sqlalchemy import select, text

from controller.store import EventStore, make_engine
from controller.store.migrate import upgrade
from controller.store.models import HANDS
from controller.store.tables import (
    has_table,
    list_tables,
    table_hands,
    table_of_hand,
    table_record,
)


def _tables_of(store: EventStore) -> dict[str, str | None]:
    with store.engine.connect() as c:
        return {hid: tid for hid, tid in c.execute(select(HANDS.c.id, HANDS.c.table_id))}


def test_migration_0004_backfills_from_the_session(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0003")
    at = datetime(2026, 1, 1)  # as SQLite stores them: naive UTC
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO sessions (id, parlour, table_id, ruleset, options, started_at)"
                " VALUES ('s2', 'p', 't2', 'jian', '{}', :at), ('s0', '', '', 'jian', '{}', :at)"
            ),
            {"at": at},
        )
        for hid, sid in (("h2", "'s2'"), ("h0", "'s0'"), ("hx", "NULL")):
            c.execute(
                text(
                    "INSERT INTO hands (id, session_id, hand_no, ruleset, status, started_at)"
                    f" VALUES ('{hid}', {sid}, 1, 'jian', 'finished', :at)"
                ),
                {"at": at},
            )
    upgrade(engine)
    store = EventStore(engine)
    try:
        assert _tables_of(store) == {"h2": "t2", "h0": None, "hx": None}
        with engine.connect() as c:
            assert c.scalar(text("SELECT parlour FROM hands WHERE id = 'h2'")) == "p"
        tables = {t.table_id: (t.sessions, t.hands) for t in list_tables(store, default_table="t1")}
        assert tables == {"t1": (1, 2), "t2": (1, 1)}
        assert table_of_hand(store, "hx", default_table="t1") == "t1"
        assert table_of_hand(store, "h2", default_table="t1") == "t2"
    finally:
        store.close()


def test_start_hand_records_its_table(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 's.db'}")
    try:
        sid = store.start_session(ruleset="jian", parlour="p", table_id="t2")
        explicit = store.start_hand(ruleset="jian", table_id="t3", parlour="q")
        inherited = store.start_hand(ruleset="jian", session_id=sid)
        loose = store.start_hand(ruleset="jian")
        assert _tables_of(store) == {explicit: "t3", inherited: "t2", loose: None}

        tables = {t.table_id: t for t in list_tables(store, default_table="t1", parlour="p")}
        assert {k: (t.sessions, t.hands, t.open_hands) for k, t in tables.items()} == {
            "t1": (0, 1, 1),
            "t2": (1, 1, 1),
            "t3": (0, 1, 1),
        }
        for tid, t in tables.items():
            assert table_record(store, tid, default_table="t1", parlour="p") == t
        assert table_record(store, "t9", default_table="t1") is None
        assert [has_table(store, t, default_table="t1") for t in ("t1", "t2", "t3", "t9")] == [
            True,
            True,
            True,
            False,
        ]
        assert [h.id for h in table_hands(store, "t1", default_table="t1")] == [loose]
        assert [h.id for h in table_hands(store, "t2", default_table="t1")] == [inherited]
        # At the hub (no configured table) a hand without a table is nobody's.
        assert [t.table_id for t in list_tables(store, default_table=None)] == ["t2", "t3"]
        assert table_hands(store, "t1") == []
    finally:
        store.close()
