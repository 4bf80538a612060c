"""Queries by table, for the owners' web app: which tables the store has seen, and their hands.

A Pi stores one table's hands; the hub stores many. A hand's table is its own ``table_id``
(always set at the hub), else its session's; a hand with neither belongs to the table the
service is configured as (``default_table``), so a table always lists every hand it played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, case, func, or_, select
from sqlalchemy.orm import Session

from controller.store.event_store import (
    OPEN,
    EventStore,
    _hand_record,
    _hands_query,
    _session_record,
)
from controller.store.models import HandRow, SessionRow, SettlementRow
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


@dataclass(slots=True)
class _Acc:
    parlour: str
    sessions: int = 0
    hands: int = 0
    open_hands: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None

    def seen(self, first: datetime | None, last: datetime | None) -> None:
        if first is not None:
            self.first_seen = first if self.first_seen is None else min(first, self.first_seen)
        if last is not None:
            self.last_seen = last if self.last_seen is None else max(last, self.last_seen)


def _hand_table(default_table: str) -> ColumnElement[str]:
    return func.coalesce(HandRow.table_id, SessionRow.table_id, default_table)


def _belongs(table_id: str, default_table: str) -> ColumnElement[bool]:
    return _hand_table(default_table) == table_id


def list_tables(store: EventStore, *, default_table: str, parlour: str = "") -> list[TableRecord]:
    """Every table seen in sessions or hands, and the configured one even before any hand."""
    table = _hand_table(default_table)
    hands_q = (
        select(
            table,
            func.count(HandRow.id),
            func.sum(case((HandRow.status == OPEN, 1), else_=0)),
            func.min(HandRow.started_at),
            func.max(HandRow.started_at),
        )
        .select_from(HandRow)
        .outerjoin(SessionRow, SessionRow.id == HandRow.session_id)
        .group_by(table)
    )
    sessions_q = select(
        SessionRow.table_id,
        func.min(SessionRow.parlour),
        func.count(SessionRow.id),
        func.min(SessionRow.started_at),
        func.max(SessionRow.started_at),
    ).group_by(SessionRow.table_id)
    found: dict[str, _Acc] = {default_table: _Acc(parlour)}
    with Session(store.engine) as s:
        for tid, par, n, first, last in s.execute(sessions_q):
            acc = found.setdefault(tid, _Acc(par or ""))
            acc.parlour = par or acc.parlour
            acc.sessions = n
            acc.seen(first, last)
        for tid, n, n_open, first, last in s.execute(hands_q):
            acc = found.setdefault(tid, _Acc(""))
            acc.hands, acc.open_hands = n, n_open or 0
            acc.seen(first, last)
    return [
        TableRecord(tid, a.parlour, a.sessions, a.hands, a.open_hands, a.first_seen, a.last_seen)
        for tid, a in sorted(found.items())
    ]


def table_hands(
    store: EventStore,
    table_id: str,
    *,
    default_table: str,
    since: datetime | None = None,
    until: datetime | None = None,
    ruleset: str | None = None,
    status: str | None = None,
    result: str | None = None,
    seat: int | None = None,
    session_id: str | None = None,
    oldest_first: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> list[HandRecord]:
    """A table's hands, newest first unless ``oldest_first``. ``seat``: hands that seat won
    or dealt in (as ``EventStore.list_hands``); ``until`` is exclusive."""
    query = _hands_query().outerjoin(SessionRow, SessionRow.id == HandRow.session_id)
    query = query.where(_belongs(table_id, default_table))
    if since is not None:
        query = query.where(HandRow.started_at >= since)
    if until is not None:
        query = query.where(HandRow.started_at < until)
    if ruleset is not None:
        query = query.where(HandRow.ruleset == ruleset)
    if status is not None:
        query = query.where(HandRow.status == status)
    if result is not None:
        query = query.where(HandRow.result == result)
    if seat is not None:
        query = query.where(or_(HandRow.winner == seat, HandRow.discarder == seat))
    if session_id is not None:
        query = query.where(HandRow.session_id == session_id)
    order = (
        (HandRow.started_at.asc(), HandRow.id.asc())
        if oldest_first
        else (HandRow.started_at.desc(), HandRow.id.desc())
    )
    query = query.order_by(*order).limit(limit).offset(offset)
    with Session(store.engine) as s:
        return [_hand_record(h, st) for h, st in s.execute(query)]


def table_of_hand(store: EventStore, hand_id: str, *, default_table: str) -> str | None:
    """The table a hand was played at, or None for an unknown hand."""
    query = (
        select(_hand_table(default_table))
        .select_from(HandRow)
        .outerjoin(SessionRow, SessionRow.id == HandRow.session_id)
        .where(HandRow.id == hand_id)
    )
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
        return [_session_record(r) for r in s.scalars(query)]
