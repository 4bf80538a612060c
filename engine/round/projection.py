"""What the table shows openly (docs/design.md: one projection for the public).

Dice, 正精/副精 (or the 财神), discards, melds (a 暗杠 face down), how many tiles each
seat holds, whose turn, the live wall's size, and the result once the hand is over.
Never the concealed tiles, the wall order, upcoming tiles or lianhua's 暗精.
"""

from __future__ import annotations

from typing import Any

from engine.hand import MeldType
from engine.round.events import EnteredResult, settlement_to_dict
from engine.round.state import SEATS, RoundState
from engine.tiles import kind_name, kind_of, parse_kind, successor


def _name(tile: int) -> str:
    return kind_name(kind_of(tile))


def shown_flip(state: RoundState) -> int | None:
    """The turned-up tile's kind (the 精's or the 财神's indicator) as the table shows it:
    as the readers saw it, else as staff entered it, on its own or with the result."""
    wall = state.wall
    flip = None if wall is None else wall.flip
    if flip is not None and flip.kind is not None:
        return flip.kind
    if state.flip_entered is not None:
        return parse_kind(state.flip_entered.indicator)
    request = getattr(state.staff_settle, "request", None)  # (a finish, a correction)
    entered = request.get("indicator") if isinstance(request, dict) else None
    return parse_kind(entered) if isinstance(entered, str) and entered else None


def entered_wins(state: RoundState) -> list[dict[str, Any]]:
    """The wins of a result entered by hand (laid face up), as ``wins`` says the declared
    ones: its seat, how (``self``, ``discard``, ``kong_replacement``, ``rob_kong``), the tile."""
    act = state.staff_settle
    if state.voided or not isinstance(act, EnteredResult):
        return []
    out = []
    for w in act.winners:
        src = w.get("from")
        how = "discard" if isinstance(src, int) else str(src).split(":", 1)[0]
        out.append({"seat": w.get("seat"), "source": how, "tile": kind_name(parse_kind(w["tile"]))})
    return out


def public_view(state: RoundState) -> dict[str, Any]:
    wall = state.wall
    flip = None if wall is None else wall.flip
    kind = shown_flip(state)
    jing: dict[str, str] = {}
    if kind is not None:
        if state.ruleset.flip_kind.value == "caishen":
            jing = {"flipped": kind_name(kind), "caishen": kind_name(successor(kind))}
        else:
            jing = {"zheng": kind_name(kind), "fu": kind_name(successor(kind))}
    seats = []
    for s in range(SEATS):
        melds = [
            {"type": m.type.value, "tiles": []}
            if m.type is MeldType.KONG_CONCEALED
            else {"type": m.type.value, "tiles": [_name(t) for t in m.tiles], "from": m.from_seat}
            for m in state.melds[s]
        ]
        seats.append(
            {
                "tiles": len(state.hands[s]),
                "melds": melds,
                "discards": [_name(t) for t in state.discards[s]],
            }
        )
    view: dict[str, Any] = {
        "ruleset": state.started.ruleset,
        "ruleset_name": state.ruleset.preset.name,  # as the parlour calls it: 兴国冲关麻将
        "hand_no": state.started.hand_no,
        "dealer": state.dealer,
        "phase": state.phase.value,
        "turn": state.turn,
        "dice": [{"purpose": d.purpose, "seat": d.seat, "a": d.a, "b": d.b} for d in state.dice],
        "jing": jing,
        "live": None
        if wall is None or not wall.dealt or (flip is None and state.needs_flip)
        else wall.live_count,
        "seats": seats,
    }
    commit = state.dice_commit
    if commit is not None:
        view["dice_commitment"] = {
            "commitment": commit.commitment,
            "table": commit.table,
            "session": commit.session,
            "hand_no": commit.hand_no,
        }
    if state.dice_seed is not None:
        view["dice_seed"] = state.dice_seed
    if state.settlement is not None:
        view["wins"] = [
            {"seat": w.seat, "source": w.source, "tile": _name(w.tile)} for w in state.wins
        ] or entered_wins(state)
        view["exhausted"] = state.exhausted
        view["settlement"] = settlement_to_dict(state.settlement)
    return view
