"""Engines with the connection settings durability depends on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

# Each SQLite connection keeps its own page cache, 2 MiB by default, filled page by page as
# the database grows: with the pool's connections that is several MiB a Pi's service gains
# over hundreds of hands (bench/latency.py --soak saw RSS rise ~1 MB per 100 hands). The
# table writes at the ends of a few indexes and reads back one hand at a time; the OS page
# cache holds the file anyway.
CACHE_KIB = 512
# Connections kept open: the event loop's and one worker's (the publisher acks from a
# thread) at once. More may open for a burst (the web app, the hub sync); they are closed
# when returned instead of staying, each with its cache and two descriptors.
POOL_SIZE = 2
POOL_OVERFLOW = 8


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        # FULL, not NORMAL: in WAL mode NORMAL may lose the last commits on a power cut, and
        # an appended event must survive once append() has returned. The fsync per commit is
        # a few ms on an SD card, against events a few seconds apart.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")  # the publisher's deletes vs appends
        cursor.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    finally:
        cursor.close()


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine for ``url``; for a SQLite file, its folder is created if missing."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(parsed, echo=echo, pool_pre_ping=True)
    database = parsed.database
    in_memory = not database or database == ":memory:"
    kwargs: dict[str, Any] = {
        # The pool hands a connection to one thread at a time; the publisher drains the
        # outbox from a worker thread.
        "connect_args": {"check_same_thread": False, "timeout": 10},
    }
    if in_memory:
        kwargs["poolclass"] = StaticPool  # one shared connection, or each gets its own DB
    else:
        Path(database or "").parent.mkdir(parents=True, exist_ok=True)
        kwargs |= {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
    engine = create_engine(parsed, echo=echo, **kwargs)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def dialect_insert(dialect: str, table: Any) -> Any:
    """The INSERT of ``dialect`` ("postgresql", else SQLite's), for ``on_conflict_do_…``;
    the dialect is imported when first asked for: a table's Pi never loads PostgreSQL's."""
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(table)
