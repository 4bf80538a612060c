"""What staff did to a listed hand, for the owners' lists and the console: entered its
result by hand (no reader saw it, or staff finished it), or voided it (who, in which role,
when and why, and in which hand of the session)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from controller.store.models import EVENTS, HANDS
from controller.store.records import HandRecord
from engine.errors import EngineError
from engine.round.events import HandVoided, event_from_dict
from engine.round.fold import fold

ENTERED = "finished_by_staff"
VOIDED = HandVoided.type


@dataclass(frozen=True, slots=True)
class Voiding:
    """A void that stands: its audit (by, role, at, reason) and the number of the hand
    that holds it (the voided hand's own number, or a later one's)."""

    said: dict[str, str]
    in_hand: int


@dataclass(frozen=True, slots=True)
class StaffMarks:
    entered: bool = False
    voided: dict[str, str] | None = None  # by, role, at, reason


def session_voids(engine: Any, sessions: Iterable[str]) -> dict[tuple[str, int], Voiding]:
    """The voids standing in ``sessions``, by (session, the voided hand's number). A void
    is stored in the hand then in progress and names the voided hand by its number in the
    session; an undo may take it back: each hand holding one is folded (they are few),
    and a hand that does not fold is passed over (the owners' log shows it)."""
    wanted = set(sessions)
    if not wanted:
        return {}
    holders = (
        select(HANDS.c.id, HANDS.c.session_id, HANDS.c.hand_no)
        .where(
            HANDS.c.session_id.in_(wanted),
            HANDS.c.status != "aborted",  # (its acts count for no totals)
            HANDS.c.id.in_(select(EVENTS.c.hand_id).where(EVENTS.c.type == VOIDED)),
        )
        .order_by(HANDS.c.hand_no)
    )
    voids: dict[tuple[str, int], Voiding] = {}
    with engine.connect() as conn:
        for hand_id, session_id, hand_no in conn.execute(holders).all():
            query = select(EVENTS.c.payload).where(EVENTS.c.hand_id == hand_id)
            payloads = conn.execute(query.order_by(EVENTS.c.seq)).scalars()
            try:
                state = fold([event_from_dict(p) for p in payloads])
            except (EngineError, ValueError, LookupError):
                continue
            acts = [a for a, _ in state.staff_acts if isinstance(a, HandVoided)]
            standing = [*state.past_voids, *(a for a in acts if a.hand_no == hand_no)]
            for v in standing:
                said = {"by": v.by, "role": v.role, "at": v.at, "reason": v.reason}
                voids.setdefault((session_id, v.hand_no), Voiding(said, hand_no))
    return voids


def staff_marks(engine: Any, hands: Sequence[HandRecord]) -> dict[str, StaffMarks]:
    """Each of ``hands`` that staff entered or voided, by id (``session_voids``)."""
    ids = [h.id for h in hands]
    if not ids:
        return {}
    entered_q = select(EVENTS.c.hand_id).where(EVENTS.c.hand_id.in_(ids), EVENTS.c.type == ENTERED)
    with engine.connect() as conn:
        entered = {row[0] for row in conn.execute(entered_q)}
    voids = session_voids(engine, {h.session_id for h in hands if h.session_id is not None})
    marks = {}
    for h in hands:
        voided = None if h.session_id is None else voids.get((h.session_id, h.hand_no))
        if h.id in entered or voided is not None:
            marks[h.id] = StaffMarks(h.id in entered, None if voided is None else voided.said)
    return marks
