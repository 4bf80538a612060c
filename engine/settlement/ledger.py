"""Settlement lines and the ledger that collects them.

Every point that moves is a line with a reason a player recognises (``德国 大七 自摸``) and a
stable machine code beside it (``win.self_draw``). Nets are derived from the lines, never
kept separately, so they always sum to zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

Amount = int | Fraction


def plain(amount: Amount) -> int | float:
    """JSON-friendly number: integers stay integers, halves become floats."""
    if isinstance(amount, Fraction):
        return int(amount) if amount.denominator == 1 else float(amount)
    return amount


@dataclass(frozen=True, slots=True)
class Line:
    code: str
    reason: str
    payer: int
    payee: int
    amount: Amount

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "reason": self.reason,
            "from": self.payer,
            "to": self.payee,
            "amount": plain(self.amount),
        }


@dataclass(frozen=True, slots=True)
class Settlement:
    lines: tuple[Line, ...]
    next_dealer: int
    void: bool = False
    dealer_streak: int = 0
    prevailing_wind: int | None = None  # kind of the wind for the next hand (guangdong)
    notes: tuple[str, ...] = ()
    # a per-hand table fee each seat pays the parlour (guangdong); outside the zero-sum lines
    house_fee: Amount = 0

    @property
    def net(self) -> tuple[Amount, Amount, Amount, Amount]:
        net: list[Amount] = [0, 0, 0, 0]
        for line in self.lines:
            net[line.payer] -= line.amount
            net[line.payee] += line.amount
        return (net[0], net[1], net[2], net[3])

    def as_dict(self) -> dict[str, object]:
        return {
            "lines": [line.as_dict() for line in self.lines],
            "net": [plain(n) for n in self.net],
            "next_dealer": self.next_dealer,
            "void": self.void,
        } | self._extras()

    def _extras(self) -> dict[str, object]:
        """Keys only some rulesets fill; absent when unused, so older outputs keep their shape."""
        out: dict[str, object] = {}
        if self.dealer_streak:
            out["dealer_streak"] = self.dealer_streak
        if self.prevailing_wind is not None:
            out["prevailing_wind"] = "ESWN"[self.prevailing_wind - 27]
        if self.house_fee:
            out["house_fee"] = plain(self.house_fee)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(slots=True)
class Ledger:
    """Accumulates lines; a zero amount or a seat paying itself adds nothing."""

    lines: list[Line] = field(default_factory=list)

    def pay(self, code: str, reason: str, payer: int, payee: int, amount: Amount) -> None:
        if payer == payee or amount == 0:
            return
        if amount < 0:
            payer, payee, amount = payee, payer, -amount
        self.lines.append(Line(code, reason, payer, payee, amount))

    def each_pays(self, code: str, reason: str, payee: int, amount: Amount) -> None:
        """Each of the three others pays ``amount`` to ``payee``."""
        for seat in range(4):
            self.pay(code, reason, seat, payee, amount)

    def pays_each(self, code: str, reason: str, payer: int, amount: Amount) -> None:
        """``payer`` pays ``amount`` to each of the three others."""
        for seat in range(4):
            self.pay(code, reason, payer, seat, amount)

    def total(self) -> Amount:
        return sum((line.amount for line in self.lines), start=0)
