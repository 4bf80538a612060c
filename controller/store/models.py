"""The tables, as SQLAlchemy Core ``Table`` objects on one ``METADATA`` (Alembic's target).
Portable types only: SQLite on the Pi, PostgreSQL at the hub. A change here needs a
migration in ``migrations/versions`` (a test compares them).

Core, not the ORM: ``sqlalchemy.orm`` and mapped classes cost a Pi's service 6 MB of
resident memory once imported (8 MB after 100 hands, bench/latency.py --soak), to read and
write rows the store turns into records anyway (controller/store/records.py).

Ids of sessions and hands are strings chosen by the table (uuid hex by default), so the hub
can merge many tables' logs without renumbering.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
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
    Table,
    Text,
    UniqueConstraint,
)
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


METADATA = MetaData(naming_convention=NAMING)


# A column is NOT NULL (``_col``) or may be NULL (``_opt``), said every time: Core's own
# default is nullable, and the migrations made NOT NULL what is not ``_opt``.
def _col(name: str, kind: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    return Column(name, kind, *args, nullable=False, **kwargs)


def _opt(name: str, kind: Any, *args: Any, **kwargs: Any) -> Column[Any]:
    return Column(name, kind, *args, nullable=True, **kwargs)


SESSIONS = Table(
    "sessions",
    METADATA,
    _col("id", String(64), primary_key=True),
    _col("parlour", String(64)),
    _col("table_id", String(64)),
    _col("ruleset", String(64)),
    _col("options", JsonType),
    _opt("players", JsonType),
    _col("started_at", UTCDateTime(), index=True),
    _opt("ended_at", UTCDateTime()),
    # The house ruleset it plays ({"name", "version"}; None: table.toml's [ruleset]);
    # ``ruleset`` and ``options`` are its values (controller.table.house_choice).
    _opt("house", JsonType),
    Index("ix_sessions_table_started", "table_id", "started_at"),
)

HANDS = Table(
    "hands",
    METADATA,
    _col("id", String(64), primary_key=True),
    _opt("session_id", String(64), ForeignKey("sessions.id"), index=True),
    _col("hand_no", Integer),
    _col("ruleset", String(64), index=True),
    _opt("dealer", SmallInteger),
    _col("status", String(16)),  # open | finished | aborted
    _opt("result", String(32)),  # win, self_draw, draw, …
    _opt("winner", SmallInteger),
    _opt("discarder", SmallInteger),  # who dealt in
    _col("started_at", UTCDateTime(), index=True),
    _opt("ended_at", UTCDateTime()),
    _opt("note", Text),  # why a hand was aborted
    # When the parlour hub acknowledged this hand's handlog message (None: not yet).
    _opt("handlog_acked_at", UTCDateTime()),
    # Where it was played (the owners' queries find a table's hands by it, indexed): set at
    # the hub from the handlog, on a Pi when the hand starts (else from its session). None
    # only for a hand outside any session stored before that: the configured table's.
    _opt("parlour", String(64)),
    _opt("table_id", String(64)),
    # The settlement's nets, copied here when it is stored (None until then): the owners'
    # totals and lists read them from the hands row (and its index) alone.
    _opt("net_0", Money),
    _opt("net_1", Money),
    _opt("net_2", Money),
    _opt("net_3", Money),
    # The table's own running number of the hand (1, 2, 3 … across its sessions): the
    # order of its hands, which a wall clock that jumps (a Pi before NTP) cannot give.
    _opt("table_seq", BigInteger),
    # The wall clock as a fact that may be wrong: False when the table's clock was not yet
    # set (before the build date), True when systemd-timesyncd had synchronised it, None
    # when unknown. ``played_s``: how long the hand took, by the monotonic clock.
    _opt("clock_synced", Boolean),
    _opt("played_s", Float),
    # Who sat where when the hand started: 4 entries by seat, each None (a guest) or
    # {"member_id", "name"} (the name as it was then); None on hands from before members.
    # A member's deletion turns their entries into None (controller.store.members).
    _opt("players", JsonType),
    # The hand's dice against their commitment (controller.table.dice.check_dice), checked at
    # the hub as the hand arrives: "ok", "failed" (``dice_problem`` says why) or
    # "unverified" (no commitment in its log); None: not checked (a table's own store).
    _opt("dice_check", String(16)),
    _opt("dice_problem", Text),
    # The house ruleset it was played under ({"name", "version"}; None: none); its values
    # are in its hand_started event (ruleset, options), which replay and settle read.
    _opt("house", JsonType),
    Index("ix_hands_status_started", "status", "started_at"),
    Index("ix_hands_table_seq", "table_id", "table_seq"),
    # The owners' per-table hand log by date (the hub holds every table's hands); on
    # PostgreSQL it carries the nets, so a table's seat totals over a year of hands are
    # an index-only scan (no visit to a row per hand). That INCLUDE is made by migration
    # 0005 only: ``postgresql_include`` here would import PostgreSQL's dialect (2 MB) on
    # every Pi to check the argument, and the schema is the migrations' anyway.
    Index("ix_hands_table_started", "table_id", "started_at"),
)

# One row per table: what the owners' list of tables shows, kept up to date by every write
# (a session or hand started, a hand closed, hands ingested at the hub) in the same
# transaction, so listing the tables reads a row per table, not a million hands.
# ``table_id`` "" holds what no table was recorded for (the configured table's).
TABLE_STATS = Table(
    "table_stats",
    METADATA,
    _col("table_id", String(64), primary_key=True),
    _col("parlour", String(64)),
    _col("sessions", BigInteger),
    _col("hands", BigInteger),
    _col("open_hands", BigInteger),
    _opt("first_seen", UTCDateTime()),
    _opt("last_seen", UTCDateTime()),
)

# Append-only: rows are never updated or deleted.
EVENTS = Table(
    "events",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("hand_id", String(64), ForeignKey("hands.id")),
    _col("seq", Integer),
    _col("type", String(64)),
    _col("payload", JsonType),
    _col("created_at", UTCDateTime()),
    UniqueConstraint("hand_id", "seq"),
)

SETTLEMENTS = Table(
    "settlements",
    METADATA,
    _col("hand_id", String(64), ForeignKey("hands.id"), primary_key=True),
    _col("ruleset", String(64)),
    _col("void", Boolean),
    _col("net_0", Money),
    _col("net_1", Money),
    _col("net_2", Money),
    _col("net_3", Money),
    _col("payload", JsonType),  # Settlement.as_dict(), as settled
    _col("created_at", UTCDateTime()),
)

# MQTT messages not yet acknowledged by the broker, drained in id order.
OUTBOX = Table(
    "outbox",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("topic", String(255)),
    _col("payload", Text),  # the exact UTF-8 JSON text to publish
    _col("qos", SmallInteger),
    _col("retain", Boolean),
    # Wall-clock seconds, not a monotonic clock: latency is measured across restarts too.
    _col("enqueued_at", Float),
    # Ids never reused (SQLite would reuse a deleted max rowid): order is id order.
    sqlite_autoincrement=True,
)

# Alerts as raised: the public message, and the private detail (which tile, which tag)
# that only the owner's log shows. Not a foreign key: an alert is kept whatever else fails.
ALERTS = Table(
    "alerts",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _opt("hand_id", String(64), index=True),
    _col("kind", String(64)),
    _opt("seat", SmallInteger),
    _col("message", Text),
    _col("detail", Text),
    _col("created_at", UTCDateTime()),
)

# A parlour owner who may read the hand logs; the password is stored only as a hash.
OWNERS = Table(
    "owners",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("name", String(64), unique=True),
    _col("password_hash", String(255)),  # controller.web.passwords format
    _col("created_at", UTCDateTime()),
    # In every login token; bumped (ending every login) by a logout or a new password.
    _col("token_generation", Integer, server_default="0"),
    # "owner", or "staff": acts on the live hand of its tables only (docs/staff.md)
    _col("role", String(16), server_default="owner"),
    _opt("tables", Text),  # a staff account's tables, as a JSON list of table ids
)

# What the owners decided, by name, as JSON: "staff" is which acts staff may do and the
# penalty amounts a ruleset does not have (controller.store.owners.StaffPolicy).
OWNER_SETTINGS = Table(
    "owner_settings",
    METADATA,
    _col("name", String(64), primary_key=True),
    _col("value", Text),
    _col("updated_at", UTCDateTime()),
    _col("updated_by", String(64)),
)

# A handlog the hub refused (invalid, too big, refused by the database): kept with the
# reason for the owner to see, never stored as a hand, never in the way of the others.
QUARANTINED_HANDLOGS = Table(
    "quarantined_handlogs",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("received_at", UTCDateTime()),
    _col("topic", String(256)),
    _opt("parlour", String(64)),  # the sender's, from the topic
    _opt("table_id", String(64)),
    _opt("hand_id", String(64)),  # when the payload named one
    _col("reason", Text),
    _col("size", Integer),  # bytes received
    # The payload's start, NULs and undecodable bytes escaped (what a reviewer needs to see);
    # all of it for a valid handlog the database refused.
    _col("excerpt", Text),
    Index("ix_quarantined_handlogs_received", "received_at"),
)

# The parlour's members (docs/players.md). A deleted member keeps only a tombstone row
# (``deleted_at``, no name, no card), so a hand log arriving later is anonymised too.
# ``home_table``: the table whose registry holds the member (the hub merges tables' ones).
MEMBERS = Table(
    "members",
    METADATA,
    _col("member_id", String(32), primary_key=True),  # uuid4 hex
    _opt("name", String(32)),
    _opt("card_tag", String(64), unique=True),  # the card's UID, lowercase hex
    _col("active", Boolean),
    _opt("home_table", String(64)),
    _col("created_at", UTCDateTime()),
    _col("updated_at", UTCDateTime()),
    _opt("deleted_at", UTCDateTime()),
    # sha256 hex of the member's personal link token (None: no link)
    _opt("link_hash", String(64), unique=True),
)

# Who sat down or left which seat, by whom, when (append-only but for a deletion's
# anonymising). ``member_id`` None: the seat is left to a guest. ``hand_id``: the hand
# that first started with this seating (None until one did).
SEAT_ACTS = Table(
    "seat_acts",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("table_id", String(64)),
    _col("parlour", String(64)),
    _col("seat", SmallInteger),
    _opt("member_id", String(32)),
    _opt("name", String(32)),
    _col("by", String(80)),  # "card", or "<role>:<account>" (staff:li, owner:wang)
    _col("at", UTCDateTime()),
    _opt("hand_id", String(64), index=True),
    Index("ix_seat_acts_table", "table_id", "id"),
)

# The first answer to each request a person sent with an ``Idempotency-Key`` (the staff's
# and the owners' acts on the table): the same key again gets this answer, and the act is
# not done twice (controller.store.request_keys). ``fingerprint``: the request it answered.
REQUEST_KEYS = Table(
    "request_keys",
    METADATA,
    _col("account", String(64), primary_key=True),
    _col("key", String(64), primary_key=True),
    _col("fingerprint", String(64)),
    _col("answer", JsonType),
    _col("created_at", UTCDateTime(), index=True),
)

# House rulesets (docs/house-rules.md): a built-in preset and the owners' option values on
# top of it, under a name; ``version`` counts its saves from 1.
HOUSE_RULESETS = Table(
    "house_rulesets",
    METADATA,
    _col("name", String(64), primary_key=True),
    _col("base", String(64)),  # a built-in preset id (xingguo …)
    _col("options", JsonType),  # {"win.deguo_bonus": 10}: the values that differ from base's
    _col("version", Integer),
    _col("updated_by", String(80)),
    _col("updated_at", UTCDateTime()),
)

# Which house ruleset a table plays: taken at its next session (``from_next_hand``: at its
# next hand); ``version``: the ruleset's version assigned. ``applied_*``: what the table
# reported it plays (the hub's view), ``problem``: why it refused the assignment.
HOUSE_ASSIGNMENTS = Table(
    "house_assignments",
    METADATA,
    _col("table_id", String(64), primary_key=True),
    _col("name", String(64)),
    _col("version", Integer),
    _col("from_next_hand", Boolean),
    _col("assigned_by", String(80)),
    _col("assigned_at", UTCDateTime()),
    _opt("applied_version", Integer),
    _opt("applied_at", UTCDateTime()),
    _opt("problem", Text),
)

# Every save and assignment of a house ruleset: who, when, the values before and after
# (append-only).
HOUSE_AUDIT = Table(
    "house_audit",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("at", UTCDateTime(), index=True),
    _col("by", String(80)),
    _col("action", String(16)),  # "save" | "assign"
    _col("name", String(64)),
    _opt("table_id", String(64)),
    _opt("old", JsonType),
    _col("new", JsonType),
)

# The players' phones (docs/play.md): the session's join code and the phone holding each
# seat (its token's hash only), kept so a restart does not ask the phones to join again;
# ``expires``: the wall clock (Unix seconds) past which they join nothing.
PHONE_CODES = Table(
    "phone_codes",
    METADATA,
    _col("table_id", String(64), primary_key=True),
    _col("code", String(16)),
    _col("session_key", String(64)),
    _col("expires", Float),
)
PHONE_SEATS = Table(
    "phone_seats",
    METADATA,
    _col("table_id", String(64), primary_key=True),
    _col("seat", SmallInteger, primary_key=True),
    _col("token_hash", String(64)),
    _col("name", String(32)),
    _opt("member_id", String(32)),
    _col("session_key", String(64)),
    _col("sid", String(16)),
    _col("expires", Float),
)
# Each phone's join and leave, and staff freeing a seat (append-only): who and when, for
# the owners (a guest's join is in no hand's events until it acts).
PHONE_JOINS = Table(
    "phone_joins",
    METADATA,
    _col("id", BigId, primary_key=True, autoincrement=True),
    _col("table_id", String(64)),
    _col("act", String(16)),  # "join" | "leave" | "release"
    _col("seat", SmallInteger),
    _col("name", String(32)),
    _opt("member_id", String(32)),
    _col("sid", String(16)),
    _col("session_key", String(64)),
    _col("by", String(80)),  # the phone (``phone:<sid>``), or staff's account
    _col("at", UTCDateTime()),
    Index("ix_phone_joins_table", "table_id", "id"),
)
