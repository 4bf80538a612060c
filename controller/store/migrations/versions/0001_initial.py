"""Initial schema: sessions, hands, events, settlements, outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

# Frozen copies of the model types: a migration must not change when models.py does.
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
MONEY = sa.Numeric(14, 4, asdecimal=False)
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("parlour", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("players", JSON, nullable=True),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("ended_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
    )
    op.create_index(op.f("ix_sessions_started_at"), "sessions", ["started_at"])

    op.create_table(
        "hands",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(64), nullable=True),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("dealer", sa.SmallInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.String(32), nullable=True),
        sa.Column("winner", sa.SmallInteger(), nullable=True),
        sa.Column("discarder", sa.SmallInteger(), nullable=True),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("ended_at", TIME, nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("handlog_acked_at", TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_hands_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
    )
    op.create_index(op.f("ix_hands_ruleset"), "hands", ["ruleset"])
    op.create_index(op.f("ix_hands_session_id"), "hands", ["session_id"])
    op.create_index(op.f("ix_hands_started_at"), "hands", ["started_at"])
    op.create_index("ix_hands_status_started", "hands", ["status", "started_at"])

    op.create_table(
        "events",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("hand_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name=op.f("fk_events_hand_id_hands")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("hand_id", "seq", name=op.f("uq_events_hand_id_seq")),
    )

    op.create_table(
        "settlements",
        sa.Column("hand_id", sa.String(64), nullable=False),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("void", sa.Boolean(), nullable=False),
        sa.Column("net_0", MONEY, nullable=False),
        sa.Column("net_1", MONEY, nullable=False),
        sa.Column("net_2", MONEY, nullable=False),
        sa.Column("net_3", MONEY, nullable=False),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_settlements_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("hand_id", name=op.f("pk_settlements")),
    )

    op.create_table(
        "outbox",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("qos", sa.SmallInteger(), nullable=False),
        sa.Column("retain", sa.Boolean(), nullable=False),
        sa.Column("enqueued_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_table("settlements")
    op.drop_table("events")
    op.drop_table("hands")
    op.drop_table("sessions")
