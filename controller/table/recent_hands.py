"""The hands of a session as its staff may see them on the console (docs/staff.md, "Recent
hands"): each finished hand's result, what it moved, whether it was voided (by itself or
from a later hand) and its acts of staff, in their public form; never a concealed tile.
"""

from __future__ import annotations

from typing import Any

from controller.store import EventStore
from controller.store.staff_marks import session_voids
from controller.table.staff_acts import act_views
from engine.errors import EngineError
from engine.round.events import event_from_dict
from engine.round.fold import fold

RECENT_HANDS = 20  # the most the console lists (an earlier hand: the owners' log)


def session_hands(
    store: EventStore, session_id: str, limit: int = RECENT_HANDS
) -> list[dict[str, Any]]:
    """The session's latest ``limit`` finished hands, newest first, with their result, nets
    and acts, and the later hand that voided one (``session_voids``)."""
    records = store.list_hands(session_id=session_id, status="finished", limit=limit)
    out: list[dict[str, Any]] = []
    for record in records:
        try:
            events = [event_from_dict(d) for d in store.load_hand(record.id).event_dicts()]
            state = fold(events)
        except (EngineError, ValueError, LookupError):
            continue  # (a hand the engine cannot read: the owners' log shows it)
        out.append(
            {
                "hand_id": record.id,
                "hand_no": record.hand_no,
                "result": "void" if state.voided else record.result,
                "ended_at": record.ended_at,
                "net": None if record.net is None else list(record.net),
                "voided": state.voided,
                "acts": act_views(events),
            }
        )
    voids = session_voids(store.engine, [session_id])
    for hand in out:
        found = voids.get((session_id, hand["hand_no"]))
        later = None if found is None or found.in_hand == hand["hand_no"] else found.in_hand
        hand["voided_in"] = later
        hand["voided"] = hand["voided"] or later is not None
    return out
