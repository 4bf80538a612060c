"""Keeping ``table_stats`` (one row per table) current, inside the writer's transaction.

Every write that changes what the list of tables shows calls ``bump`` with the change, on
the same connection: a session started, a hand started (open) or closed, hands ingested at
the hub. An upsert per table, so a table's first session or hand creates its row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func

from controller.store.database import dialect_insert
from controller.store.models import TABLE_STATS


@dataclass(slots=True)
class Change:
    """What to add to one table's row (``table_id`` "": no table recorded)."""

    table_id: str
    parlour: str = ""
    sessions: int = 0
    hands: int = 0
    open_hands: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None

    def seen(self, *moments: datetime | None) -> Change:
        for at in moments:
            if at is None:
                continue
            self.first_seen = at if self.first_seen is None else min(at, self.first_seen)
            self.last_seen = at if self.last_seen is None else max(at, self.last_seen)
        return self


@dataclass(slots=True)
class Changes:
    """Changes to several tables, merged per table (one upsert each, in table order)."""

    by_table: dict[str, Change] = field(default_factory=dict)

    def of(self, table_id: str | None, parlour: str | None = None) -> Change:
        key = table_id or ""
        change = self.by_table.setdefault(key, Change(key))
        change.parlour = change.parlour or parlour or ""
        return change


def _postgres(conn: Connection) -> bool:
    return conn.dialect.name == "postgresql"


def _earliest(conn: Connection, a: Any, b: Any) -> Any:
    if _postgres(conn):
        return func.least(a, b)  # ignores NULLs
    return func.min(func.coalesce(a, b), func.coalesce(b, a))  # SQLite's min() would not


def _latest(conn: Connection, a: Any, b: Any) -> Any:
    if _postgres(conn):
        return func.greatest(a, b)
    return func.max(func.coalesce(a, b), func.coalesce(b, a))


def bump(conn: Connection, changes: Iterable[Change]) -> None:
    rows = [
        {
            "table_id": c.table_id,
            "parlour": c.parlour,
            "sessions": c.sessions,
            "hands": c.hands,
            "open_hands": c.open_hands,
            "first_seen": c.first_seen,
            "last_seen": c.last_seen,
        }
        for c in sorted(changes, key=lambda c: c.table_id)  # a fixed order: no deadlocks
    ]
    if not rows:
        return
    insert = dialect_insert("postgresql" if _postgres(conn) else "sqlite", TABLE_STATS)
    t, new = TABLE_STATS.c, insert.excluded
    statement = insert.on_conflict_do_update(
        index_elements=[t.table_id],
        set_={
            "parlour": func.coalesce(func.nullif(t.parlour, ""), new.parlour),
            "sessions": t.sessions + new.sessions,
            "hands": t.hands + new.hands,
            "open_hands": t.open_hands + new.open_hands,
            "first_seen": _earliest(conn, t.first_seen, new.first_seen),
            "last_seen": _latest(conn, t.last_seen, new.last_seen),
        },
    )
    conn.execute(statement, rows)
