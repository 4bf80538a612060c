"""Back-fill ``hands.table_id`` and ``parlour`` from the hand's session (data only).

The owners' queries find a table's hands by ``hands.table_id`` (indexed) instead of through
the session. A hand outside any session keeps NULL: it belongs to the table the service is
configured as, which the database does not know (controller.store.tables reads it so).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.execute(
        """
        UPDATE hands SET
            table_id = (SELECT s.table_id FROM sessions s WHERE s.id = hands.session_id),
            parlour = coalesce(
                hands.parlour,
                (SELECT nullif(s.parlour, '') FROM sessions s WHERE s.id = hands.session_id)
            )
        WHERE table_id IS NULL
          AND EXISTS (
              SELECT 1 FROM sessions s WHERE s.id = hands.session_id AND s.table_id <> ''
          )
        """
    )


def downgrade() -> None:
    pass  # the copied ids are still right under 0003's queries
