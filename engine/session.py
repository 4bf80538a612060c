"""A session: hands in a row at one table, the deal passing on and running totals.

Who deals next, the dealer's streak and the prevailing wind all come from each hand's
settlement (the ruleset decides them); the session only carries them to the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.round.events import HandStarted
from engine.round.staff import hand_net
from engine.round.state import RoundState
from engine.settlement import Settlement
from engine.settlement.ledger import Amount
from engine.tiles import EAST


@dataclass(slots=True)
class Session:
    ruleset: str
    options: dict[str, Any] = field(default_factory=dict)
    first_dealer: int = 0
    dealer: int = -1
    dealer_streak: int = 0
    prevailing_wind: int = EAST
    hand_no: int = 0
    totals: list[Amount] = field(default_factory=lambda: [0, 0, 0, 0])

    def __post_init__(self) -> None:
        if self.dealer < 0:
            self.dealer = self.first_dealer

    def next_hand(self) -> HandStarted:
        """The first event of the next hand."""
        return HandStarted(
            ruleset=self.ruleset,
            dealer=self.dealer,
            hand_no=self.hand_no + 1,
            dealer_streak=self.dealer_streak,
            prevailing_wind=self.prevailing_wind,
            first_dealer=self.first_dealer,
            options=dict(self.options),
        )

    def record(self, settlement: Settlement) -> None:
        """Close a hand: add its nets and pass the deal on as its settlement says. (Nothing
        of the hand is kept: a table's session runs for days, its hands are in the store.)"""
        self.hand_no += 1
        for seat, amount in enumerate(settlement.net):
            self.totals[seat] += amount
        self._deal_after(settlement)

    def add(self, net: tuple[Amount, ...]) -> None:
        """Points a hand moves outside its settlement (``engine.round.staff.extras_net``)."""
        for seat, amount in enumerate(net):
            self.totals[seat] += amount

    def follow(self, before: RoundState, after: RoundState) -> None:
        """A hand moved from ``before`` to ``after`` by an act of a person (a finish, a
        correction, a penalty, a void, an undo …): the totals move by the difference of
        the hand's nets, and the deal follows its standing settlement (or, when an undo
        reopens the hand, goes back to the deal it started with). A hand with no such act
        gives what ``record`` gives."""
        old, new = hand_net(before), hand_net(after)
        for seat in range(4):
            self.totals[seat] += new[seat] - old[seat]
        was, now = before.settlement, after.settlement
        if now is not None and now != was:
            if was is None:
                self.hand_no += 1
            self._deal_after(now)
        elif now is None and was is not None:
            started = after.started
            self.hand_no -= 1
            self.dealer = started.dealer
            self.dealer_streak = started.dealer_streak
            self.prevailing_wind = started.prevailing_wind

    def _deal_after(self, settlement: Settlement) -> None:
        self.dealer = settlement.next_dealer
        self.dealer_streak = settlement.dealer_streak
        if settlement.prevailing_wind is not None:
            self.prevailing_wind = settlement.prevailing_wind
