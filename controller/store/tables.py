"""Queries by table, for the owners' web app on a Pi and at the hub: which tables the store
has seen, and their hands.

The list of tables reads ``table_stats`` (a row per table, kept current by every write). A
hand's table is ``hands.table_id`` (set at the hub from the handlog; on a Pi when the hand
starts, or from its session; migration 0004 back-filled older hands), so every query uses
``ix_hands_table_started`` whatever the size. A hand with NULL there (one played outside any
session before the table was recorded) belongs to the table the service is configured as
(``default_table``): such hands are looked for only when one exists, so the common case is
the plain indexed query. At the hub pass ``default_table=None`` (or the hub's own name).
Measured by bench/hub.py over a million hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, func, or_, select

from controller.store.event_store import EventStore, hand_record, session_record
from controller.store.hand_filters import NEWEST_FIRST, OLDEST_FIRST, hand_filters
from controller.store.models import (
    EVENTS,
    HANDS,
    QUARANTINED_HANDLOGS,
    SESSIONS,
    SETTLEMENTS,
    TABLE_STATS,
)
from controller.store.records import HandRecord, SessionRecord


@dataclass(frozen=True, slots=True)
class TableRecord:
    table_id: str
    parlour: str
    sessions: int
    hands: int
    open_hands: int
    first_seen: datetime | None
    last_seen: datetime | None


def _untabled(c: Connection) -> bool:
    """Whether any hand has no ``table_id`` (an index probe)."""
    query = select(HANDS.c.id).where(HANDS.c.table_id.is_(None)).limit(1)
    return c.execute(query).first() is not None


def _belongs(c: Connection, table_id: str, default_table: str | None) -> ColumnElement[bool]:
    if table_id == default_table and _untabled(c):
        return or_(HANDS.c.table_id == table_id, HANDS.c.table_id.is_(None))
    return HANDS.c.table_id == table_id


def _record(table_id: str, stats: Row[Any] | None, parlour: str = "") -> TableRecord:
    if stats is None:
        return TableRecord(table_id, parlour, 0, 0, 0, None, None)
    return TableRecord(
        table_id,
        stats.parlour or parlour,
        stats.sessions,
        stats.hands,
        stats.open_hands,
        stats.first_seen,
        stats.last_seen,
    )


def _merged(table_id: str, rows: Sequence[Row[Any]], parlour: str) -> TableRecord:
    """The configured table's own row and the untabled one ("") as one table."""
    records = [_record(table_id, r) for r in rows]
    firsts = [r.first_seen for r in records if r.first_seen is not None]
    lasts = [r.last_seen for r in records if r.last_seen is not None]
    return TableRecord(
        table_id,
        next((r.parlour for r in records if r.parlour), parlour),
        sum(r.sessions for r in records),
        sum(r.hands for r in records),
        sum(r.open_hands for r in records),
        min(firsts, default=None),
        max(lasts, default=None),
    )


def list_tables(
    store: EventStore, *, default_table: str | None, parlour: str = ""
) -> list[TableRecord]:
    """Every table seen in sessions or hands, and the configured one even before any hand:
    a row per table from ``table_stats`` (kept current by every write)."""
    with store.engine.connect() as c:
        rows = list(c.execute(select(TABLE_STATS)))
    mine = ("", default_table)  # the configured table's rows, merged into one
    own = [r for r in rows if r.table_id in mine]
    found = {r.table_id: _record(r.table_id, r) for r in rows if r.table_id not in mine}
    if default_table is not None:
        found[default_table] = _merged(default_table, own, parlour)
    return [found[tid] for tid in sorted(found)]


def table_record(
    store: EventStore, table_id: str, *, default_table: str | None, parlour: str = ""
) -> TableRecord | None:
    """One table as ``list_tables`` lists it, or None if unknown."""
    ids = [table_id, ""] if table_id == default_table else [table_id]
    with store.engine.connect() as c:
        rows = list(c.execute(select(TABLE_STATS).where(TABLE_STATS.c.table_id.in_(ids))))
    if table_id == default_table:
        return _merged(table_id, rows, parlour)
    return _record(table_id, rows[0]) if rows else None


def has_table(store: EventStore, table_id: str, *, default_table: str | None) -> bool:
    """Whether the store has seen this table (the configured one always): index probes."""
    if table_id == default_table:
        return True
    with store.engine.connect() as c:
        for query in (
            select(HANDS.c.id).where(HANDS.c.table_id == table_id),
            select(SESSIONS.c.id).where(SESSIONS.c.table_id == table_id),
        ):
            if c.execute(query.limit(1)).first() is not None:
                return True
    return False


def table_hands(
    store: EventStore,
    table_id: str,
    *,
    default_table: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    ruleset: str | None = None,
    status: str | None = None,
    result: str | None = None,
    winner: int | None = None,
    seat: int | None = None,
    session_id: str | None = None,
    oldest_first: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> list[HandRecord]:
    """A table's hands, newest first unless ``oldest_first``. ``seat``: hands that seat won
    or dealt in (as ``EventStore.list_hands``); ``until`` is exclusive."""
    # The hands rows alone (they carry the nets): a list shows 100 hands, a hand shows one.
    with store.engine.connect() as c:
        query = select(HANDS).where(
            _belongs(c, table_id, default_table),
            *hand_filters(
                since=since,
                until=until,
                ruleset=ruleset,
                status=status,
                result=result,
                winner=winner,
                seat=seat,
                session_id=session_id,
            ),
        )
        order = OLDEST_FIRST if oldest_first else NEWEST_FIRST
        query = query.order_by(*order).limit(limit).offset(offset)
        return [hand_record(hand) for hand in c.execute(query)]


def table_of_hand(store: EventStore, hand_id: str, *, default_table: str) -> str | None:
    """The table a hand was played at, or None for an unknown hand."""
    query = select(func.coalesce(HANDS.c.table_id, default_table)).where(HANDS.c.id == hand_id)
    with store.engine.connect() as c:
        return c.scalars(query).first()


def settlements_for(store: EventStore, hand_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored settlement payloads of these hands (those that have one), by hand id."""
    out: dict[str, dict[str, Any]] = {}
    with store.engine.connect() as c:
        for start in range(0, len(hand_ids), 500):  # keep IN (...) lists short
            chunk = list(hand_ids[start : start + 500])
            query = select(SETTLEMENTS.c.hand_id, SETTLEMENTS.c.payload).where(
                SETTLEMENTS.c.hand_id.in_(chunk)
            )
            out.update({hid: payload for hid, payload in c.execute(query)})
    return out


def events_for(
    store: EventStore, hand_ids: Sequence[str], types: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """These hands' events of these types (payloads, in log order), by hand id: what a
    report reads of many hands without loading each whole log."""
    out: dict[str, list[dict[str, Any]]] = {hid: [] for hid in hand_ids}
    with store.engine.connect() as c:
        for start in range(0, len(hand_ids), 500):
            chunk = list(hand_ids[start : start + 500])
            query = (
                select(EVENTS.c.hand_id, EVENTS.c.payload)
                .where(EVENTS.c.hand_id.in_(chunk), EVENTS.c.type.in_(list(types)))
                .order_by(EVENTS.c.hand_id, EVENTS.c.seq)
            )
            for hid, payload in c.execute(query):
                out[hid].append(payload)
    return out


def table_sessions(
    store: EventStore, table_id: str, *, limit: int = 100, offset: int = 0
) -> list[SessionRecord]:
    """A table's sessions, newest first."""
    query = (
        select(SESSIONS)
        .where(SESSIONS.c.table_id == table_id)
        .order_by(SESSIONS.c.started_at.desc(), SESSIONS.c.id.desc())
        .limit(limit)
        .offset(offset)
    )
    with store.engine.connect() as c:
        return [session_record(r) for r in c.execute(query)]


def quarantined(store: EventStore, *, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
    """The handlogs the hub refused (``controller.hub.ingest.quarantine``), newest first."""
    row = QUARANTINED_HANDLOGS.c
    query = (
        select(row.id, row.received_at, row.topic, row.table_id, row.hand_id, row.reason, row.size)
        .order_by(row.id.desc())
        .limit(limit)
        .offset(offset)
    )
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]


def last_rulesets(store: EventStore, table_ids: Sequence[str]) -> dict[str, str]:
    """Each table's ruleset at its latest session (one probe of ``ix_sessions_table_started``
    per table): what a table no owner assigned a house ruleset to plays (table.toml's)."""
    out: dict[str, str] = {}
    with store.engine.connect() as c:
        for table in table_ids:
            query = (
                select(SESSIONS.c.ruleset)
                .where(SESSIONS.c.table_id == table)
                .order_by(SESSIONS.c.started_at.desc())
                .limit(1)
            )
            found = c.scalar(query)
            if found is not None:
                out[table] = found
    return out
