"""The cash-out: the fewest transfers that square a session's nets."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cashout import EXACT_LIMIT, CashoutError, Transfer, fewest_transfers
from engine.settlement.ledger import Amount


def _partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every way to split ``items`` into non-empty blocks."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]
        yield [[first], *part]


def _fewest_by_brute_force(nets: Sequence[int]) -> int:
    """The oracle: a set of transfers among ``k`` players that squares them links them
    into components that each sum to zero, and needs ``k - components`` transfers at
    least; so the fewest is ``k`` less the most zero-sum blocks of any partition."""
    players = [i for i, n in enumerate(nets) if n]
    most = max(
        (
            len(part)
            for part in _partitions(players)
            if all(sum(nets[i] for i in block) == 0 for block in part)
        ),
        default=0,
    )
    return len(players) - most


def _random_nets(rng: random.Random, players: int, spread: int) -> list[int]:
    nets = [rng.randint(-spread, spread) for _ in range(players - 1)]
    return [*nets, -sum(nets)]


def _applied(nets: Sequence[Amount], transfers: Sequence[Transfer]) -> list[Amount]:
    left = list(nets)
    for t in transfers:
        assert t.amount > 0 and t.payer != t.payee
        left[t.payer] += t.amount
        left[t.payee] -= t.amount
    return left


def test_fewest_transfers_is_optimal_on_random_nets_up_to_six_players() -> None:
    rng = random.Random(20261203)
    for _ in range(600):
        players = rng.randint(1, 6)
        # small spreads make many zero-sum groups (the hard cases); large ones few
        nets = _random_nets(rng, players, rng.choice([2, 3, 5, 10, 100]))
        transfers = fewest_transfers(nets)
        assert _applied(nets, transfers) == [0] * players, nets
        assert len(transfers) == _fewest_by_brute_force(nets), (nets, transfers)


def test_pairs_that_cancel_pay_each_other() -> None:
    # greedy alone pays 40→(-30) … in four transfers; three suffice
    nets = [40, -30, 30, -40, 10, -10]
    transfers = fewest_transfers(nets)
    assert transfers == [Transfer(1, 2, 30), Transfer(3, 0, 40), Transfer(5, 4, 10)]


def test_a_group_with_no_smaller_zero_sum_part_needs_one_less_than_its_size() -> None:
    assert len(fewest_transfers([7, 5, -3, -9])) == 3
    assert fewest_transfers([0, 0, 0, 0]) == []
    assert fewest_transfers([]) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-10_000, 10_000), min_size=0, max_size=11))
def test_transfers_square_every_net_and_the_total_is_zero(head: list[int]) -> None:
    nets = [*head, -sum(head)]
    transfers = fewest_transfers(nets)
    assert _applied(nets, transfers) == [0] * len(nets)
    assert sum(t.amount for t in transfers) == sum(n for n in nets if n > 0)
    assert len(transfers) <= max(0, sum(1 for n in nets if n) - 1)
    assert transfers == sorted(transfers, key=lambda t: (t.payer, t.payee))
    assert fewest_transfers(list(nets)) == transfers  # the same nets, the same answer


def test_halves_settle_exactly() -> None:
    nets: list[Amount] = [Fraction(7, 2), Fraction(-3, 2), -2]
    transfers = fewest_transfers(nets)
    assert _applied(nets, transfers) == [0, 0, 0] and len(transfers) == 2


def test_nets_that_do_not_sum_to_zero_are_refused() -> None:
    with pytest.raises(CashoutError, match="sum to 1"):
        fewest_transfers([3, -2])


def test_a_dozen_players_are_settled_exactly() -> None:
    rng = random.Random(12)
    nets = _random_nets(rng, 12, 4)
    # six cancelling pairs hidden in a dozen: six transfers, where greedy may need eleven
    pairs = [5, -5, 17, -17, 3, -3, 8, -8, 11, -11, 2, -2]
    rng.shuffle(pairs)
    assert len(fewest_transfers(pairs)) == 6
    assert _applied(nets, fewest_transfers(nets)) == [0] * 12


def test_above_the_exact_limit_settles_in_at_most_one_less_than_the_players() -> None:
    rng = random.Random(5)
    nets = _random_nets(rng, EXACT_LIMIT + 4, 50)
    nets = [n or 1 for n in nets[:-1]]
    nets.append(-sum(nets))
    transfers = fewest_transfers(nets)
    assert _applied(nets, transfers) == [0] * len(nets)
    assert len(transfers) <= len(nets) - 1
