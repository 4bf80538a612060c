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
