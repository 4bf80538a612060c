"""The hands of a session as its staff may see them on the console (docs/staff.md, "Recent
hands"): each finished hand's result, what it moved, whether it was voided (by itself or
from a later hand) and its acts of staff, in their public form; never a concealed tile.
"""

from __future__ import annotations

from typing import Any

from controller.store import EventStore
from controller.table.staff_acts import act_views
from engine.errors import EngineError
from engine.round.events import event_from_dict
from engine.round.fold import fold

RECENT_HANDS = 20  # the most the console lists (an earlier hand: the owners' log)


def session_hands(
    store: EventStore, session_id: str, limit: int = RECENT_HANDS
) -> list[dict[str, Any]]:
    """The session's latest ``limit`` hands, newest first: finished ones with their result,
    nets and acts; the open one (the hand in progress) only for the voids it holds."""
    records = store.list_hands(session_id=session_id, limit=limit + 1)
    voided_from: dict[int, int] = {}  # hand number -> the later hand that voided it
    out: list[dict[str, Any]] = []
    for record in records:
        try:
            events = [event_from_dict(d) for d in store.load_hand(record.id).event_dicts()]
            state = fold(events)
        except (EngineError, ValueError, LookupError):
            continue  # (a hand the engine cannot read: the owners' log shows it)
        for v in state.past_voids:
            voided_from.setdefault(v.hand_no, record.hand_no)
        if record.status != "finished" or len(out) == limit:
            continue
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
    for hand in out:
        later = voided_from.get(hand["hand_no"])
        hand["voided_in"] = later
        hand["voided"] = hand["voided"] or later is not None
    return out
