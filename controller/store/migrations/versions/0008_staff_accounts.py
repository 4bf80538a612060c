"""Staff accounts beside owners (a role and their tables); the owners' settings.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("owners") as batch:
        batch.add_column(sa.Column("role", sa.String(16), server_default="owner", nullable=False))
        batch.add_column(sa.Column("tables", sa.Text(), nullable=True))
    op.create_table(
        "owner_settings",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_owner_settings")),
    )


def downgrade() -> None:
    op.drop_table("owner_settings")
    with op.batch_alter_table("owners") as batch:
        batch.drop_column("tables")
        batch.drop_column("role")
