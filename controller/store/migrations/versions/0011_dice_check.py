"""Each hand's dice checked against their commitment (the hub flags a hand that fails).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("dice_check", sa.String(16), nullable=True))
        batch.add_column(sa.Column("dice_problem", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("dice_problem")
        batch.drop_column("dice_check")
