"""Pieces the non-jing families (yichun, chongji, guangdong) share.

Each of those rulesets scores a win as "the reading that pays most", may see several
winners on one discard, and must tell a 诈胡 from a bad request. The facts a pattern table
asks about a reading (suits, pungs, the pair …) are gathered once in :class:`Facts`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.hand import GroupType, Meld, Reading
from engine.rulesets.base import turn_distance
from engine.rulesets.preset import MultipleWinners
from engine.settlement.finished_hand import FinishedHand, SeatEnd, SettleInputError, Win
from engine.settlement.ledger import Amount, Ledger
from engine.tiles import DRAGONS, WINDS


@dataclass(frozen=True, slots=True)
class Facts:
    """What pattern tables ask about one reading, tiles counted as the kinds they stand for."""

    kinds: tuple[int, ...]  # every tile of the hand, melds included
    pungs: tuple[int, ...]  # kinds of pungs and kongs
    kongs: tuple[int, ...]  # kinds of kongs
    chows: int
    honor_sets: int
    pair: int | None

    @property
    def suits(self) -> frozenset[int]:
        return frozenset([k // 9 for k in self.kinds if k < 27])  # suit_of, inlined: hot

    @property
    def has_honors(self) -> bool:
        return any(k >= 27 for k in self.kinds)

    @property
    def all_honors(self) -> bool:
        return all(k >= 27 for k in self.kinds)

    @property
    def one_suit(self) -> bool:
        """清一色: one suit, no honors."""
        return len(self.suits) == 1 and not self.has_honors

    @property
    def one_suit_and_honors(self) -> bool:
        """混一色: one suit plus honors."""
        return len(self.suits) == 1 and self.has_honors

    @property
    def all_pungs(self) -> bool:
        return self.chows == 0 and self.honor_sets == 0 and len(self.pungs) == 4

    @property
    def dragon_pungs(self) -> int:
        return sum(1 for k in self.pungs if k in DRAGONS)

    @property
    def wind_pungs(self) -> int:
        return sum(1 for k in self.pungs if k in WINDS)


def facts(reading: Reading) -> Facts:
    kinds: list[int] = []
    pungs: list[int] = []
    kongs: list[int] = []
    chows = honor_sets = 0
    for g in reading.groups:
        kinds.extend(g.kinds[:3] if g.type is GroupType.KONG else g.kinds)
        if g.type in (GroupType.PUNG, GroupType.KONG):
            pungs.append(g.kinds[0])
        if g.type is GroupType.KONG:
            kongs.append(g.kinds[0])
        elif g.type is GroupType.CHOW:
            chows += 1
        elif g.type is GroupType.HONOR_SET:
            honor_sets += 1
    pair = reading.pair.kinds[0] if reading.pair is not None else None
    return Facts(tuple(kinds), tuple(pungs), tuple(kongs), chows, honor_sets, pair)


def last_kong(seat: SeatEnd) -> Meld | None:
    """The kong whose replacement tile won a 杠上花: melds are listed in the order declared."""
    kongs = [m for m in seat.melds if m.type.is_kong]
    return kongs[-1] if kongs else None


def half_up(value: int) -> int:
    """Half a payment rounded half up (chongji: 12 → 6, 13 → 7)."""
    return (value + 1) // 2


def seat_wind(hand: FinishedHand, seat: int) -> int:
    """门风: the dealer is 东, then 南 西 北 in turn order."""
    return WINDS[turn_distance(hand.dealer, seat)]


@dataclass(frozen=True, slots=True)
class Scored:
    """A win settled on its best reading: the ledger and the figure that ranks it."""

    win: Win
    reading: Reading
    ledger: Ledger
    size: Amount  # what the win is worth (its per-payer score), for "largest"
    tier: int = 0  # a hand that cannot be overtaken ranks above larger ones (chongji)


def received(ledger: Ledger, seat: int) -> Amount:
    return sum((line.amount for line in ledger.lines if line.payee == seat), start=0)


def best(options: Sequence[Scored]) -> Scored:
    """[decision] The reading that pays the winner most; ties keep the first."""
    top = options[0]
    for opt in options[1:]:
        if received(opt.ledger, opt.win.seat) > received(top.ledger, top.win.seat):
            top = opt
    return top


def score_wins(
    hand: FinishedHand,
    score: Callable[[Win], tuple[list[Scored], str]],
    false_win_penalty: int,
) -> tuple[list[Scored], list[int], list[str]]:
    """Score every declared win; (wins that stand, 诈胡 seats, notes).

    ``score`` returns the allowed readings of one win, or none and why not. A declared win
    that is none is a 诈胡 when the ruleset has a penalty, else the request is wrong.
    """
    valid: list[Scored] = []
    false_seats = list(hand.false_win)
    notes: list[str] = []
    if false_seats and false_win_penalty <= 0:
        raise SettleInputError(
            "extra.false_win: this ruleset has no 诈胡 penalty (preset option false_win)"
        )
    for i, win in enumerate(hand.wins):
        options, why = score(win)
        if options:
            valid.append(best(options))
            continue
        if false_win_penalty <= 0:
            where = "win" if len(hand.wins) == 1 else f"win[{i}]"
            raise SettleInputError(f"{where}: seats[{win.seat}] {why}")
        notes.append(f"seat {win.seat}: 诈胡, {why}")
        false_seats.append(win.seat)
    return valid, false_seats, notes


def resolve_winners(wins: list[Scored], mode: MultipleWinners) -> tuple[list[Scored], list[str]]:
    """Several winners on one discard: all win, the nearest wins, or the largest wins.

    ``largest`` (chongji 小的不能拦大的): the higher tier first, then the larger hand, then the
    nearest in turn order after the discarder. ``protected_first``: the higher tier first,
    then the nearest, whatever the size.
    """
    if len(wins) <= 1 or mode == "all":
        return wins, []
    discarder = wins[0].win.discarder
    assert discarder is not None

    def nearness(s: Scored) -> int:
        return turn_distance(discarder, s.win.seat)

    if mode == "nearest":
        chosen = min(wins, key=nearness)
        return [chosen], [f"胡前不胡后: seat {chosen.win.seat} wins, the others do not"]
    if mode == "protected_first":
        chosen = min(wins, key=lambda s: (-s.tier, nearness(s)))
        rule = "不能拦胡的先胡, 余者胡前不胡后"
    else:
        chosen = min(wins, key=lambda s: (-s.tier, -s.size, nearness(s)))
        rule = "小的不能拦大的"
    others = ", ".join(str(s.win.seat) for s in wins if s is not chosen)
    return [chosen], [f"{rule}: seat {chosen.win.seat} wins, not seat {others}"]


def false_win_ledger(seats: Sequence[int], penalty: int) -> Ledger:
    """诈胡: the claimer pays each other seat."""
    ledger = Ledger()
    for seat in seats:
        ledger.pays_each("false_win", "诈胡", seat, penalty)
    return ledger
