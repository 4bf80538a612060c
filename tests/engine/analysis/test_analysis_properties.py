"""Properties every ruleset's analysis keeps, over random hands of every ruleset.

- 13 tiles that are complete sets (or six pairs) plus one lone jing are 精吊 on every
  winning tile, in the jing family (the rulesets with 精吊);
- a hand the analysis reads as a win has shanten −1, and one it does not has 0 or more;
- the settlement refuses a hand as 不是胡牌 exactly when the analysis reads no win, for
  each special shape of every ruleset.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.analysis import analyze, is_win, shanten, waits
from engine.hand import Meld, MeldType, Shape
from engine.rulesets import load_ruleset
from engine.rulesets.preset import builtin_ids
from engine.settlement import parse_finished_hand
from engine.tiles import counts_of, format_kinds, parse_kind, parse_kinds
from tests.engine.analysis_helpers import random_set
from tests.engine.settle_helpers import seats_with

JING_FAMILY = ("xingguo", "nanchang", "jian", "lianhua", "yongfeng")
ALL_RULESETS = tuple(builtin_ids())


def _sets(rng: random.Random, n: int) -> list[int]:
    return [k for _ in range(n) for k in random_set(rng)]


@pytest.mark.parametrize("name", JING_FAMILY)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), pairs=st.booleans(), jing_in_sets=st.integers(0, 2))
def test_sets_plus_a_lone_jing_are_jingdiao_on_every_winning_tile(
    name: str, seed: int, pairs: bool, jing_in_sets: int
) -> None:
    rng = random.Random(seed)
    ruleset = load_ruleset(name)
    wild = ruleset.wild_kinds(rng.randrange(34))
    jing = sorted(wild)
    if pairs:
        twelve = [k for k in (rng.randrange(34) for _ in range(6)) for _ in range(2)]
    else:
        twelve = _sets(rng, 4)
    # some tiles of the sets are jing standing for them
    for _ in range(jing_in_sets):
        twelve[rng.randrange(12)] = rng.choice(jing)
    thirteen = [*twelve, rng.choice(jing)]
    if max(counts_of(thirteen)) > 4:
        return
    options = ruleset.shape_options()
    won_on = waits(thirteen, (), wild, options)
    held = counts_of(thirteen)
    assert won_on == [k for k in range(34) if held[k] < 4], thirteen
    for k in won_on:
        readings = analyze([*thirteen, k], (), wild, options, winning_kind=k)
        assert any(r.jingdiao for r in readings), (format_kinds(thirteen), k)


def _near(rng: random.Random) -> tuple[list[int], list[Meld]]:
    """A winning-like hand of some shape, maybe one tile off, maybe with a meld."""
    roll = rng.random()
    melds: list[Meld] = []
    if roll < 0.3:
        tiles = [k for k in (rng.randrange(34) for _ in range(7)) for _ in range(2)]
    elif roll < 0.45:
        tiles = rng.sample([0, 3, 6, 10, 13, 16, 20, 23, 26, *range(27, 34)], 14)
    elif roll < 0.55:
        tiles = [0, 8, 9, 17, 18, 26, *range(27, 34), rng.choice((0, 8, 27, 33))]
    elif roll < 0.65:
        s = rng.randrange(3) * 9
        tiles = [s + i for i, n in enumerate((3, 1, 1, 1, 1, 1, 1, 1, 3)) for _ in range(n)]
        tiles.append(s + rng.randrange(9))
    elif roll < 0.7:
        # 杠达-like: k concealed kongs, 7 − 2k pairs and k loose tiles
        kongs = rng.randint(1, 3)
        melds = [Meld(MeldType.KONG_CONCEALED, (k,) * 4) for k in rng.sample(range(34), kongs)]
        tiles = [k for k in (rng.randrange(34) for _ in range(7 - 2 * kongs)) for _ in range(2)]
        tiles += [rng.randrange(34) for _ in range(kongs)]
    elif roll < 0.75:
        k = rng.randrange(27, 34)
        melds = [Meld(MeldType.PUNG, (k,) * 3, from_seat=2)]
        tiles = [rng.randrange(27, 34) for _ in range(11)]
    else:
        tiles = [*_sets(rng, 4), *[rng.randrange(34)] * 2]
    if rng.random() < 0.4:
        tiles[rng.randrange(len(tiles))] = rng.randrange(34)
    held = counts_of(tiles + [k for m in melds for k in m.kinds])
    if max(held) > 4:
        return _near(rng)
    return tiles, melds


@pytest.mark.parametrize("name", ALL_RULESETS)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_win_has_shanten_minus_one(name: str, seed: int) -> None:
    rng = random.Random(seed)
    ruleset = load_ruleset(name)
    wild = ruleset.wild_kinds(rng.randrange(34))
    tiles, melds = _near(rng)
    if wild and rng.random() < 0.5:
        tiles[rng.randrange(len(tiles))] = rng.choice(sorted(wild))
    options = ruleset.shape_options()
    won = is_win(counts_of(tiles), wild, options, melds)
    assert bool(analyze(tiles, melds, wild, options, tiles[-1])) == won
    sh = shanten(tiles, melds, wild, options)
    assert (sh == -1) == won, (format_kinds(tiles), sh)
    # the 13 tiles before it: ready exactly when some tile completes them
    ready = shanten(tiles[:-1], melds, wild, options) == 0
    assert ready == bool(waits(tiles[:-1], melds, wild, options)), format_kinds(tiles)


# One natural hand per special shape (no wildcards: indicator 7s makes 7s/8s the jing, 8s
# the 财神, which these hands do not hold); each also with its last tile changed to 5s.
SPECIAL_HANDS = {
    Shape.XIAOQI: ("33m 44m 55p 77p 99s EE SS", ()),
    Shape.DAQI: ("333m 555p 222s EEE SS", ()),
    Shape.SHISANLAN: ("147m 258p 369s ESWNC", ()),
    Shape.QIXING_SHISANLAN: ("47m 258p 36s ESWNCFP", ()),
    Shape.SHISANYAO: ("19m 19p 19s ESWNCFP 9m", ()),
    Shape.JIULIAN: ("111234567899p 99p", ()),
    Shape.QUANFENG: ("EEE SSW NNN C F", (("pung", "PPP"),)),
    Shape.GANGDA: ("33m 44m 55p 77p 99s 6s", (("kong_concealed", "EEEE"),)),
}
INDICATOR = "7s"


def _refusal(name: str, kinds: list[int], melds: tuple[tuple[str, str], ...]) -> str | None:
    meld_json: list[dict[str, object]] = [
        {"type": t, "tiles": m} | ({} if t == "kong_concealed" else {"from": 2}) for t, m in melds
    ]
    seats = seats_with(
        {1: format_kinds(kinds)}, melds={1: meld_json}, jing=(), spare="", indicator=INDICATOR
    )
    req = {
        "ruleset": name,
        "dealer": 0,
        "indicator": INDICATOR,
        "seats": seats,
        "win": {"seat": 1, "tile": format_kinds(kinds[-1:]), "from": "self"},
    }
    fh = parse_finished_hand(req)
    return load_ruleset(name).win_refusal(fh, fh.wins[0])


@pytest.mark.parametrize("name", ALL_RULESETS)
@pytest.mark.parametrize("shape", list(SPECIAL_HANDS))
@pytest.mark.parametrize("changed", [False, True])
def test_the_settlement_refuses_exactly_what_the_analysis_does_not_read(
    name: str, shape: Shape, changed: bool
) -> None:
    ruleset = load_ruleset(name)
    options = ruleset.shape_options()
    hand, melds = SPECIAL_HANDS[shape]
    kinds = parse_kinds(hand)
    if changed:
        kinds[-1] = parse_kind("5s")
    meld_objs = [
        Meld(MeldType(t), tuple(parse_kinds(m)), from_seat=None if t == "kong_concealed" else 2)
        for t, m in melds
    ]
    wild = ruleset.wild_kinds(parse_kind(INDICATOR))
    readings = analyze(kinds, meld_objs, wild, options, winning_kind=kinds[-1])
    if not changed:
        assert (shape in {r.shape for r in readings}) == (shape in options.shapes), name
    why = _refusal(name, kinds, melds)
    assert (why is not None and why.startswith("不是胡牌")) == (not readings), (name, why)
