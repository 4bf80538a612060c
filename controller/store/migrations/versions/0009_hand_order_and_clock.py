"""Hands in the table's own order, and the wall clock recorded as a fact that may be wrong.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("table_seq", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("clock_synced", sa.Boolean(), nullable=True))
        batch.add_column(sa.Column("played_s", sa.Float(), nullable=True))
    op.create_index("ix_hands_table_seq", "hands", ["table_id", "table_seq"])


def downgrade() -> None:
    op.drop_index("ix_hands_table_seq", table_name="hands")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("played_s")
        batch.drop_column("clock_synced")
        batch.drop_column("table_seq")
