"""Durable storage: sessions, hands, append-only events, settlements and the MQTT outbox.

SQLite (WAL) on the Pi, PostgreSQL at the hub; one schema, migrated with Alembic at start-up
(``EventStore.open(url)`` upgrades first; ``controller.store.migrate.upgrade`` does it alone).
"""

from controller.store.database import make_engine
from controller.store.event_store import EventStore
from controller.store.records import (
    HandClosed,
    HandRecord,
    HandSettled,
    OutboxEntry,
    OutboxMessage,
    SequenceConflict,
    SessionRecord,
    StoredEvent,
    StoredHand,
    StoreError,
    StoreInputError,
    UnknownHand,
    UnknownSession,
)

__all__ = [
    "EventStore",
    "HandClosed",
    "HandRecord",
    "HandSettled",
    "OutboxEntry",
    "OutboxMessage",
    "SequenceConflict",
    "SessionRecord",
    "StoreError",
    "StoreInputError",
    "StoredEvent",
    "StoredHand",
    "UnknownHand",
    "UnknownSession",
    "make_engine",
]
