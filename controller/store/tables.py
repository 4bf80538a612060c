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

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from controller.store.event_store import EventStore, hand_record, session_record
from controller.store.hand_filters import hand_filters
from controller.store.models import (
    HandRow,
    QuarantinedHandlogRow,
    SessionRow,
    SettlementRow,
    TableStatsRow,
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


def _untabled(s: Session) -> bool:
    """Whether any hand has no ``table_id`` (an index probe)."""
    query = select(HandRow.id).where(HandRow.table_id.is_(None)).limit(1)
    return s.scalars(query).first() is not None


def _belongs(s: Session, table_id: str, default_table: str | None) -> ColumnElement[bool]:
    if table_id == default_table and _untabled(s):
        return or_(HandRow.table_id == table_id, HandRow.table_id.is_(None))
    return HandRow.table_id == table_id


def _record(table_id: str, stats: TableStatsRow | None, parlour: str = "") -> TableRecord:
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


def _merged(table_id: str, rows: Sequence[TableStatsRow], parlour: str) -> TableRecord:
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
    with Session(store.engine) as s:
        rows = list(s.scalars(select(TableStatsRow)))
    own = [r for r in rows if r.table_id in ("", default_table)]
    found = {r.table_id: _record(r.table_id, r) for r in rows if r not in own and r.table_id}
    if default_table is not None:
        found[default_table] = _merged(default_table, own, parlour)
    return [found[tid] for tid in sorted(found)]


def table_record(
    store: EventStore, table_id: str, *, default_table: str | None, parlour: str = ""
) -> TableRecord | None:
    """One table as ``list_tables`` lists it, or None if unknown."""
    ids = [table_id, ""] if table_id == default_table else [table_id]
    with Session(store.engine) as s:
        rows = list(s.scalars(select(TableStatsRow).where(TableStatsRow.table_id.in_(ids))))
    if table_id == default_table:
        return _merged(table_id, rows, parlour)
    return _record(table_id, rows[0]) if rows else None


def has_table(store: EventStore, table_id: str, *, default_table: str | None) -> bool:
    """Whether the store has seen this table (the configured one always): index probes."""
    if table_id == default_table:
        return True
    with Session(store.engine) as s:
        for query in (
            select(HandRow.id).where(HandRow.table_id == table_id),
            select(SessionRow.id).where(SessionRow.table_id == table_id),
        ):
            if s.scalars(query.limit(1)).first() is not None:
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
    with Session(store.engine) as s:
        query = select(HandRow).where(
            _belongs(s, table_id, default_table),
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
        order = (
            (HandRow.started_at.asc(), HandRow.id.asc())
            if oldest_first
            else (HandRow.started_at.desc(), HandRow.id.desc())
        )
        query = query.order_by(*order).limit(limit).offset(offset)
        return [hand_record(hand) for hand in s.scalars(query)]


def table_of_hand(store: EventStore, hand_id: str, *, default_table: str) -> str | None:
    """The table a hand was played at, or None for an unknown hand."""
    query = select(func.coalesce(HandRow.table_id, default_table)).where(HandRow.id == hand_id)
    with Session(store.engine) as s:
        return s.scalars(query).first()


def settlements_for(store: EventStore, hand_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored settlement payloads of these hands (those that have one), by hand id."""
    out: dict[str, dict[str, Any]] = {}
    with Session(store.engine) as s:
        for start in range(0, len(hand_ids), 500):  # keep IN (...) lists short
            chunk = list(hand_ids[start : start + 500])
            query = select(SettlementRow.hand_id, SettlementRow.payload).where(
                SettlementRow.hand_id.in_(chunk)
            )
            out.update({hid: payload for hid, payload in s.execute(query)})
    return out


def table_sessions(
    store: EventStore, table_id: str, *, limit: int = 100, offset: int = 0
) -> list[SessionRecord]:
    """A table's sessions, newest first."""
    query = (
        select(SessionRow)
        .where(SessionRow.table_id == table_id)
        .order_by(SessionRow.started_at.desc(), SessionRow.id.desc())
        .limit(limit)
        .offset(offset)
    )
    with Session(store.engine) as s:
        return [session_record(r) for r in s.scalars(query)]


def quarantined(store: EventStore, *, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
    """The handlogs the hub refused (``controller.hub.ingest.quarantine``), newest first."""
    row = QuarantinedHandlogRow
    query = (
        select(row.id, row.received_at, row.topic, row.table_id, row.hand_id, row.reason, row.size)
        .order_by(row.id.desc())
        .limit(limit)
        .offset(offset)
    )
    with store.engine.connect() as conn:
        return [dict(r._mapping) for r in conn.execute(query)]
