"""Engines with the connection settings durability depends on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool


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
    engine = create_engine(parsed, echo=echo, **kwargs)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine
