"""What every ruleset offers, and the pieces of settlement they share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import ClassVar

from engine.analysis import analyze
from engine.hand import Meld, Reading, ShapeOptions
from engine.rulesets.preset import MultipleWinners, PresetBase
from engine.settlement.finished_hand import (
    FinishedHand,
    SeatEnd,
    SettleInputError,
    Win,
    check_hand,
)
from engine.settlement.ledger import Ledger, Settlement
from engine.settlement.needs import (
    KIND_FLAGS,
    KIND_SOURCES,
    Needs,
    ResultKind,
    SpecialSource,
    WinFlag,
    check_partial,
    kind_of,
)
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
    "gangda": "杠达",
}


@dataclass(frozen=True, slots=True)
class ClaimRules:
    """How a ruleset runs the claim window and who may win while the hand is played."""

    multiple_winners: MultipleWinners = "nearest"
    max_claims: int = 0  # chi/pung per player per hand (chongji 2); 0 = no limit
    keep_claimed: bool = False  # 不能吃啥打啥/碰啥打啥 until a later draw (chongji)
    louhu: bool = False  # 漏胡: a passed winning tile is barred until the next draw/claim
    self_draw_pass_blocks: bool = False  # 自摸不胡: no discard win until the next draw
    jing_chow_only: bool = False  # jian: a discarded jing may be chi'd, not punged/konged
    guan_fengxiang: bool = False  # chongji: a discarder still holding honors is 关风向


class Ruleset(ABC):
    """Data (the preset) plus the code the data cannot express."""

    preset: PresetBase
    flip_kind: ClassVar[FlipKind] = FlipKind.NONE  # what 翻精 turns up, if anything
    # the win's flags and special sources its settlement reads (``needs`` offers them)
    win_flags: ClassVar[tuple[WinFlag, ...]] = ()
    win_sources: ClassVar[tuple[SpecialSource, ...]] = ("kong_replacement", "rob_kong")

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

    _shapes: ShapeOptions | None = None

    def shape_options(self) -> ShapeOptions:
        """Built once (presets are frozen): every reading of a hand asks for it."""
        if self._shapes is None:
            self._shapes = self.build_shape_options()
        return self._shapes

    def build_shape_options(self) -> ShapeOptions:
        """The preset's shapes (a ruleset with a shape set elsewhere adds it)."""
        return self.preset.shapes.options()

    def readings(self, hand: FinishedHand, win: Win) -> list[Reading]:
        seat = hand.seats[win.seat]
        return list(
            _analyze(
                tuple(sorted(seat.concealed)),
                seat.melds,
                self.wild_kinds(hand.indicator),
                self.shape_options(),
                win.tile,
            )
        )

    @abstractmethod
    def settle(self, hand: FinishedHand) -> Settlement:
        """Itemised lines, nets summing to zero, who deals next."""

    def needs(self, kind: ResultKind) -> Needs:
        """What a result of ``kind`` needs entered (``engine.settlement.needs``): here the
        winner's hand alone; rulesets that read other seats say what of them."""
        return self.win_needs(Needs(self.id, kind))

    def win_needs(self, needs: Needs) -> Needs:
        """``needs`` with what the settlement reads of the win beyond its tiles: the flags
        and special sources a win of its kind may carry here, and (a discard) whether more
        than one winner of the tile is paid or ranked."""
        several = needs.kind == "discard" and self.claim_rules().multiple_winners != "nearest"
        return replace(
            needs,
            flags=tuple(f for f in KIND_FLAGS[needs.kind] if f in self.win_flags),
            sources=tuple(s for s in KIND_SOURCES[needs.kind] if s in self.win_sources),
            several_winners=several,
        )

    def check(self, hand: FinishedHand) -> None:
        """Refuse a hand that could not have happened under this ruleset (``settle`` first
        thing): the shared checks, plus the flipped tile a wildcard ruleset cannot do without
        (without it a hand would settle with no wildcards at all)."""
        flips = self.flip_kind is not FlipKind.NONE
        check_hand(hand, flipped_out_of_play=flips and not self.preset.table.flipped_in_play)
        check_partial(hand, self.needs(kind_of(hand)).others)
        if flips and hand.indicator is None and not self.settles_nothing_held(hand):
            raise SettleInputError(
                f"indicator: required by {self.id} (the flipped tile that makes its wildcards)"
            )

    def settles_nothing_held(self, hand: FinishedHand) -> bool:
        """A 流局 that settles from nothing any seat holds: it needs no flipped tile either
        (a table without readers confirms it, whether or not the 精 was entered)."""
        return self.needs(kind_of(hand)).confirm_only

    # --- while the hand is played (engine.round) ---------------------------------------

    def claim_rules(self) -> ClaimRules:
        return ClaimRules(multiple_winners=self.preset.table.multiple_winners)

    def all_readings(self, hand: FinishedHand, win: Win) -> list[Reading]:
        """Every reading the ruleset accepts (rulesets with extra shapes add theirs)."""
        return self.readings(hand, win)

    def forbidden(self, hand: FinishedHand, win: Win, reading: Reading) -> str | None:
        """Why this reading may not win here, in words a dealer understands; None if it may."""
        return None

    def win_refusal(self, hand: FinishedHand, win: Win) -> str | None:
        """Why a declared win does not stand (诈胡), or None when it does."""
        readings = self.all_readings(hand, win)
        if not readings:
            return "不是胡牌 (not a winning hand)"
        reasons = [self.forbidden(hand, win, r) for r in readings]
        if all(r is not None for r in reasons):
            return reasons[0]
        return None

    def win_stands(self, hand: FinishedHand, win: Win) -> bool:
        """``win_refusal(hand, win) is None``, for a player that only needs the yes or no
        (the bots): rulesets may answer it without reading the whole hand."""
        return self.win_refusal(hand, win) is None

    # whether ``seat_refuses`` may ever say True (the bots skip building the seat if not)
    refuses_by_seat: ClassVar[bool] = False

    def seat_refuses(self, seat: SeatEnd, indicator: int | None, win: Win) -> bool:
        """True only when the winner's own tiles (``seat``) and the indicator bar ``win``
        whatever the rest of the hand: a refusal found without building the whole hand."""
        return False

    def false_win_penalised(self) -> bool:
        """Whether a 诈胡 is paid for (listed in ``FinishedHand.false_win``) or only refused."""
        return self.false_win_amount() > 0

    def false_win_amount(self) -> int:
        """What a 诈胡 pays each other seat (0: none, only refused). Presets keep it under
        ``extras`` (jing family) or ``pay`` (the others)."""
        for section in ("extras", "pay"):
            penalty = getattr(getattr(self.preset, section, None), "false_win", 0)
            if isinstance(penalty, int) and penalty > 0:
                return penalty
        return 0

    def rank_wins(self, hand: FinishedHand, wins: Sequence[Win]) -> tuple[Win, ...]:
        """Of several valid wins on one tile, those that stand (``hand`` lists no wins).

        ``largest`` asks the ruleset's own settlement which hand is the largest, so the
        round and the settlement can never disagree.
        """
        mode = self.claim_rules().multiple_winners
        if len(wins) <= 1 or mode == "all":
            return tuple(wins)
        if mode == "nearest":
            return (nearest_winner(wins),)
        try:
            settled = self.settle(replace(hand, wins=tuple(wins)))
        except SettleInputError:
            return (nearest_winner(wins),)
        paid = {line.payee for line in settled.lines if line.code.startswith("win")}
        chosen = tuple(w for w in wins if w.seat in paid)
        return chosen[:1] or (nearest_winner(wins),)


@lru_cache(maxsize=16)  # (a hand's wins only: no later hand asks again)
def _analyze(
    concealed: tuple[int, ...],
    melds: tuple[Meld, ...],
    wild: frozenset[int],
    options: ShapeOptions,
    winning_kind: int,
) -> tuple[Reading, ...]:
    """analyze, memoised: a played win is checked when declared and again when settled."""
    return tuple(analyze(concealed, melds, wild, options, winning_kind=winning_kind))


def turn_distance(frm: int, to: int) -> int:
    """Seats counted in turn order (counterclockwise) from ``frm`` to ``to``: 1 = 下家."""
    return (to - frm) % 4


def nearest_winner(wins: Sequence[Win]) -> Win:
    """胡前不胡后 / 截胡: the first claimant in turn order after the discarder."""
    discarder = wins[0].discarder
    assert discarder is not None
    return min(wins, key=lambda w: turn_distance(discarder, w.seat))


def best_by_total(options: Sequence[tuple[Reading, Ledger]], winner: int) -> tuple[Reading, Ledger]:
    """[decision] The winner is scored on the reading that pays most; ties keep the first."""
    best = options[0]
    best_total = sum(line.amount for line in best[1].lines if line.payee == winner)
    for opt in options[1:]:
        total = sum(line.amount for line in opt[1].lines if line.payee == winner)
        if total > best_total:
            best, best_total = opt, total
    return best
