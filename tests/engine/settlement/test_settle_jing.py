"""Worked examples of the jing family: the seeds' tables become tests.

Seat 0 deals. The indicator is 5m, so 5m is 正精 and 6m 副精; the winners' hands use the
p and s suits (and honors) so the fillers never collide with them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.settlement import SettleInputError
from tests.engine.random_hands import random_request
from tests.engine.settle_helpers import D, paid, received, request, seats_with, settle

# Winning hands (14 tiles, the winning tile last) with and without jing.
PINGHU_JING = "123p 456p 789s 11s 2s 6m 3s"  # 6m (副精) stands for 1s or 4s
PINGHU_DEGUO = "123p 456p 789s 123s 5s 5s"
XIAOQI_JING = "1p 22p 33s 44s 55p 77p 9p 6m 1p"  # 6m pairs 9p, not the winning 1p
XIAOQI_DEGUO = "11p 22p 33s 44s 55p 77p 9p 9p"
DAQI_JING = "111p 222p 333s 44s 5p 6m 4s"
DAQI_DEGUO = "111p 222p 333s 44s 55p 4s"
SHISANLAN_DEGUO = "147m 258p 369s E S W N C"


def win_paid(req: dict[str, Any]) -> dict[int, Any]:
    return paid(settle(req), "win")


# --- xingguo: groups A–E of seed 000, through the formula V = b × M (docs/rules/README.md#seed-000)


@pytest.mark.parametrize(
    ("name", "winner", "hand", "frm", "expected"),
    [
        ("D 平胡 有精 自摸 4+4+4=12", D, PINGHU_JING, "self", {1: 4, 2: 4, 3: 4}),
        ("D 平胡 德国 自摸 13×3=39", D, PINGHU_DEGUO, "self", {1: 13, 2: 13, 3: 13}),
        ("X 平胡 有精 自摸 4+2+2=8", 1, PINGHU_JING, "self", {0: 4, 2: 2, 3: 2}),
        ("X 平胡 德国 自摸 13+9+9=31", 1, PINGHU_DEGUO, "self", {0: 13, 2: 9, 3: 9}),
        ("X 点 D 德国 平胡 13+4+4=21", D, PINGHU_DEGUO, 2, {2: 13, 1: 4, 3: 4}),
        ("D 点 X 德国 平胡 13+2+2=17", 1, PINGHU_DEGUO, D, {0: 13, 2: 2, 3: 2}),
        ("X 点 X 德国 平胡 9+4+2=15", 1, PINGHU_DEGUO, 2, {2: 9, 0: 4, 3: 2}),
        ("D 小七 有精 自摸 8×3=24", D, XIAOQI_JING, "self", {1: 8, 2: 8, 3: 8}),
        ("X 点 X 有精 小七 4+4+2=10", 1, XIAOQI_JING, 2, {2: 4, 0: 4, 3: 2}),
        (
            "X 小七 德国 自摸 21+13+13=47 (seed prints 37)",
            1,
            XIAOQI_DEGUO,
            "self",
            {0: 21, 2: 13, 3: 13},
        ),
        ("X 点 X 德国 小七 13+8+4=25", 1, XIAOQI_DEGUO, 2, {2: 13, 0: 8, 3: 4}),
        ("D 大七 有精 自摸 16×3=48", D, DAQI_JING, "self", {1: 16, 2: 16, 3: 16}),
        ("D 大七 德国 自摸 37×3=111", D, DAQI_DEGUO, "self", {1: 37, 2: 37, 3: 37}),
        ("X 大七 有精 自摸 16+8+8=32", 1, DAQI_JING, "self", {0: 16, 2: 8, 3: 8}),
        ("X 大七 德国 自摸 37+21+21=79", 1, DAQI_DEGUO, "self", {0: 37, 2: 21, 3: 21}),
        ("X 点 D 有精 大七 16+8+8=32", D, DAQI_JING, 1, {1: 16, 2: 8, 3: 8}),
        ("X 点 D 德国 大七 37+16+16=69", D, DAQI_DEGUO, 1, {1: 37, 2: 16, 3: 16}),
        ("D 点 X 有精 大七 16+4+4=24", 1, DAQI_JING, D, {0: 16, 2: 4, 3: 4}),
        ("D 点 X 德国 大七 37+8+8=53 (seed prints 43)", 1, DAQI_DEGUO, D, {0: 37, 2: 8, 3: 8}),
        ("X 点 X 有精 大七 8+8+4=20", 1, DAQI_JING, 2, {2: 8, 0: 8, 3: 4}),
        ("X 点 X 德国 大七 21+16+8=45", 1, DAQI_DEGUO, 2, {2: 21, 0: 16, 3: 8}),
    ],
)
def test_xingguo_win_table(
    name: str, winner: int, hand: str, frm: int | str, expected: dict[int, int]
) -> None:
    tile = hand.split()[-1]
    assert win_paid(request("xingguo", winner, hand, tile, frm)) == expected, name


def test_xingguo_jing_pinghu_cannot_win_on_discard() -> None:
    """有精平胡不能抓点炮: settled as 诈胡 (20 to each)."""
    s = settle(request("xingguo", 1, PINGHU_JING, "3s", 2))
    assert paid(s, "win") == {}
    assert paid(s, "false_win") == {1: 60}


@pytest.mark.parametrize(
    ("name", "winner", "hand", "tile", "expected"),
    [
        # 13 tiles of complete sets + one lone jing; the drawn tile pairs with the jing
        ("D 有精 平胡 精吊 8×3=24", D, "123p 456p 789s 123s 6m 9p", "9p", {1: 8, 2: 8, 3: 8}),
        ("X 有精 平胡 精吊 8+4+4=16", 1, "123p 456p 789s 123s 6m 9p", "9p", {0: 8, 2: 4, 3: 4}),
        (
            "D 有精 小七 精吊 16×3=48",
            D,
            "11p 22p 33s 44s 55p 77p 6m 9p",
            "9p",
            {1: 16, 2: 16, 3: 16},
        ),
        (
            "X 有精 小七 精吊 16+8+8=32",
            1,
            "11p 22p 33s 44s 55p 77p 6m 9p",
            "9p",
            {0: 16, 2: 8, 3: 8},
        ),
        ("D 有精 大七 精吊 32×3=96", D, "111p 222p 333s 444s 6m 9p", "9p", {1: 32, 2: 32, 3: 32}),
        (
            "X 有精 大七 精吊 32+16+16=64",
            1,
            "111p 222p 333s 444s 6m 9p",
            "9p",
            {0: 32, 2: 16, 3: 16},
        ),
        # 德国 精吊: the lone jing pairs with a drawn copy of itself
        ("D 平胡 精吊 德国 21×3=63", D, "123p 456p 789s 123s 6m 6m", "6m", {1: 21, 2: 21, 3: 21}),
        (
            "X 平胡 精吊 德国 21+13+13=47",
            1,
            "123p 456p 789s 123s 6m 6m",
            "6m",
            {0: 21, 2: 13, 3: 13},
        ),
        (
            "D 小七 精吊 德国 37×3=111",
            D,
            "11p 22p 33s 44s 55p 77p 6m 6m",
            "6m",
            {1: 37, 2: 37, 3: 37},
        ),
        (
            "X 小七 精吊 德国 37+21+21=79",
            1,
            "11p 22p 33s 44s 55p 77p 6m 6m",
            "6m",
            {0: 37, 2: 21, 3: 21},
        ),
        ("D 大七 精吊 德国 69×3=207", D, "111p 222p 333s 444s 6m 6m", "6m", {1: 69, 2: 69, 3: 69}),
        (
            "X 大七 精吊 德国 69+37+37=143",
            1,
            "111p 222p 333s 444s 6m 6m",
            "6m",
            {0: 69, 2: 37, 3: 37},
        ),
    ],
)
def test_xingguo_jingdiao_table(
    name: str, winner: int, hand: str, tile: str, expected: dict[int, int]
) -> None:
    req = request("xingguo", winner, hand, tile, "self")
    # the spare 副精 would make a third 6m; these hands carry their own jing
    assert win_paid(req) == expected, name


def test_xingguo_gangdiao_deguo_133() -> None:
    """D 大七 杠吊 德国: 4·(4·2·2·2)+5 = 133 from each."""
    req = request(
        "xingguo",
        D,
        "111p 222p 333s 5m 5m",
        "5m",
        "kong_replacement",
        melds={D: [{"type": "kong_concealed", "tiles": "4444s"}]},
    )
    assert win_paid(req) == {1: 133, 2: 133, 3: 133}


def test_xingguo_jingdiao_cannot_win_on_discard() -> None:
    s = settle(request("xingguo", 1, "123p 456p 789s 123s 6m 9p", "9p", 2))
    assert paid(s, "win") == {}
    assert paid(s, "false_win") == {1: 60}


def test_xingguo_fixed_amounts() -> None:
    tian = request("xingguo", D, PINGHU_JING, "3s", "self", flags={"tian": True})
    assert win_paid(tian) == {1: 20, 2: 20, 3: 20}
    tian_jd = request("xingguo", D, "123p 456p 789s 123s 6m 9p", "9p", "self", flags={"tian": True})
    assert win_paid(tian_jd) == {1: 40, 2: 40, 3: 40}
    di_deguo = request("xingguo", 1, PINGHU_DEGUO, "5s", "self", flags={"di": True})
    assert win_paid(di_deguo) == {0: 45, 2: 45, 3: 45}


def test_xingguo_bahu_doubles() -> None:
    """霸胡: no seat holds any jing at all."""
    req = request("xingguo", 1, PINGHU_DEGUO, "5s", "self")
    req["seats"] = seats_with({1: PINGHU_DEGUO}, spare="")
    assert win_paid(req) == {0: 4 * 4 + 5, 2: 2 * 4 + 5, 3: 2 * 4 + 5}


def test_xingguo_rob_kong_robbed_pays_all() -> None:
    # the robbed seat keeps the pung it was adding to; the winner holds the fourth 5s
    melds = {3: [{"type": "pung", "tiles": "555s", "from": 2}]}
    req = request("xingguo", 1, "123p 456p 789s 99s 34s 5s", "5s", "rob_kong:3", melds=melds)
    # 抢杠 ×2 on 德国 平胡: shares 4·4+5, 2·4+5, 2·4+5 all paid by the robbed seat
    assert win_paid(req) == {3: 21 + 13 + 13}


def test_xingguo_jing_score_and_chongguan() -> None:
    """n = 2·正精 + 副精; 冲关 from 5: n(n−3)."""
    hands = {
        1: PINGHU_DEGUO,
        2: "5m 5m 6m 6m 1m 2m 3m 7m 8m 9m E E E",  # n = 6 → 18 from each
    }
    req = request("xingguo", 1, PINGHU_DEGUO, "5s", "self", hands=hands)
    req["seats"] = seats_with(hands, spare="")
    s = settle(req)
    # seat 2 is the only holder: 霸精 doubles: 36 from each of the three
    assert received(s, "jing") == {2: 108}
    reasons = {line.reason for line in s.lines if line.code == "jing"}
    assert reasons == {"霸精 冲关 6精 ×3"}


@pytest.mark.parametrize(
    ("hand", "bao"),
    [
        ("6m 6m 1m 2m 3m 7m 8m 9m E E", True),  # 2 + 3 in the chow = 5; without the 5m: 3
        ("5m 6m 6m 1m 2m 3m 7m 8m 9m E", False),  # 4 + 3 = 7; without the 5m still 5
    ],
)
def test_xingguo_jing_bao_for_claimed_jing(hand: str, bao: bool) -> None:
    """包: a claimed jing that makes the claimer 冲关 → the discarder pays all three shares."""
    hands = {1: PINGHU_DEGUO, 2: hand}
    melds = {2: [{"type": "chow", "tiles": "4m 5m 6m", "from": 1, "claimed": "5m"}]}
    req = request("xingguo", 1, PINGHU_DEGUO, "5s", "self", hands=hands, melds=melds)
    req["seats"] = seats_with(hands, melds=melds)  # another seat holds a 副精: no 霸精
    s = settle(req)
    n = 5 if bao else 7
    each = n * (n - 3)
    if bao:
        assert paid(s, "jing.bao") == {1: 3 * each}
    else:
        assert paid(s, "jing.bao") == {}
        assert received(s, "jing").get(2) == 3 * each


def test_xingguo_jing_bao_for_bajing() -> None:
    """A claimed jing that makes the claimer 霸精: the discarder pays the 霸精 score alone."""
    hands = {1: PINGHU_DEGUO, 2: "5m 6m 6m 1m 2m 3m 7m 8m 9m E"}
    melds = {2: [{"type": "chow", "tiles": "4m 5m 6m", "from": 1, "claimed": "5m"}]}
    req = request("xingguo", 1, PINGHU_DEGUO, "5s", "self", hands=hands, melds=melds)
    req["seats"] = seats_with(hands, melds=melds, spare="")
    s = settle(req)
    assert paid(s, "jing.bao") == {1: 3 * 2 * 28}


def test_xingguo_void_on_exhaustion() -> None:
    req = request("xingguo", 1, PINGHU_DEGUO, "5s", "self")
    req["win"] = None
    req["seats"] = seats_with({})
    s = settle(req)
    assert s.void and s.lines == () and s.next_dealer == D


def test_xingguo_kong_and_genzhuang() -> None:
    req = request(
        "xingguo",
        1,
        "123p 456p 789s 5s 5s",
        "5s",
        "self",
        melds={1: [{"type": "kong_concealed", "tiles": "3333s"}]},
        extra={"genzhuang_rounds": 2, "false_win": []},
    )
    s = settle(req)
    assert received(s, "kong") == {1: 6}
    assert paid(s, "genzhuang") == {D: 30}
    assert sum(s.net) == 0


def test_dealer_rotation() -> None:
    assert settle(request("xingguo", D, PINGHU_DEGUO, "5s", "self")).next_dealer == D
    assert settle(request("xingguo", 2, PINGHU_DEGUO, "5s", "self")).next_dealer == 1


def test_not_a_win_is_false_win_in_xingguo() -> None:
    s = settle(request("xingguo", 1, "123p 456p 789s 11s 2s 9s 3s", "3s", "self"))
    assert paid(s, "false_win") == {1: 60}
    assert paid(s, "win") == {}


def test_wrong_counts_are_errors() -> None:
    req = request("xingguo", 1, PINGHU_DEGUO + " 7p", "5s", "self")
    with pytest.raises(SettleInputError, match="相公"):
        settle(req)


# --- nanchang ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "winner", "hand", "tile", "frm", "expected"),
    [
        ("捉闲放炮 有精平胡 2+2+1=5", 1, PINGHU_JING, "3s", 2, {2: 2, 0: 2, 3: 1}),
        ("捉庄放炮 有精平胡 4+1+1=6", 1, PINGHU_JING, "3s", D, {0: 4, 2: 1, 3: 1}),
        (
            "精吊平胡 D 自摸 13×3=39",
            D,
            "123p 456p 789s 123s 6m 9p",
            "9p",
            "self",
            {1: 13, 2: 13, 3: 13},
        ),
        (
            "精吊平胡 X 自摸 13+9+9=31",
            1,
            "123p 456p 789s 123s 6m 9p",
            "9p",
            "self",
            {0: 13, 2: 9, 3: 9},
        ),
        (
            "精吊德国 X 自摸 21+13+13=47",
            1,
            "123p 456p 789s 123s 6m 6m",
            "6m",
            "self",
            {0: 21, 2: 13, 3: 13},
        ),
        (
            "精吊7对 X 自摸 21+13+13=47",
            1,
            "11p 22p 33s 44s 55p 77p 6m 9p",
            "9p",
            "self",
            {0: 21, 2: 13, 3: 13},
        ),
        (
            "精吊大7对 X 自摸 37+21+21=79",
            1,
            "111p 222p 333s 444s 6m 9p",
            "9p",
            "self",
            {0: 37, 2: 21, 3: 21},
        ),
        ("德国小七 X 自摸 37+21+21=79", 1, XIAOQI_DEGUO, "9p", "self", {0: 37, 2: 21, 3: 21}),
        ("德国小七 D 自摸 37×3=111", D, XIAOQI_DEGUO, "9p", "self", {1: 37, 2: 37, 3: 37}),
        ("德国小七 捉闲放炮 21+16+8=45", 1, XIAOQI_DEGUO, "9p", 2, {2: 21, 0: 16, 3: 8}),
        ("德国小七 捉庄放炮 37+8+8=53", 1, XIAOQI_DEGUO, "9p", D, {0: 37, 2: 8, 3: 8}),
        ("德国十三烂 X 自摸 13+13+21=47", 1, SHISANLAN_DEGUO, "C", "self", {0: 21, 2: 13, 3: 13}),
        ("德国十三烂 D 自摸 21×3=63", D, SHISANLAN_DEGUO, "C", "self", {1: 21, 2: 21, 3: 21}),
        ("德国十三烂 捉闲放炮 13+8+4=25", 1, SHISANLAN_DEGUO, "C", 2, {2: 13, 0: 8, 3: 4}),
        ("德国十三烂 捉庄放炮 21+4+4=29", 1, SHISANLAN_DEGUO, "C", D, {0: 21, 2: 4, 3: 4}),
        (
            "德国七星十三烂 X 自摸 79",
            1,
            "147m 258p 3s E S W N C F P",
            "P",
            "self",
            {0: 37, 2: 21, 3: 21},
        ),
    ],
)
def test_nanchang_table(
    name: str, winner: int, hand: str, tile: str, frm: int | str, expected: dict[int, int]
) -> None:
    assert win_paid(request("nanchang", winner, hand, tile, frm)) == expected, name


def test_nanchang_gangkai() -> None:
    """杠上开花 X 4+4+8 = 16 (有精 平胡 ×2)."""
    req = request(
        "nanchang",
        1,
        "123p 456p 11s 2s 6m 3s",
        "3s",
        "kong_replacement",
        melds={1: [{"type": "kong_concealed", "tiles": "9999s"}]},
    )
    assert win_paid(req) == {0: 8, 2: 4, 3: 4}


@pytest.mark.parametrize(("zheng", "each"), [(1, 32), (2, 54), (3, 168)])
def test_nanchang_gang_jing(zheng: int, each: int) -> None:
    """杠精 14 on top of the jing points: 4 副精 + 1 正精 → 18 + 14 = 32; + 2 → 54;
    + 3 (all seven jing, so 霸精) → (70 + 14) × 2 = 168."""
    jing_hand = ["5m"] * zheng + ["1p", "2p", "3p", "4p", "7p", "8p", "9p", "E", "E", "S"]
    hands = {1: PINGHU_DEGUO, 2: " ".join(jing_hand[:10])}
    melds = {2: [{"type": "kong_concealed", "tiles": "6666m"}]}
    spare = " ".join(["5m"] * (3 - zheng))  # the other 正精 go to another seat
    req = request("nanchang", 1, PINGHU_DEGUO, "5s", "self", hands=hands, melds=melds, spare=spare)
    s = settle(req)
    assert received(s, "jing").get(2, 0) == 3 * each


# --- jian ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "winner", "hand", "frm", "flags", "kong", "expected"),
    [
        ("屁胡自摸 每人4个", 1, PINGHU_JING, "self", {}, False, {0: 4, 2: 4, 3: 4}),
        ("德国放炮 放炮13个其他4个", 1, PINGHU_DEGUO, 2, {}, False, {2: 13, 0: 4, 3: 4}),
        ("七对放炮 放炮8个其他4个", 1, XIAOQI_JING, 2, {}, False, {2: 8, 0: 4, 3: 4}),
        ("天胡 32", D, PINGHU_JING, "self", {"tian": True}, False, {1: 32, 2: 32, 3: 32}),
        ("德国 地胡 69", 1, PINGHU_DEGUO, "self", {"di": True}, False, {0: 69, 2: 69, 3: 69}),
    ],
)
def test_jian_flat_table(
    name: str,
    winner: int,
    hand: str,
    frm: int | str,
    flags: dict[str, bool],
    kong: bool,
    expected: dict[int, int],
) -> None:
    tile = hand.split()[-1]
    assert win_paid(request("jian", winner, hand, tile, frm, flags=flags)) == expected, name


@pytest.mark.parametrize(
    ("name", "concealed", "tile", "each"),
    [
        ("大七杠吊 每人64个", "111p 222p 333s 6m 9p", "9p", 64),
        ("德国大七杠吊 每人133个", "111p 222p 333s 6m 6m", "6m", 133),
    ],
)
def test_jian_gangdiao(name: str, concealed: str, tile: str, each: int) -> None:
    req = request(
        "jian",
        1,
        concealed,
        tile,
        "kong_replacement",
        melds={1: [{"type": "kong_concealed", "tiles": "4444s"}]},
    )
    assert win_paid(req) == {0: each, 2: each, 3: each}, name


def test_jian_di_jingdiao_64_and_deguo_133() -> None:
    jd = request("jian", 1, "123p 456p 789s 123s 6m 9p", "9p", "self", flags={"di": True})
    assert win_paid(jd) == {0: 64, 2: 64, 3: 64}
    jd_deguo = request("jian", 1, "123p 456p 789s 123s 6m 6m", "6m", "self", flags={"di": True})
    assert win_paid(jd_deguo) == {0: 133, 2: 133, 3: 133}


def test_jian_jing_per_kind() -> None:
    """冲关 and 霸王 per kind: 正精 points and 副精 points scored separately."""
    hands = {1: PINGHU_DEGUO, 2: "5m 5m 5m 1m 2m 3m 7m 8m 9m E E E S"}
    req = request("jian", 1, PINGHU_DEGUO, "5s", "self", hands=hands)
    s = settle(req)
    # seat 2: three 正精 = 6 正精 points → 冲关 18, the only 正精 holder → 霸王 ×2 = 36 each;
    # the filler's one 副精 = 1 point, the only 副精 holder → 霸王 ×2 = 2 each
    reasons = sorted({line.reason for line in s.lines if line.code == "jing"})
    assert reasons == ["副精 霸精 1精", "正精 霸精 冲关 6精 ×3"]
    assert received(s, "jing")[2] == 3 * 36


def test_jian_shisanlan_is_never_jingdiao() -> None:
    """十三烂没有经吊: a 十三烂 with a jing may still win on a discard."""
    hand = "147m 258p 3s E S W N C 6m 9s"  # 6m (副精) fills the 十三烂
    s = settle(request("jian", 1, hand, "9s", 2))
    assert paid(s, "false_win") == {}
    assert paid(s, "win")


def test_jian_chi_jing_must_discard_a_jing() -> None:
    """吃了精，本局至少飘精一个，飘不够不能胡."""
    melds = {1: [{"type": "chow", "tiles": "4m 5m 6m", "from": 0, "claimed": "5m"}]}
    hand = "123p 456p 789s 5s 5s"
    refused = settle(request("jian", 1, hand, "5s", "self", melds=melds))
    assert paid(refused, "false_win") == {1: 60}
    allowed = settle(request("jian", 1, hand, "5s", "self", melds=melds, discards={1: "6m"}))
    assert paid(allowed, "win")


# --- yongfeng ------------------------------------------------------------------------------


def test_yongfeng_exhausted_settles_all_but_the_win() -> None:
    req = request("yongfeng", 1, PINGHU_DEGUO, "5s", "self", xia_indicator="1p")
    req["win"] = None
    req["seats"] = seats_with({2: "5m 6m 1m 2m 3m 7m 8m 9m E E E S S"}, spare="")
    req["extra"] = {"genzhuang_rounds": 3}
    s = settle(req)
    assert not s.void
    assert paid(s, "win") == {}
    assert received(s, "jing") == {2: 3 * 2 * 3}  # 3 points, the only holder: 霸精
    assert paid(s, "genzhuang") == {D: 15}  # 仅限第一轮: once, whatever the count
    assert s.next_dealer == D
    assert sum(s.net) == 0


def test_yongfeng_xia_jing_scores_like_shang_jing() -> None:
    """下精 1p: 下正精 1p, 下副精 2p, counted and paid like 上精."""
    req = request("yongfeng", 1, PINGHU_DEGUO, "5s", "self", xia_indicator="1p")
    s = settle(req)
    # the winner holds 1p (2 points) and 2p (1 point) = 3; a filler may hold some too
    assert received(s, "xia_jing").get(1, 0) > 0
    assert all("下精" in line.reason for line in s.lines if line.code.startswith("xia_jing"))


def test_yongfeng_jing_kong_scores_as_kong() -> None:
    melds = {2: [{"type": "kong_concealed", "tiles": "6666m"}]}
    req = request(
        "yongfeng", 1, PINGHU_DEGUO, "5s", "self", melds=melds, spare="", xia_indicator="1p"
    )
    s = settle(req)
    assert received(s, "kong") == {2: 6}
    assert received(s, "gang_jing") == {}


# --- lianhua -------------------------------------------------------------------------------


def test_lianhua_discarded_jing_multiply_the_win() -> None:
    """2 正精 + 1 副精 discarded → ×4×4×2."""
    req = request(
        "lianhua", 1, PINGHU_DEGUO, "5s", "self", discards={1: "5m 5m 6m"}, an_indicator="9p"
    )
    s = settle(req)
    m = 2 * 32  # 德国 ×2, then ×32
    assert paid(s, "win") == {0: 4 * m + 5, 2: 2 * m + 5, 3: 2 * m + 5}
    assert any("打精×32" in line.reason for line in s.lines)


def test_lianhua_an_jing_is_scored() -> None:
    req = request("lianhua", 1, PINGHU_DEGUO, "5s", "self", an_indicator="4p")
    s = settle(req)
    # 暗正精 4p (the winner holds one: 2 points), 暗副精 5p (one: 1 point)
    assert received(s, "an_jing").get(1, 0) > 0
    assert all(line.reason.startswith("暗精") for line in s.lines if line.code == "an_jing")


def test_lianhua_flipped_tile_is_in_play() -> None:
    """The flipped 5m may be in a hand: four 5m on the table is fine in lianhua only."""
    hands = {1: PINGHU_DEGUO, 2: "5m 5m 5m 5m 1m 2m 3m 7m 8m 9m E E E"}
    ok = request("lianhua", 1, PINGHU_DEGUO, "5s", "self", an_indicator="9p")
    ok["seats"] = seats_with(hands, indicator=None)
    assert sum(settle(ok).net) == 0
    bad = dict(ok, ruleset="xingguo")
    with pytest.raises(SettleInputError, match="only 4"):
        settle(bad)


def test_lianhua_one_winner_per_discard() -> None:
    req = request("lianhua", 1, PINGHU_DEGUO, "5s", 0, an_indicator="9p")
    req["seats"] = seats_with({1: PINGHU_DEGUO, 3: "123p 456p 789s 123s 5s 5s"})
    req["win"] = [{"seat": 3, "tile": "5s", "from": 0}, {"seat": 1, "tile": "5s", "from": 0}]
    s = settle(req)
    assert set(received(s, "win")) == {1}  # 下家 of the discarder is nearest


# --- nanchang option ----------------------------------------------------------------------


def test_nanchang_full_jing_100_option() -> None:
    hands = {1: PINGHU_DEGUO, 2: "5m 5m 5m 6m 6m 6m 6m 1m 2m 3m E E E"}
    req = request("nanchang", 1, PINGHU_DEGUO, "5s", "self", hands=hands, spare="")
    assert received(settle(req), "jing")[2] == 3 * 2 * 70
    req["options"] = {"jing.full_jing_at": 10}
    assert received(settle(req), "jing")[2] == 3 * 2 * 100


@pytest.mark.parametrize("ruleset", ["xingguo", "nanchang", "jian", "yongfeng", "lianhua"])
def test_nets_sum_to_zero_with_everything(ruleset: str) -> None:
    req = request(
        ruleset,
        2,
        "123p 456p 789s 5s 5s",
        "5s",
        "kong_replacement",
        melds={2: [{"type": "kong_exposed", "tiles": "3333s", "from": 1}]},
        discards={0: "5m"},
        an_indicator="9p",
        xia_indicator="1p",
        extra={"genzhuang_rounds": 1, "false_win": [3]},
    )
    s = settle(req)
    assert sum(s.net) == 0
    assert s.as_dict()["net"] == [float(n) if not isinstance(n, int) else n for n in s.net]


# --- properties ----------------------------------------------------------------------------

JING_CODES = ("win.", "jing", "an_jing", "xia_jing", "gang_jing", "kong.", "genzhuang", "false_win")


@settings(max_examples=250, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ruleset=st.sampled_from(["xingguo", "nanchang", "jian", "yongfeng", "lianhua"]),
    genzhuang=st.integers(0, 3),
)
def test_random_hands_settle_to_zero_deterministically(
    seed: int, ruleset: str, genzhuang: int
) -> None:
    req = random_request(seed, ruleset, wildcards=True)
    req["extra"] = {"genzhuang_rounds": genzhuang}
    if ruleset == "lianhua":
        req["an_indicator"] = "9p"
    if ruleset == "yongfeng":
        req["xia_indicator"] = "1s"
    first, again = settle(req), settle(req)
    assert first.as_dict() == again.as_dict()
    assert sum(first.net) == 0
    winners = {w["seat"] for w in (req["win"] if isinstance(req["win"], list) else [req["win"]])}
    for line in first.lines:
        assert line.amount > 0 and line.payer != line.payee
        assert line.code.startswith(JING_CODES), line.code
        assert line.reason
    paid_winners = {ln.payee for ln in first.lines if ln.code.startswith("win.")}
    refused = {ln.payer for ln in first.lines if ln.code == "false_win"}
    assert paid_winners <= winners
    assert paid_winners or refused  # a refused win is 诈胡, never silently dropped


def test_jing_points_below_at_and_beyond_chongguan_and_full_jing() -> None:
    """f(n), the jing points (docs/rules/jing-family.md): n, then n × (n − 3) from 冲关,
    then the 满精 score where a preset has one."""
    from engine.rulesets.jing import JingConfig

    j = JingConfig()
    assert [j.points(n)[0] for n in range(1, 8)] == [1, 2, 3, 4, 10, 18, 28]
    assert j.points(5)[1] == "冲关 5精 ×2" and j.points(2)[1] == "2精"
    full = JingConfig(full_jing_at=10, full_jing_score=100)
    assert full.points(9) == (54, "冲关 9精 ×6") and full.points(12) == (100, "满精 12精")
