"""What every ruleset offers, and the pieces of settlement they share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from engine.analysis import analyze
from engine.hand import Reading, ShapeOptions
from engine.rulesets.preset import PresetBase
from engine.settlement.finished_hand import FinishedHand, SettleInputError, Win, WinSource
from engine.settlement.ledger import Ledger, Settlement
from engine.wall import FlipKind, WallRules

SHAPE_ZH = {
    "pinghu": "平胡",
    "xiaoqi": "小七",
    "daqi": "大七",
    "shisanlan": "十三烂",
    "qixing_shisanlan": "七星十三烂",
    "shisanyao": "十三幺",
    "jiulian": "九莲宝灯",
    "quanfeng": "全风向",
    "sicaishen": "四财神",
}


class Ruleset(ABC):
    """Data (the preset) plus the code the data cannot express."""

    preset: PresetBase
    flip_kind: ClassVar[FlipKind] = FlipKind.NONE  # what 翻精 turns up, if anything

    def wall_rules(self) -> WallRules:
        t = self.preset.table
        return WallRules(
            t.dice,
            flip=self.flip_kind,
            flip_in_play=t.flipped_in_play,
            reserve_stacks=t.reserve_stacks,
            an_jing=self._an_jing(),
            xia_jing=self._xia_jing(),
            start=t.start,
            jump=t.jump,
        )

    def _an_jing(self) -> bool:
        return False

    def _xia_jing(self) -> bool:
        return False

    @property
    def id(self) -> str:
        return self.preset.id

    @abstractmethod
    def wild_kinds(self, indicator: int | None) -> frozenset[int]:
        """The wildcard kinds a flipped tile makes (none for rulesets without wildcards)."""

    def shape_options(self) -> ShapeOptions:
        return self.preset.shapes.options()

    def readings(self, hand: FinishedHand, win: Win) -> list[Reading]:
        seat = hand.seats[win.seat]
        return analyze(
            seat.concealed,
            seat.melds,
            self.wild_kinds(hand.indicator),
            self.shape_options(),
            winning_kind=win.tile,
        )

    @abstractmethod
    def settle(self, hand: FinishedHand) -> Settlement:
        """Itemised lines, nets summing to zero, who deals next."""


def turn_distance(frm: int, to: int) -> int:
    """Seats counted in turn order (counterclockwise) from ``frm`` to ``to``: 1 = 下家."""
    return (to - frm) % 4


def nearest_winner(wins: Sequence[Win]) -> Win:
    """胡前不胡后 / 截胡: the first claimant in turn order after the discarder."""
    discarder = wins[0].discarder
    assert discarder is not None
    return min(wins, key=lambda w: turn_distance(discarder, w.seat))


def payment_word(win: Win) -> str:
    return {
        WinSource.SELF_DRAW: "自摸",
        WinSource.KONG_REPLACEMENT: "杠上花",
        WinSource.DISCARD: "点炮",
        WinSource.ROB_KONG: "抢杠",
    }[win.source]


def require_readings(readings: list[Reading], win: Win) -> list[Reading]:
    if not readings:
        raise SettleInputError(f"win: seats[{win.seat}].hand is not a winning hand")
    return readings


def best_by_total(options: Sequence[tuple[Reading, Ledger]], winner: int) -> tuple[Reading, Ledger]:
    """[decision] The winner is scored on the reading that pays most; ties keep the first."""
    best = options[0]
    best_total = sum(line.amount for line in best[1].lines if line.payee == winner)
    for opt in options[1:]:
        total = sum(line.amount for line in opt[1].lines if line.payee == winner)
        if total > best_total:
            best, best_total = opt, total
    return best
