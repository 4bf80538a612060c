"""The fairness report's statistics: the χ² tail against known values, fair dice accepted
at the stated false-alarm rate over many seeded trials (checked with a binomial bound), a
loaded die caught within a stated number of hands, and the bots' long simulation with the
table's own committed dice as the null baseline: not flagged."""

from __future__ import annotations

import math
import os
import random

import pytest

from controller.table.dice import DiceRoller, roll_of
from controller.table.fairness import (
    ALPHA,
    ALPHA_EACH,
    HandFacts,
    chi2_sf,
    chi2_test,
    report,
    report_csv,
)
from engine.simulation import play_session

TRIALS = 1000
HANDS = 300  # a table's week, give or take
LOADED_WITHIN = 600  # hands within which the loaded die below is caught (>= 95 in 100)


@pytest.mark.parametrize(
    ("x", "dof", "p"),
    [
        (3.8415, 1, 0.05),
        (5.9915, 2, 0.05),
        (7.8147, 3, 0.05),
        (11.0705, 5, 0.05),
        (15.0863, 5, 0.01),
        (18.307, 10, 0.05),
        (23.2093, 10, 0.01),
        (0.0, 4, 1.0),
    ],
)
def test_chi2_tail_matches_the_tables(x: float, dof: int, p: float) -> None:
    assert chi2_sf(x, dof) == pytest.approx(p, abs=2e-5)


def test_chi2_tail_agrees_with_the_poisson_identity() -> None:
    # even dof: P[χ²(2k) ≥ x] = P[Poisson(x/2) < k], summed independently here
    for k in (1, 2, 5):
        for x in (0.5, 3.0, 12.0, 40.0):
            poisson = sum(math.exp(-x / 2) * (x / 2) ** i / math.factorial(i) for i in range(k))
            assert chi2_sf(x, 2 * k) == pytest.approx(poisson, rel=1e-9)


def _binomial_upper(n: int, p: float, tail: float = 1e-4) -> int:
    """The smallest k with P[Binomial(n, p) >= k] <= tail."""
    total = 0.0
    for k in range(n, -1, -1):
        total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if total > tail:
            return k + 1
    return 0


def _binomial_lower(n: int, p: float, tail: float = 1e-4) -> int:
    """The largest k with P[Binomial(n, p) <= k] <= tail (-1: none)."""
    total = 0.0
    for k in range(n + 1):
        total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if total > tail:
            return k - 1
    return n


def _hands(rng: random.Random, n: int, *, loaded: bool = False) -> list[HandFacts]:
    """Fair play: fair dice (three rolls a hand), any seat (or nobody) wins, the deal moves
    on unless the dealer wins. ``loaded``: the second die lands 6 one time in four."""
    out, dealer = [], 0
    for _ in range(n):
        rolls = []
        for purpose in ("break", "break_second", "jing"):
            a = rng.randint(1, 6)
            b = (6 if rng.random() < 0.25 else rng.randint(1, 5)) if loaded else rng.randint(1, 6)
            rolls.append((purpose, a, b))
        winner = rng.choice([0, 1, 2, 3, None])
        out.append(HandFacts(dealer, winner, tuple(rolls), ((("jing", rng.randrange(136))),)))
        if winner != dealer:
            dealer = (dealer + 1) % 4
    return out


def test_fair_play_is_flagged_no_more_often_than_the_stated_rate() -> None:
    flagged = 0
    below = {name: 0 for name in ("faces", "sums", "seat_wins", "dealer_streak")}
    for trial in range(TRIALS):
        rep = report(_hands(random.Random(trial), HANDS))
        flagged += rep.flagged
        for t in rep.tests:
            assert t.p is not None, t.note  # enough data for every test
            below[t.name] += t.p < 0.05
    # the whole report: a false alarm in at most ALPHA of fair tables (binomial bound)
    assert flagged < _binomial_upper(TRIALS, ALPHA), flagged
    # and the χ² p-values are calibrated, not merely conservative: about 5% fall under 0.05
    for name in ("faces", "sums", "seat_wins"):
        low, high = _binomial_lower(TRIALS, 0.05), _binomial_upper(TRIALS, 0.05)
        assert low < below[name] < high, (name, below[name], low, high)
    # the longest-streak test's p is conservative (its keep rate is estimated): under 0.05
    assert below["dealer_streak"] < _binomial_upper(TRIALS, 0.05)


def test_a_loaded_die_is_caught_within_the_stated_hands() -> None:
    caught = sum(
        report(_hands(random.Random(10_000 + t), LOADED_WITHIN, loaded=True)).flagged
        for t in range(100)
    )
    assert caught >= 95, caught
    rep = report(_hands(random.Random(10_000), LOADED_WITHIN, loaded=True))
    faces = next(t for t in rep.tests if t.name == "faces")
    assert faces.flagged and faces.p is not None and faces.p < ALPHA_EACH


def test_the_bots_long_simulation_with_committed_dice_is_not_flagged() -> None:
    """The null baseline: the bots play a long session, each hand's rolls derived from its
    committed seed exactly as the table derives them."""
    n = int(os.environ.get("MJTABLE_SIM_HANDS", "600"))
    roller = DiceRoller(2026)
    seeds: dict[int, str] = {}

    def rolls(hand_no: int, index: int) -> tuple[int, int]:
        seed = seeds.setdefault(hand_no, roller.new_seed(hand_no))
        return roll_of(seed, index)

    facts = [
        HandFacts.of(
            r.state.started.dealer,
            r.state.wins[0].seat if r.state.wins and not r.state.voided else None,
            (e.to_dict() for e in r.log),
        )
        for r in play_session("xingguo", n, random.Random(2026), rolls=rolls)
    ]
    rep = report(facts)
    assert rep.hands == n and rep.rolls >= 2 * n
    assert all(t.p is not None for t in rep.tests), [t.note for t in rep.tests]
    assert not rep.flagged, [t.as_dict() for t in rep.tests]
    assert sum(rep.flips.values()) == n  # xingguo turns up one 精 a hand


def test_too_little_data_is_said_not_tested() -> None:
    rep = report(_hands(random.Random(1), 3))
    assert not rep.flagged
    assert all(t.p is None and "too few" in t.note for t in rep.tests)


def test_the_csv_holds_counts_expectations_and_tests() -> None:
    rep = report(_hands(random.Random(2), HANDS))
    lines = report_csv("t1", rep).splitlines()
    assert lines[0] == "table,section,key,count,expected,p,flagged"
    faces = [line.split(",") for line in lines if ",face," in line]
    assert [int(f[3]) for f in faces] == rep.faces
    tests = {line.split(",")[2]: line for line in lines if ",test," in line}
    assert set(tests) == {"faces", "sums", "seat_wins", "dealer_streak"}
    assert chi2_test(rep.faces, [1 / 6] * 6)[2] == pytest.approx(
        float(tests["faces"].split(",")[5]), rel=1e-5
    )
