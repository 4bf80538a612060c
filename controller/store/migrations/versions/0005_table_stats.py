"""Owners' queries over a million hands: nets on the hands row (in the per-table index on
PostgreSQL) and a per-table rollup for the list of tables, both back-filled.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

NETS = ["net_0", "net_1", "net_2", "net_3"]
Money = sa.Numeric(14, 4, asdecimal=False)


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        for net in NETS:
            batch.add_column(sa.Column(net, Money, nullable=True))
    op.execute(
        """
        UPDATE hands SET net_0 = s.net_0, net_1 = s.net_1, net_2 = s.net_2, net_3 = s.net_3
        FROM settlements s WHERE s.hand_id = hands.id
        """
    )
    op.drop_index("ix_hands_table_started", table_name="hands")
    op.create_index(
        "ix_hands_table_started", "hands", ["table_id", "started_at"], postgresql_include=NETS
    )
    op.create_table(
        "table_stats",
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("parlour", sa.String(64), nullable=False),
        sa.Column("sessions", sa.BigInteger(), nullable=False),
        sa.Column("hands", sa.BigInteger(), nullable=False),
        sa.Column("open_hands", sa.BigInteger(), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_stats")),
    )
    op.execute(
        """
        INSERT INTO table_stats
            (table_id, parlour, sessions, hands, open_hands, first_seen, last_seen)
        SELECT k, coalesce(max(parlour), ''), sum(n_sessions), sum(n_hands), sum(n_open),
               min(first_seen), max(last_seen)
        FROM (
            SELECT coalesce(table_id, '') AS k, nullif(max(parlour), '') AS parlour,
                   count(*) AS n_sessions, 0 AS n_hands, 0 AS n_open,
                   min(started_at) AS first_seen, max(started_at) AS last_seen
            FROM sessions GROUP BY coalesce(table_id, '')
            UNION ALL
            SELECT coalesce(table_id, ''), NULL, 0, count(*),
                   sum(CASE WHEN status = 'open' THEN 1 ELSE 0 END),
                   min(started_at), max(started_at)
            FROM hands GROUP BY coalesce(table_id, '')
        ) AS parts
        GROUP BY k
        """
    )


def downgrade() -> None:
    op.drop_table("table_stats")
    op.drop_index("ix_hands_table_started", table_name="hands")
    op.create_index("ix_hands_table_started", "hands", ["table_id", "started_at"])
    with op.batch_alter_table("hands") as batch:
        for net in NETS:
            batch.drop_column(net)
