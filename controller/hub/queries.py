"""The owners' queries at the hub, on ``hands.table_id`` (always set there) so that they use
``ix_hands_table_started`` whatever the size: a table's hand log by date with filters, its
per-seat totals, the tables. Measured by bench/hub.py over a million hands.

(The table's own store may have hands without ``table_id``; controller.store.tables covers
those through their sessions.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import ColumnElement, func, literal_column, or_, select, text
from sqlalchemy.orm import Session

from controller.store import EventStore, HandRecord
from controller.store.event_store import _hand_record
from controller.store.models import HandRow, SettlementRow


@dataclass(frozen=True, slots=True)
class SeatTotals:
    table_id: str
    hands: int  # settled hands counted
    net: tuple[float, float, float, float]


def _window(since: datetime | None, until: datetime | None) -> list[ColumnElement[bool]]:
    conds: list[ColumnElement[bool]] = []
    if since is not None:
        conds.append(HandRow.started_at >= since)
    if until is not None:
        conds.append(HandRow.started_at < until)
    return conds


def table_hand_log(
    store: EventStore,
    table_id: str,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    ruleset: str | None = None,
    result: str | None = None,
    winner: int | None = None,
    seat: int | None = None,
    oldest_first: bool = False,
    limit: int = 100,
    offset: int = 0,
) -> list[HandRecord]:
    """A table's hands, newest first; ``seat``: hands it won or dealt in."""
    # The nets only, not the settlement's JSON: a list shows 100 hands, a hand shows one.
    nets = (SettlementRow.net_0, SettlementRow.net_1, SettlementRow.net_2, SettlementRow.net_3)
    query = (
        select(HandRow, *nets)
        .outerjoin(SettlementRow, SettlementRow.hand_id == HandRow.id)
        .where(HandRow.table_id == table_id, *_window(since, until))
    )
    if ruleset is not None:
        query = query.where(HandRow.ruleset == ruleset)
    if result is not None:
        query = query.where(HandRow.result == result)
    if winner is not None:
        query = query.where(HandRow.winner == winner)
    if seat is not None:
        query = query.where(or_(HandRow.winner == seat, HandRow.discarder == seat))
    order = (
        (HandRow.started_at.asc(), HandRow.id.asc())
        if oldest_first
        else (HandRow.started_at.desc(), HandRow.id.desc())
    )
    query = query.order_by(*order).limit(limit).offset(offset)
    with Session(store.engine) as s:
        out = []
        for hand, n0, n1, n2, n3 in s.execute(query):
            record = _hand_record(hand, None)
            out.append(record if n0 is None else replace(record, net=(n0, n1, n2, n3)))
        return out


def seat_totals(
    store: EventStore,
    table_id: str,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
) -> SeatTotals:
    """Each seat's net over the table's settled hands in the window, summed in the database."""
    query = (
        select(
            func.count(SettlementRow.hand_id),
            func.coalesce(func.sum(SettlementRow.net_0), 0),
            func.coalesce(func.sum(SettlementRow.net_1), 0),
            func.coalesce(func.sum(SettlementRow.net_2), 0),
            func.coalesce(func.sum(SettlementRow.net_3), 0),
        )
        .select_from(HandRow)
        .join(SettlementRow, SettlementRow.hand_id == HandRow.id)
        .where(HandRow.table_id == table_id, *_window(since, until))
    )
    with Session(store.engine) as s:
        row = s.execute(query).one()
    return SeatTotals(table_id, int(row[0]), (row[1], row[2], row[3], row[4]))


# A loose index scan: one index probe per table instead of reading every hand.
_TABLES = text(
    """
    WITH RECURSIVE t(table_id) AS (
        (SELECT table_id FROM hands WHERE table_id IS NOT NULL ORDER BY table_id LIMIT 1)
        UNION ALL
        SELECT (SELECT h.table_id FROM hands h WHERE h.table_id > t.table_id
                ORDER BY h.table_id LIMIT 1)
        FROM t WHERE t.table_id IS NOT NULL
    )
    SELECT table_id FROM t WHERE table_id IS NOT NULL
    """
)


def table_ids(store: EventStore) -> list[str]:
    """Every table the hub has hands of, sorted."""
    with Session(store.engine) as s:
        if store.engine.dialect.name == "postgresql":
            return [r[0] for r in s.execute(_TABLES)]
        query = select(HandRow.table_id).where(HandRow.table_id.is_not(None)).distinct()
        return sorted(r for r in s.scalars(query.order_by(literal_column("1"))) if r)
