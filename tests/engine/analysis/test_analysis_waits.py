"""waits and shanten against brute force and the mahjong package."""

from __future__ import annotations

import random

from mahjong.shanten import Shanten

from engine.analysis import is_win, shanten, waits
from engine.hand import Meld, MeldType, Shape, ShapeOptions
from engine.tiles import counts_of, parse_kind, parse_kinds
from tests.engine.analysis_helpers import random_hand, to_mahjong34, winning_hand

ALL = ShapeOptions(shapes=frozenset(Shape))
STANDARD = ShapeOptions(shapes=frozenset({Shape.PINGHU, Shape.DAQI}))


def _brute_waits(
    kinds: list[int], wild: frozenset[int], options: ShapeOptions, melds: tuple[Meld, ...] = ()
) -> list[int]:
    c = counts_of(kinds)
    mc = counts_of(k for m in melds for k in m.kinds)
    out = []
    for k in range(34):
        if c[k] + mc[k] >= 4:
            continue
        c[k] += 1
        if is_win(c, wild, options, melds):
            out.append(k)
        c[k] -= 1
    return out


def _tenpai_hands(rng: random.Random, n_wild: int) -> list[tuple[list[int], frozenset[int]]]:
    out = []
    while len(out) < 25:
        c = winning_hand(rng) if rng.random() < 0.7 else random_hand(rng)
        kinds = [k for k in range(34) for _ in range(c[k])]
        rng.shuffle(kinds)
        kinds = kinds[:13]
        w1 = rng.randrange(34)
        wild = frozenset({w1, (w1 + 1) % 34})
        for j in rng.sample(range(13), n_wild):
            kinds[j] = rng.choice(sorted(wild))
        if max(counts_of(kinds)) <= 4:
            out.append((kinds, wild if n_wild or rng.random() < 0.5 else frozenset()))
    return out


def test_waits_match_brute_force() -> None:
    rng = random.Random(3)
    for n_wild in range(8):
        for opts in (ShapeOptions(), ALL, ShapeOptions(honor_sets=True, fifth_copy=False)):
            for kinds, wild in _tenpai_hands(rng, n_wild):
                assert waits(kinds, (), wild, opts) == _brute_waits(kinds, wild, opts), (
                    kinds,
                    wild,
                    opts,
                )


def test_waits_with_melds() -> None:
    pung = Meld(MeldType.PUNG, (0, 0, 0))
    kinds = parse_kinds("1m 23p 456s 789s 22s")[:10]
    assert waits(kinds, (pung,)) == _brute_waits(kinds, frozenset(), ShapeOptions(), (pung,))
    assert 0 not in waits(parse_kinds("1m 234p 456s 789s"), (pung,))  # the fifth 1m


def test_lone_jing_waits_on_everything() -> None:
    jing = frozenset({parse_kind("5m"), parse_kind("6m")})
    assert waits(parse_kinds("123p 456p 789p 123s 5m"), wild=jing) == list(range(34))
    # a kind already held four times cannot be drawn
    got = waits(parse_kinds("1111p 23p 789p 123s 5m"), wild=jing)
    assert got == [k for k in range(34) if k != parse_kind("1p")]


def test_shanten_matches_mahjong_package() -> None:
    rng = random.Random(9)
    sh = Shanten()
    for _ in range(1500):
        c = random_hand(rng, 13 if rng.random() < 0.5 else 14)
        kinds = [k for k in range(34) for _ in range(c[k])]
        expected = sh.calculate_shanten_for_regular_hand(to_mahjong34(c))
        assert shanten(kinds, options=STANDARD) == expected, kinds
    for _ in range(300):
        c = random_hand(rng, 13)
        kinds = [k for k in range(34) for _ in range(c[k])]
        exp = min(
            sh.calculate_shanten_for_chiitoitsu_hand(to_mahjong34(c)),
            sh.calculate_shanten_for_regular_hand(to_mahjong34(c)),
        )
        if max(c) < 4:  # the package does not count four alike as two pairs
            assert shanten(kinds) == exp


def test_shanten_tenpai_and_complete_with_wildcards() -> None:
    rng = random.Random(4)
    for n_wild in range(8):
        for kinds, wild in _tenpai_hands(rng, n_wild):
            for opts in (ShapeOptions(), STANDARD, ALL):
                s = shanten(kinds, (), wild, opts)
                tenpai = bool(_brute_waits(kinds, wild, opts)) or _ready_any(kinds, wild, opts)
                assert (s <= 0) == tenpai, (kinds, wild, opts, s)
                assert s >= 0
                full = [*kinds, kinds[0]]
                if is_win(counts_of(full), wild, opts):
                    assert shanten(full, (), wild, opts) == -1


def _ready_any(kinds: list[int], wild: frozenset[int], opts: ShapeOptions) -> bool:
    """Tenpai ignoring whether the winning tile can still be drawn."""
    c = counts_of(kinds)
    for k in range(34):
        c[k] += 1
        ok = is_win(c, wild, opts)
        c[k] -= 1
        if ok:
            return True
    return False


def test_shanten_examples() -> None:
    assert shanten(parse_kinds("123m 456m 789m 123p 11s")) == -1
    assert shanten(parse_kinds("123m 456m 789m 123p 1s")) == 0
    lan = ShapeOptions(shapes=frozenset({Shape.SHISANLAN}))
    assert shanten(parse_kinds("147m 258p 369s ESWN"), options=lan) == 0
    yao = ShapeOptions(shapes=frozenset({Shape.SHISANYAO}))
    assert shanten(parse_kinds("19m 19p 19s ESWNCF 5m"), options=yao) == 1
    jing = frozenset({parse_kind("5m")})
    assert shanten(parse_kinds("123p 456p 789p 12s 5m 5m"), wild=jing) == 0


def test_a_hand_only_a_fifth_copy_completes_is_ready_not_complete_where_none_is_allowed() -> None:
    # 567p 555p 中中中中 + the 精 (东) and 789m melded: the 精 would be a fifth 中 or 5p
    concealed = parse_kinds("5675p 55p 7777z 1z")
    melds = (Meld(MeldType.CHOW, tuple(parse_kinds("789m"))),)
    wild = frozenset(parse_kinds("12z"))
    strict = ShapeOptions(fifth_copy=False)
    assert not is_win(counts_of(concealed), wild, strict, melds)
    assert shanten(concealed, melds, wild, strict) == 0
    assert shanten(concealed, melds, wild, ShapeOptions()) == -1  # a fifth copy allowed
