"""Three readings the analysis, the settlement and the round must share: 精吊 when the
winning tile also fits a set, the shanten of 十三烂, and chongji's 杠达 as a win everywhere."""

from __future__ import annotations

from engine.analysis import analyze, is_win, shanten, waits
from engine.hand import Meld, MeldType, Shape
from engine.round import RoundState
from engine.round.events import HandStarted
from engine.rulesets import load_ruleset
from engine.tiles import counts_of, parse_kind, parse_kinds
from tests.engine.settle_helpers import paid, seats_with, settle

XINGGUO = load_ruleset("xingguo").shape_options()
NANCHANG = load_ruleset("nanchang").shape_options()
CHONGJI = load_ruleset("chongji").shape_options()


# --- 1. 精吊 when the winning tile also fits a set ------------------------------------

# 正精 3s, 副精 4s: 3s stands for 7m in 6-7-8m, 4s is the lone jing
JINGDIAO_13 = "111m 555m 68m 3s 4s EWN"
JING_3S = frozenset(parse_kinds("3s 4s"))


def test_jingdiao_when_the_winning_tile_fits_a_set() -> None:
    hand = parse_kinds(JINGDIAO_13 + " 7m")
    readings = analyze(hand, (), JING_3S, XINGGUO, winning_kind=parse_kind("7m"))
    diao = [r for r in readings if r.jingdiao]
    assert diao, "no 精吊 reading"
    assert all(r.pair is not None and r.pair.kinds == (parse_kind("7m"),) * 2 for r in diao)


def test_jingdiao_when_the_winning_tile_fits_a_set_is_paid_as_jingdiao() -> None:
    """X self-draws: 精吊 ×2, so the dealer pays 8 and the others 4 (平胡 would be 4/2/2)."""
    req = {
        "ruleset": "xingguo",
        "dealer": 0,
        "indicator": "3s",
        "seats": seats_with(
            {1: JINGDIAO_13 + " 7m"}, jing=("3s", "4s"), spare="4s", indicator="3s"
        ),
        "win": {"seat": 1, "tile": "7m", "from": "self"},
    }
    assert paid(settle(req), "win") == {0: 8, 2: 4, 3: 4}


# --- 2. shanten of 十三烂 -------------------------------------------------------------------


def test_shisanlan_with_a_two_tile_suit_is_complete() -> None:
    hand = parse_kinds("147m 258p 37s ESWNCF")  # 3s and 7s: 4 apart, no third fits
    assert is_win(counts_of(hand), options=XINGGUO)
    assert shanten(hand, options=XINGGUO) == -1


def test_shisanlan_ready_hand_has_shanten_0() -> None:
    hand = parse_kinds("159m 26p 37s ESWNCF")
    assert waits(hand, options=NANCHANG)
    assert shanten(hand, options=NANCHANG) == 0


def test_shisanlan_three_short_suits_cannot_all_stay() -> None:
    """3-7 in every suit: 6 suited kinds that leave no room for the seventh a 十三烂 needs."""
    hand = parse_kinds("37m 37p 37s ESWNCFP")
    assert not is_win(counts_of(hand), options=XINGGUO)
    # one of the six goes (5 kept + 7 honors): two tiles short, so shanten 1, not 0
    assert shanten(hand, options=XINGGUO) == 1


# --- 3. chongji 杠达 is a win everywhere ---------------------------------------------------

GANGDA_CONCEALED = "11m 33m 55p 77p 22s 4s"
KONG_EAST = (Meld(MeldType.KONG_CONCEALED, (27, 27, 27, 27)),)
CAISHEN_9S = frozenset({parse_kind("9s")})  # indicator 8s


def test_gangda_is_a_win_for_the_analysis() -> None:
    hand = parse_kinds(GANGDA_CONCEALED)
    assert is_win(counts_of(hand), CAISHEN_9S, CHONGJI, KONG_EAST)
    readings = analyze(hand, KONG_EAST, CAISHEN_9S, CHONGJI, winning_kind=parse_kind("4s"))
    assert [r.shape for r in readings] == [Shape.GANGDA]
    assert shanten(hand, KONG_EAST, CAISHEN_9S, CHONGJI) == -1
    ready = parse_kinds("11m 33m 55p 77p 22s")
    assert shanten(ready, KONG_EAST, CAISHEN_9S, CHONGJI) == 0
    assert parse_kind("4s") in waits(ready, KONG_EAST, CAISHEN_9S, CHONGJI)


def test_gangda_with_a_caishen_pairing_a_single() -> None:
    hand = parse_kinds("11m 33m 55p 7p 9s 22s 4s")  # 9s (财神) pairs the 7p
    assert is_win(counts_of(hand), CAISHEN_9S, CHONGJI, KONG_EAST)
    (reading,) = analyze(hand, KONG_EAST, CAISHEN_9S, CHONGJI, winning_kind=parse_kind("4s"))
    assert reading.wildcards_used == 1 and not reading.deguo


def test_gangda_off_is_no_win() -> None:
    off = load_ruleset("chongji", {"rules.gangda": False}).shape_options()
    hand = parse_kinds(GANGDA_CONCEALED)
    assert not is_win(counts_of(hand), CAISHEN_9S, off, KONG_EAST)
    assert shanten(hand, KONG_EAST, CAISHEN_9S, off) > 0


def test_gangda_settles_as_one_kong_one_da() -> None:
    """The settlement reads the same readings as the analysis: 一杠一达, paid 14 by each."""
    req = {
        "ruleset": "chongji",
        "dealer": 0,
        "indicator": "8s",
        "seats": seats_with(
            {1: GANGDA_CONCEALED},
            melds={1: [{"type": "kong_concealed", "tiles": "EEEE"}]},
            jing=("9s",),
            spare="",
            indicator="8s",
        ),
        "win": {"seat": 1, "tile": "4s", "from": "self"},
    }
    s = settle(req)
    assert paid(s, "win") == {0: 14, 2: 14, 3: 14}  # 11 + 无龙 2 + 杠达 1
    assert any("一杠一达" in line.reason for line in s.lines)


def test_the_round_reads_gangda_as_the_settlement_does() -> None:
    """The round (and the bots, which read its options) win on what the settlement pays."""
    hand = counts_of(parse_kinds(GANGDA_CONCEALED))
    on = RoundState(HandStarted("chongji", 0)).options
    off = RoundState(HandStarted("chongji", 0, options={"rules.gangda": False})).options
    assert is_win(hand, CAISHEN_9S, on, KONG_EAST)
    assert not is_win(hand, CAISHEN_9S, off, KONG_EAST)
