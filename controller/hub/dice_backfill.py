"""The hub's dice check for the hands it stored before it checked dice.

A hand stored before the hub checked each hand's dice on arrival (``hands.dice_check``,
migration 0011) has no verdict: NULL. ``check_unchecked`` gives such hands the verdict
they would have had on arrival (``controller.hub.ingest.dice_columns``: ``ok``,
``failed`` with why, or ``unverified``), a batch at a time, each batch in a transaction of
its own; the hub runs it in the background from its start until none is left
(``HubIngest.run``), beside the ingest, which it never holds up for longer than one small
batch's write. A row that got its verdict meanwhile (its hand re-sent, longer) keeps it.
Checking again finds nothing left: the check is run once per hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import structlog
from sqlalchemy import Connection, Engine, select, update

from controller.hub.aliases import sent_session
from controller.hub.ingest import FINISHED, dice_columns
from controller.store.models import EVENTS, HANDS
from controller.table.dice import CHECKED_TYPES

log = structlog.get_logger(__name__)

BATCH = 100  # hands per transaction: a few hundred small event rows to read


def check_unchecked(engine: Engine, limit: int = BATCH) -> int:
    """Check up to ``limit`` stored hands that have no dice verdict and keep it in their
    rows; returns how many it checked (0: none is left)."""
    with engine.begin() as conn:
        rows = conn.execute(
            select(
                HANDS.c.id, HANDS.c.parlour, HANDS.c.table_id, HANDS.c.session_id, HANDS.c.hand_no
            )
            .where(HANDS.c.dice_check.is_(None), HANDS.c.status == FINISHED)
            .order_by(HANDS.c.id)
            .limit(limit)
        ).all()
        logs = _dice_events(conn, [r.id for r in rows])
        for hand_id, parlour, table, session_id, hand_no in rows:
            events = logs.get(hand_id, [])
            try:
                sent = sent_session(parlour or "", table or "", session_id, events)
                columns = dice_columns(events, table=table or "", session_id=sent, hand_no=hand_no)
            except Exception as err:  # a bug of ours: said in the row, never checked forever
                log.exception("hub: a stored hand's dice could not be checked", hand_id=hand_id)
                columns = {"dice_check": "failed", "dice_problem": f"not checkable: {err!r}"}
            conn.execute(
                update(HANDS)
                .where(HANDS.c.id == hand_id, HANDS.c.dice_check.is_(None))
                .values(**columns)
            )
    return len(rows)


def _dice_events(conn: Connection, ids: Sequence[str]) -> dict[str, list[Mapping[str, Any]]]:
    """Each hand's events the check reads, each at its place in the hand's log (the others
    as empty entries, which the check skips): a problem names an event by its place."""
    if not ids:
        return {}
    query = (
        select(EVENTS.c.hand_id, EVENTS.c.seq, EVENTS.c.payload)
        .where(EVENTS.c.hand_id.in_(ids), EVENTS.c.type.in_(sorted(CHECKED_TYPES)))
        .order_by(EVENTS.c.hand_id, EVENTS.c.seq)
    )
    placed: dict[str, dict[int, Mapping[str, Any]]] = {}
    for hand_id, seq, payload in conn.execute(query):
        placed.setdefault(hand_id, {})[seq] = payload
    return {
        hand_id: [by_seq.get(n, {}) for n in range(max(by_seq) + 1)]
        for hand_id, by_seq in placed.items()
    }
