"""Queries by table, for the owners' web app on a Pi and at the hub: which tables the store
has seen, and their hands.

A hand's table is ``hands.table_id`` (set at the hub from the handlog; on a Pi when the hand
starts, or from its session; migration 0004 back-filled older hands), so every query uses
``ix_hands_table_started`` whatever the size. A hand with NULL there (one played outside any
session before the table was recorded) belongs to the table the service is configured as
(``default_table``): such hands are looked for only when one exists, so the common case is
the plain indexed query. At the hub pass ``default_table=None`` (or the hub's own name).
Measured by bench/hub.py over a million hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session

from controller.store.event_store import OPEN, EventStore, _hand_record, _session_record
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

    def record(self, table_id: str) -> TableRecord:
        return TableRecord(
            table_id,
            self.parlour,
            self.sessions,
            self.hands,
            self.open_hands,
            self.first_seen,
            self.last_seen,
        )


def _untabled(s: Session) -> bool:
    """Whether any hand has no ``table_id`` (an index probe)."""
    query = select(HandRow.id).where(HandRow.table_id.is_(None)).limit(1)
    return s.scalars(query).first() is not None


def _belongs(s: Session, table_id: str, default_table: str | None) -> ColumnElement[bool]:
    if table_id == default_table and _untabled(s):
        return or_(HandRow.table_id == table_id, HandRow.table_id.is_(None))
    return HandRow.table_id == table_id


def started_between(since: datetime | None, until: datetime | None) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = []
    if since is not None:
        conds.append(HandRow.started_at >= since)
    if until is not None:
        conds.append(HandRow.started_at < until)
    return conds


def _hand_stats() -> Any:
    # Only columns of ix_hands_table_started (an index-only scan); open hands apart, by
    # ix_hands_status_started (they are few).
    return func.count(), func.min(HandRow.started_at), func.max(HandRow.started_at)


def _session_stats() -> Any:
    return (
        func.min(SessionRow.parlour),
        func.count(SessionRow.id),
        func.min(SessionRow.started_at),
        func.max(SessionRow.started_at),
    )


def list_tables(
    store: EventStore, *, default_table: str | None, parlour: str = ""
) -> list[TableRecord]:
    """Every table seen in sessions or hands, and the configured one even before any hand:
    two aggregates grouped by the indexed ``table_id``, no join."""
    hands_q = select(HandRow.table_id, *_hand_stats()).group_by(HandRow.table_id)
    open_q = (
        select(HandRow.table_id, func.count())
        .where(HandRow.status == OPEN)
        .group_by(HandRow.table_id)
    )
    sessions_q = select(SessionRow.table_id, *_session_stats()).group_by(SessionRow.table_id)
    found: dict[str, _Acc] = {} if default_table is None else {default_table: _Acc(parlour)}

    def acc_of(tid: str | None, par: str = "") -> _Acc | None:
        key = tid or default_table  # no table recorded: the configured one's
        return None if key is None else found.setdefault(key, _Acc(par))

    with Session(store.engine) as s:
        for tid, par, n, first, last in s.execute(sessions_q):
            if (acc := acc_of(tid, par or "")) is not None:
                acc.parlour = par or acc.parlour
                acc.sessions += n
                acc.seen(first, last)
        for tid, n, first, last in s.execute(hands_q):
            if (acc := acc_of(tid)) is not None:
                acc.hands += n
                acc.seen(first, last)
        for tid, n in s.execute(open_q):
            if (acc := acc_of(tid)) is not None:
                acc.open_hands += n
    return [a.record(tid) for tid, a in sorted(found.items())]


def table_record(
    store: EventStore, table_id: str, *, default_table: str | None, parlour: str = ""
) -> TableRecord | None:
    """One table as ``list_tables`` lists it (only its own rows read), or None if unknown."""
    ids = [table_id, ""] if table_id == default_table else [table_id]
    with Session(store.engine) as s:
        belongs = _belongs(s, table_id, default_table)
        hands_q = select(*_hand_stats()).where(belongs)
        open_q = select(func.count()).select_from(HandRow).where(belongs, HandRow.status == OPEN)
        sessions_q = select(*_session_stats()).where(SessionRow.table_id.in_(ids))
        par, n_sessions, s_first, s_last = s.execute(sessions_q).one()
        n_hands, h_first, h_last = s.execute(hands_q).one()
        n_open = s.scalar(open_q)
    if not n_sessions and not n_hands and table_id != default_table:
        return None
    acc = _Acc(par or (parlour if table_id == default_table else ""))
    acc.sessions, acc.hands, acc.open_hands = n_sessions, n_hands, n_open or 0
    acc.seen(s_first, s_last)
    acc.seen(h_first, h_last)
    return acc.record(table_id)


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
    # The nets only, not the settlement's JSON: a list shows 100 hands, a hand shows one.
    nets = (SettlementRow.net_0, SettlementRow.net_1, SettlementRow.net_2, SettlementRow.net_3)
    with Session(store.engine) as s:
        query = (
            select(HandRow, *nets)
            .outerjoin(SettlementRow, SettlementRow.hand_id == HandRow.id)
            .where(_belongs(s, table_id, default_table), *started_between(since, until))
        )
        if ruleset is not None:
            query = query.where(HandRow.ruleset == ruleset)
        if status is not None:
            query = query.where(HandRow.status == status)
        if result is not None:
            query = query.where(HandRow.result == result)
        if winner is not None:
            query = query.where(HandRow.winner == winner)
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
        out = []
        for hand, n0, n1, n2, n3 in s.execute(query):
            record = _hand_record(hand, None)
            out.append(record if n0 is None else replace(record, net=(n0, n1, n2, n3)))
        return out


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
        return [_session_record(r) for r in s.scalars(query)]
