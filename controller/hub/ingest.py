"""Finished hands into the hub's database: one transaction per batch, idempotent by hand id.

A hand already stored is skipped (a table re-sent it, or two copies were in flight); hands
may arrive in any order. A session is created from the first of its hands to arrive, and
its start moved back if an earlier hand arrives later. Works on PostgreSQL (the hub) and
SQLite (tests, a one-table "hub").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from controller.handlog import Handlog
from controller.store.models import EventRow, HandRow, SessionRow, SettlementRow, utcnow
from controller.store.table_stats import Changes, bump

FINISHED = "finished"
CHUNK = 1000  # ids per IN (...) list


@dataclass(frozen=True, slots=True)
class StoreResult:
    stored: list[str]  # hand ids written by this call
    duplicates: list[str]  # hand ids already there (or twice in the batch)

    @property
    def acked(self) -> list[str]:
        """Every hand id now safely in the database: acknowledge them all."""
        return self.stored + self.duplicates


def _insert(conn: Connection, table: Any) -> Any:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def _existing(conn: Connection, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        found.update(conn.scalars(select(HandRow.id).where(HandRow.id.in_(chunk))))
    return found


def _sessions(conn: Connection, logs: Sequence[Handlog], stats: Changes) -> None:
    first: dict[str, Handlog] = {}
    for log in logs:
        if log.session_id is None:
            continue
        seen = first.get(log.session_id)
        if seen is None or log.started_at < seen.started_at:
            first[log.session_id] = log
    if not first:
        return
    known: set[str] = set()
    ids = sorted(first)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        known.update(conn.scalars(select(SessionRow.id).where(SessionRow.id.in_(chunk))))
    for sid, log in first.items():
        if sid not in known:
            stats.of(log.table, log.parlour).sessions += 1
    rows: list[dict[str, Any]] = [
        {
            "id": sid,
            "parlour": log.parlour,
            "table_id": log.table,
            "ruleset": log.ruleset,
            "options": {},
            "players": None,
            "started_at": log.started_at,
        }
        for sid, log in sorted(first.items())  # a fixed order: no deadlocks between writers
    ]
    insert = _insert(conn, SessionRow.__table__)
    earliest = func.least if conn.dialect.name == "postgresql" else func.min
    table = SessionRow.__table__
    conn.execute(
        insert.on_conflict_do_update(
            index_elements=[table.c.id],
            set_={"started_at": earliest(table.c.started_at, insert.excluded.started_at)},
        ),
        rows,
    )


def _events(conn: Connection, logs: Sequence[Handlog], now: datetime) -> None:
    rows = (
        (log.hand_id, seq, e["type"], e, now) for log in logs for seq, e in enumerate(log.events)
    )
    if conn.dialect.name != "postgresql":
        keys = ("hand_id", "seq", "type", "payload", "created_at")
        conn.execute(
            _insert(conn, EventRow.__table__), [dict(zip(keys, r, strict=True)) for r in rows]
        )
        return
    # COPY, in this transaction: ~200 events a hand make row-by-row inserts the bottleneck.
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        with cursor.copy(
            "COPY events (hand_id, seq, type, payload, created_at) FROM STDIN"
        ) as copy:
            for hand_id, seq, kind, event, at in rows:
                copy.write_row((hand_id, seq, kind, json.dumps(event, ensure_ascii=False), at))
    finally:
        cursor.close()


def _write(conn: Connection, logs: Sequence[Handlog]) -> StoreResult:
    unique: dict[str, Handlog] = {}
    duplicates: list[str] = []
    for log in logs:
        if log.hand_id in unique:
            duplicates.append(log.hand_id)
        else:
            unique[log.hand_id] = log
    existing = _existing(conn, list(unique))
    duplicates += [hid for hid in unique if hid in existing]
    new = [log for hid, log in unique.items() if hid not in existing]
    if not new:
        return StoreResult([], duplicates)
    stats = Changes()
    _sessions(conn, new, stats)
    for log in new:
        stats.of(log.table, log.parlour).seen(log.started_at).hands += 1
    now = utcnow()
    conn.execute(
        _insert(conn, HandRow.__table__),
        [
            {
                "id": log.hand_id,
                "session_id": log.session_id,
                "hand_no": log.hand_no,
                "ruleset": log.ruleset,
                "dealer": log.dealer,
                "status": FINISHED,
                "result": log.result,
                "winner": log.winner,
                "discarder": log.discarder,
                "started_at": log.started_at,
                "ended_at": log.finished_at,
                "note": None,
                # The hub is the end of the line: nothing to acknowledge further.
                "handlog_acked_at": now,
                "parlour": log.parlour,
                "table_id": log.table,
                "net_0": log.net[0],
                "net_1": log.net[1],
                "net_2": log.net[2],
                "net_3": log.net[3],
            }
            for log in new
        ],
    )
    bump(conn, stats.by_table.values())
    _events(conn, new, now)
    conn.execute(
        _insert(conn, SettlementRow.__table__),
        [
            {
                "hand_id": log.hand_id,
                "ruleset": log.ruleset,
                "void": bool(log.settlement.get("void", False)),
                "net_0": log.net[0],
                "net_1": log.net[1],
                "net_2": log.net[2],
                "net_3": log.net[3],
                "payload": log.settlement,
                "created_at": now,
            }
            for log in new
        ],
    )
    return StoreResult([log.hand_id for log in new], duplicates)


def store_handlogs(engine: Engine, logs: Sequence[Handlog]) -> StoreResult:
    """Store the hands not yet stored, all in one transaction (committed on return)."""
    try:
        with engine.begin() as conn:
            return _write(conn, logs)
    except IntegrityError:
        # Another writer stored some of these hands between our check and our insert:
        # once more, now that they are visible.
        with engine.begin() as conn:
            return _write(conn, logs)
