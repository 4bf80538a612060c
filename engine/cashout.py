"""The end of a session: who pays whom, in the fewest transfers.

Players whose nets sum to zero settle up with transfers; ``n`` players with nonzero nets
need ``n - g`` transfers, where ``g`` is the largest number of disjoint groups each summing
to zero that the players split into (a group of ``k`` needs ``k - 1`` transfers and no
fewer: no smaller part of it sums to zero). Finding ``g`` is NP-hard in general (it holds
subset-sum); a session has a handful of players (four seats, a dozen people when seats
change hands), so ``fewest_transfers`` finds it exactly by a pass over every subset
(``2^n * n`` steps) up to ``EXACT_LIMIT`` players, and above that settles greedily (the
largest debt to the largest credit: at most ``n - 1`` transfers, never more than twice the
fewest, which is at least ``n / 2``).

Pure: nets in, transfers out, the same order for the same nets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.settlement.ledger import Amount

EXACT_LIMIT = 16
"""Most players with a nonzero net settled exactly (65 536 subsets); beyond, greedily."""


class CashoutError(ValueError):
    """Nets that cannot be settled (they do not sum to zero)."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """``payer`` pays ``payee`` ``amount`` (> 0); players by their index in the nets."""

    payer: int
    payee: int
    amount: Amount


def fewest_transfers(nets: Sequence[Amount]) -> list[Transfer]:
    """Transfers that bring every net to zero, as few as there can be (up to
    ``EXACT_LIMIT`` players with a nonzero net; above, at most ``n - 1``), sorted by payer
    then payee. Raises ``CashoutError`` if the nets do not sum to zero."""
    if sum(nets) != 0:
        raise CashoutError(f"nets sum to {sum(nets)}, not 0: {list(nets)}")
    players = [i for i, n in enumerate(nets) if n != 0]
    if len(players) > EXACT_LIMIT:
        groups = [players]
    else:
        groups = [
            [players[j] for j in group] for group in _zero_sum_groups([nets[i] for i in players])
        ]
    transfers: list[Transfer] = []
    for group in groups:
        transfers += _settle_greedily(group, nets)
    return sorted(transfers, key=lambda t: (t.payer, t.payee))


def _zero_sum_groups(nets: Sequence[Amount]) -> list[list[int]]:
    """The most disjoint zero-sum groups the players (indices into ``nets``, all nonzero,
    summing to zero) split into. ``best[mask]``: the most zero-sum groups the players of
    ``mask`` can be split into, each a run of players taken off one at a time and closed
    whenever what is taken off so far sums to zero."""
    n = len(nets)
    full = (1 << n) - 1
    total: list[Amount] = [0] * (full + 1)
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = (mask & -mask).bit_length() - 1
        total[mask] = total[mask & (mask - 1)] + nets[low]
        best[mask] = max(best[mask ^ (1 << i)] for i in range(n) if mask >> i & 1)
        if total[mask] == 0:
            best[mask] += 1
    # walk back from everyone: each step takes off a player that keeps the count
    groups: list[list[int]] = []
    group: list[int] = []
    mask = full
    while mask:
        here = best[mask] - (1 if total[mask] == 0 else 0)
        i = next(i for i in range(n) if mask >> i & 1 and best[mask ^ (1 << i)] == here)
        group.append(i)
        mask ^= 1 << i
        if total[mask] == 0:  # what was taken off since the last group sums to zero
            groups.append(sorted(group))
            group = []
    return sorted(groups)


def _settle_greedily(group: Sequence[int], nets: Sequence[Amount]) -> list[Transfer]:
    """A zero-sum group of ``k`` players settled in at most ``k - 1`` transfers: the
    largest debtor pays the largest creditor until one of them is square (ties: the
    lower index first)."""
    owed = {i: nets[i] for i in group}
    transfers: list[Transfer] = []
    while True:
        debtors = [i for i in group if owed[i] < 0]
        creditors = [i for i in group if owed[i] > 0]
        if not debtors:
            return transfers
        payer = min(debtors, key=lambda i: (owed[i], i))
        payee = min(creditors, key=lambda i: (-owed[i], i))
        amount = min(-owed[payer], owed[payee])
        transfers.append(Transfer(payer, payee, amount))
        owed[payer] += amount
        owed[payee] -= amount
