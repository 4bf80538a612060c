"""Members of the parlour, who sat where (seat acts), and each hand's players.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def UTCDateTime() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("players", JSON, nullable=True))
    op.create_table(
        "members",
        sa.Column("member_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(32), nullable=True),
        sa.Column("card_tag", sa.String(64), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("home_table", sa.String(64), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("deleted_at", UTCDateTime(), nullable=True),
        sa.Column("link_hash", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("member_id", name="pk_members"),
        sa.UniqueConstraint("card_tag", name="uq_members_card_tag"),
        sa.UniqueConstraint("link_hash", name="uq_members_link_hash"),
    )
    op.create_table(
        "seat_acts",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("parlour", sa.String(64), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("member_id", sa.String(32), nullable=True),
        sa.Column("name", sa.String(32), nullable=True),
        sa.Column("by", sa.String(80), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("hand_id", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_seat_acts"),
    )
    op.create_index("ix_seat_acts_hand_id", "seat_acts", ["hand_id"])
    op.create_index("ix_seat_acts_table", "seat_acts", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_seat_acts_table", table_name="seat_acts")
    op.drop_index("ix_seat_acts_hand_id", table_name="seat_acts")
    op.drop_table("seat_acts")
    op.drop_table("members")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("players")
