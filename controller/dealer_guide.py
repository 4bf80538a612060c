"""Where the dealer breaks the wall and turns up the 精: computed by the service, shown on
the table display and sent to the live hub's ``dealer`` topic (``controller.web.live``).

The positions come from ``engine.wall`` (the same code the engine folds with), so what the
dealer is told is exactly what the rules expect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.round.state import Phase, RoundState
from engine.wall import CAISHEN_COUNT, FlipKind, second_roller

_REL_ZH = ("自己", "下家", "对家", "上家")


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll the Pi made (``index``: the how-manieth roll of the hand, from 0)."""

    purpose: str
    seat: int
    a: int
    b: int
    index: int


def due_roll(state: RoundState) -> tuple[str, int] | None:
    """(purpose, seat) of the roll the hand waits for, or None."""
    phase = state.phase
    if phase is Phase.BREAK_DICE:
        return "break", state.dealer
    if phase is Phase.SECOND_DICE:
        first = state.dice[0]
        from engine.wall import Dice

        roller = second_roller(state.wall_rules.procedure, state.dealer, Dice(first.a, first.b))
        return ("break_second", roller) if roller is not None else None
    if phase is Phase.FLIP and state.ruleset.flip_kind is FlipKind.JING:
        return "jing", state.dealer
    if phase is Phase.XIA_DICE:
        return "xia_jing", state.dealer
    return None


def _dice(roll: Roll | None) -> dict[str, int] | None:
    return None if roll is None else {"seat": roll.seat, "a": roll.a, "b": roll.b}


def instruction(
    state: RoundState, hand_id: str, last_roll: Roll | None, pending: Roll | None
) -> dict[str, Any]:
    """The ``dealer`` payload for the hand as it stands (``step`` ``wait`` between steps)."""
    base: dict[str, Any] = {"hand_id": hand_id, "dealer": state.dealer}
    wall = state.wall
    phase = state.phase
    due = due_roll(state)
    if pending is not None and pending.purpose in ("jing", "xia_jing"):
        step = "flip" if pending.purpose == "jing" else "xia_jing"
        return base | {
            "step": step,
            "dice": _dice(pending),
            "wall_seat": None,
            "stack": pending.a + pending.b,
            "count_from": "tail",
        }
    if phase is Phase.DEAL and wall is not None:
        brk = wall.break_
        return base | {
            "step": "break",
            "dice": _dice(last_roll),
            "wall_seat": brk.wall_owner,
            "stack": brk.count,
            "count_from": "right",
            "start": brk.start.value,
        }
    if phase is Phase.FLIP and wall is not None and state.ruleset.flip_kind is FlipKind.CAISHEN:
        return base | {
            "step": "caishen",
            "dice": None,
            "wall_seat": (wall.break_.wall_owner + 1) % 4,
            "stack": CAISHEN_COUNT,
            "count_from": "left",
        }
    flip = None if wall is None else wall.flip
    recent = last_roll is not None and last_roll.purpose in ("jing", "xia_jing")
    if flip is not None and recent and phase in (Phase.TURN, Phase.SETTLE, Phase.DONE):
        assert last_roll is not None
        step = "flip" if last_roll.purpose == "jing" else "xia_jing"
        if state.draws == [0, 0, 0, 0] or last_roll.purpose == "xia_jing":
            return base | {
                "step": step,
                "dice": _dice(last_roll),
                "wall_seat": None,
                "stack": last_roll.a + last_roll.b,
                "count_from": "tail",
            }
    out = base | {"step": "wait", "dice": _dice(last_roll)}
    if due is not None:
        out["roller"] = due[1]
    return out


def short_text(payload: dict[str, Any]) -> str:
    """A few words for the table's own display (the live hub writes the long form)."""
    step = payload.get("step")
    n = payload.get("stack")
    dealer, wall = payload.get("dealer"), payload.get("wall_seat")
    rel = _REL_ZH[(wall - dealer) % 4] if isinstance(wall, int) and isinstance(dealer, int) else ""
    if step == "break":
        if payload.get("start") == "after":
            return f"从{rel}门前右数留{n}墩开牌"
        return f"从{rel}门前右数第{n}墩开牌"
    if step == "caishen":
        return f"{rel}门前左数第{n}墩翻财神"
    if step == "flip":
        return f"牌尾数第{n}墩翻精"
    if step == "xia_jing":
        return f"牌尾数第{n}墩翻下精"
    roller = payload.get("roller")
    return "" if roller is None else f"请{roller}号位掷骰"
