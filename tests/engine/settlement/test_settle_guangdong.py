"""广东鸡平胡: the 番 table, the 爆胡 cap, the extras and the special rules become tests.

Seat 0 deals and the prevailing wind is 东 unless a test says otherwise; the winner is seat 1
(seat wind 南), so a pung of 北 or 西 adds nothing.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rulesets import PresetError, load_ruleset
from engine.settlement import SettleInputError
from engine.tiles import EAST, SOUTH
from tests.engine.random_hands import check_settlement_properties, random_request
from tests.engine.settle_helpers import D, paid, received, settle
from tests.engine.settle_helpers import request as settle_request

request = partial(settle_request, "guangdong", prevailing_wind="E")


def win_paid(req: dict[str, Any]) -> dict[int, Any]:
    return paid(settle(req), "win")


def last_tile(hand: str) -> str:
    token = hand.split()[-1]
    return token[-2:] if token[-1] in "mps" else token[-1]


@pytest.mark.parametrize(
    ("name", "hand", "fan"),
    [
        ("鸡胡 0", "123m 456p 777s 789s 99m", 0),
        ("平胡 1", "123m 456p 789s 234s 99m", 1),
        ("碰碰胡 2", "111m 555p 999s 222s 88m", 2),
        ("混一色 2", "123m 456m 789m NNN 99m", 2),
        ("混一色 + 平胡 3", "123m 456m 789m 234m NN", 3),
        ("清一色 4", "123m 456m 789m 234m 99m", 4),
        ("混碰 4", "111m 555m 999m NNN 22m", 4),
        ("清碰 5", "111m 333m 555m 777m 99m", 5),
        ("混幺九 5", "111m 999p NNN WWW 11s", 5),
        ("小三元 5", "CCC FFF PP 123m 456p", 5),
        ("小四喜 5", "EEE SSS WWW NN 123m", 5),
        ("字一色 6", "EEE SSS CCC FFF NN", 6),
        ("清幺九 6", "111m 999m 111p 999s 11s", 6),
        ("大三元 6", "CCC FFF PPP 123m 99p", 6),
        ("大四喜 6", "EEE SSS WWW NNN 99m", 6),
        ("九莲宝灯 6", "1112345678999m 5m", 6),
        ("十三幺 6", "19m 19p 19s ESWN CFP 1m", 6),
    ],
)
def test_fan_table_on_a_discard(name: str, hand: str, fan: int) -> None:
    """分值 = 2^番; the discarder pays it."""
    assert win_paid(request(1, hand, last_tile(hand), 2)) == {2: 2**fan}, name


def test_reason_names_the_hand() -> None:
    s = settle(request(1, "111m 333m 555m 777m 99m", "9m", 2))
    assert s.lines[0].reason == "清碰 番 5 点炮"
    assert s.lines[0].code == "win.discard"


@pytest.mark.parametrize(
    ("name", "hand", "wind", "fan"),
    [
        ("门风 (seat 1 is 南) +1", "SSS 123m 456p 789s 99m", "E", 1),
        ("圈风 +1", "EEE 123m 456p 789s 99m", "E", 1),
        ("门风 and 圈风 both 南 +2", "SSS 123m 456p 789s 99m", "S", 2),
        ("三元 pung +1", "CCC 123m 456p 789s 99m", "E", 1),
        ("碰碰胡 2 + two 三元 2 = 4, capped at 3", "CCC FFF 111m 999p 22s", "E", 3),
    ],
)
def test_extras_within_the_cap(name: str, hand: str, wind: str, fan: int) -> None:
    assert win_paid(request(1, hand, last_tile(hand), 2, prevailing_wind=wind)) == {2: 2**fan}, name


def test_self_draw_adds_one_up_to_the_cap() -> None:
    assert win_paid(request(1, "123m 456p 789s 234s 99m", "9m", "self")) == {0: 4, 2: 4, 3: 4}
    s = settle(request(1, "123m 456m 789m 234m NN", "N", "self"))  # 混一色 平胡 自摸: 4 → 3
    assert paid(s, "win") == {0: 8, 2: 8, 3: 8}
    assert s.lines[0].reason == "平胡 混一色 自摸 番 3 爆胡"


def test_special_hands_take_no_extras() -> None:
    """清一色 自摸 stays 4 番: extras count only within the cap."""
    assert win_paid(request(1, "123m 456m 789m 234m 99m", "9m", "self")) == {0: 16, 2: 16, 3: 16}


def test_yipao_sanxiang_discarder_pays_all_three_at_least_3_fan() -> None:
    hands = {
        1: "123p 456p 777s 78m 55s 9m",
        2: "234p 678p 111s 78m 66s 9m",
        3: "345s 678s EEE 78m 22p 9m",
    }
    req = request(None, "", "", 0, hands=hands)
    req["win"] = [{"seat": s, "tile": "9m", "from": 0} for s in (1, 2, 3)]
    s = settle(req)
    assert received(s, "win") == {1: 8, 2: 8, 3: 8}
    assert paid(s, "win") == {0: 24}
    assert s.next_dealer == 1  # the dealer was not among the winners


def test_two_winners_no_floor_and_the_dealer_stays() -> None:
    hands = {0: "123p 456p 777s 78m 55s 9m", 2: "234p 678p 111s 78m 66s 9m"}
    req = request(None, "", "", 3, hands=hands)
    req["win"] = [{"seat": s, "tile": "9m", "from": 3} for s in (0, 2)]
    s = settle(req)
    assert received(s, "win") == {0: 1, 2: 1}
    assert (s.next_dealer, s.dealer_streak) == (D, 1)


def test_two_seats_rob_one_kong_the_robbed_pays_each() -> None:
    """一炮多响 on a robbed kong: the tile added to seat 3's 7s pung wins for seats 1 and 2,
    and seat 3 pays each as a discarder would (a simulated hand once crashed here)."""
    pung = {"type": "pung", "tiles": "777s", "from": 1}
    req = request(None, "", "", 0)
    # (by hand: the helper would count the one robbed 7s twice, once in each winner's hand)
    req["seats"] = [
        {"hand": "111p 999p 111s 999s W", "melds": [], "discards": ""},
        {"hand": "123m 456p 56s 234p 99m 7s", "melds": [], "discards": ""},
        {"hand": "123p 456m 789m 88s 56s 7s", "melds": [], "discards": ""},
        {"hand": "EEE SSS WW NN", "melds": [pung], "discards": ""},
    ]
    req["win"] = [{"seat": s, "tile": "7s", "from": "rob_kong:3"} for s in (1, 2)]
    s = settle(req)
    assert received(s, "win") == {1: 2, 2: 2}  # 平胡 1 番 each
    assert paid(s, "win") == {3: 4}
    assert {line.code for line in s.lines} == {"win.rob_kong"}


@pytest.mark.parametrize(
    ("froms", "tiles", "why"),
    [
        (("rob_kong:3", 3), ("7s", "7s"), "all win on a discard, or all rob"),
        (("rob_kong:3", "self"), ("7s", "7s"), "all win on a discard, or all rob"),
        ((3, 0), ("7s", "7s"), "on the same tile"),
        ((3, 3), ("7s", "8s"), "on the same tile"),
    ],
)
def test_several_winners_share_one_tile(
    froms: tuple[int | str, int | str], tiles: tuple[str, str], why: str
) -> None:
    hands = {1: "123m 456p 56s 234p 99m 7s", 2: "123p 456m 789m 88s 5s 7s"}
    req = request(None, "", "", 0, hands=hands)
    req["win"] = [
        {"seat": seat, "tile": tile, "from": frm}
        for seat, tile, frm in zip((1, 2), tiles, froms, strict=True)
    ]
    with pytest.raises(SettleInputError, match=why):
        settle(req)


def test_gangshang_kaihua_after_a_kong_on_a_discard_the_giver_pays_all() -> None:
    melds = {1: [{"type": "kong_exposed", "tiles": "7777p", "from": 2}]}
    s = settle(request(1, "123m 456m 789s 99s", "9s", "kong_replacement", melds=melds))
    assert paid(s, "win") == {2: 3 * 8}  # 鸡胡 自摸 1 番 → 3 番
    assert s.lines[0].code == "win.bao"
    assert "包三家" in s.lines[0].reason


def test_gangshang_kaihua_own_kong_each_pays_3_fan() -> None:
    melds = {1: [{"type": "kong_concealed", "tiles": "7777p"}]}
    s = settle(request(1, "123m 456m 789s 99s", "9s", "kong_replacement", melds=melds))
    assert paid(s, "win") == {0: 8, 2: 8, 3: 8}


def test_haidi_at_least_3_fan() -> None:
    s = settle(request(1, "123m 456p 777s 789s 99m", "9m", "self", flags={"last_tile": True}))
    assert paid(s, "win") == {0: 8, 2: 8, 3: 8}


def test_rob_kong_the_robbed_pays_as_a_discarder() -> None:
    melds = {3: [{"type": "pung", "tiles": "777s", "from": 1}]}
    s = settle(request(1, "123m 456p 56s 234p 99m 7s", "7s", "rob_kong:3", melds=melds))
    assert paid(s, "win") == {3: 2}  # 平胡 1 番


def test_bao_zimo_option() -> None:
    """包自摸 (off by default): a discard win scores as a self-draw, paid by the discarder."""
    req = request(1, "123m 456p 777s 789s 99m", "9m", 2, options={"pay.bao_zimo": True})
    s = settle(req)
    assert paid(s, "win") == {2: 3 * 2}
    assert s.lines[0].code == "win.bao_zimo"


def test_base_stake_and_table_fee() -> None:
    opts = {"pay.base": 10, "pay.table_fee": 2}
    s = settle(request(1, "123m 456p 789s 234s 99m", "9m", 2, options=opts))
    assert paid(s, "win") == {2: 20}
    assert s.house_fee == 2
    assert s.as_dict()["house_fee"] == 2
    assert sum(s.net) == 0  # the fee is outside the seats' zero-sum lines


# --- the deal and the prevailing wind ------------------------------------------------------


def test_non_dealer_win_passes_the_deal() -> None:
    s = settle(request(1, "123m 456p 789s 234s 99m", "9m", 2))
    assert (s.next_dealer, s.dealer_streak, s.prevailing_wind) == (1, 0, EAST)


def test_dealer_win_or_draw_stays() -> None:
    s = settle(request(D, "123m 456p 789s 234s 99m", "9m", 2))
    assert (s.next_dealer, s.dealer_streak) == (D, 1)
    s = settle(request(None, "", "", 0))
    assert (s.next_dealer, s.dealer_streak, s.lines) == (D, 1, ())


def test_wind_moves_when_the_deal_returns_to_the_first_dealer() -> None:
    s = settle(request(1, "123m 456p 789s 234s 99m", "9m", 2, dealer=3))
    assert (s.next_dealer, s.prevailing_wind) == (0, SOUTH)
    assert s.as_dict()["prevailing_wind"] == "S"
    # a repeat by the last dealer does not end the round
    s = settle(request(3, "123m 456p 789s 234s 99m", "9m", 2, dealer=3))
    assert s.prevailing_wind == EAST
    # first dealer given: seat 2
    s = settle(request(3, "123m 456p 789s 234s 99m", "9m", 2, dealer=1, extra={"first_dealer": 2}))
    assert s.prevailing_wind == SOUTH
    s = settle(request(1, "123m 456p 789s 234s 99m", "9m", 2, dealer=3, prevailing_wind="N"))
    assert s.prevailing_wind == EAST  # after 北 a new game starts at 东


# --- input ---------------------------------------------------------------------------------


def test_no_honor_sets() -> None:
    with pytest.raises(SettleInputError, match=r"^win: seats\[1\]"):
        settle(request(1, "123m 456p 789s ESW 99m", "9m", 2))


def test_no_seven_pairs() -> None:
    with pytest.raises(SettleInputError, match="does not win"):
        settle(request(1, "11m 22m 55p 66p 88s 99s EE", "E", 2))


def test_invalid_options_name_the_field() -> None:
    with pytest.raises(PresetError, match=r"fan\.cap"):
        load_ruleset("guangdong", {"fan.cap": -1})
    with pytest.raises(PresetError, match=r"pay\.bao_zimo"):
        load_ruleset("guangdong", {"pay.bao_zimo": "maybe"})


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_hands_settle_to_zero_deterministically(seed: int) -> None:
    check_settlement_properties(random_request(seed, "guangdong", seven_pairs=False))
