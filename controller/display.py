"""What the table's centre display shows, in a form people and the virtual players read.

    第3局 #57 骰2:3+4 轮到1号位 | 牌尾数第7墩翻精

``第n局`` is the hand number, ``#seq`` how many events the hand's log holds (players wait
for it to catch up with what they did), ``骰i:a+b`` the hand's latest roll (``i`` counts
rolls from 0), then whose move it is and the dealer's instruction. Under 200 UTF-8 bytes
(the board's limit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.round.state import Phase, RoundState

MAX_BYTES = 200
_STATUS = re.compile(r"第(\d+)局 #(\d+)")
_DICE = re.compile(r"骰(\d+):(\d)\+(\d)")

_PHASE_ZH = {
    Phase.SHUFFLE: "洗牌",
    Phase.BREAK_DICE: "掷骰开牌",
    Phase.SECOND_DICE: "再掷骰",
    Phase.DEAL: "抓牌",
    Phase.FLIP: "翻精",
    Phase.TURN: "出牌",
    Phase.DRAW: "摸牌",
    Phase.REPLACEMENT: "补牌",
    Phase.CLAIM: "吃碰杠胡?",
    Phase.ROB: "抢杠?",
    Phase.XIA_DICE: "掷骰翻下精",
    Phase.SETTLE: "结算",
    Phase.DONE: "本局结束",
}


@dataclass(frozen=True, slots=True)
class Shown:
    hand_no: int
    seq: int
    roll: tuple[int, int, int] | None  # (index, a, b)


def status_text(
    state: RoundState,
    seq: int,
    roll: tuple[int, int, int] | None,
    instruction: str = "",
    nets: list[str] | None = None,
    names: list[str | None] | None = None,
) -> str:
    """``names``: who sits where (a member's name instead of the seat's number)."""
    parts = [f"第{state.started.hand_no}局 #{seq}"]
    if roll is not None:
        parts.append(f"骰{roll[0]}:{roll[1]}+{roll[2]}")
    phase = state.phase
    if phase in (Phase.TURN, Phase.DRAW, Phase.REPLACEMENT):
        name = names[state.turn] if names and 0 <= state.turn < len(names) else None
        parts.append(f"{name or f'{state.turn}号位'}{_PHASE_ZH[phase]}")
    else:
        parts.append(_PHASE_ZH[phase])
    if nets:
        parts.append(" ".join(nets))
    text = " ".join(parts)
    if instruction:
        text += " | " + instruction
    while len(text.encode()) > MAX_BYTES:
        text = text[:-1]
    return text


def parse_status(text: str) -> Shown | None:
    m = _STATUS.search(text)
    if m is None:
        return None
    d = _DICE.search(text)
    roll = None if d is None else (int(d.group(1)), int(d.group(2)), int(d.group(3)))
    return Shown(int(m.group(1)), int(m.group(2)), roll)
