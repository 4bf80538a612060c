"""广东鸡平胡 (guangdong): 番 that double, capped at 3 番 (爆胡) (``guangdong.md``).

A hand's value is base × 2^番. Hands within the cap (鸡胡 0, 平胡 1, 碰碰胡 2, 混一色 2) add
the extras (自摸, 门风, 圈风, 三元 pungs, +1 each) up to the cap; the special hands (清一色 4
and up) stand alone and are not capped. 一炮三响, 杠上开花 and 海底捞月 count at least 3 番.
On a self-draw each of the three pays; on a discard the discarder pays.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from engine.hand import MeldType, Reading, Shape
from engine.rulesets.base import ClaimRules, Ruleset
from engine.rulesets.preset import PresetBase, Section, ShapesConfig, TableConfig
from engine.rulesets.winsettle import (
    Facts,
    Scored,
    facts,
    false_win_ledger,
    last_kong,
    resolve_winners,
    score_wins,
    seat_wind,
)
from engine.settlement.finished_hand import FinishedHand, Win, WinSource
from engine.settlement.ledger import Ledger, Settlement
from engine.tiles import DRAGONS, EAST, NORTH, WINDS, is_terminal


class FanTable(Section):
    """番 of each hand; 分值 = 2^番."""

    cap: int = Field(default=3, ge=0)  # 爆胡
    pinghu: int = Field(default=1, ge=0)  # all chows
    pengpenghu: int = Field(default=2, ge=0)  # all pungs
    hunyise: int = Field(default=2, ge=0)
    # special hands: not capped, not combined with anything else
    qingyise: int = Field(default=4, ge=0)
    hunpeng: int = Field(default=4, ge=0)  # 混一色 + 碰碰胡
    qingpeng: int = Field(default=5, ge=0)  # 清一色 + 碰碰胡
    hunyaojiu: int = Field(default=5, ge=0)  # terminals and honors only
    xiaosanyuan: int = Field(default=5, ge=0)
    xiaosixi: int = Field(default=5, ge=0)
    ziyise: int = Field(default=6, ge=0)
    qingyaojiu: int = Field(default=6, ge=0)  # terminals only, all pungs
    dasanyuan: int = Field(default=6, ge=0)
    dasixi: int = Field(default=6, ge=0)
    jiulian: int = Field(default=6, ge=0)  # 九莲宝灯, not counted with 清一色
    shisanyao: int = Field(default=6, ge=0)
    # extras, +1 each, only within the cap
    zimo: int = Field(default=1, ge=0)  # 自摸
    seat_wind: int = Field(default=1, ge=0)  # 门风 pung
    prevailing_wind: int = Field(default=1, ge=0)  # 圈风 pung
    dragon: int = Field(default=1, ge=0)  # each 三元 pung
    # special moments: a hand under this many 番 counts as this many
    yipao_sanxiang_min: int = Field(default=3, ge=0)  # 一炮三响
    gangshang_min: int = Field(default=3, ge=0)  # 杠上开花
    haidi_min: int = Field(default=3, ge=0)  # 海底捞月


class GuangdongPay(Section):
    base: int = Field(default=1, ge=1)  # stake per point (the seed's X × N)
    table_fee: int = Field(default=0, ge=0)  # per hand, each seat pays the parlour (A)
    table_fee_on_exhausted: bool = True  # [decision] a 流局 is a played hand too
    gangshang_bao: bool = True  # 杠上开花 after a kong on a discard: the kong-giver pays all
    bao_zimo: bool = False  # [decision] 包自摸, off: a discard win scores as a self-draw,
    # paid by the discarder for all three
    false_win: int = Field(default=0, ge=0)  # 诈胡: none in the seed (0 = refused)


class GuangdongPreset(PresetBase):
    family: Literal["guangdong"] = "guangdong"
    priced_shapes: ClassVar[frozenset[Shape]] = frozenset(
        {Shape.PINGHU, Shape.XIAOQI, Shape.DAQI, Shape.SHISANYAO, Shape.JIULIAN}
    )
    shapes: ShapesConfig = ShapesConfig(xiaoqi=False, shisanyao=True, jiulian=True)
    table: TableConfig = TableConfig(dice="sum_seat_sum_stacks", multiple_winners="all")
    fan: FanTable = FanTable()
    pay: GuangdongPay = GuangdongPay()


Fan = tuple[str, int]


class GuangdongRuleset(Ruleset):
    win_flags = ("last_tile",)  # 海底捞月

    def __init__(self, preset: GuangdongPreset) -> None:
        self.preset: GuangdongPreset = preset

    def wild_kinds(self, indicator: int | None) -> frozenset[int]:
        return frozenset()

    def claim_rules(self) -> ClaimRules:
        # 漏胡: a passed winning tile is barred until the next draw, chi, pung or kong
        return ClaimRules(multiple_winners=self.preset.table.multiple_winners, louhu=True)

    # --- 番 ----------------------------------------------------------------------------

    def special(self, reading: Reading) -> Fan | None:
        """The special hand of a reading (the largest, if several apply), or None."""
        return self._special(reading, facts(reading))

    def _special(self, reading: Reading, f: Facts) -> Fan | None:
        t = self.preset.fan
        found: list[Fan] = []
        if reading.shape is Shape.SHISANYAO:
            found.append(("十三幺", t.shisanyao))
        if reading.shape is Shape.JIULIAN:
            found.append(("九莲宝灯", t.jiulian))
        if reading.shape not in (Shape.PINGHU, Shape.DAQI):
            return max(found, key=lambda x: x[1]) if found else None
        if f.all_honors:
            found.append(("字一色", t.ziyise))
        if all(is_terminal(k) for k in f.kinds) and f.all_pungs:
            found.append(("清幺九", t.qingyaojiu))
        if f.dragon_pungs == 3:
            found.append(("大三元", t.dasanyuan))
        if f.wind_pungs == 4:
            found.append(("大四喜", t.dasixi))
        if all(is_terminal(k) or k >= 27 for k in f.kinds) and f.has_honors and f.suits:
            found.append(("混幺九", t.hunyaojiu))
        if f.dragon_pungs == 2 and f.pair in DRAGONS:
            found.append(("小三元", t.xiaosanyuan))
        if f.wind_pungs == 3 and f.pair in WINDS:
            found.append(("小四喜", t.xiaosixi))
        if f.one_suit and f.all_pungs:
            found.append(("清碰", t.qingpeng))
        if f.one_suit:
            found.append(("清一色", t.qingyise))
        if f.one_suit_and_honors and f.all_pungs:
            found.append(("混碰", t.hunpeng))
        # the first of the largest: the table lists the more specific hand first
        return max(found, key=lambda x: x[1]) if found else None

    def fan(self, hand: FinishedHand, win: Win, reading: Reading, winners: int) -> list[Fan]:
        """The named 番 of one reading; their sum is the hand's 番."""
        t = self.preset.fan
        f = facts(reading)
        special = self._special(reading, f)
        if special is not None:
            return [special]
        out: list[Fan] = []
        if f.chows == 4:
            out.append(("平胡", t.pinghu))
        if f.all_pungs:
            out.append(("碰碰胡", t.pengpenghu))
        if f.one_suit_and_honors:
            out.append(("混一色", t.hunyise))
        if not out:
            out.append(("鸡胡", 0))
        if self._scored_as_self_draw(win):
            out.append(("自摸", t.zimo))
        if seat_wind(hand, win.seat) in f.pungs:
            out.append(("门风", t.seat_wind))
        if hand.prevailing_wind in f.pungs:
            out.append(("圈风", t.prevailing_wind))
        dragons = f.dragon_pungs
        if dragons:
            out.append(("三元" if dragons == 1 else f"三元×{dragons}", dragons * t.dragon))
        total = sum(v for _, v in out)
        if total > t.cap:
            out.append(("爆胡", t.cap - total))
            total = t.cap
        for applies, name, floor in (
            (winners >= 3, "一炮三响", t.yipao_sanxiang_min),
            (win.source is WinSource.KONG_REPLACEMENT, "杠上开花", t.gangshang_min),
            (win.last_tile and win.self_drawn, "海底捞月", t.haidi_min),
        ):
            if applies and total < floor:
                out.append((f"{name}作{floor}番", floor - total))
                total = floor
        return out

    def _scored_as_self_draw(self, win: Win) -> bool:
        return win.self_drawn or (self.preset.pay.bao_zimo and win.source is WinSource.DISCARD)

    # --- settlement --------------------------------------------------------------------

    def settle(self, hand: FinishedHand) -> Settlement:
        p = self.preset
        self.check(hand)
        winners = len(hand.wins)
        scored, false_seats, notes = score_wins(
            hand, lambda w: self._score(hand, w, winners), p.pay.false_win
        )
        scored, more = resolve_winners(scored, p.table.multiple_winners)
        notes += more
        lines = false_win_ledger(false_seats, p.pay.false_win).lines
        for s in scored:
            lines += s.ledger.lines

        if not scored or any(s.win.seat == hand.dealer for s in scored):
            next_dealer, streak = hand.dealer, hand.dealer_streak + 1  # 连庄
        else:
            next_dealer, streak = (hand.dealer + 1) % 4, 0
        fee = p.pay.table_fee if scored or p.pay.table_fee_on_exhausted else 0
        return Settlement(
            lines=tuple(lines),
            next_dealer=next_dealer,
            dealer_streak=streak,
            prevailing_wind=self.next_wind(hand, next_dealer),
            notes=tuple(notes),
            house_fee=fee,
        )

    @staticmethod
    def next_wind(hand: FinishedHand, next_dealer: int) -> int:
        """风圈 moves on when the deal passes back to the first dealer without a repeat.

        [decision] The first dealer is ``extra.first_dealer``, seat 0 when not given.
        """
        first = hand.first_dealer if hand.first_dealer is not None else 0
        if next_dealer != hand.dealer and next_dealer == first:
            return EAST if hand.prevailing_wind == NORTH else hand.prevailing_wind + 1
        return hand.prevailing_wind

    def _score(self, hand: FinishedHand, win: Win, winners: int) -> tuple[list[Scored], str]:
        readings = self.readings(hand, win)
        if not readings:
            return [], "不是胡牌 (the hand does not win)"
        out = []
        for reading in readings:
            fans = self.fan(hand, win, reading, winners)
            n = sum(v for _, v in fans)
            value = self.preset.pay.base * 2**n
            out.append(Scored(win, reading, self._ledger(hand, win, fans, n, value), value))
        return out, ""

    def _ledger(self, hand: FinishedHand, win: Win, fans: list[Fan], n: int, value: int) -> Ledger:
        named = [name for name, v in fans if v > 0 or name == "鸡胡"]
        label = f"{' '.join(named)} 番 {n}"
        if any(name == "爆胡" for name, _ in fans):
            label += " 爆胡"
        ledger = Ledger()
        seat = hand.seats[win.seat]
        kong = last_kong(seat)
        if (
            win.source is WinSource.KONG_REPLACEMENT
            and self.preset.pay.gangshang_bao
            and kong is not None
            and kong.type is MeldType.KONG_EXPOSED
            and kong.from_seat is not None
        ):
            reason = " ".join(filter(None, [label, _unless_named("杠上开花", named), "包三家"]))
            ledger.pay("win.bao", reason, kong.from_seat, win.seat, 3 * value)
        elif win.self_drawn:
            word = "杠上开花" if win.source is WinSource.KONG_REPLACEMENT else "自摸"
            reason = f"{label} {_unless_named(word, named)}".rstrip()
            ledger.each_pays("win.self_draw", reason, win.seat, value)
        elif win.source is WinSource.DISCARD and self.preset.pay.bao_zimo:
            assert win.discarder is not None
            reason = f"{label} 包自摸"
            ledger.pay("win.bao_zimo", reason, win.discarder, win.seat, 3 * value)
        else:
            assert win.discarder is not None
            code, word = (
                ("win.rob_kong", "抢杠")
                if win.source is WinSource.ROB_KONG
                else ("win.discard", "点炮")
            )
            ledger.pay(code, f"{label} {word}", win.discarder, win.seat, value)
        return ledger


def _unless_named(word: str, named: list[str]) -> str:
    """How a hand was won, unless a 番 already says it (自摸 +1, 杠上开花作3番)."""
    return "" if any(name.startswith(word) for name in named) else word
