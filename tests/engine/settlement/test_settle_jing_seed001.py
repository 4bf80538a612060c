"""Seed 001's rules of the jing family that the tables of ``test_settle_jing`` leave out:
吉安's 流局, the secret jing a ruleset cannot settle without, and the jing tables of
吉安, 永丰, 莲花 and 南昌 (docs/rules/README.md#seed-001), line by line.

Seat 0 deals; the indicator is 5m (正精 5m, 副精 6m) unless a test says otherwise.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.round.finish import finished_hand
from engine.rulesets import load_ruleset
from engine.settlement import SettleInputError
from engine.simulation import play_session
from tests.engine.settle_helpers import paid, received, seats_with, settle

D = 0
DEGUO = "123p 456p 789s 123s 5s 5s"  # a 德国 平胡 won on 5s


def hand_request(
    ruleset: str,
    hands: dict[int, str],
    win: dict[str, Any] | None,
    *,
    spare: str = "",
    melds: dict[int, list[dict[str, Any]]] | None = None,
    discards: dict[int, str] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A finished hand: the given hands, fillers holding no jing but ``spare``."""
    return {
        "ruleset": ruleset,
        "dealer": D,
        "indicator": "5m",
        "seats": seats_with(hands, melds=melds, discards=discards, spare=spare),
        "win": win,
        **top,
    }


# --- 吉安: 精在胡牌和流局后算分使用 ------------------------------------------------------


def test_jian_exhausted_settles_the_jing_and_nothing_else() -> None:
    """老K吉安 4. 精的作用: "精在胡牌和流局后算分使用,一个正精2分，一个副精1分". A 流局
    settles each seat's jing (冲关 and 霸王 per kind, as after a win); no win, no kong
    (杠精分计在杠分里), no 跟庄: the seed names only the jing."""
    hands = {2: "5m 5m 5m 1m 2m 3m 7m 8m 9m E E E S"}
    melds = {3: [{"type": "kong_concealed", "tiles": "1111p"}]}
    req = hand_request("jian", hands, None, spare="6m", melds=melds, extra={"genzhuang_rounds": 1})
    s = settle(req)
    assert not s.void
    # seat 2: three 正精 = 6 → 冲关 6×3 = 18, the only 正精 holder (霸王) ×2 = 36 from each;
    # the filler seat 0 holds the one 副精: 1, 霸王 ×2 = 2 from each
    assert received(s, "jing") == {2: 3 * 36, 0: 3 * 2}
    assert {line.code for line in s.lines} == {"jing"}
    assert s.next_dealer == D
    assert sum(s.net) == 0


def test_jian_exhausted_jing_keeps_its_bao() -> None:
    """上精被吃走…导致吃碰杠的人冲关了，则冲关的那一家上精分都由被吃碰杠的玩家全包了:
    the 包 of a fed jing holds after a 流局 too."""
    hands = {2: "5m 5m 1m 2m 3m 7m 8m 9m E E"}
    melds = {2: [{"type": "chow", "tiles": "4m 5m 6m", "from": 1, "claimed": "5m"}]}
    s = settle(hand_request("jian", hands, None, spare="6m", melds=melds))
    # seat 2 holds three 正精 (6 points), the third fed by seat 1: 冲关 18, 霸王 36 each
    assert paid(s, "jing.bao") == {1: 3 * 36}


def test_jian_exhausted_still_pays_a_false_win() -> None:
    """[decision] a 诈胡 declared before the 流局 is paid (a void 流局 would drop it)."""
    s = settle(hand_request("jian", {}, None, extra={"false_win": [3]}))
    assert paid(s, "false_win") == {3: 60}


def test_jian_exhausted_with_nobody_holding_jing_is_empty_not_void() -> None:
    s = settle(hand_request("jian", {}, None))
    assert not s.void and s.lines == () and s.next_dealer == D


# --- the secret jing: 莲花's 暗精, 永丰's 下精 -------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "field"), [("lianhua", "an_indicator"), ("yongfeng", "xia_indicator")]
)
def test_a_hand_without_its_secret_jing_is_refused(ruleset: str, field: str) -> None:
    """Without the tile a preset scores (jing.an_jing, jing.xia_jing) the hand would settle
    silently with no 暗精/下精: refused with the field named."""
    req = hand_request(ruleset, {1: DEGUO}, {"seat": 1, "tile": "5s", "from": "self"})
    with pytest.raises(SettleInputError, match=f"{field}: required by {ruleset}"):
        settle(req)
    req[field] = "9p"
    assert sum(settle(req).net) == 0


def test_a_ruleset_without_secret_jing_needs_neither() -> None:
    req = hand_request("xingguo", {1: DEGUO}, {"seat": 1, "tile": "5s", "from": "self"})
    assert sum(settle(req).net) == 0


@pytest.mark.parametrize("ruleset", ["lianhua", "yongfeng"])
def test_played_hands_carry_their_secret_jing(ruleset: str) -> None:
    """The round supplies the 暗精 at the flip and rolls the 下精 before it settles, so bots'
    hands settle (the settlement now refuses a hand without them)."""
    results = list(play_session(ruleset, 3, random.Random(7)))
    for result in results:
        hand = finished_hand(result.state)
        assert hand.an_indicator is not None if ruleset == "lianhua" else True
        assert hand.xia_indicator is not None if ruleset == "yongfeng" else True
        assert result.settlement == load_ruleset(ruleset).settle(hand)


# --- 南昌 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "tile", "each"),
    [
        ("123p 456p 789s 123s 6m 9p", "9p", 40 + 5),  # [decision] 精吊's +5 on the 40
        ("123p 456p 789s 123s 6m 6m", "6m", 40 * 2 + 5),  # 德国 精吊: ×2, +5 once
    ],
)
def test_nanchang_jingdiao_tianhu_takes_its_bonus(hand: str, tile: str, each: int) -> None:
    """The seed prints no nanchang 天胡 row: xingguo's 精吊 天胡 40, with nanchang's 精吊
    paying like 德国 (+5), as 德国 天胡 is 20×2+5 (docs/rules/nanchang.md)."""
    req = hand_request(
        "nanchang", {D: hand}, {"seat": D, "tile": tile, "from": "self", "tian": True}
    )
    assert paid(settle(req), "win") == {1: each, 2: each, 3: each}


# --- the tables, row by row --------------------------------------------------------------

# Winning hands (14 tiles, the winning tile last); indicator 5m.
PINGHU_JING = "123p 456p 789s 11s 2s 6m 3s"  # 6m (副精) stands for 1s or 4s
XIAOQI_JING = "1p 22p 33s 44s 55p 77p 9p 6m 1p"
XIAOQI_DEGUO = "11p 22p 33s 44s 55p 77p 9p 9p"
DAQI_JING = "111p 222p 333s 44s 5p 6m 4s"
DAQI_DEGUO = "111p 222p 333s 44s 55p 4s"
SHISANLAN_JING = "147m 258p 3s E S W N C 6m 9s"  # 6m stands for 6s
SHISANLAN_DEGUO = "147m 258p 369s E S W N C"
QIXING_JING = "147m 25p E S W N C F P 6m 9s"  # 6m stands for 8p or a 3s/6s
QIXING_DEGUO = "147m 258p 3s E S W N C F P"
JINGDIAO = "123p 456p 789s 123s 6m 9p"  # the lone 6m pairs the drawn 9p
JINGDIAO_DEGUO = "123p 456p 789s 123s 6m 6m"
XIAOQI_JINGDIAO = "11p 22p 33s 44s 55p 77p 6m 9p"
XIAOQI_JINGDIAO_DEGUO = "11p 22p 33s 44s 55p 77p 6m 6m"
DAQI_JINGDIAO = "111p 222p 333s 444s 6m 9p"
KONG = [{"type": "kong_concealed", "tiles": "9999s"}]


def each(amount: int, winner: int) -> dict[int, int]:
    return {p: amount for p in range(4) if p != winner}


def win_paid(
    ruleset: str,
    winner: int,
    hand: str,
    frm: int | str,
    kong: bool = False,
    **flags: bool,
) -> dict[int, Any]:
    win = {"seat": winner, "tile": hand.split()[-1], "from": frm, **flags}
    melds = {winner: KONG} if kong else None
    req = hand_request(ruleset, {winner: hand}, win, spare="6m", melds=melds)
    return paid(settle(req), "win")


# 老K吉安 麻将计算规则: the flat table, every payer's base 4 (b × M, +5 for 德国)
JIAN_ROWS = [
    ("精吊-每人8个", 1, JINGDIAO, "self", False, each(8, 1)),
    ("德国自摸-每人13个", 1, "123p 456p 789s 123s 5s 5s", "self", False, each(13, 1)),
    ("德国精吊-每人21个", 1, JINGDIAO_DEGUO, "self", False, each(21, 1)),
    ("杠开-每人8个", 1, "123p 456p 11s 2s 6m 3s", "kong_replacement", True, each(8, 1)),
    ("德国杠开-每人21个", 1, "123p 456p 123s 5s 5s", "kong_replacement", True, each(21, 1)),
    ("杠吊-每人16个", 1, "123p 456p 123s 6m 9p", "kong_replacement", True, each(16, 1)),
    ("德国杠吊-每人37个", 1, "123p 456p 123s 6m 6m", "kong_replacement", True, each(37, 1)),
    ("七对自摸-每人8个", 1, XIAOQI_JING, "self", False, each(8, 1)),
    ("德国七对自摸-每人21个", 1, XIAOQI_DEGUO, "self", False, each(21, 1)),
    ("七对精吊-每人16个", 1, XIAOQI_JINGDIAO, "self", False, each(16, 1)),
    ("德国七对精吊-每人37个", 1, XIAOQI_JINGDIAO_DEGUO, "self", False, each(37, 1)),
    ("十三烂放炮-放炮8个，其他4个", 1, SHISANLAN_JING, 2, False, {2: 8, 0: 4, 3: 4}),
    ("十三烂自摸-每人8个", 1, SHISANLAN_JING, "self", False, each(8, 1)),
    ("德国十三烂放炮-放炮21个，其他8个", 1, SHISANLAN_DEGUO, 2, False, {2: 21, 0: 8, 3: 8}),
    ("德国十三烂自摸-每人21个", 1, SHISANLAN_DEGUO, "self", False, each(21, 1)),
    ("七星放炮-放炮16个，其他8个", 1, QIXING_JING, 2, False, {2: 16, 0: 8, 3: 8}),
    ("七星自摸-每人16个", 1, QIXING_JING, "self", False, each(16, 1)),
    ("德国七星放炮-放炮37个，其他16个", 1, QIXING_DEGUO, 2, False, {2: 37, 0: 16, 3: 16}),
    ("德国七星自摸-每人37个", 1, QIXING_DEGUO, "self", False, each(37, 1)),
    ("大七放炮-放炮16个，其他8个", 1, DAQI_JING, 2, False, {2: 16, 0: 8, 3: 8}),
    ("大七自摸-每人16个", 1, DAQI_JING, "self", False, each(16, 1)),
    ("德国大七放炮-放炮37个，其他16个", 1, DAQI_DEGUO, 2, False, {2: 37, 0: 16, 3: 16}),
    ("德国大七自摸-每人37个", 1, DAQI_DEGUO, "self", False, each(37, 1)),
    ("大七精吊-每人32个", 1, DAQI_JINGDIAO, "self", False, each(32, 1)),
    # 吉安冲关麻将算法, the dealer's rows (the same flat table)
    ("庄家平胡自摸：12个每人4个", D, PINGHU_JING, "self", False, each(4, D)),
    ("庄家经吊大三对：96个每人4个x2x2x2", D, DAQI_JINGDIAO, "self", False, each(32, D)),
    ("庄家七星碧经十三烂：111个", D, QIXING_DEGUO, "self", False, each(37, D)),
]


@pytest.mark.parametrize(
    ("row", "winner", "hand", "frm", "kong", "expected"), JIAN_ROWS, ids=[r[0] for r in JIAN_ROWS]
)
def test_jian_table(
    row: str, winner: int, hand: str, frm: int | str, kong: bool, expected: dict[int, int]
) -> None:
    assert win_paid("jian", winner, hand, frm, kong) == expected, row


def test_jian_deguo_tianhu_69() -> None:
    """德国天胡-每人69个: 32 × 2 + 5."""
    assert win_paid("jian", D, "123p 456p 789s 123s 5s 5s", "self", tian=True) == each(69, D)


@pytest.mark.parametrize(("kind", "hand", "each_pays"), [("正精", "5m", 2), ("负经", "6m", 1)])
def test_jian_one_jing_of_a_kind(kind: str, hand: str, each_pays: int) -> None:
    """吉安冲关麻将算法 算经: 一个正经 2×3 = 6个子, 一个负经 1×3 = 3 (each of the three pays
    it; two seats hold that kind, so neither is 霸王)."""
    hands = {
        2: hand + " 1p 2p 3p 7p 8p 9p 1s 1s 1s 2s E E",
        3: hand + " 4p 5p 6p 7s 8s 9s 4s 4s 4s 3s S S",
    }
    s = settle(hand_request("jian", hands, None))
    assert received(s, "jing") == {2: 3 * each_pays, 3: 3 * each_pays}, kind


# 南昌麻将算子法: the rows not in test_settle_jing's nanchang table
NANCHANG_ROWS = [
    ("平胡自摸 闲家 2+2+4=8", 1, PINGHU_JING, "self", False, {0: 4, 2: 2, 3: 2}),
    ("平胡 庄家自摸 4+4+4=12", D, PINGHU_JING, "self", False, each(4, D)),
    ("德国自摸 闲家 9+9+13=31", 1, "123p 456p 789s 123s 5s 5s", "self", False, {0: 13, 2: 9, 3: 9}),
    ("德国 庄家自摸 13×3=39", D, "123p 456p 789s 123s 5s 5s", "self", False, each(13, D)),
    ("德国 捉闲放炮 9+2+4=15", 1, "123p 456p 789s 123s 5s 5s", 2, False, {2: 9, 0: 4, 3: 2}),
    ("德国 捉庄放炮 13+2+2=17", 1, "123p 456p 789s 123s 5s 5s", D, False, {0: 13, 2: 2, 3: 2}),
    ("小7对 自摸 闲家 4+4+8=16", 1, XIAOQI_JING, "self", False, {0: 8, 2: 4, 3: 4}),
    ("小7对 庄家自摸 8×3=24", D, XIAOQI_JING, "self", False, each(8, D)),
    ("捉闲小7对放炮 4+4+2=10", 1, XIAOQI_JING, 2, False, {2: 4, 0: 4, 3: 2}),
    ("捉庄小7对放炮 8+2+2=12", 1, XIAOQI_JING, D, False, {0: 8, 2: 2, 3: 2}),
    ("大7对 自摸 闲家 8+8+16=32", 1, DAQI_JING, "self", False, {0: 16, 2: 8, 3: 8}),
    ("大7对 庄家自摸 16×3=48", D, DAQI_JING, "self", False, each(16, D)),
    ("捉闲大7对放炮 8+8+4=20", 1, DAQI_JING, 2, False, {2: 8, 0: 8, 3: 4}),
    ("捉庄大7对放炮 16+4+4=24", 1, DAQI_JING, D, False, {0: 16, 2: 4, 3: 4}),
    ("13烂 自摸 闲家 4+4+8=16", 1, SHISANLAN_JING, "self", False, {0: 8, 2: 4, 3: 4}),
    ("13烂 庄家自摸 8×3=24", D, SHISANLAN_JING, "self", False, each(8, D)),
    ("13烂 捉闲放炮 4+4+2=10", 1, SHISANLAN_JING, 2, False, {2: 4, 0: 4, 3: 2}),
    ("13烂 捉庄放炮 8+2+2=12", 1, SHISANLAN_JING, D, False, {0: 8, 2: 2, 3: 2}),
    ("德国7星13烂 庄家自摸 37×3=111", D, QIXING_DEGUO, "self", False, each(37, D)),
    ("德国7星13烂 捉闲放炮 21+16+8=45", 1, QIXING_DEGUO, 2, False, {2: 21, 0: 16, 3: 8}),
    ("德国7星13烂 捉庄放炮 37+8+8=53", 1, QIXING_DEGUO, D, False, {0: 37, 2: 8, 3: 8}),
    ("精吊德国 庄家精吊 21×3=63", D, JINGDIAO_DEGUO, "self", False, each(21, D)),
    ("精吊7对 庄家精吊 21×3=63", D, XIAOQI_JINGDIAO, "self", False, each(21, D)),
    ("精吊大7对 庄家精吊 37×3=111", D, DAQI_JINGDIAO, "self", False, each(37, D)),
    (
        "杠上开花 庄家杠开 每家8个",
        D,
        "123p 456p 11s 2s 6m 3s",
        "kong_replacement",
        True,
        each(8, D),
    ),
    (
        "精吊杠开 同精吊德国 13+13+21=47",
        1,
        "123p 456p 123s 6m 9p",
        "kong_replacement",
        True,
        {0: 21, 2: 13, 3: 13},
    ),
]


@pytest.mark.parametrize(
    ("row", "winner", "hand", "frm", "kong", "expected"),
    NANCHANG_ROWS,
    ids=[r[0] for r in NANCHANG_ROWS],
)
def test_nanchang_table_rest(
    row: str, winner: int, hand: str, frm: int | str, kong: bool, expected: dict[int, int]
) -> None:
    assert win_paid("nanchang", winner, hand, frm, kong) == expected, row


# 精计子: 5精2倍冲关 10+10+10 … (seed 000's F组, docs/rules/README.md#seed-000, repeated
# in seed 001; nanchang's "2*5=10 3*6=18 4*7=28 5*8=40 6*9=54 7*10=70")
CHONGGUAN = [
    (5, "5m 5m 6m", 10),
    (6, "5m 5m 5m", 18),
    (7, "5m 5m 5m 6m", 28),
    (8, "5m 5m 5m 6m 6m", 40),
    (9, "5m 5m 5m 6m 6m 6m", 54),
]


@pytest.mark.parametrize("ruleset", ["xingguo", "nanchang", "yongfeng", "lianhua"])
@pytest.mark.parametrize(
    ("n", "jing", "each_pays"), CHONGGUAN, ids=[f"{c[0]}精" for c in CHONGGUAN]
)
def test_chongguan_table(ruleset: str, n: int, jing: str, each_pays: int) -> None:
    """The seat holding n jing takes n × (n − 3) from each; seat 0 holds the spare 副精,
    so nobody is 霸精."""
    fill = ["1m", "2m", "3m", "7m", "8m", "9m", "E", "E", "E", "S", "S", "N", "N"]
    hand = " ".join(jing.split() + fill[: 13 - len(jing.split())])
    req = hand_request(ruleset, {2: hand}, None, spare="6m", an_indicator="1s", xia_indicator="1s")
    if ruleset in ("xingguo", "lianhua"):  # (a 流局 is void there: let seat 1 win)
        req["seats"] = seats_with({1: DEGUO, 2: hand}, spare="6m")
        req["win"] = {"seat": 1, "tile": "5s", "from": "self"}
    got = received(settle(req), "jing")
    assert got[2] == 3 * each_pays, n


def test_ten_jing_is_always_bajing() -> None:
    """10 jing (all seven in play) leave none for anyone else: 霸精 70 × 2 from each."""
    hand = "5m 5m 5m 6m 6m 6m 6m 1m 2m 3m E E E"
    req = hand_request("xingguo", {1: DEGUO, 2: hand}, {"seat": 1, "tile": "5s", "from": "self"})
    assert received(settle(req), "jing") == {2: 3 * 140}


# --- 莲花 ------------------------------------------------------------------------------


def test_lianhua_discarded_jing_counts_for_its_discarder_until_claimed() -> None:
    """若精牌没有被其他人得到，结算的时候这个精牌还是算自己的；若精牌被其他人得到（吃、碰、
    杠、胡），那么这个精牌就是其他人的."""
    melds = {3: [{"type": "pung", "tiles": "6m 6m 6m", "from": 2, "claimed": "6m"}]}
    win = {"seat": 1, "tile": "5s", "from": "self"}
    req = hand_request(
        "lianhua", {1: DEGUO}, win, melds=melds, discards={2: "5m"}, an_indicator="1s"
    )
    # seat 2: its lying 5m, 2 → 2 from each; seat 3: the claimed pung of 副精, 3 → 3 each
    assert received(settle(req), "jing") == {2: 6, 3: 9}


def test_lianhua_an_jing_scores_like_jing() -> None:
    """暗精 N (暗正精 N, 暗副精 E, the next wind): seat 2 holds N N E = 5, 冲关 10; the only
    holder, 霸精 20 from each."""
    hands = {1: DEGUO, 2: "N N E 1p 2p 3p 7p 8p 9p 1s 1s 1s 2s"}
    win = {"seat": 1, "tile": "5s", "from": "self"}
    s = settle(hand_request("lianhua", hands, win, spare="6m", an_indicator="N"))
    assert received(s, "an_jing") == {2: 60}
    assert {line.reason for line in s.lines if line.code == "an_jing"} == {"暗精 霸精 冲关 5精 ×2"}


def test_lianhua_exhausted_is_void_and_the_dealer_stays() -> None:
    """三(3) 流局时，庄家继续坐庄; the seed names no 流局 score."""
    s = settle(hand_request("lianhua", {}, None, spare="6m", an_indicator="1s"))
    assert s.void and s.lines == () and s.next_dealer == D


# --- 永丰 ------------------------------------------------------------------------------


def test_yongfeng_exhausted_pays_kongs_and_xia_jing() -> None:
    """流局除胡分外，其他分数（杠分、上精分、下精分、跟庄分等）正常计算."""
    melds = {2: [{"type": "kong_concealed", "tiles": "1111p"}]}
    hands = {3: "N N 2p 3p 4p 7p 8p 9p 1s 1s 1s 2s 2s"}
    req = hand_request("yongfeng", hands, None, spare="6m", melds=melds, xia_indicator="N")
    s = settle(req)
    assert paid(s, "win") == {}
    assert received(s, "kong") == {2: 6}
    # 下精 N: seat 3 holds N N = 4 points, the only holder: 霸精 8 from each
    assert received(s, "xia_jing") == {3: 24}
    assert s.next_dealer == D
