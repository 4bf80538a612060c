"""An owner's replay of a stored hand: the engine's fold, step by step, with each step in words.

A finished hand is replayed with everything (every seat's concealed tiles, the 暗精); any other
hand only with what the table showed openly (``public_view`` and public events), because a
hand still in play must not leak through the owners' pages either (docs/design.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller.store import StoredHand
from engine.errors import EngineError
from engine.round import event_from_dict, public_view
from engine.round.events import SettlingAct
from engine.round.narration import texts
from engine.round.replay import check, steps
from engine.round.state import SEATS, RoundState
from engine.tiles import kind_name, kind_of, parse_kinds

FINISHED = "finished"


class ReplayError(ValueError):
    """The stored log cannot be folded (corrupt or from an unknown engine version)."""


def _k(tile: int) -> str:
    return kind_name(kind_of(tile))


def owner_view(state: RoundState) -> dict[str, Any]:
    """The public view plus what only a finished hand may show: hands, 暗杠 tiles, 暗精.
    A seat no reader saw (a table without readers) shows what staff entered for it."""
    view = public_view(state)
    entered = _entered_seats(state)
    for s in range(SEATS):
        seat = view["seats"][s]
        seat["hand"] = [kind_name(k) for k in sorted(kind_of(t) for t in state.hands[s])]
        seat["melds"] = [
            {"type": m.type.value, "tiles": [_k(t) for t in m.tiles], "from": m.from_seat}
            for m in state.melds[s]
        ]
        given = entered[s] if s < len(entered) else None
        if not seat["hand"] and not seat["melds"] and isinstance(given, dict):
            seat["hand"] = _kinds(given.get("hand"))
            seat["melds"] = [
                {"type": m.get("type"), "tiles": _kinds(m.get("tiles")), "from": m.get("from")}
                for m in given.get("melds") or []
                if isinstance(m, dict)
            ]
            seat["tiles"] = len(seat["hand"]) + sum(len(m["tiles"]) for m in seat["melds"])
            seat["entered"] = True  # by staff, with the result
    flip = None if state.wall is None else state.wall.flip
    if flip is not None and flip.under_kind is not None:
        view["jing"]["an"] = kind_name(flip.under_kind)
    return view


def _entered_seats(state: RoundState) -> list[Any]:
    """The seats of the settle request staff entered (``mjtable settle`` form), if any."""
    act = state.staff_settle
    if not isinstance(act, SettlingAct):
        return []
    seats = act.request.get("seats")
    return seats if isinstance(seats, list) else []


def _kinds(text: object) -> list[str]:
    if not isinstance(text, str):
        return []
    try:
        return [kind_name(k) for k in sorted(parse_kinds(text))]
    except EngineError:
        return []


def _when(event: dict[str, Any], stored_at: datetime) -> str:
    """A person's act: the time its audit holds; any other event: when it was stored."""
    at = event.get("at")
    return at if isinstance(at, str) and at else stored_at.isoformat(timespec="seconds")


def replay(stored: StoredHand) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """(concealed shown, settlement check, steps) for a stored hand; seats a member sat in
    are named in the texts."""
    concealed = stored.hand.status == FINISHED
    names = [None if p is None else p.get("name") for p in stored.hand.players or []]
    try:
        events = [event_from_dict(p) for p in stored.event_dicts()]
        out: list[dict[str, Any]] = []
        state: RoundState | None = None
        for (event, state), stored_event in zip(steps(events), stored.events, strict=True):
            out.append(
                {
                    "seq": stored_event.seq,
                    "type": event.type,
                    "text": texts(event, public=not concealed, names=names),
                    "event": event.to_dict() if concealed else event.public_dict(),
                    "view": owner_view(state) if concealed else public_view(state),
                    "at": _when(event.to_dict(), stored_event.created_at),
                }
            )
    except EngineError as err:  # CorruptLog: a log this engine cannot fold
        raise ReplayError(
            f"hand {stored.hand.id}: the stored log cannot be replayed: {err}"
        ) from None
    verdict = None
    if concealed and state is not None:
        verdict = check(state, {"the stored settlement": stored.settlement})
    return concealed, verdict, out


def event_payloads(stored: StoredHand) -> tuple[bool, list[dict[str, Any]]]:
    """The hand's events: whole for a finished hand, else each one's public projection."""
    if stored.hand.status == FINISHED:
        return True, [e.payload for e in stored.events]
    out = []
    for e in stored.events:
        try:
            out.append(event_from_dict(e.payload).public_dict())
        except EngineError:
            out.append({"type": e.type})  # unreadable: say only that something happened
    return False, out
