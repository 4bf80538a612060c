"""Where the dealer breaks the wall and turns up the 精: computed by the service, shown on
the table display and sent to the live hub's ``dealer`` topic (``controller.web.live``).

The positions come from ``engine.wall`` (the same code the engine folds with), so what the
dealer is told is exactly what the rules expect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.round.events import DicePurpose
from engine.round.narration import seat_name
from engine.round.state import Phase, RoundState
from engine.wall import CAISHEN_COUNT, Dice, FlipKind, WallError, second_roller, wall_place

_REL_ZH = ("自己", "下家", "对家", "上家")


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll the Pi made (``index``: the how-manieth roll of the hand, from 0)."""

    purpose: DicePurpose
    seat: int
    a: int
    b: int
    index: int


def due_roll(state: RoundState) -> tuple[DicePurpose, int] | None:
    """(purpose, seat) of the roll the hand waits for, or None."""
    phase = state.phase
    if phase is Phase.BREAK_DICE:
        return "break", state.dealer
    if phase is Phase.SECOND_DICE:
        first = state.dice[0]
        roller = second_roller(state.wall_rules.procedure, state.dealer, Dice(first.a, first.b))
        return ("break_second", roller) if roller is not None else None
    if phase is Phase.FLIP and state.ruleset.flip_kind is FlipKind.JING:
        return "jing", state.dealer
    if phase is Phase.XIA_DICE:
        return "xia_jing", state.dealer
    return None


def _dice(roll: Roll | None) -> dict[str, int] | None:
    return None if roll is None else {"seat": roll.seat, "a": roll.a, "b": roll.b}


def _place(position: int | None) -> dict[str, int] | None:
    """The 墩 itself, counted from the right end of its wall (for the dealer's wall map)."""
    if position is None:
        return None
    owner, n = wall_place(position // 2)
    return {"wall_seat": owner, "stack": n}


def _flip_position(state: RoundState, roll: Roll) -> int | None:
    wall = state.wall
    if wall is None:
        return None
    done = wall.xia_jing if roll.purpose == "xia_jing" else wall.flip
    if done is not None:
        return done.position
    try:
        trial = wall.copy()
        dice = Dice(roll.a, roll.b)
        flip = trial.flip_xia_jing(dice) if roll.purpose == "xia_jing" else trial.flip_jing(dice)
    except WallError:
        return None
    return flip.position


def _flip_step(state: RoundState, base: dict[str, Any], roll: Roll) -> dict[str, Any]:
    return base | {
        "step": "flip" if roll.purpose == "jing" else "xia_jing",
        "dice": _dice(roll),
        "wall_seat": None,
        "stack": roll.a + roll.b,
        "count_from": "tail",
        "place": _place(_flip_position(state, roll)),
    }


def instruction(
    state: RoundState, hand_id: str, last_roll: Roll | None, pending: Roll | None
) -> dict[str, Any]:
    """The ``dealer`` payload for the hand as it stands (``step`` ``wait`` between steps)."""
    base: dict[str, Any] = {"hand_id": hand_id, "dealer": state.dealer}
    wall = state.wall
    phase = state.phase
    if pending is not None and pending.purpose in ("jing", "xia_jing"):
        return _flip_step(state, base, pending)
    if phase is Phase.DEAL and wall is not None:
        brk = wall.break_
        rolls = [d for d in state.dice if d.purpose in ("break", "break_second")]
        return base | {
            "step": "break",
            "dice": [{"seat": d.seat, "a": d.a, "b": d.b} for d in rolls],
            "wall_seat": brk.wall_owner,
            "stack": brk.count,
            "count_from": "right",
            "start": brk.start.value,
            "place": _place(2 * brk.stack),
        }
    if phase is Phase.FLIP and wall is not None and state.ruleset.flip_kind is FlipKind.CAISHEN:
        return base | {
            "step": "caishen",
            "dice": None,
            "wall_seat": (wall.break_.wall_owner + 1) % 4,
            "stack": CAISHEN_COUNT,
            "count_from": "left",
            "place": _place(wall.caishen_position()),
        }
    # until the first draw (or, for the 下精, the end) the dealer still turns it up
    flipping = last_roll is not None and (
        (last_roll.purpose == "jing" and state.draws == [0, 0, 0, 0])
        or last_roll.purpose == "xia_jing"
    )
    if flipping:
        assert last_roll is not None
        return _flip_step(state, base, last_roll)
    out = base | {"step": "wait", "dice": _dice(last_roll)}
    if state.finished:
        out["over"] = True  # (not "in play": the hand is settled or voided)
    due = due_roll(state)
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
    return "" if roller is None else f"请{seat_name(roller, 'zh')}掷骰"
