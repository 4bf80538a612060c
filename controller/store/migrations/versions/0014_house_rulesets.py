"""House rulesets, their assignment to tables and the audit of both; the house ruleset a
session and a hand were played under.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | None = None
depends_on: str | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "house_rulesets",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("base", sa.String(64), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_by", sa.String(80), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_house_rulesets")),
    )
    op.create_table(
        "house_assignments",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("from_next_hand", sa.Boolean(), nullable=False),
        sa.Column("assigned_by", sa.String(80), nullable=False),
        sa.Column("assigned_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("applied_version", sa.Integer(), nullable=True),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_house_assignments")),
    )
    op.create_table(
        "house_audit",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("by", sa.String(80), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=True),
        sa.Column("old", JSON, nullable=True),
        sa.Column("new", JSON, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_house_audit")),
    )
    op.create_index("ix_house_audit_at", "house_audit", ["at"])
    op.add_column("sessions", sa.Column("house", JSON, nullable=True))
    op.add_column("hands", sa.Column("house", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("house")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("house")
    op.drop_index("ix_house_audit_at", table_name="house_audit")
    op.drop_table("house_audit")
    op.drop_table("house_assignments")
    op.drop_table("house_rulesets")
