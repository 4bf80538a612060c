"""is_win against the mahjong package (no wildcards) and brute-force substitution."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from mahjong.agari import Agari

from engine.analysis import analyze, is_win
from engine.hand import Meld, MeldType, Shape, ShapeOptions
from engine.tiles import counts_of, parse_kind, parse_kinds
from tests.engine.analysis_helpers import (
    random_hand,
    ref_wild_standard,
    to_mahjong34,
    winning_hand,
)

STANDARD = ShapeOptions(shapes=frozenset({Shape.PINGHU, Shape.DAQI}))
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _mahjong_special(c: list[int]) -> bool:
    """Shapes the mahjong package also accepts: seven distinct pairs, thirteen orphans."""
    chiitoi = sum(1 for v in c if v == 2) == 7
    kokushi = all(c[k] for k in ORPHANS) and sum(c[k] for k in ORPHANS) == 14
    return chiitoi or kokushi


@pytest.mark.parametrize("kind", ["random", "winning"])
def test_agrees_with_mahjong_package(kind: str) -> None:
    rng = random.Random(20240501 if kind == "random" else 7)
    agari = Agari()
    wins = 0
    for _ in range(10_000):
        c = random_hand(rng) if kind == "random" else winning_hand(rng)
        if _mahjong_special(c):
            continue
        ours = is_win(c, options=STANDARD)
        assert ours == agari.is_agari(to_mahjong34(c)), c
        wins += ours
    if kind == "winning":
        assert wins >= 9_900


def _wild_cases(
    rng: random.Random, n_wild: int, n: int = 150
) -> list[tuple[list[int], frozenset[int]]]:
    out = []
    for _ in range(n):
        w1 = rng.randrange(34)
        wild = frozenset({w1, (w1 + 1) % 34})
        c = winning_hand(rng) if rng.random() < 0.7 else random_hand(rng)
        kinds = [k for k in range(34) for _ in range(c[k])]
        for j in rng.sample(range(14), n_wild):
            kinds[j] = rng.choice(sorted(wild))
        c = counts_of(kinds)
        if max(c) <= 4 and sum(c[k] for k in wild) == n_wild:
            out.append((c, wild))
    return out


@pytest.mark.parametrize("n_wild", [1, 2])
@pytest.mark.parametrize("honor_sets", [False, True])
def test_wildcards_agree_with_substitution(n_wild: int, honor_sets: bool) -> None:
    rng = random.Random(n_wild * 10 + honor_sets)
    opts = ShapeOptions(shapes=STANDARD.shapes, honor_sets=honor_sets)
    for c, wild in _wild_cases(rng, n_wild):
        expected = ref_wild_standard(c, wild, honor_sets=honor_sets)
        assert is_win(c, wild, opts) == expected, (c, wild)
        assert bool(analyze(_kinds(c), wild=wild, options=opts)) == expected, (c, wild)


def test_fifth_copy_off_agrees_with_substitution() -> None:
    rng = random.Random(5)
    opts = ShapeOptions(shapes=STANDARD.shapes, fifth_copy=False)
    for c, wild in _wild_cases(rng, 2):
        expected = ref_wild_standard(c, wild, fifth_copy=False)
        assert is_win(c, wild, opts) == expected, (c, wild)
        assert bool(analyze(_kinds(c), wild=wild, options=opts)) == expected, (c, wild)


def _kinds(c: list[int]) -> list[int]:
    return [k for k in range(34) for _ in range(c[k])]


def test_fifth_copy() -> None:
    jing = frozenset({parse_kind("5p")})
    # 1111m + a jing as the fifth 1m: 111m + 1m 1m*
    hand = parse_kinds("1111m 234p 678p 789s 5p")
    assert is_win(counts_of(hand), jing)
    assert not is_win(counts_of(hand), jing, ShapeOptions(fifth_copy=False))
    # melds count toward the four: a pung of E melded, E + jing as the pair
    meld = Meld(MeldType.PUNG, (27, 27, 27))
    hand2 = parse_kinds("E 5p 345m 678m 789s")
    assert is_win(counts_of(hand2), jing, melds=[meld])
    assert not is_win(counts_of(hand2), jing, ShapeOptions(fifth_copy=False), melds=[meld])


def test_honor_sets() -> None:
    hand = counts_of(parse_kinds("ESW CFP 123m 456p NN"))
    assert sum(hand) == 14
    assert not is_win(hand)
    assert is_win(hand, options=ShapeOptions(honor_sets=True))
    # three different winds of four: E S N, W W pair
    hand2 = counts_of(parse_kinds("ESN WW 123m 456p 789s"))
    assert is_win(hand2, options=ShapeOptions(honor_sets=True))
    assert not is_win(hand2)


def test_wrong_tile_count_is_not_a_win() -> None:
    assert not is_win(counts_of(parse_kinds("123m 456m 789m 11p")))
    assert not is_win(counts_of(parse_kinds("123m 456m 789m 11p 2p")))


def test_melds() -> None:
    kong = Meld(MeldType.KONG_CONCEALED, (27, 27, 27, 27))
    chow = Meld(MeldType.CHOW, (0, 1, 2))
    hand = counts_of(parse_kinds("456m 789p 11s"))
    assert is_win(hand, melds=[kong, chow])
    assert not is_win(hand, melds=[kong])


def test_limited_need_dp_matches_search() -> None:
    """The fifth-copy-off table (left-to-right DP) agrees with the group-by-group search."""
    from engine.analysis.suit_tables import Section, positional_need, solve_need

    rng = random.Random(1)
    for trial in range(4000):
        n = 9 if trial % 2 else 7
        c = bytes(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]) for _ in range(n))
        lim = bytes(rng.choice([4, 3, 1, 0]) if rng.random() < 0.3 else 4 for _ in range(n))
        if sum(c) > 14 or any(a > b for a, b in zip(c, lim, strict=True)):
            continue
        room = bytes(b - a for a, b in zip(c, lim, strict=True))
        sec = Section.SUIT if n == 9 else Section.HONOR
        assert positional_need(c, lim) == solve_need(sec, c, room, {}), (c, lim)


# Hypothesis explores the same properties beyond the seeded loops above (and shrinks a
# failure to a small hand).


@settings(max_examples=1500, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), winning=st.booleans())
def test_hypothesis_agrees_with_mahjong_package(seed: int, winning: bool) -> None:
    rng = random.Random(seed)
    c = winning_hand(rng) if winning else random_hand(rng)
    assume(not _mahjong_special(c))
    assert is_win(c, options=STANDARD) == Agari().is_agari(to_mahjong34(c))


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_wild=st.integers(1, 2), honor_sets=st.booleans())
def test_hypothesis_wildcards_agree_with_substitution(
    seed: int, n_wild: int, honor_sets: bool
) -> None:
    cases = _wild_cases(random.Random(seed), n_wild, n=1)
    assume(cases)
    c, wild = cases[0]
    opts = ShapeOptions(shapes=STANDARD.shapes, honor_sets=honor_sets)
    assert is_win(c, wild, opts) == ref_wild_standard(c, wild, honor_sets=honor_sets)
