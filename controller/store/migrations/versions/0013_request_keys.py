"""The answers to requests sent with an ``Idempotency-Key`` (``request_keys``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "request_keys",
        sa.Column("account", sa.String(64), primary_key=True, nullable=False),
        sa.Column("key", sa.String(64), primary_key=True, nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("answer", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_request_keys_created_at", "request_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_request_keys_created_at", table_name="request_keys")
    op.drop_table("request_keys")
