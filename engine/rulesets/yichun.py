"""宜春麻将 (yichun): no wildcard, honor sets, factors that multiply (``yichun.md``).

score = base × the product of the hand's factors (平糊 1, 大七对 3, 清一色 5, 门清 2 …). On a
self-draw each of the three pays it, on a discard the discarder pays; the dealer and the
discarder pay double ("庄家、放冲乘2支付"). Kongs pay on their own. Every winner on one
discard wins (不拦胡), and the discarder then deals (买庄).
"""

from __future__ import annotations

from math import prod
from typing import ClassVar, Literal

from pydantic import Field

from engine.hand import GroupType, MeldType, Reading, Shape
from engine.rulesets.base import Ruleset
from engine.rulesets.preset import PresetBase, Section, ShapesConfig, TableConfig
from engine.rulesets.winsettle import (
    Scored,
    facts,
    false_win_ledger,
    last_kong,
    resolve_winners,
    score_wins,
)
from engine.settlement.finished_hand import (
    FinishedHand,
    SettleInputError,
    Win,
    WinSource,
)
from engine.settlement.ledger import Ledger, Settlement
from engine.settlement.needs import Needs, ResultKind, SeatNeeds
from engine.tiles import WINDS


class YichunWin(Section):
    """The factors of the seed's table; a hand's score is base × their product."""

    base: int = Field(default=1, ge=1)  # 标准分
    pinghu: int = Field(default=1, ge=1)
    qianggang: int = Field(default=2, ge=1)  # 抢杠
    gangkai: int = Field(default=2, ge=1)  # 杠开
    angang_gangkai: int = Field(default=2, ge=1)  # 暗杠杠开门清: the third ×2
    shisanlan: int = Field(default=2, ge=1)
    qixing_shisanlan: int = Field(default=3, ge=1)
    dandiao: int = Field(default=2, ge=1)  # 单钓: four melds, one tile in hand
    dandiao_with_concealed_kong: bool = False  # 牌型有暗杠则不算单调
    menqing: int = Field(default=2, ge=1)
    menqing_self_draw_only: bool = True  # seed: 门清没吃没碰，糊牌为自摸
    daqi: int = Field(default=3, ge=1)  # 大七对
    xiaoqi: int = Field(default=4, ge=1)  # 小七对
    haohua: int = Field(default=2, ge=1)  # 豪华小七对: × this per four-alike
    qingyise: int = Field(default=5, ge=1)
    ziyise: int = Field(default=6, ge=1)  # 字一色, also without any shape
    ziyise_shaped: int = Field(default=2, ge=1)  # [decision] ×2 when it also forms a shape
    dasanyuan: int = Field(default=3, ge=1)  # 大三元: as 大七对
    dasixi: int = Field(default=2, ge=1)  # [decision] 大四喜: 大七对 × 2
    tianhu: int = Field(default=12, ge=1)  # 天糊: replaces every other factor
    dihu: int = Field(default=12, ge=1)  # 地糊


class YichunPay(Section):
    dealer_pays_double: bool = True  # 庄家…乘2支付: the dealer pays double (receives plain)
    discarder_pays_double: bool = True  # 放冲乘2支付; with the dealer's ×2 it makes ×4
    kong_exposed: int = Field(default=1, ge=0)  # 明杠 (and 补杠), from each, × base
    kong_concealed: int = Field(default=2, ge=0)  # 暗杠, from each, × base
    kongs_on_exhausted: bool = True  # [decision] kongs pay on their own, also in a 流局
    false_win: int = Field(default=0, ge=0)  # 诈胡: the seed has no penalty (0 = none)


class MaiConfig(Section):
    """买: buyers' payments double, ×4 when both sides bought (对火). Off by default."""

    enabled: bool = False
    factor: int = Field(default=2, ge=1)


class YichunPreset(PresetBase):
    family: Literal["yichun"] = "yichun"
    priced_shapes: ClassVar[frozenset[Shape]] = frozenset(
        {
            Shape.PINGHU,
            Shape.XIAOQI,
            Shape.DAQI,
            Shape.SHISANLAN,
            Shape.QIXING_SHISANLAN,
            Shape.QUANFENG,
        }
    )
    shapes: ShapesConfig = ShapesConfig(
        honor_sets=True, shisanlan=True, qixing_shisanlan=True, quanfeng=True
    )
    table: TableConfig = TableConfig(dice="sum_seat_sum_stacks", multiple_winners="all")
    win: YichunWin = YichunWin()
    pay: YichunPay = YichunPay()
    mai: MaiConfig = MaiConfig()


Factor = tuple[str, int]


class YichunRuleset(Ruleset):
    win_flags = ("tian", "di")

    def __init__(self, preset: YichunPreset) -> None:
        self.preset: YichunPreset = preset

    def wild_kinds(self, indicator: int | None) -> frozenset[int]:
        return frozenset()

    # --- factors -----------------------------------------------------------------------

    def factors(self, hand: FinishedHand, win: Win, reading: Reading) -> list[Factor]:
        """The named factors of one reading, in the order a player says them."""
        w = self.preset.win
        if win.tian or win.di:
            # [decision] 天糊/地糊 12 replaces the pattern and every other factor
            return [("天糊", w.tianhu)] if win.tian else [("地糊", w.dihu)]
        seat = hand.seats[win.seat]
        f = facts(reading)
        out: list[Factor] = []
        shape = reading.shape
        if shape is Shape.QUANFENG:
            out.append(("字一色", w.ziyise))  # all honors, no shape
        else:
            if f.one_suit:
                out.append(("清一色", w.qingyise))
            elif f.all_honors:
                out += [("字一色", w.ziyise), ("成阕", w.ziyise_shaped)]
            out += self._shape_factors(reading)
        menqing = seat.is_concealed and (win.self_drawn or not w.menqing_self_draw_only)
        if menqing:
            out.append(("门清", w.menqing))
        has_concealed_kong = any(m.type is MeldType.KONG_CONCEALED for m in seat.melds)
        if (
            len(seat.melds) == 4
            and shape in (Shape.PINGHU, Shape.DAQI)
            and (w.dandiao_with_concealed_kong or not has_concealed_kong)
        ):
            out.append(("单钓", w.dandiao))
        if win.source is WinSource.KONG_REPLACEMENT:
            out.append(("杠开", w.gangkai))
            kong = last_kong(seat)
            if menqing and kong is not None and kong.type is MeldType.KONG_CONCEALED:
                out.append(("暗杠", w.angang_gangkai))
        if win.source is WinSource.ROB_KONG:
            out.append(("抢杠", w.qianggang))
        return out

    def _shape_factors(self, reading: Reading) -> list[Factor]:
        w = self.preset.win
        f = facts(reading)
        if reading.shape is Shape.DAQI:
            if f.dragon_pungs == 3:
                return [("大三元", w.dasanyuan)]
            if sum(1 for k in f.kongs if k in WINDS) == 4:
                return [("大七对", w.daqi), ("大四喜", w.dasixi)]
            return [("大七对", w.daqi)]
        if reading.shape is Shape.XIAOQI:
            pairs = [g.kinds[0] for g in reading.groups if g.type is GroupType.PAIR]
            fours = sum(1 for k in set(pairs) if pairs.count(k) >= 2)
            out: list[Factor] = [("小七对", w.xiaoqi)]
            if fours:
                out.append((f"豪华{fours}杠" if fours > 1 else "豪华", w.haohua**fours))
            return out
        if reading.shape is Shape.SHISANLAN:
            return [("十三烂", w.shisanlan)]
        if reading.shape is Shape.QIXING_SHISANLAN:
            return [("七星十三烂", w.qixing_shisanlan)]
        return [("平糊", w.pinghu)]

    # --- settlement --------------------------------------------------------------------

    def needs(self, kind: ResultKind) -> Needs:
        """Kongs pay on their own: each seat's kongs (by type), in a 流局 too where they do."""
        kongs = kind != "exhausted" or self.preset.pay.kongs_on_exhausted
        return self.win_needs(Needs(self.id, kind, SeatNeeds(kongs=kongs)))

    def settle(self, hand: FinishedHand) -> Settlement:
        self.check(hand)
        self._check_input(hand)
        pay = self.preset.pay
        scored, false_seats, notes = score_wins(hand, lambda w: self._score(hand, w), pay.false_win)
        scored, more = resolve_winners(scored, self.preset.table.multiple_winners)
        notes += more

        ledgers = [false_win_ledger(false_seats, pay.false_win)]
        ledgers += [s.ledger for s in scored]
        if scored or pay.kongs_on_exhausted:
            ledgers.append(self._kongs(hand))

        if len(scored) > 1:
            discarder = scored[0].win.discarder
            assert discarder is not None
            next_dealer = discarder  # 买庄: the discarder of a multiple win deals
        elif scored:
            next_dealer = scored[0].win.seat  # the winner deals
        else:
            # [decision] 流局: the last drawer deals; without extra.last_drawer, the dealer's
            # 上家, who draws the 83rd and last live tile when no claim changed the order
            last = hand.last_drawer
            next_dealer = last if last is not None else (hand.dealer + 3) % 4
        streak = hand.dealer_streak + 1 if next_dealer == hand.dealer else 0
        return Settlement(
            lines=tuple(line for ledger in ledgers for line in ledger.lines),
            next_dealer=next_dealer,
            dealer_streak=streak,
            notes=tuple(notes),
        )

    def _check_input(self, hand: FinishedHand) -> None:
        if hand.mai and not self.preset.mai.enabled:
            raise SettleInputError("extra.mai: 买 is off in this preset (option mai.enabled)")

    def _buyers(self, hand: FinishedHand) -> frozenset[int]:
        if not self.preset.mai.enabled:
            return frozenset()
        return frozenset(hand.mai) | {hand.dealer}  # 庄家必买

    def _score(self, hand: FinishedHand, win: Win) -> tuple[list[Scored], str]:
        readings = self.readings(hand, win)
        if not readings:
            return [], "不是胡牌 (the hand does not win)"
        out = []
        for reading in readings:
            factors = self.factors(hand, win, reading)
            product = prod(v for _, v in factors)
            ledger = self._win_ledger(hand, win, factors, product)
            out.append(Scored(win, reading, ledger, product))
        return out, ""

    def _win_ledger(
        self, hand: FinishedHand, win: Win, factors: list[Factor], product: int
    ) -> Ledger:
        p = self.preset
        names = " ".join(name for name, _ in factors)
        times = "×".join(str(v) for _, v in factors)
        label = f"{names} {times}" if len(factors) > 1 else f"{names} {product}"
        buyers = self._buyers(hand)
        ledger = Ledger()
        for payer in range(4):
            if payer == win.seat:
                continue
            if not win.self_drawn and payer != win.discarder:
                continue  # on a discard (or 抢杠) only the discarder pays
            if win.self_drawn:
                code, word = "win.self_draw", "自摸"
            elif win.source is WinSource.ROB_KONG:
                code, word = "win.rob_kong", "被抢杠"
            else:
                code, word = "win.discard", "放冲"
            amount = p.win.base * product
            tags: list[str] = []
            if payer == win.discarder and p.pay.discarder_pays_double:
                amount *= 2
                word += "×2"
            if payer == hand.dealer and p.pay.dealer_pays_double:
                amount *= 2
                tags.append("庄家×2")
            bought = (payer in buyers) + (win.seat in buyers)
            if bought:
                amount *= p.mai.factor**bought
                tags.append(f"对火×{p.mai.factor**2}" if bought == 2 else f"买×{p.mai.factor}")
            reason = " ".join([label, word, *tags])
            ledger.pay(code, reason, payer, win.seat, amount)
        return ledger

    def _kongs(self, hand: FinishedHand) -> Ledger:
        """明杠 1, 暗杠 2 from each other seat (× base); a robbed kong does not count."""
        p = self.preset
        ledger = Ledger()
        robbed = {w.discarder for w in hand.wins if w.source is WinSource.ROB_KONG}
        for seat, s in enumerate(hand.seats):
            # by type alone: a partial seat gives its kongs so (``SeatEnd.kongs``)
            for kind in [*(m.type for m in s.melds if m.type.is_kong), *s.kongs]:
                if kind is MeldType.KONG_ADDED and seat in robbed:
                    continue
                if kind is MeldType.KONG_CONCEALED:
                    name, amount = "暗杠", p.pay.kong_concealed
                else:
                    name = "明杠" if kind is MeldType.KONG_EXPOSED else "补杠"
                    amount = p.pay.kong_exposed
                ledger.each_pays(f"kong.{kind.value}", name, seat, amount * p.win.base)
        return ledger
