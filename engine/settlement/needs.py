"""What a settlement reads of each seat, so that a person enters only that.

A ruleset settles a win from the winner's whole hand, and from the other seats only a few
things: the 正精 and 副精 each holds (the jing family), its kongs (where kongs pay), the
melds that claimed a 精 from another seat's discard (where a discarded 精 is priced).
``Ruleset.needs`` says which, for a result kind; a seat entered with only those is a
*partial* seat (``SeatEnd.partial``), settled exactly as the whole seat it stands for.
``partial_seat`` cuts a whole seat down to it (a reader's picture, a test's oracle).

The staff look (so the console), the staff API and ``mjtable settle --needs`` all ask it
(``engine.rulesets.settlement_needs`` for a ruleset by id).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from engine.hand import Meld, MeldType
from engine.settlement.finished_hand import FinishedHand, SeatEnd, SettleInputError, WinSource
from engine.tiles import format_kinds, kind_name, successor

ResultKind = Literal["self_draw", "discard", "exhausted"]
RESULT_KINDS: tuple[ResultKind, ...] = get_args(ResultKind)
# the flipped tiles whose 正精 / 副精 a seat's holding is counted for
JingSource = Literal["jing", "an_jing", "xia_jing"]
# a win's flags (``Win``) and its sources beside 自摸 and a discard
WinFlag = Literal["tian", "di", "last_tile", "pao_long"]
SpecialSource = Literal["kong_replacement", "rob_kong"]
# the flags and special sources a win of each kind can carry (天胡, 海底, 抛龙, 杠上花: drawn)
KIND_FLAGS: dict[ResultKind, tuple[WinFlag, ...]] = {
    "self_draw": ("tian", "di", "last_tile", "pao_long"),
    "discard": ("di",),
    "exhausted": (),
}
KIND_SOURCES: dict[ResultKind, tuple[SpecialSource, ...]] = {
    "self_draw": ("kong_replacement",),
    "discard": ("rob_kong",),
    "exhausted": (),
}


@dataclass(frozen=True, slots=True)
class SeatNeeds:
    """What the settlement reads of a seat that did not win."""

    jing: tuple[JingSource, ...] = ()  # the 正精 / 副精 of each it holds (hand, melds, discards)
    kongs: bool = False  # its kongs: by type, a kong of a counted kind by its tiles
    jing_claims: bool = False  # its melds that claimed a counted kind from a discard

    @property
    def nothing(self) -> bool:
        return not (self.jing or self.kongs or self.jing_claims)

    def as_dict(self) -> dict[str, Any]:
        return {"jing": list(self.jing), "kongs": self.kongs, "jing_claims": self.jing_claims}


@dataclass(frozen=True, slots=True)
class Needs:
    """What a result of ``kind`` needs entered: the winner's hand, melds, winning tile and
    where it came from (none for 流局), the 精 the winner discarded, and ``others``: what
    each other seat (every seat, for 流局) needs. ``flags``: the win's flags the settlement
    reads (天胡 …), ``sources``: its sources beside 自摸 / a discard it reads (杠上花, 抢杠),
    ``several_winners``: it pays more than one winner of a tile (or ranks them).
    ``confirm_only``: a 流局 that settles from nothing any seat holds."""

    ruleset: str
    kind: ResultKind
    others: SeatNeeds = SeatNeeds()
    winner_jing_discards: bool = False
    flags: tuple[WinFlag, ...] = ()
    sources: tuple[SpecialSource, ...] = ()
    several_winners: bool = False

    @property
    def winner(self) -> bool:
        return self.kind != "exhausted"

    @property
    def confirm_only(self) -> bool:
        return self.kind == "exhausted" and self.others.nothing

    def as_dict(self) -> dict[str, Any]:
        """``winner``: "whole" (its tiles, melds, winning tile and source) or None."""
        return {
            "ruleset": self.ruleset,
            "kind": self.kind,
            "winner": "whole" if self.winner else None,
            "winner_jing_discards": self.winner and self.winner_jing_discards,
            "others": self.others.as_dict(),
            "confirm_only": self.confirm_only,
            "flags": list(self.flags),
            "sources": list(self.sources),
            "several_winners": self.several_winners,
        }


def kind_of(hand: FinishedHand) -> ResultKind:
    """The result kind of a finished hand (a 抢杠 is won on another's tile, as a discard)."""
    if not hand.wins:
        return "exhausted"
    return "self_draw" if hand.wins[0].self_drawn else "discard"


def counted_kinds(needs: SeatNeeds, hand: FinishedHand) -> frozenset[int]:
    """The kinds whose tiles a partial seat gives: the 正精 and 副精 of each flipped tile
    it is counted for (none flipped: none)."""
    tiles = {"jing": hand.indicator, "an_jing": hand.an_indicator, "xia_jing": hand.xia_indicator}
    out: set[int] = set()
    for source in needs.jing:
        indicator = tiles[source]
        if indicator is not None:
            out |= {indicator, successor(indicator)}
    return frozenset(out)


def partial_seat(
    seat: SeatEnd, needs: SeatNeeds, hand: FinishedHand, keep: tuple[Meld, ...] = ()
) -> SeatEnd:
    """``seat`` cut down to what the settlement reads of it (``keep``: melds kept whole,
    such as the pung a 抢杠 robbed). Its settlement is the whole seat's."""
    counted = counted_kinds(needs, hand)
    melds: list[Meld] = []
    kongs = list(seat.kongs) if needs.kongs else []  # (a seat given partial already)
    for m in seat.melds:
        if m in keep:
            melds.append(m)
        elif m.type.is_kong and m.kinds[0] in counted:
            melds.append(m)  # 杠精, and four of a counted kind
        elif needs.jing_claims and m.from_seat is not None and m.claimed in counted:
            melds.append(m)
        elif m.type.is_kong and needs.kongs:
            kongs.append(m.type)
    # a counted tile in a meld given whole is counted there; the rest go with the hand
    in_melds = [k for m in seat.melds if m not in melds for k in m.kinds if k in counted]
    concealed = [k for k in seat.concealed if k in counted] + in_melds
    return SeatEnd(
        tuple(sorted(concealed)),
        tuple(melds),
        tuple(k for k in seat.discards if k in counted),
        partial=True,
        kongs=tuple(kongs),
    )


def reduced_hand(hand: FinishedHand, needs: Needs) -> FinishedHand:
    """``hand`` as a person enters it under ``needs``: each winner whole (its discards
    cut to the counted kinds), every other seat partial (a pung a 抢杠 robbed kept whole)."""
    winners = {w.seat for w in hand.wins}
    robbed = {w.discarder: w.tile for w in hand.wins if w.source is WinSource.ROB_KONG}
    counted = counted_kinds(needs.others, hand)
    seats: list[SeatEnd] = []
    for i, seat in enumerate(hand.seats):
        if i in winners:
            discards = tuple(k for k in seat.discards if k in counted)
            seats.append(replace(seat, discards=discards))
            continue
        keep = tuple(
            m for m in seat.melds if m.type is MeldType.PUNG and robbed.get(i) == m.kinds[0]
        )
        seats.append(partial_seat(seat, needs.others, hand, keep))
    return replace(hand, seats=(seats[0], seats[1], seats[2], seats[3]))


# --- refusing what the settlement would not read ------------------------------------------

MESSAGES = {
    "tile": "{seat}：只录精（{kinds}），{tile} 不用录入",
    "no_jing": "{seat}：这样结束的一局不看各家的精，不用录入",
    "kongs": "{seat}：这样结束的一局杠不计分，不用录入杠",
    "meld": "{seat}：副露只录杠和吃碰来的精，{tiles} 不用录入",
}


def seat_words(seat: int) -> str:
    return f"{seat + 1}号位"


def check_partial(hand: FinishedHand, needs: SeatNeeds) -> None:
    """A partial seat gives only what the settlement reads (anything else would be
    ignored in silence: refused instead, in the staff's words)."""
    counted = counted_kinds(needs, hand)
    for i, seat in enumerate(hand.seats):
        if not seat.partial:
            continue
        who = seat_words(i)
        for k in (*seat.concealed, *seat.discards):
            if k not in counted:
                if not counted:
                    raise SettleInputError(MESSAGES["no_jing"].format(seat=who))
                names = "、".join(kind_name(c) for c in sorted(counted))
                raise SettleInputError(
                    MESSAGES["tile"].format(seat=who, kinds=names, tile=format_kinds([k]))
                )
        if seat.kongs and not needs.kongs:
            raise SettleInputError(MESSAGES["kongs"].format(seat=who))
        robbed = {w.discarder for w in hand.wins if w.source is WinSource.ROB_KONG}
        for m in seat.melds:
            kong_counted = m.type.is_kong and m.kinds[0] in counted
            claimed = needs.jing_claims and m.from_seat is not None and m.claimed in counted
            robbed_pung = i in robbed and m.type is MeldType.PUNG
            if not (kong_counted or claimed or robbed_pung):
                raise SettleInputError(
                    MESSAGES["meld"].format(seat=who, tiles=format_kinds(m.kinds))
                )
