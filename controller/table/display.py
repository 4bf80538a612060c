"""What the table's centre display shows, in a form people and the virtual players read.

    第3局 #57 东风圈 庄2 连1 骰2:3+4 1号位出牌 | 牌尾数第7墩翻精

``第n局`` is the hand number, ``#seq`` how many events the hand's log holds (players wait
for it to catch up with what they did), then the deal as the table keeps it (the
prevailing wind, the dealer's seat as its sticker numbers it, the dealer's streak when
there is one: what a table's wind and dealer lights show), ``骰i:a+b`` the hand's latest
roll (``i`` counts rolls from 0), ``骰诺xxxxxxxx`` (while the walls rise) the first 8 hex
digits of the hand's dice commitment (controller.table.dice), then whose move it is (or
``结算``/``本局结束`` and the nets) and the dealer's instruction. Under 200 UTF-8 bytes
(the board's limit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.round.narration import seat_name
from engine.round.state import Phase, RoundState
from engine.tiles import EAST

MAX_BYTES = 200
_STATUS = re.compile(r"第(\d+)局 #(\d+)")
_DICE = re.compile(r"骰(\d+):(\d)\+(\d)")
_WINDS_ZH = "东南西北"
_DEAL = re.compile(r"#\d+ ([东南西北])风圈 庄([1-4])(?: 连(\d+))?")
_OVER = re.compile(r"#\d+ [^|]*(?:结算|本局结束)")

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
class Deal:
    """Who deals the hand shown, as the table keeps the session."""

    dealer: int  # the seat (0-3; the display says 1-4, as the stickers)
    streak: int
    prevailing_wind: int  # a wind's tile kind (engine.tiles.EAST …)


@dataclass(frozen=True, slots=True)
class Shown:
    hand_no: int
    seq: int
    roll: tuple[int, int, int] | None  # (index, a, b)
    deal: Deal | None = None
    over: bool = False
    """The hand shown is settled (its settlement, whoever entered it, is on the display)."""


def status_text(
    state: RoundState,
    seq: int,
    roll: tuple[int, int, int] | None,
    instruction: str = "",
    nets: list[str] | None = None,
    names: list[str | None] | None = None,
) -> str:
    """``names``: who sits where (a member's name instead of the seat's number)."""
    started = state.started
    parts = [f"第{started.hand_no}局 #{seq}"]
    # the dealer as the seats' stickers number them (1-4)
    parts.append(f"{_WINDS_ZH[started.prevailing_wind - EAST]}风圈 庄{started.dealer + 1}")
    if started.dealer_streak:
        parts.append(f"连{started.dealer_streak}")
    if roll is not None:
        parts.append(f"骰{roll[0]}:{roll[1]}+{roll[2]}")
    phase = state.phase
    commit = state.dice_commit
    if commit is not None and phase is Phase.SHUFFLE:
        # while the walls rise: the dice commitment's start, to check against the topics
        parts.append(f"骰诺{commit.commitment[:8]}")
    if phase in (Phase.TURN, Phase.DRAW, Phase.REPLACEMENT):
        parts.append(f"{seat_name(state.turn, names=names or ())}{_PHASE_ZH[phase]}")
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
    w = _DEAL.search(text)
    deal = None
    if w is not None:
        wind = EAST + _WINDS_ZH.index(w.group(1))
        deal = Deal(int(w.group(2)) - 1, int(w.group(3) or 0), wind)
    over = _OVER.search(text) is not None
    return Shown(int(m.group(1)), int(m.group(2)), roll, deal, over)
