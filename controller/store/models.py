"""The tables (SQLAlchemy 2 typed ORM). Portable types only: SQLite on the Pi, PostgreSQL at
the hub. A change here needs a migration in ``migrations/versions`` (a test compares them).

Ids of sessions and hands are strings chosen by the table (uuid hex by default), so the hub
can merge many tables' logs without renumbering.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Numeric,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator, TypeEngine

# Deterministic constraint names, so later migrations can drop or alter them by name.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Json(TypeDecorator[Any]):
    """JSON; JSONB on PostgreSQL. (``JSON().with_variant(JSONB(), "postgresql")`` says the
    same, but needs PostgreSQL's dialect imported to say it: 2 MB a table's Pi never uses.)"""

    impl = JSON
    cache_ok = True
    hashable = False  # as JSON: values are dicts and lists
    should_evaluate_none = True  # as JSON(): None is stored as JSON null

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB

            return dialect.type_descriptor(JSONB())
        return dialect.type_descriptor(JSON())


JsonType = Json()
# SQLite only aliases rowid for a plain INTEGER primary key.
BigId = BigInteger().with_variant(Integer(), "sqlite")
Money = Numeric(14, 4, asdecimal=False)  # exact on PostgreSQL; halves (÷2 shares) fit


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware one (UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        dict[str, Any]: JsonType,
        datetime: UTCDateTime,
    }


class SessionRow(Base):
    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_table_started", "table_id", "started_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    parlour: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str] = mapped_column(String(64))
    ruleset: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]]
    players: Mapped[list[str] | None] = mapped_column(JsonType)
    started_at: Mapped[datetime] = mapped_column(index=True)
    ended_at: Mapped[datetime | None]


class HandRow(Base):
    __tablename__ = "hands"
    __table_args__ = (
        Index("ix_hands_status_started", "status", "started_at"),
        # The owners' per-table hand log by date (the hub holds every table's hands); on
        # PostgreSQL it carries the nets, so a table's seat totals over a year of hands are
        # an index-only scan (no visit to a row per hand). That INCLUDE is made by migration
        # 0005 only: ``postgresql_include`` here would import PostgreSQL's dialect (2 MB) on
        # every Pi to check the argument, and the schema is the migrations' anyway.
        Index("ix_hands_table_started", "table_id", "started_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    hand_no: Mapped[int] = mapped_column(Integer)
    ruleset: Mapped[str] = mapped_column(String(64), index=True)
    dealer: Mapped[int | None] = mapped_column(SmallInteger)
    status: Mapped[str] = mapped_column(String(16))  # open | finished | aborted
    result: Mapped[str | None] = mapped_column(String(32))  # win, self_draw, draw, …
    winner: Mapped[int | None] = mapped_column(SmallInteger)
    discarder: Mapped[int | None] = mapped_column(SmallInteger)  # who dealt in
    started_at: Mapped[datetime] = mapped_column(index=True)
    ended_at: Mapped[datetime | None]
    note: Mapped[str | None] = mapped_column(Text)  # why a hand was aborted
    # When the parlour hub acknowledged this hand's handlog message (None: not yet).
    handlog_acked_at: Mapped[datetime | None]
    # Where it was played (the owners' queries find a table's hands by it, indexed): set at
    # the hub from the handlog, on a Pi when the hand starts (else from its session). None
    # only for a hand outside any session stored before that: the configured table's.
    parlour: Mapped[str | None] = mapped_column(String(64))
    table_id: Mapped[str | None] = mapped_column(String(64))
    # The settlement's nets, copied here when it is stored (None until then): the owners'
    # totals and lists read them from the hands row (and its index) alone.
    net_0: Mapped[float | None] = mapped_column(Money)
    net_1: Mapped[float | None] = mapped_column(Money)
    net_2: Mapped[float | None] = mapped_column(Money)
    net_3: Mapped[float | None] = mapped_column(Money)


class TableStatsRow(Base):
    """One row per table: what the owners' list of tables shows, kept up to date by every
    write (a session or hand started, a hand closed, hands ingested at the hub) in the same
    transaction, so listing the tables reads a row per table, not a million hands.
    ``table_id`` "" holds what no table was recorded for (the configured table's)."""

    __tablename__ = "table_stats"

    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    parlour: Mapped[str] = mapped_column(String(64))
    sessions: Mapped[int] = mapped_column(BigInteger)
    hands: Mapped[int] = mapped_column(BigInteger)
    open_hands: Mapped[int] = mapped_column(BigInteger)
    first_seen: Mapped[datetime | None]
    last_seen: Mapped[datetime | None]


class EventRow(Base):
    """Append-only: rows are never updated or deleted."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("hand_id", "seq"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[str] = mapped_column(ForeignKey("hands.id"))
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class SettlementRow(Base):
    __tablename__ = "settlements"

    hand_id: Mapped[str] = mapped_column(ForeignKey("hands.id"), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(64))
    void: Mapped[bool] = mapped_column(Boolean)
    net_0: Mapped[float] = mapped_column(Money)
    net_1: Mapped[float] = mapped_column(Money)
    net_2: Mapped[float] = mapped_column(Money)
    net_3: Mapped[float] = mapped_column(Money)
    payload: Mapped[dict[str, Any]]  # Settlement.as_dict(), as settled
    created_at: Mapped[datetime]


class OutboxRow(Base):
    """MQTT messages not yet acknowledged by the broker, drained in id order."""

    __tablename__ = "outbox"
    # Ids never reused (SQLite would reuse a deleted max rowid): order is id order.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    topic: Mapped[str] = mapped_column(String(255))
    payload: Mapped[str] = mapped_column(Text)  # the exact UTF-8 JSON text to publish
    qos: Mapped[int] = mapped_column(SmallInteger)
    retain: Mapped[bool] = mapped_column(Boolean)
    # Wall-clock seconds, not a monotonic clock: latency is measured across restarts too.
    enqueued_at: Mapped[float] = mapped_column(Float)


class AlertRow(Base):
    """Alerts as raised: the public message, and the private detail (which tile, which tag)
    that only the owner's log shows. Not a foreign key: an alert is kept whatever else fails."""

    __tablename__ = "alerts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    hand_id: Mapped[str | None] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int | None] = mapped_column(SmallInteger)
    message: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class OwnerRow(Base):
    """A parlour owner who may read the hand logs; the password is stored only as a hash."""

    __tablename__ = "owners"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))  # controller.web.passwords format
    created_at: Mapped[datetime]
    # In every login token; bumped (ending every login) by a logout or a new password.
    token_generation: Mapped[int] = mapped_column(Integer, server_default="0")


class QuarantinedHandlogRow(Base):
    """A handlog the hub refused (invalid, too big, refused by the database): kept with the
    reason for the owner to see, never stored as a hand, never in the way of the others."""

    __tablename__ = "quarantined_handlogs"
    __table_args__ = (Index("ix_quarantined_handlogs_received", "received_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    received_at: Mapped[datetime]
    topic: Mapped[str] = mapped_column(String(256))
    parlour: Mapped[str | None] = mapped_column(String(64))  # the sender's, from the topic
    table_id: Mapped[str | None] = mapped_column(String(64))
    hand_id: Mapped[str | None] = mapped_column(String(64))  # when the payload named one
    reason: Mapped[str] = mapped_column(Text)
    size: Mapped[int] = mapped_column(Integer)  # bytes received
    # The payload's start, NULs and undecodable bytes escaped (what a reviewer needs to see);
    # all of it for a valid handlog the database refused.
    excerpt: Mapped[str] = mapped_column(Text)
