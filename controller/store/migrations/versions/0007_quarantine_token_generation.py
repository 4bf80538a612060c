"""Handlogs the hub refused, kept with the reason; owners' login token generation.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "quarantined_handlogs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("topic", sa.String(256), nullable=False),
        sa.Column("parlour", sa.String(64), nullable=True),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("hand_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("excerpt", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quarantined_handlogs")),
    )
    op.create_index("ix_quarantined_handlogs_received", "quarantined_handlogs", ["received_at"])
    with op.batch_alter_table("owners") as batch:
        batch.add_column(
            sa.Column("token_generation", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("owners") as batch:
        batch.drop_column("token_generation")
    op.drop_index("ix_quarantined_handlogs_received", table_name="quarantined_handlogs")
    op.drop_table("quarantined_handlogs")
