"""Back-fill ``sessions.players`` from each session's hands (data only).

A session's players are the members who sat in its hands, in the order they first sat,
each with the seats they took and their name as their latest hand has it
(controller.store.session_players, which keeps it from here on); guests are not listed.
The fold is repeated here so this revision stays what it was when that module changes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
SESSIONS = sa.table("sessions", sa.column("id", sa.String), sa.column("players", JSON))
HANDS = sa.table(
    "hands",
    sa.column("id", sa.String),
    sa.column("session_id", sa.String),
    sa.column("table_seq", sa.BigInteger),
    sa.column("started_at", sa.DateTime(timezone=True)),
    sa.column("players", JSON),
)
BATCH = 500  # sessions written per statement


def _fold(hands: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    index: dict[str, dict[str, Any]] = {}
    for hand in hands:
        for seat, who in enumerate(hand if isinstance(hand, list) else []):
            if not isinstance(who, dict) or not isinstance(who.get("member_id"), str):
                continue
            found = index.get(who["member_id"])
            if found is None:
                found = index[who["member_id"]] = {"member_id": who["member_id"], "seats": []}
                out.append(found)
            found["name"] = str(who.get("name") or "")
            if seat not in found["seats"]:
                found["seats"] = sorted([*found["seats"], seat])
    return out


def upgrade() -> None:
    bind = op.get_bind()
    sessions = list(bind.scalars(sa.select(SESSIONS.c.id)))
    write = (
        SESSIONS.update()
        .where(SESSIONS.c.id == sa.bindparam("sid"))
        .values(players=sa.bindparam("players", type_=JSON))
    )
    for start in range(0, len(sessions), BATCH):
        chunk = sessions[start : start + BATCH]
        hands: dict[str, list[Any]] = {sid: [] for sid in chunk}
        rows = bind.execute(
            sa.select(HANDS.c.session_id, HANDS.c.players)
            .where(HANDS.c.session_id.in_(chunk))
            .order_by(
                HANDS.c.table_seq.asc().nulls_first(), HANDS.c.started_at.asc(), HANDS.c.id.asc()
            )
        )
        for sid, players in rows:
            hands[sid].append(players)
        bind.execute(write, [{"sid": sid, "players": _fold(hands[sid])} for sid in chunk])


def downgrade() -> None:
    pass  # 0011's schema has the column; nothing read it
