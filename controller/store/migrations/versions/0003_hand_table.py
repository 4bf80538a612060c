"""Hands say which table played them (the hub stores every table's); per-table indexes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("parlour", sa.String(64), nullable=True))
        batch.add_column(sa.Column("table_id", sa.String(64), nullable=True))
    op.create_index("ix_hands_table_started", "hands", ["table_id", "started_at"])
    op.create_index("ix_sessions_table_started", "sessions", ["table_id", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_sessions_table_started", table_name="sessions")
    op.drop_index("ix_hands_table_started", table_name="hands")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("table_id")
        batch.drop_column("parlour")
