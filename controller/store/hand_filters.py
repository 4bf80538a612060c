"""The owners' filters on hands, as WHERE conditions: one set for ``EventStore.list_hands``
(a Pi's own hands), ``tables.table_hands`` (a table's, at a Pi or the hub) and the hub's
seat totals; and the order of a table's hands."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, or_

from controller.store.models import HANDS

# Newest first: by the table's own running number, not by a wall clock that may have
# jumped; hands stored before that number existed (None) are older than any that has one.
NEWEST_FIRST = (HANDS.c.table_seq.desc().nulls_last(), HANDS.c.started_at.desc(), HANDS.c.id.desc())
OLDEST_FIRST = (HANDS.c.table_seq.asc().nulls_first(), HANDS.c.started_at.asc(), HANDS.c.id.asc())


def started_between(since: datetime | None, until: datetime | None) -> list[ColumnElement[bool]]:
    """Hands started in [since, until) (aware datetimes; either end open)."""
    conds: list[ColumnElement[bool]] = []
    if since is not None:
        conds.append(HANDS.c.started_at >= since)
    if until is not None:
        conds.append(HANDS.c.started_at < until)
    return conds


def hand_filters(
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    ruleset: str | None = None,
    status: str | None = None,
    result: str | None = None,
    winner: int | None = None,
    seat: int | None = None,
    session_id: str | None = None,
) -> list[ColumnElement[bool]]:
    """``seat``: hands that seat won or dealt in; None: no condition."""
    conds = started_between(since, until)
    if ruleset is not None:
        conds.append(HANDS.c.ruleset == ruleset)
    if status is not None:
        conds.append(HANDS.c.status == status)
    if result is not None:
        conds.append(HANDS.c.result == result)
    if winner is not None:
        conds.append(HANDS.c.winner == winner)
    if seat is not None:
        conds.append(or_(HANDS.c.winner == seat, HANDS.c.discarder == seat))
    if session_id is not None:
        conds.append(HANDS.c.session_id == session_id)
    return conds
