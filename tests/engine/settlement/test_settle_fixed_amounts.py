"""Every row of the fixed-amount tables in the rules spec (天胡, 地胡, 精吊 天/地胡).

docs/rules/jing-family.md: xingguo 天胡/地胡 20 from each (60), 精吊 天胡/地胡 40 each
(120), 德国 on them ×2 and +5; jian 32 each, 德国 69, 地胡 精吊 64, 德国 地胡 精吊 133.
nanchang, yongfeng and lianhua keep xingguo's. A fixed amount comes from each of the
three, a 地胡 won on the dealer's first discard too (not paid as a discard,
20/10/10). docs/rules/yichun.md: 天糊/地糊 is a factor of 12, paid as any win.
docs/rules/chongji.md: +10 龙 each. Seat 0 deals throughout.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.settle_helpers import D, paid, settle
from tests.engine.settle_helpers import request as settle_request

# jing family, indicator 5m: 正精 5m, 副精 6m. The winning tile is last.
PINGHU_JING = "123p 456p 789s 11s 2s 6m 3s"  # 6m stands for 1s or 4s
XIAOQI_JING = "1p 22p 33s 44s 55p 77p 9p 6m 1p"  # 有精 小七 may win on a discard
PINGHU_DEGUO = "123p 456p 789s 123s 5s 5s"
JINGDIAO = "123p 456p 789s 123s 6m 9p"  # sets + a lone 副精: wins on anything
DEGUO_JINGDIAO = "123p 456p 789s 123s 6m 6m"  # the lone 副精 pairs itself: both


def request(ruleset: str, winner: int, hand: str, frm: int | str, flag: str) -> dict[str, Any]:
    return settle_request(ruleset, winner, hand, None, frm, flags={flag: True})


def each(amount: int, winner: int) -> dict[int, int]:
    return {p: amount for p in range(4) if p != winner}


XINGGUO_ROWS = [
    # (row, winner, hand, from, flag, from each)
    ("天胡 20", D, PINGHU_JING, "self", "tian", 20),
    ("地胡 20, first draw", 1, PINGHU_JING, "self", "di", 20),
    ("地胡 20, on the dealer's first discard", 1, XIAOQI_JING, D, "di", 20),
    ("精吊 天胡 40", D, JINGDIAO, "self", "tian", 40),
    ("精吊 地胡 40", 2, JINGDIAO, "self", "di", 40),
    ("德国 天胡 20×2+5", D, PINGHU_DEGUO, "self", "tian", 45),
    ("德国 地胡 20×2+5", 3, PINGHU_DEGUO, "self", "di", 45),
    ("德国 地胡 20×2+5, on the dealer's first discard", 3, PINGHU_DEGUO, D, "di", 45),
]


NANCHANG_ROWS = [
    ("天胡 20", D, PINGHU_JING, "self", "tian", 20),
    ("地胡 20, first draw", 1, PINGHU_JING, "self", "di", 20),
    # 有精平胡 may win on a discard in nanchang: a fixed 20 from each, not 20/10/10
    ("地胡 20, on the dealer's first discard", 1, PINGHU_JING, D, "di", 20),
    ("德国 地胡 20×2+5, on the dealer's first discard", 2, PINGHU_DEGUO, D, "di", 45),
]
JIAN_ROWS = [
    ("天地胡-每人32个 (天胡)", D, PINGHU_JING, "self", "tian", 32),
    ("天地胡-每人32个 (地胡, first draw)", 1, PINGHU_JING, "self", "di", 32),
    ("天地胡-每人32个 (地胡, dealer's discard)", 1, XIAOQI_JING, D, "di", 32),
    ("德国天胡-每人69个", D, PINGHU_DEGUO, "self", "tian", 69),
    ("德国地胡-每人69个 (first draw)", 2, PINGHU_DEGUO, "self", "di", 69),
    ("德国地胡-每人69个 (dealer's discard)", 2, PINGHU_DEGUO, D, "di", 69),
    ("地胡精吊-每人64个", 3, JINGDIAO, "self", "di", 64),
    ("德国地胡精吊-每人133个", 3, DEGUO_JINGDIAO, "self", "di", 133),
]
JING_ROWS = [
    *[(r, *row) for r in ("xingguo", "yongfeng", "lianhua") for row in XINGGUO_ROWS],
    *[("nanchang", *row) for row in NANCHANG_ROWS],  # keeps xingguo's amounts
    *[("jian", *row) for row in JIAN_ROWS],
]


@pytest.mark.parametrize(("ruleset", "row", "winner", "hand", "frm", "flag", "amount"), JING_ROWS)
def test_jing_family_fixed_amounts_from_each(
    ruleset: str, row: str, winner: int, hand: str, frm: int | str, flag: str, amount: int
) -> None:
    req = request(ruleset, winner, hand, frm, flag)
    req |= {"an_indicator": "9p", "xia_indicator": "9p"}  # lianhua's 暗精, yongfeng's 下精
    s = settle(req)
    assert paid(s, "win") == each(amount, winner), row


def test_dihu_on_a_discard_names_the_discarder_and_the_others() -> None:
    s = settle(request("xingguo", 1, XIAOQI_JING, D, "di"))
    reasons = {line.payer: (line.code, line.reason) for line in s.lines if line.code[:3] == "win"}
    assert reasons == {
        0: ("win.discard", "地胡 点炮 20"),
        2: ("win.discard_share", "地胡 陪付 20"),
        3: ("win.discard_share", "地胡 陪付 20"),
    }


YICHUN_PINGHU = "123m 456p 789s ESN 99m"


@pytest.mark.parametrize(
    ("row", "winner", "frm", "flag", "expected"),
    [
        ("天糊 12, each pays", D, "self", "tian", each(12, D)),
        ("地糊 12 self-drawn: the dealer pays double", 2, "self", "di", {0: 24, 1: 12, 3: 12}),
        (
            "地糊 12 on the dealer's discard: the discarder and dealer pays ×2×2",
            2,
            D,
            "di",
            {0: 48},
        ),
    ],
)
def test_yichun_factor_12(
    row: str, winner: int, frm: int | str, flag: str, expected: dict[int, int]
) -> None:
    assert paid(settle(request("yichun", winner, YICHUN_PINGHU, frm, flag)), "win") == expected


CHONGJI_ONE_LONG = "123m 456m 789s 234s 9s 5p"  # 5p (财神) pairs the 9s: 11 + 1 龙


@pytest.mark.parametrize(
    ("row", "winner", "frm", "flag", "expected"),
    [
        ("天胡 +10, self-drawn: each pays", D, "self", "tian", each(22, D)),
        ("地胡 +10, first draw: each pays", 1, "self", "di", each(22, 1)),
        ("地胡 +10, dealer's discard: it pays, the others half", 1, D, "di", {0: 22, 2: 11, 3: 11}),
    ],
)
def test_chongji_plus_ten(
    row: str, winner: int, frm: int | str, flag: str, expected: dict[int, int]
) -> None:
    s = settle(request("chongji", winner, CHONGJI_ONE_LONG, frm, flag))
    assert paid(s, "win") == expected, row
