"""The hub's own owner queries, on ``hands.table_id`` (always set there) so that they use
``ix_hands_table_started`` whatever the size: a table's per-seat totals, the tables' ids.
A table's hand log and the list of tables are controller.store.tables (one implementation
for a Pi and the hub). Measured by bench/hub.py over a million hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from controller.store import EventStore
from controller.store.hand_filters import started_between
from controller.store.models import HANDS, TABLE_STATS


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
    # The hands rows' own nets (ix_hands_table_started carries them on PostgreSQL: an
    # index-only scan); count(net_0) counts the settled hands.
    query = select(
        func.count(HANDS.c.net_0),
        func.coalesce(func.sum(HANDS.c.net_0), 0),
        func.coalesce(func.sum(HANDS.c.net_1), 0),
        func.coalesce(func.sum(HANDS.c.net_2), 0),
        func.coalesce(func.sum(HANDS.c.net_3), 0),
    ).where(HANDS.c.table_id == table_id, *started_between(since, until))
    with store.engine.connect() as c:
        row = c.execute(query).one()
    n, n0, n1, n2, n3 = row  # sums, never NULL (coalesce)
    return SeatTotals(table_id, int(n), (n0 or 0, n1 or 0, n2 or 0, n3 or 0))


def table_ids(store: EventStore) -> list[str]:
    """Every table the hub has hands or sessions of, sorted (a row each in table_stats)."""
    query = select(TABLE_STATS.c.table_id).where(TABLE_STATS.c.table_id != "")
    with store.engine.connect() as c:
        return sorted(c.scalars(query))
