"""冲击麻将 (chongji): one 财神 wildcard kind, scores in 龙 (``chongji.md``).

A win is worth base + the hand's 龙 + its features: 11 (十十上, +10 per consecutive dealer
hand) + one 龙 per 财神 held (none counts 2) + the feature table (+1 / +10 / +50). The
discarder pays the total and the two others half of it, rounded half up; on a self-draw
each pays the total. Of several winners on one discard only the largest hand wins, and
单吊 / 清一色 / 清七对 / 全风向 cannot be overtaken (``table.multiple_winners = "largest"``);
the other reading of the seed, ``"protected_first"``, lets the nearer seat take a discard
from any hand but those four. The 001 fragment's point system (12 points,
+2 per 龙) is the second scoring option.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar, Literal

from pydantic import Field

from engine.hand import Group, MeldType, Reading, Shape, ShapeOptions
from engine.rulesets.base import ClaimRules, Ruleset
from engine.rulesets.preset import PresetBase, Section, ShapesConfig, TableConfig
from engine.rulesets.winsettle import (
    Scored,
    facts,
    false_win_ledger,
    half_up,
    resolve_winners,
    score_wins,
)
from engine.settlement.finished_hand import (
    FinishedHand,
    SeatEnd,
    SettleInputError,
    Win,
    WinSource,
)
from engine.settlement.ledger import Ledger, Settlement
from engine.tiles import successor
from engine.wall import FlipKind


class ChongjiRules(Section):
    gangda: bool = True  # 一杠一达 … 三杠三达: k kongs, the rest 7−2k pairs and k loose tiles
    max_claims: int = Field(default=2, ge=0)  # chi/pung per player per hand (0 = no limit)


class ChongjiScore(Section):
    """龙 (1 龙 = 1 point), or the 001 fragment's points (12 + 2 per 龙)."""

    system: Literal["long", "points"] = "long"
    base_long: int = Field(default=11, ge=0)  # 十十上: a dealer's first hand
    streak_long: int = Field(default=10, ge=0)  # + this per consecutive dealer hand
    no_caishen_long: int = Field(default=2, ge=0)  # 无龙算2龙
    points_base: int = Field(default=12, ge=0)  # points: 12点起底 …
    points_per_long: int = Field(default=2, ge=1)  # … 一龙加2点


class ChongjiFeatures(Section):
    """龙 added by each feature of the winning hand."""

    duiduipeng: int = Field(default=1, ge=0)  # 对对碰: seven pairs
    shisanbuda: int = Field(default=1, ge=0)  # 十三不搭 (七风齐 is one too)
    hunyise: int = Field(default=1, ge=0)
    qifengqi: int = Field(default=1, ge=0)
    daduidui: int = Field(default=1, ge=0)
    gangda: int = Field(default=1, ge=0)  # 一杠一达 / 二杠二达 / 三杠三达
    tianhu: int = Field(default=10, ge=0)
    dihu: int = Field(default=10, ge=0)
    gangbao: int = Field(default=10, ge=0)  # 杠爆, paid as a self-draw
    haidi: int = Field(default=10, ge=0)  # 海底捞月 (self-draw on the last tile)
    dandiao: int = Field(default=10, ge=0)  # 单吊; cannot be overtaken
    qingqidui: int = Field(default=10, ge=0)  # 清七对: replaces 对对碰's +1
    paolong: int = Field(default=10, ge=0)  # 抛龙, self-draw only
    qingyise: int = Field(default=10, ge=0)
    sicaishen: int = Field(default=10, ge=0)  # four 财神, self-draw only
    sicaishen_shaped: int = Field(default=10, ge=0)  # [decision] … won with a shape: +10 more
    quanfeng: int = Field(default=50, ge=0)  # 全风向 (+100 in an ordinary room)


class ChongjiPay(Section):
    quanfeng_shaped_full: bool = True  # 全风向 won with a shape: all three pay in full
    guan_fengxiang: int = Field(default=5, ge=0)  # 关风向: +5 龙, as a self-draw, 包三家
    false_win: int = Field(default=0, ge=0)  # 诈胡: none in the seed (0 = refused)
    exhausted_dealer: Literal["stays", "next"] = "stays"  # [decision] after a 流局


class ChongjiPreset(PresetBase):
    family: Literal["chongji"] = "chongji"
    priced_shapes: ClassVar[frozenset[Shape]] = frozenset(Shape) - {Shape.SHISANYAO, Shape.JIULIAN}
    # the two readings of 不能拦胡 (only chongji's hands have tiers)
    claim_orders: ClassVar[frozenset[str]] = PresetBase.claim_orders | {"protected_first"}
    shapes: ShapesConfig = ShapesConfig(
        shisanlan=True,
        qixing_shisanlan=True,
        wild_for_qixing_honor=False,
        quanfeng=True,
        sicaishen=True,
    )
    table: TableConfig = TableConfig(
        dice="sum_seat_low_die_plus_one", flipped_in_play=True, multiple_winners="largest"
    )
    rules: ChongjiRules = ChongjiRules()
    score: ChongjiScore = ChongjiScore()
    features: ChongjiFeatures = ChongjiFeatures()
    pay: ChongjiPay = ChongjiPay()


SHAPE_NAME = {
    Shape.PINGHU: "推胡",
    Shape.XIAOQI: "对对碰",
    Shape.DAQI: "大对对",
    Shape.SHISANLAN: "十三不搭",
    Shape.QIXING_SHISANLAN: "七风齐",
    Shape.QUANFENG: "全风向",
    Shape.SICAISHEN: "四财神",
}
LONG_NAME = {1: "一龙", 2: "双龙", 3: "三龙", 4: "四龙"}
GANGDA = {1: "一杠一达", 2: "二杠二达", 3: "三杠三达"}

# Tiers for "largest" and "protected_first": 全风向 above 单吊 / 清一色 / 清七对 (equal among
# themselves), above all else.
TIER_QUANFENG, TIER_PROTECTED = 2, 1


class ChongjiRuleset(Ruleset):
    flip_kind = FlipKind.CAISHEN
    win_flags = ("tian", "di", "last_tile", "pao_long")

    def __init__(self, preset: ChongjiPreset) -> None:
        self.preset: ChongjiPreset = preset

    def wild_kinds(self, indicator: int | None) -> frozenset[int]:
        return frozenset() if indicator is None else frozenset({successor(indicator)})

    def claim_rules(self) -> ClaimRules:
        # 每人最多吃碰两次; 不能吃啥打啥; 自摸不胡，在这圈内别人打胡不能胡
        return ClaimRules(
            multiple_winners=self.preset.table.multiple_winners,
            max_claims=self.preset.rules.max_claims,
            keep_claimed=True,
            self_draw_pass_blocks=True,
            guan_fengxiang=self.preset.pay.guan_fengxiang > 0,
        )

    def caishen(self, hand: FinishedHand) -> int:
        if hand.indicator is None:
            raise SettleInputError("indicator: chongji needs the turned-up tile (财神 = next kind)")
        return successor(hand.indicator)

    # --- readings ----------------------------------------------------------------------

    def build_shape_options(self) -> ShapeOptions:
        """The preset's shapes, and 杠达 when ``rules.gangda``: the analysis reads it like
        any other shape, so the round, the bots and ``analyze`` see the wins paid here."""
        options = self.preset.shapes.options()
        if self.preset.rules.gangda:
            options = replace(options, shapes=options.shapes | {Shape.GANGDA})
        return options

    def forbidden(self, hand: FinishedHand, win: Win, reading: Reading) -> str | None:
        """Why this reading may not win here; None if it may."""
        drawn = win.self_drawn
        if reading.shape is Shape.SICAISHEN and not drawn:
            return "四财神只能自摸，不能打胡"
        if win.pao_long and not drawn:
            return "抛龙只能自摸"
        if reading.shape is Shape.QIXING_SHISANLAN:
            # 财神代替风向或风向本身是财神都不行
            cs = self.caishen(hand)
            if cs >= 27 or any(w and k >= 27 for g in reading.groups for k, w in _tiles(g)):
                return "七风齐: 财神不能当风"
        return None

    # --- the value of a hand -------------------------------------------------------------

    def longs(self, hand: FinishedHand, win: Win, reading: Reading) -> tuple[list[str], int, int]:
        """(names, 龙 of the hand and its features, tier)."""
        ft = self.preset.features
        seat = hand.seats[win.seat]
        cs = self.caishen(hand)
        held = seat.all_kinds().count(cs)
        total = held if held else self.preset.score.no_caishen_long
        lead = LONG_NAME.get(held, f"{held}龙") if held else "无龙"
        tier = 0
        names: list[str] = []

        def add(name: str, value: int, t: int = 0) -> None:
            nonlocal total, tier
            names.append(name)
            total += value
            tier = max(tier, t)

        shape = reading.shape
        f = facts(reading)
        if shape is Shape.GANGDA:
            lead += GANGDA[len(seat.melds)]
            total += ft.gangda
        else:
            if shape is Shape.XIAOQI and held == 0:
                lead += "清七对"  # seven pairs without 财神: +10 instead of 对对碰's +1
                total += ft.qingqidui
                tier = TIER_PROTECTED
            else:
                lead += SHAPE_NAME[shape]
            if shape is Shape.XIAOQI:
                if held:
                    total += ft.duiduipeng
            elif shape is Shape.DAQI:
                total += ft.daduidui
            elif shape is Shape.SHISANLAN:
                total += ft.shisanbuda
            elif shape is Shape.QIXING_SHISANLAN:
                total += ft.shisanbuda + ft.qifengqi  # 七风齐 is a 十三不搭 with seven honors
        if shape is Shape.QUANFENG:
            total += ft.quanfeng
            tier = TIER_QUANFENG
        elif shape is not Shape.SICAISHEN:
            if f.all_honors:
                add("全风向", ft.quanfeng, TIER_QUANFENG)  # 全风向不算清一色
            elif f.one_suit:
                add("清一色", ft.qingyise, TIER_PROTECTED)
            elif f.one_suit_and_honors:
                add("混一色", ft.hunyise)
        if held == 4 and win.self_drawn:
            if shape is Shape.SICAISHEN:
                total += ft.sicaishen
            else:
                add("四财神 成牌", ft.sicaishen + ft.sicaishen_shaped)
        if self.is_dandiao(seat, win, cs):
            add("单吊", ft.dandiao, TIER_PROTECTED)
        if win.tian:
            add("天胡", ft.tianhu)
        if win.di:
            add("地胡", ft.dihu)
        if win.source is WinSource.KONG_REPLACEMENT:
            add("杠爆", ft.gangbao)
        if win.last_tile and win.self_drawn:
            add("海底捞月", ft.haidi)
        if win.pao_long and win.self_drawn:
            add("抛龙", ft.paolong)
        return [lead, *names], total, tier

    @staticmethod
    def is_dandiao(seat: SeatEnd, win: Win, cs: int) -> bool:
        """单吊: four melds and one tile held; a lone 财神 waiting on anything is not one."""
        if len(seat.melds) != 4 or len(seat.concealed) != 2:
            return False
        held = list(seat.concealed)
        held.remove(win.tile)
        return held[0] != cs

    def value(self, hand: FinishedHand, longs: int) -> int:
        s = self.preset.score
        longs += s.streak_long * hand.dealer_streak
        if s.system == "points":
            return s.points_base + s.points_per_long * longs
        return s.base_long + longs

    # --- settlement --------------------------------------------------------------------

    def settle(self, hand: FinishedHand) -> Settlement:
        p = self.preset
        self.check(hand)
        self._check_input(hand)
        scored, false_seats, notes = score_wins(
            hand, lambda w: self._score(hand, w), p.pay.false_win
        )
        scored, more = resolve_winners(scored, p.table.multiple_winners)
        notes += more
        lines = false_win_ledger(false_seats, p.pay.false_win).lines
        for s in scored:
            lines += s.ledger.lines

        if not scored:
            stays = p.pay.exhausted_dealer == "stays"
            next_dealer = hand.dealer if stays else (hand.dealer + 1) % 4
            streak = hand.dealer_streak if stays else 0
            return Settlement(
                lines=tuple(lines),
                next_dealer=next_dealer,
                void=not lines,
                dealer_streak=streak,
                notes=tuple(notes),
            )
        if any(s.win.seat == hand.dealer for s in scored):
            next_dealer, streak = hand.dealer, hand.dealer_streak + 1  # 二老庄, 三老庄 …
        else:
            next_dealer, streak = (hand.dealer + 1) % 4, 0
        return Settlement(
            lines=tuple(lines), next_dealer=next_dealer, dealer_streak=streak, notes=tuple(notes)
        )

    def _check_input(self, hand: FinishedHand) -> None:
        if not self.settles_nothing_held(hand):
            self.caishen(hand)
        limit = self.preset.rules.max_claims
        for i, seat in enumerate(hand.seats):
            claims = sum(1 for m in seat.melds if m.type in (MeldType.CHOW, MeldType.PUNG))
            if limit and claims > limit:
                raise SettleInputError(
                    f"seats[{i}].melds: {claims} chi/pung, chongji allows {limit} a hand"
                )
        if hand.guan_fengxiang and not any(w.source is WinSource.DISCARD for w in hand.wins):
            raise SettleInputError("extra.guan_fengxiang: 关风向 needs a win on a discard")

    def _score(self, hand: FinishedHand, win: Win) -> tuple[list[Scored], str]:
        readings = self.all_readings(hand, win)
        if not readings:
            return [], "不是胡牌 (the hand does not win)"
        out: list[Scored] = []
        why = ""
        for reading in readings:
            reason = self.forbidden(hand, win, reading)
            if reason is not None:
                why = why or reason
                continue
            names, longs, tier = self.longs(hand, win, reading)
            ledger, total = self._ledger(hand, win, reading, names, longs)
            # within a tier above 0 size does not count: 优先级别一样, 按前后座位
            out.append(Scored(win, reading, ledger, total if tier == 0 else 0, tier))
        return out, why

    def _ledger(
        self, hand: FinishedHand, win: Win, reading: Reading, names: Sequence[str], longs: int
    ) -> tuple[Ledger, int]:
        p = self.preset
        total = self.value(hand, longs)
        label = "冲击 " + " ".join(names)
        ledger = Ledger()
        if win.self_drawn:
            # (a 杠爆 is already among the names: it adds its 龙)
            ledger.each_pays("win.self_draw", f"{label} 自摸", win.seat, total)
            return ledger, total
        assert win.discarder is not None
        if win.source is WinSource.ROB_KONG:
            # 独缴: the robbed player pays all three shares of a self-draw
            ledger.pay("win.rob_kong", f"{label} 抢杠 独缴", win.discarder, win.seat, 3 * total)
            return ledger, total
        if hand.guan_fengxiang:
            fined = self.value(hand, longs + p.pay.guan_fengxiang)
            reason = f"{label} 关风向+{p.pay.guan_fengxiang}龙 包三家"
            ledger.pay("win.guan_fengxiang", reason, win.discarder, win.seat, 3 * fined)
            return ledger, total
        ledger.pay("win.discard", f"{label} 点炮", win.discarder, win.seat, total)
        full = p.pay.quanfeng_shaped_full and reading.shape not in (
            Shape.QUANFENG,
            Shape.SICAISHEN,
        )
        full = full and "全风向" in names
        for payer in range(4):
            if payer in (win.seat, win.discarder):
                continue
            if full:
                ledger.pay("win.discard_share", f"{label} 全缴", payer, win.seat, total)
            else:
                ledger.pay("win.discard_share", f"{label} 陪付", payer, win.seat, half_up(total))
        return ledger, total


def _tiles(group: Group) -> list[tuple[int, bool]]:
    return list(zip(group.kinds, group.wild, strict=True))
