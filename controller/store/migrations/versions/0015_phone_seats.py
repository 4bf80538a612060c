"""The players' phones: the session's join code, the phone holding each seat (its token's
hash), and each join, leave and release (who, when).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "phone_codes",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("session_key", sa.String(64), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_phone_codes")),
    )
    op.create_table(
        "phone_seats",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("member_id", sa.String(32), nullable=True),
        sa.Column("session_key", sa.String(64), nullable=False),
        sa.Column("sid", sa.String(16), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_phone_seats")),
    )
    op.create_table(
        "phone_joins",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("act", sa.String(16), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("member_id", sa.String(32), nullable=True),
        sa.Column("sid", sa.String(16), nullable=False),
        sa.Column("session_key", sa.String(64), nullable=False),
        sa.Column("by", sa.String(80), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_phone_joins")),
    )
    op.create_index("ix_phone_joins_table", "phone_joins", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_phone_joins_table", table_name="phone_joins")
    op.drop_table("phone_joins")
    op.drop_table("phone_seats")
    op.drop_table("phone_codes")
