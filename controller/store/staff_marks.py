"""What staff did to a listed hand, for the owners' lists: entered its result by hand (no
reader saw it, or staff finished it), or voided it (who, in which role, when and why)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from controller.store.models import EVENTS, HANDS
from controller.store.records import HandRecord

ENTERED = "finished_by_staff"
VOIDED = "hand_voided"


@dataclass(frozen=True, slots=True)
class StaffMarks:
    entered: bool = False
    voided: dict[str, str] | None = None  # by, role, at, reason


def staff_marks(engine: Any, hands: Sequence[HandRecord]) -> dict[str, StaffMarks]:
    """Each of ``hands`` that staff entered or voided, by id. A void is stored in the hand
    then in progress and names the voided hand by its number in the session: found so for
    the hand itself and for an earlier one alike."""
    ids = [h.id for h in hands]
    sessions = {h.session_id for h in hands if h.session_id is not None}
    if not ids:
        return {}
    entered_q = select(EVENTS.c.hand_id).where(EVENTS.c.hand_id.in_(ids), EVENTS.c.type == ENTERED)
    voids_q = (
        select(HANDS.c.session_id, EVENTS.c.payload)
        .join(HANDS, HANDS.c.id == EVENTS.c.hand_id)
        .where(EVENTS.c.type == VOIDED, HANDS.c.session_id.in_(sessions))
        .order_by(EVENTS.c.id)
    )
    voids: dict[tuple[str, int], dict[str, str]] = {}
    with engine.connect() as conn:
        entered = {row[0] for row in conn.execute(entered_q)}
        for session_id, payload in conn.execute(voids_q) if sessions else ():
            if isinstance(payload, dict) and isinstance(payload.get("hand_no"), int):
                said = {k: str(payload.get(k) or "") for k in ("by", "role", "at", "reason")}
                voids[(session_id, payload["hand_no"])] = said
    marks = {}
    for h in hands:
        voided = None if h.session_id is None else voids.get((h.session_id, h.hand_no))
        if h.id in entered or voided is not None:
            marks[h.id] = StaffMarks(h.id in entered, voided)
    return marks
