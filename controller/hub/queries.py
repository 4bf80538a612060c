"""The hub's own owner queries, on ``hands.table_id`` (always set there) so that they use
``ix_hands_table_started`` whatever the size: a table's per-seat totals, the tables' ids.
A table's hand log and the list of tables are controller.store.tables (one implementation
for a Pi and the hub). Measured by bench/hub.py over a million hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, literal_column, select, text
from sqlalchemy.orm import Session

from controller.store import EventStore
from controller.store.models import HandRow, SettlementRow
from controller.store.tables import started_between


@dataclass(frozen=True, slots=True)
class SeatTotals:
    table_id: str
    hands: int  # settled hands counted
    net: tuple[float, float, float, float]


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
        .where(HandRow.table_id == table_id, *started_between(since, until))
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
