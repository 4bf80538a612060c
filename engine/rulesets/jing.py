"""The 冲关 family with 正精/副精 wildcards: xingguo, nanchang, jian, yongfeng, lianhua.

Every hand settles in two parts (``docs/rules/jing-family.md``): 胡计子, the win, built from
one formula V = b × M per payer, and 精计子, the jing every seat ends with. The presets hold
the numbers; this module holds the formula and the rules about who may win and who pays.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar, Literal

from pydantic import Field

from engine.analysis import is_win
from engine.hand import Meld, MeldType, Reading, Shape, ShapeOptions
from engine.rulesets.base import (
    SHAPE_ZH,
    ClaimRules,
    Ruleset,
    best_by_total,
    nearest_winner,
)
from engine.rulesets.preset import PresetBase, Section
from engine.settlement.finished_hand import (
    FinishedHand,
    SeatEnd,
    SettleInputError,
    Win,
    WinSource,
)
from engine.settlement.ledger import Amount, Ledger, Settlement
from engine.settlement.needs import JingSource, Needs, ResultKind, SeatNeeds
from engine.tiles import counts_of, successor
from engine.wall import FlipKind


class JingConfig(Section):
    """精计子: n = zheng × 正精 + fu × 副精; f(n) = n below the threshold, n × (n − 3) from it."""

    zheng_points: int = Field(default=2, ge=0)
    fu_points: int = Field(default=1, ge=0)
    chongguan_at: int = Field(default=5, ge=1)  # 冲关 from this many jing
    full_jing_at: int = Field(default=0, ge=0)  # nanchang option "满精算100": 0 = off
    full_jing_score: int = Field(default=100, ge=0)
    per_kind: bool = False  # jian: 正精 and 副精 scored separately, each with its own 霸王
    bajing_multiplier: int = Field(default=2, ge=1)  # 霸精: the only seat holding jing
    bao: bool = False  # xingguo, jian: a discarded jing that makes 冲关/霸精 → discarder pays
    an_jing: bool = False  # lianhua: 暗精 from the other tile of the flipped 墩
    xia_jing: bool = False  # yongfeng: 下精 flipped after the hand
    gang_jing_fu: int = Field(default=20, ge=0)  # 杠精: a kong of four 副精, from each
    gang_jing_zheng: int = Field(default=40, ge=0)  # a kong of four 正精 (jian), from each
    gang_jing_replaces_kong: bool = True  # [decision] 杠精（不计杠分）
    gang_jing_in_jing_score: bool = False  # nanchang: 杠精 adds to the jing score (霸精 doubles it)
    discarded_zheng_multiplier: int = Field(default=1, ge=1)  # lianhua: ×4 each
    discarded_fu_multiplier: int = Field(default=1, ge=1)  # lianhua: ×2 each

    def points(self, n: int) -> tuple[int, str]:
        """f(n): what each other seat pays a seat whose jing count to n, and its words
        (满精 from ``full_jing_at``, 冲关 n × (n − 3) from ``chongguan_at``, else n)."""
        if self.full_jing_at and n >= self.full_jing_at:
            return self.full_jing_score, f"满精 {n}精"
        if n >= self.chongguan_at:
            return n * (n - 3), f"冲关 {n}精 ×{n - 3}"
        return n, f"{n}精"


class WinConfig(Section):
    """胡计子: V = b × pattern × modifiers per payer."""

    base_dealer: int = Field(default=4, ge=0)  # b when the winner or the payer deals
    base_other: int = Field(default=2, ge=0)  # jian: 4 (flat table)
    pinghu: int = Field(default=1, ge=0)
    xiaoqi: int = Field(default=2, ge=0)
    daqi: int = Field(default=4, ge=0)
    shisanlan: int = Field(default=2, ge=0)
    qixing_shisanlan: int = Field(default=4, ge=0)
    shisanyao: int = Field(default=8, ge=0)  # when shapes.shisanyao is on (a lianhua variant)
    deguo: int = Field(default=2, ge=1)  # 德国: no jing used as a wildcard
    deguo_bonus: int = Field(default=5, ge=0)  # +5 a full payment, never multiplied
    deguo_bonus_every_payer: bool = False  # variant: the +5 from the discard's 陪付 seats too
    deguo_xiaoqi_as_daqi: bool = False  # nanchang: 德国小七 pays at the 大七 level
    jingdiao: int = Field(default=2, ge=1)
    jingdiao_bonus: bool = False  # nanchang: 精吊 pays like 德国, +5 (once with 德国)
    gangshanghua: int = Field(default=2, ge=1)  # 杠上花; with 精吊 it is 杠吊
    bahu: int = Field(default=2, ge=1)  # 霸胡: no seat holds any jing
    qianggang: int = Field(default=2, ge=1)  # 抢杠 (1: not doubled); the robbed seat pays all
    discarder_pays_all: bool = False  # variant: on a discard the discarder pays every share
    tianhu: int = Field(default=20, ge=0)  # 天胡/地胡 from each, replaces V
    tianhu_jingdiao: int = Field(default=40, ge=0)
    tianhu_alone: bool = False  # variant: no 德国 ×2 or +5 on top of 天胡/地胡 (地胡 over 德国)
    jing_pinghu_on_discard: bool = False  # xingguo: 有精平胡不能抓点炮
    jingdiao_on_discard: bool = False  # 精吊 only by self-draw ...
    jingdiao_by_rob: bool = False  # ... and not by 抢杠
    shisanlan_jingdiao: bool = True  # jian: 十三烂没有经吊
    chi_jing_must_discard: bool = False  # jian: 吃了精，本局至少飘精一个


class ExtrasConfig(Section):
    kong: int = Field(default=2, ge=0)  # 暗杠, 明杠, 补杠: from each
    genzhuang: int = Field(default=5, ge=0)  # 跟庄: the dealer pays each
    genzhuang_first_round_only: bool = False  # yongfeng
    false_win: int = Field(default=20, ge=0)  # 诈胡: the claimer pays each
    # 流局: nothing settles (void), only the jing (jian: 精在胡牌和流局后算分使用), or all
    # but the win (yongfeng: 流局除胡分外，其他分数正常计算)
    exhausted: Literal["void", "settle_jing", "settle_all_but_win"] = "void"


class JingPreset(PresetBase):
    family: Literal["jing"] = "jing"
    priced_shapes: ClassVar[frozenset[Shape]] = frozenset(
        {
            Shape.PINGHU,
            Shape.XIAOQI,
            Shape.DAQI,
            Shape.SHISANLAN,
            Shape.QIXING_SHISANLAN,
            Shape.SHISANYAO,  # an option (shapes.shisanyao), off in every preset
        }
    )
    # the settlement takes the nearest winner, or all of them (胡前不胡后 / 一炮多响)
    claim_orders: ClassVar[frozenset[str]] = frozenset({"nearest", "all"})
    jing: JingConfig = JingConfig()
    win: WinConfig = WinConfig()
    extras: ExtrasConfig = ExtrasConfig()


@dataclass(frozen=True, slots=True)
class _Holding:
    zheng: int  # 正精 tiles held
    fu: int  # 副精 tiles held
    from_discards: dict[int, tuple[int, int]]  # discarder -> (正精, 副精) claimed from them


def _holdings(
    seats: tuple[SeatEnd, ...], zheng: int, fu: int, wins: tuple[Win, ...]
) -> list[_Holding]:
    """Each seat's jing: hand, melds, the winning tile and its own unclaimed discards."""
    out: list[_Holding] = []
    for i, seat in enumerate(seats):
        concealed, discards = seat.concealed, seat.discards
        z = concealed.count(zheng) + discards.count(zheng)
        f = concealed.count(fu) + discards.count(fu)
        claimed: dict[int, list[int]] = {}
        for meld in seat.melds:
            z += meld.kinds.count(zheng)
            f += meld.kinds.count(fu)
            if meld.from_seat is not None and meld.claimed in (zheng, fu):
                claimed.setdefault(meld.from_seat, []).append(meld.claimed)
        for w in wins:
            if w.seat == i and w.discarder is not None and w.tile in (zheng, fu):
                claimed.setdefault(w.discarder, []).append(w.tile)
        out.append(
            _Holding(
                zheng=z,
                fu=f,
                from_discards={s: (ks.count(zheng), ks.count(fu)) for s, ks in claimed.items()},
            )
        )
    return out


class JingRuleset(Ruleset):
    flip_kind = FlipKind.JING
    refuses_by_seat = True  # 有精平胡不能抓炮 (seat_refuses)
    win_flags = ("tian", "di")

    def __init__(self, preset: JingPreset) -> None:
        self.preset: JingPreset = preset
        self._shape_options: tuple[ShapeOptions, ShapeOptions] | None = None

    def _an_jing(self) -> bool:
        return self.preset.jing.an_jing

    def _xia_jing(self) -> bool:
        return self.preset.jing.xia_jing

    def wild_kinds(self, indicator: int | None) -> frozenset[int]:
        if indicator is None:
            return frozenset()
        return _jing_kinds(indicator)

    def claim_rules(self) -> ClaimRules:
        # jian: 吃了精须飘精 — a discarded jing may be chi'd, not punged or konged
        return ClaimRules(
            multiple_winners=self.preset.table.multiple_winners,
            jing_chow_only=self.preset.win.chi_jing_must_discard,
        )

    # --- who may win -----------------------------------------------------------------

    def forbidden(self, hand: FinishedHand, win: Win, reading: Reading) -> str | None:
        """Why this reading may not win here, in words a dealer understands; None if it may."""
        w = self.preset.win
        on_discard = win.source is WinSource.DISCARD
        shape = reading.shape
        if shape in (Shape.SHISANLAN, Shape.QIXING_SHISANLAN) and not w.shisanlan_jingdiao:
            reading_jd = False
        else:
            reading_jd = reading.jingdiao
        if on_discard and reading_jd and not w.jingdiao_on_discard:
            return "精吊只能自摸，不能抓炮"
        if win.source is WinSource.ROB_KONG and reading_jd and not w.jingdiao_by_rob:
            return "精吊不能抢杠"
        if (
            on_discard
            and shape is Shape.PINGHU
            and not reading.deguo
            and self._holds_jing(hand.seats[win.seat], hand.indicator)
            and not w.jing_pinghu_on_discard
        ):
            return "有精平胡不能抓炮"
        if w.chi_jing_must_discard and not self._chi_jing_rule_ok(hand, win.seat):
            return "吃了精，本局至少要打出一个精才能胡"
        return None

    def win_stands(self, hand: FinishedHand, win: Win) -> bool:
        if self.seat_refuses(hand.seats[win.seat], hand.indicator, win):
            return False
        return super().win_stands(hand, win)

    def seat_refuses(self, seat: SeatEnd, indicator: int | None, win: Win) -> bool:
        """有精平胡不能抓炮 decided by two is_win checks instead of every reading: on a
        discard, a seat holding jing wins only by a reading that is not a 平胡, or a 德国
        one (every jing as itself, so the tiles win as naturals). When the hand has
        neither, every reading it has is barred; the bots ask this for most wins they see
        refused."""
        if win.source is not WinSource.DISCARD or self.preset.win.jing_pinghu_on_discard:
            return False
        wild = self.wild_kinds(indicator)
        if not any(k in wild for k in seat.concealed):
            return False
        options, not_pinghu = self._options()
        counts = counts_of(seat.concealed)
        if is_win(counts, frozenset(), options, seat.melds):
            return False  # a 德国 reading may exist
        return not is_win(counts, wild, not_pinghu, seat.melds)

    def _options(self) -> tuple[ShapeOptions, ShapeOptions]:
        """The shape options, and the same without 平胡 (built once: is_win keeps a plan
        per options object)."""
        if self._shape_options is None:
            options = self.shape_options()
            not_pinghu = replace(options, shapes=options.shapes - {Shape.PINGHU})
            self._shape_options = (options, not_pinghu)
        return self._shape_options

    def _holds_jing(self, seat: SeatEnd, indicator: int | None) -> bool:
        wild = self.wild_kinds(indicator)
        return any(k in wild for k in seat.concealed)

    def _chi_jing_rule_ok(self, hand: FinishedHand, seat_no: int) -> bool:
        wild = self.wild_kinds(hand.indicator)
        seat = hand.seats[seat_no]
        chowed = any(m.type is MeldType.CHOW and m.claimed in wild for m in seat.melds)
        if not chowed:
            return True
        return self._jing_discarded(hand, seat_no) != (0, 0)

    def _jing_discarded(self, hand: FinishedHand, seat_no: int) -> tuple[int, int]:
        """(正精, 副精) the seat discarded during the hand: still lying, or claimed by others."""
        if hand.indicator is None:
            return (0, 0)
        zheng, fu = hand.indicator, successor(hand.indicator)
        kinds = list(hand.seats[seat_no].discards)
        for other in hand.seats:
            kinds.extend(
                m.claimed for m in other.melds if m.from_seat == seat_no and m.claimed is not None
            )
        for w in hand.wins:
            if w.discarder == seat_no and w.source is WinSource.DISCARD:
                kinds.append(w.tile)
        return kinds.count(zheng), kinds.count(fu)

    # --- settlement --------------------------------------------------------------------

    def needs(self, kind: ResultKind) -> Needs:
        """The 正精 / 副精 every seat holds (and its 暗精 / 下精 where the preset scores them),
        its kongs, and where a discarded 精 is priced (包, 打精, 吃了精须飘精) the melds that
        claimed one; a 流局 as ``extras.exhausted`` settles it."""
        j, mode = self.preset.jing, self.preset.extras.exhausted
        flipped: list[tuple[JingSource, bool]] = [
            ("jing", True),
            ("an_jing", j.an_jing),
            ("xia_jing", j.xia_jing),
        ]
        sources = tuple(source for source, scored in flipped if scored)
        if kind == "exhausted":
            if mode == "void":
                return Needs(self.id, kind)
            return Needs(self.id, kind, SeatNeeds(sources, mode != "settle_jing", j.bao))
        priced = j.discarded_zheng_multiplier > 1 or j.discarded_fu_multiplier > 1
        claims = j.bao or priced or self.preset.win.chi_jing_must_discard
        needs = Needs(self.id, kind, SeatNeeds(sources, True, claims), winner_jing_discards=True)
        return self.win_needs(needs)

    def check(self, hand: FinishedHand) -> None:
        """Also refuse a hand without the secret tiles the preset scores: without them it
        would settle, silently, with no 暗精 or 下精 at all."""
        super().check(hand)
        j = self.preset.jing
        if self.settles_nothing_held(hand):
            return
        if j.an_jing and hand.an_indicator is None:
            raise SettleInputError(
                f"an_indicator: required by {self.id} (the 暗精, the other tile of the "
                "flipped 墩; jing.an_jing)"
            )
        if j.xia_jing and hand.xia_indicator is None:
            raise SettleInputError(
                f"xia_indicator: required by {self.id} (the 下精 turned up when the hand "
                "ends; jing.xia_jing)"
            )

    def settle(self, hand: FinishedHand) -> Settlement:
        self.check(hand)
        ledgers: list[Ledger] = []
        notes: list[str] = []
        wins = hand.wins
        if len(wins) > 1 and self.preset.table.multiple_winners != "all":
            first = nearest_winner(wins)
            notes.append(f"胡前不胡后: seat {first.seat} wins, the others do not")
            wins = (first,)

        false_win = list(hand.false_win)
        real_wins: list[Win] = []
        for win in wins:
            ok, why = self._winning(hand, win)
            if ok:
                real_wins.append(win)
            elif self.preset.extras.false_win > 0:
                notes.append(f"seat {win.seat}: {why}")
                false_win.append(win.seat)
            else:
                raise SettleInputError(f"win: seats[{win.seat}] {why}")

        exhausted = not real_wins
        mode = self.preset.extras.exhausted
        if hand.exhausted and mode == "void":
            return Settlement(lines=(), next_dealer=hand.dealer, void=True, notes=tuple(notes))
        jing_only = hand.exhausted and mode == "settle_jing"

        penalties = Ledger()
        for seat in false_win:
            penalties.pays_each("false_win", "诈胡", seat, self.preset.extras.false_win)
        ledgers.append(penalties)

        holdings = self._all_holdings(hand)
        for win in real_wins:
            ledgers.append(self._settle_win(hand, win, holdings))
        if hand.indicator is not None:
            # 杠精 is a kong score (jian: 杠精分计在杠分里): not part of a jing-only 流局
            ledgers.append(self._jing_score(hand, holdings, "jing", "", with_gang=not jing_only))
            if not jing_only:
                ledgers.append(self._gang_jing(hand))
        if self.preset.jing.an_jing and hand.an_indicator is not None:
            an = _holdings(hand.seats, hand.an_indicator, successor(hand.an_indicator), hand.wins)
            ledgers.append(self._jing_score(hand, an, "an_jing", "暗精 "))
        if self.preset.jing.xia_jing and hand.xia_indicator is not None:
            xia = _holdings(
                hand.seats, hand.xia_indicator, successor(hand.xia_indicator), hand.wins
            )
            ledgers.append(self._jing_score(hand, xia, "xia_jing", "下精 "))
        if not jing_only:
            ledgers.append(self._kongs(hand))
            ledgers.append(self._genzhuang(hand))

        if any(w.seat == hand.dealer for w in real_wins) or exhausted:
            next_dealer = hand.dealer
        else:
            next_dealer = (hand.dealer + 1) % 4
        streak = hand.dealer_streak + 1 if next_dealer == hand.dealer and not exhausted else 0
        return Settlement(
            lines=tuple(line for ledger in ledgers for line in ledger.lines),
            next_dealer=next_dealer,
            dealer_streak=streak,
            notes=tuple(notes),
        )

    def _all_holdings(self, hand: FinishedHand) -> list[_Holding]:
        if hand.indicator is None:
            return [_Holding(0, 0, {}) for _ in range(4)]
        return _holdings(hand.seats, hand.indicator, successor(hand.indicator), hand.wins)

    def _winning(self, hand: FinishedHand, win: Win) -> tuple[bool, str]:
        readings = self.readings(hand, win)
        if not readings:
            return False, "不是胡牌 (the hand does not win)"
        reasons = [self.forbidden(hand, win, r) for r in readings]
        if all(r is not None for r in reasons):
            return False, str(reasons[0])
        return True, ""

    def _settle_win(self, hand: FinishedHand, win: Win, holdings: list[_Holding]) -> Ledger:
        options = []
        seen: set[tuple[Shape, bool, bool]] = set()
        for reading in self.readings(hand, win):
            # a reading's ledger (and whether it is forbidden) follows from its shape, 德国
            # and 精吊 alone: readings differing only in their groups pay the same, and the
            # first of equal totals is the one kept
            key = (reading.shape, reading.deguo, reading.jingdiao)
            if key in seen:
                continue
            seen.add(key)
            if self.forbidden(hand, win, reading) is None:
                options.append((reading, self._win_ledger(hand, win, reading, holdings)))
        return best_by_total(options, win.seat)[1]

    def _multiplier(
        self, hand: FinishedHand, win: Win, reading: Reading, holdings: list[_Holding]
    ) -> tuple[int, list[str], bool]:
        """(M, names of what multiplied, whether the +5 bonus applies)."""
        w = self.preset.win
        names: list[str] = []
        deguo = reading.deguo
        jingdiao = self._jingdiao(reading)
        if deguo:
            names.append("德国")
        shape_value = {
            Shape.PINGHU: w.pinghu,
            Shape.XIAOQI: w.xiaoqi,
            Shape.DAQI: w.daqi,
            Shape.SHISANLAN: w.shisanlan,
            Shape.QIXING_SHISANLAN: w.qixing_shisanlan,
            Shape.SHISANYAO: w.shisanyao,
        }.get(reading.shape, w.pinghu)
        shape_name = SHAPE_ZH[reading.shape.value]
        if deguo and reading.shape is Shape.XIAOQI and w.deguo_xiaoqi_as_daqi:
            shape_value = w.daqi
        names.append(shape_name)
        m = shape_value
        if deguo:
            m *= w.deguo
        kong_flower = win.source is WinSource.KONG_REPLACEMENT
        if jingdiao:
            m *= w.jingdiao
            names.append("杠吊" if kong_flower else "精吊")
        if kong_flower:
            m *= w.gangshanghua
            if not jingdiao:
                names.append("杠上花")
        if all(h.zheng == 0 and h.fu == 0 for h in holdings) and hand.indicator is not None:
            m *= w.bahu
            names.append("霸胡")
        if win.source is WinSource.ROB_KONG:
            m *= w.qianggang
            names.append("抢杠")
        zm, fm = self._discard_multipliers(hand, win.seat)
        if zm * fm > 1:
            m *= zm * fm
            names.append(f"打精×{zm * fm}")
        bonus = deguo or (jingdiao and w.jingdiao_bonus)
        return m, names, bonus

    def _jingdiao(self, reading: Reading) -> bool:
        """精吊, unless the ruleset says a 十三烂 has none (jian: 十三烂没有经吊)."""
        return reading.jingdiao and (
            self.preset.win.shisanlan_jingdiao
            or reading.shape not in (Shape.SHISANLAN, Shape.QIXING_SHISANLAN)
        )

    def _discard_multipliers(self, hand: FinishedHand, seat: int) -> tuple[int, int]:
        j = self.preset.jing
        if j.discarded_zheng_multiplier == 1 and j.discarded_fu_multiplier == 1:
            return 1, 1
        z, f = self._jing_discarded(hand, seat)
        return j.discarded_zheng_multiplier**z, j.discarded_fu_multiplier**f

    def _win_ledger(
        self, hand: FinishedHand, win: Win, reading: Reading, holdings: list[_Holding]
    ) -> Ledger:
        w = self.preset.win
        m, names, bonus_applies = self._multiplier(hand, win, reading, holdings)
        bonus = w.deguo_bonus if bonus_applies else 0
        plus = f"+{bonus}" if bonus else ""
        if win.tian or win.di:
            return self._fixed_ledger(win, reading, names, bonus)

        def value(payer: int) -> tuple[int, str]:
            """V for this payer and how it was reached, e.g. ``庄 4×8``."""
            dealer_involved = hand.dealer in (payer, win.seat)
            b = w.base_dealer if dealer_involved else w.base_other
            return b * m, f"{'庄 ' if dealer_involved else ''}{b}×{m}"

        ledger = Ledger()
        label = " ".join(names)
        if win.self_drawn:
            # a kong replacement win is paid as a self-draw; its 杠上花/杠吊 is in the label
            for payer in range(4):
                if payer != win.seat:
                    v, how = value(payer)
                    reason = f"{label} 自摸 {how}{plus}"
                    ledger.pay("win.self_draw", reason, payer, win.seat, v + bonus)
        elif win.source is WinSource.ROB_KONG or w.discarder_pays_all:
            # 抢杠, or a discard where the discarder pays for all: every share in full
            assert win.discarder is not None
            shares = [value(p) for p in range(4) if p != win.seat]
            total = sum(v + bonus for v, _ in shares)
            counted = Counter(f"{h}{plus}" for _, h in shares)  # equal shares once, ×n
            how = " + ".join(h if n == 1 else f"{n}×({h})" for h, n in counted.items())
            code = "win.rob_kong" if win.source is WinSource.ROB_KONG else "win.discard"
            ledger.pay(code, f"{label} 包三家 {how}", win.discarder, win.seat, total)
        else:
            assert win.discarder is not None
            for payer in range(4):
                if payer == win.seat:
                    continue
                v, how = value(payer)
                if payer == win.discarder:
                    reason = f"{label} 点炮 {how}{plus}"
                    ledger.pay("win.discard", reason, payer, win.seat, v + bonus)
                else:
                    share = bonus if w.deguo_bonus_every_payer else 0
                    reason = f"{label} 陪付 {how}÷2" + (f"+{share}" if share else "")
                    ledger.pay("win.discard_share", reason, payer, win.seat, half(v) + share)
        return ledger

    def _fixed_ledger(self, win: Win, reading: Reading, names: list[str], bonus: int) -> Ledger:
        """[decision] 天胡/地胡: a fixed amount replaces V, and every other seat pays it in
        full, a 地胡 on the dealer's first discard too (seed: 20+20+20 = 60); only 德国
        (×2, +5) applies on top, unless ``win.tianhu_alone``; a 陪付 seat of a 地胡 on a
        discard pays the same, so ``deguo_bonus_every_payer`` changes nothing here."""
        w = self.preset.win
        fixed = w.tianhu_jingdiao if self._jingdiao(reading) else w.tianhu
        if w.tianhu_alone:
            bonus = 0
            names = [n for n in names if n != "德国"]
        m = w.deguo if reading.deguo and not w.tianhu_alone else 1
        kept = [n for n in names if n in ("德国", "精吊")]
        label = " ".join(["天胡" if win.tian else "地胡", *kept])
        how = (f"{fixed}×{m}" if m != 1 else str(fixed)) + (f"+{bonus}" if bonus else "")
        ledger = Ledger()
        for payer in range(4):
            if payer == win.seat:
                continue
            if win.self_drawn:
                code, word = "win.self_draw", "自摸"
            elif payer == win.discarder:
                code, word = "win.discard", "点炮"
            else:
                code, word = "win.discard_share", "陪付"
            frm = payer
            if win.discarder is not None and not win.self_drawn and w.discarder_pays_all:
                code, word, frm = "win.discard", "包三家", win.discarder
            ledger.pay(code, f"{label} {word} {how}", frm, win.seat, fixed * m + bonus)
        return ledger

    # --- jing ------------------------------------------------------------------------

    def _jing_score(
        self,
        hand: FinishedHand,
        holdings: list[_Holding],
        code: str,
        prefix: str,
        with_gang: bool = True,
    ) -> Ledger:
        j = self.preset.jing
        ledger = Ledger()
        if j.per_kind:
            parts = [
                ("正精 ", [h.zheng * j.zheng_points for h in holdings], 0),
                ("副精 ", [h.fu * j.fu_points for h in holdings], 1),
            ]
        else:
            parts = [("", [h.zheng * j.zheng_points + h.fu * j.fu_points for h in holdings], -1)]
        folded = j.gang_jing_in_jing_score and code == "jing" and with_gang
        gang = self._gang_jing_amounts(hand) if folded else {}
        for kind_label, points, which in parts:
            holders = [i for i, n in enumerate(points) if n > 0]
            for seat, n in enumerate(points):
                if n == 0:
                    continue
                amount, label = j.points(n)
                if gang.get(seat):
                    amount += gang[seat]
                    label = f"{label} +杠精{gang[seat]}"
                ba = holders == [seat]
                if ba:
                    amount *= j.bajing_multiplier
                    label = f"霸精 {label}"
                reason = f"{prefix}{kind_label}{label}".strip()
                payer = self._bao_payer(holdings[seat], n, ba, which) if j.bao else None
                if payer is not None:
                    ledger.pay(f"{code}.bao", f"{reason} 包", payer, seat, amount * 3)
                else:
                    ledger.each_pays(code, reason, seat, amount)
        return ledger

    def _bao_payer(self, holding: _Holding, n: int, ba: bool, which: int) -> int | None:
        """包: the discarder whose jing made this seat 冲关 or 霸精 pays all three shares."""
        j = self.preset.jing
        best: tuple[int, int] | None = None
        for discarder, (z, f) in sorted(holding.from_discards.items()):
            pts = {0: z * j.zheng_points, 1: f * j.fu_points}.get(
                which, z * j.zheng_points + f * j.fu_points
            )
            if pts == 0:
                continue
            made_chongguan = n >= j.chongguan_at and n - pts < j.chongguan_at
            if (made_chongguan or ba) and (best is None or pts > best[1]):
                best = (discarder, pts)
        return best[0] if best else None

    def _gang_jing_amounts(self, hand: FinishedHand) -> dict[int, int]:
        """Per seat, the 杠精 amount each other seat owes it (nanchang folds it into jing)."""
        out: dict[int, int] = {}
        if hand.indicator is None:
            return out
        zheng = hand.indicator
        j = self.preset.jing
        for seat, s in enumerate(hand.seats):
            for meld in s.melds:
                if meld.type.is_kong and self._is_jing_kong(hand, meld):
                    amount = j.gang_jing_zheng if meld.kinds[0] == zheng else j.gang_jing_fu
                    out[seat] = out.get(seat, 0) + amount
        return out

    def _gang_jing(self, hand: FinishedHand) -> Ledger:
        ledger = Ledger()
        if hand.indicator is None or self.preset.jing.gang_jing_in_jing_score:
            return ledger
        zheng, fu = hand.indicator, successor(hand.indicator)
        j = self.preset.jing
        for seat, s in enumerate(hand.seats):
            for meld in s.melds:
                if not meld.type.is_kong or meld.kinds[0] not in (zheng, fu):
                    continue
                amount = j.gang_jing_zheng if meld.kinds[0] == zheng else j.gang_jing_fu
                name = "杠正精" if meld.kinds[0] == zheng else "杠精"
                if meld.type is MeldType.KONG_EXPOSED and meld.from_seat is not None:
                    ledger.pay("gang_jing.bao", f"{name} 包", meld.from_seat, seat, amount * 3)
                else:
                    ledger.each_pays("gang_jing", name, seat, amount)
        return ledger

    def _is_jing_kong(self, hand: FinishedHand, meld: Meld) -> bool:
        return hand.indicator is not None and meld.kinds[0] in self.wild_kinds(hand.indicator)

    def _kongs(self, hand: FinishedHand) -> Ledger:
        ledger = Ledger()
        amount = self.preset.extras.kong
        names = {
            MeldType.KONG_CONCEALED: "暗杠",
            MeldType.KONG_EXPOSED: "明杠",
            MeldType.KONG_ADDED: "补杠",
        }
        robbed = {w.discarder for w in hand.wins if w.source is WinSource.ROB_KONG}
        replaced = self.preset.jing.gang_jing_replaces_kong
        for seat, s in enumerate(hand.seats):
            kept = [m.type for m in s.melds if not (replaced and self._is_jing_kong(hand, m))]
            # a partial seat's kongs of other kinds come by type (``SeatEnd.kongs``)
            for kind in [*(k for k in kept if k.is_kong), *s.kongs]:
                if kind is MeldType.KONG_ADDED and seat in robbed:
                    continue  # a robbed kong does not count
                ledger.each_pays(f"kong.{kind.value}", names[kind], seat, amount)
        return ledger

    def _genzhuang(self, hand: FinishedHand) -> Ledger:
        ledger = Ledger()
        rounds = hand.genzhuang_rounds
        if self.preset.extras.genzhuang_first_round_only:
            rounds = min(rounds, 1)
        for r in range(rounds):
            label = "跟庄" if rounds == 1 else f"跟庄 第{r + 1}轮"
            ledger.pays_each("genzhuang", label, hand.dealer, self.preset.extras.genzhuang)
        return ledger


@lru_cache(maxsize=64)
def _jing_kinds(indicator: int) -> frozenset[int]:
    """正精 and 副精, one set per indicator: readings are memoised by it, and a set made
    once keeps its hash."""
    return frozenset({indicator, successor(indicator)})


def half(value: int) -> Amount:
    """Half a payment; an odd value leaves an exact half point rather than rounding."""
    return value // 2 if value % 2 == 0 else Fraction(value, 2)
