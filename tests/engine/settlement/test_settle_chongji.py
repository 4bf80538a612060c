"""冲击麻将: the seed's 龙 arithmetic and the 001 fragment's points become tests.

Seat 0 deals. The turned-up tile is 4p, so 5p is the 财神; winners' hands hold 5p where a
test wants 龙, and the filler seats never hold one.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rulesets import PresetError, load_ruleset
from engine.settlement import SettleInputError
from tests.engine.random_hands import check_settlement_properties, random_request
from tests.engine.settle_helpers import D, paid, received, settle
from tests.engine.settle_helpers import request as settle_request

POINTS = {"score.system": "points"}


request = partial(settle_request, "chongji")


def win_paid(req: dict[str, Any]) -> dict[int, Any]:
    return paid(settle(req), "win")


ONE_LONG = "123m 456m 789s 234s 9s 5p"  # 5p pairs the 9s
NO_LONG = "123m 456m 789s 234s 99s"
TWO_LONG = "123m 456m 789s 2s 5p 5p 99s"  # 2s + two 财神 make a chow
THREE_LONG = "123m 456m 789s 5p 5p 5p 99s"  # three 财神 as a set


# --- the seed's examples -------------------------------------------------------------------


def test_one_long_on_a_discard_12_6_6() -> None:
    """1龙打胡的付12分, 其他两家各付6分."""
    s = settle(request(1, ONE_LONG, "9s", 2))
    assert paid(s, "win") == {2: 12, 0: 6, 3: 6}
    assert s.lines[0].reason == "冲击 一龙推胡 点炮"


def test_no_long_counts_two_13_7_7() -> None:
    """无龙算2龙: 13, and the halves round up to 7."""
    assert win_paid(request(1, NO_LONG, "9s", 2)) == {2: 13, 0: 7, 3: 7}


def test_self_draw_each_pays_the_total() -> None:
    assert win_paid(request(1, ONE_LONG, "9s", "self")) == {0: 12, 2: 12, 3: 12}


def test_long_counts() -> None:
    assert win_paid(request(1, TWO_LONG, "9s", 2)) == {2: 13, 0: 7, 3: 7}
    assert win_paid(request(1, THREE_LONG, "9s", 2)) == {2: 14, 0: 7, 3: 7}


def test_dealer_streak_adds_ten() -> None:
    """十十上: 11 for a first dealer hand, +10 for each consecutive one."""
    assert win_paid(request(1, ONE_LONG, "9s", 2, dealer_streak=1)) == {2: 22, 0: 11, 3: 11}
    assert win_paid(request(1, ONE_LONG, "9s", 2, dealer_streak=2)) == {2: 32, 0: 16, 3: 16}


@pytest.mark.parametrize(
    ("name", "hand", "discard", "share"),
    [
        ("一龙推胡 打胡付14 没打胡的付7", ONE_LONG, 14, 7),
        ("双龙推胡 16 / 8", TWO_LONG, 16, 8),
        ("三龙推胡 18 / 9", THREE_LONG, 18, 9),
        ("无龙会 加2龙: as 双龙", NO_LONG, 16, 8),
    ],
)
def test_points_system(name: str, hand: str, discard: int, share: int) -> None:
    """The 001 fragment: 12点起底, 一龙加2点."""
    got = win_paid(request(1, hand, "9s", 2, options=POINTS))
    assert got == {2: discard, 0: share, 3: share}, name
    assert win_paid(request(1, hand, "9s", "self", options=POINTS)) == {
        0: discard,
        2: discard,
        3: discard,
    }


def test_guan_fengxiang_points_72() -> None:
    """关风向: +5 龙, as a self-draw, the discarder pays all three (付胡家72点起)."""
    s = settle(request(1, ONE_LONG, "9s", 2, options=POINTS, extra={"guan_fengxiang": True}))
    assert paid(s, "win") == {2: 72}
    assert s.lines[0].code == "win.guan_fengxiang"


def test_guan_fengxiang_long() -> None:
    req = request(1, ONE_LONG, "9s", 2, extra={"guan_fengxiang": True})
    assert win_paid(req) == {2: 3 * (11 + 1 + 5)}


def test_guan_fengxiang_needs_a_discard() -> None:
    with pytest.raises(SettleInputError, match=r"extra\.guan_fengxiang"):
        settle(request(1, ONE_LONG, "9s", "self", extra={"guan_fengxiang": True}))


# --- features ------------------------------------------------------------------------------


def kong(tiles: str, frm: int | None = None) -> dict[str, Any]:
    if frm is None:
        return {"type": "kong_concealed", "tiles": tiles}
    return {"type": "kong_exposed", "tiles": tiles, "from": frm}


def pung(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "pung", "tiles": tiles, "from": frm}


DANDIAO_MELDS = [pung("111m", 3), pung("222s", 3), kong("3333s", 2), kong("7777m")]


@pytest.mark.parametrize(
    ("name", "hand", "tile", "frm", "longs"),
    [
        ("对对碰 +1 (一龙)", "11m 22m 33s 44s 66m 88s 9s 5p", "9s", 2, 1 + 1),
        ("清七对 +10, no 对对碰 +1 (无龙 2)", "11m 22m 33s 44s 66m 88s 99s", "9s", 2, 2 + 10),
        ("大对对 +1", "111m 222m 333s 444s 9s 5p", "9s", 2, 1 + 1),
        ("十三不搭 +1 (无龙)", "147m 258s 369p ESWN C", "C", 2, 2 + 1),
        ("七风齐 +1 on 十三不搭 +1", "147m 25s 36p ESWN CFP", "P", 2, 2 + 1 + 1),
        ("混一色 +1", "123m 456m 789m EEE 9m 5p", "9m", 2, 1 + 1),
        ("清一色 +10", "123m 456m 789m 234m 9m 5p", "9m", 2, 1 + 10),
        ("全风向 no shape +50", "EEE SSS WWW NN C F P", "P", "self", 2 + 50),
        ("四财神 +10, self-draw", "5555p 13579m 2468s E", "E", "self", 4 + 10),
        ("一杠一达 +1", "11m 22m 33s 44s 66s 9s", "9s", "self", 2 + 1),
        ("海底捞月 +10", ONE_LONG, "9s", "last", 1 + 10),
        ("天胡 +10", ONE_LONG, "9s", "tian", 1 + 10),
        ("抛龙 +10", ONE_LONG, "9s", "pao_long", 1 + 10),
    ],
)
def test_features(name: str, hand: str, tile: str, frm: int | str, longs: int) -> None:
    flags: dict[str, Any] = {}
    melds = None
    if frm in ("last", "tian", "pao_long"):
        flags = {{"last": "last_tile"}.get(str(frm), str(frm)): True}
        frm = "self"
    if name.startswith("一杠一达"):
        melds = {1: [kong("7777m")]}
    winner = D if "tian" in flags else 1
    total = 11 + longs
    got = win_paid(request(winner, hand, tile, frm, melds=melds, flags=flags))
    if frm == "self":
        assert got == {p: total for p in range(4) if p != winner}, name
    else:
        assert got == {2: total, 0: (total + 1) // 2, 3: (total + 1) // 2}, name


def test_dandiao_plus_ten() -> None:
    """单吊: a non-财神 held, a 财神 drawn counts (+10, and 大对对 +1)."""
    s = settle(request(1, "9s 5p", "5p", "self", melds={1: DANDIAO_MELDS}))
    assert paid(s, "win") == {0: 23, 2: 23, 3: 23}


def test_lone_caishen_waiting_is_not_dandiao() -> None:
    """单个财神吊任何一张牌不算单吊."""
    s = settle(request(1, "5p 9s", "9s", "self", melds={1: DANDIAO_MELDS}))
    assert paid(s, "win") == {0: 13, 2: 13, 3: 13}


def test_gangbao_counts_as_self_draw() -> None:
    melds = {1: [kong("7777m")]}
    s = settle(request(1, "123m 456m 234s 9s 5p", "9s", "kong_replacement", melds=melds))
    assert paid(s, "win") == {0: 22, 2: 22, 3: 22}  # 11 + 1 + 杠爆 10
    assert "杠爆" in s.lines[0].reason


def test_quanfeng_with_a_shape_all_three_pay_in_full() -> None:
    s = settle(request(1, "EEE SSS WWW NNN CC", "C", 2))
    total = 11 + 2 + 1 + 50  # 无龙, 大对对, 全风向
    assert paid(s, "win") == {2: total, 0: total, 3: total}


def test_sicaishen_cannot_win_on_a_discard() -> None:
    with pytest.raises(SettleInputError, match="四财神只能自摸"):
        settle(request(1, "5555p 13579m 2468s E", "E", 2))


def test_pao_long_only_by_self_draw() -> None:
    with pytest.raises(SettleInputError, match="抛龙只能自摸"):
        settle(request(1, ONE_LONG, "9s", 2, flags={"pao_long": True}))


def test_qifengqi_caishen_may_not_stand_for_an_honor() -> None:
    """七风齐 with 5p standing in for 白: only the 十三不搭 reading counts (1 龙 + 1)."""
    s = settle(request(1, "147m 25s 36p ESWN CF 5p", "5p", 2))
    assert paid(s, "win") == {2: 13, 0: 7, 3: 7}


def test_rob_kong_the_robbed_pays_all_three() -> None:
    """抢杠 (on a 补杠): 独缴, as a self-draw."""
    melds = {3: [pung("999s", 1)]}
    s = settle(request(1, "123m 456m 789p 234s 5p 9s", "9s", "rob_kong:3", melds=melds))
    assert paid(s, "win") == {3: 36}


# --- several winners, the deal -------------------------------------------------------------


def two_winners(hand1: str, hand3: str, tile: str, discarder: int = 2) -> dict[str, Any]:
    req = request(None, "", "", 0, hands={1: hand1, 3: hand3})
    req["win"] = [
        {"seat": 1, "tile": tile, "from": discarder},
        {"seat": 3, "tile": tile, "from": discarder},
    ]
    return req


def test_the_larger_hand_takes_the_discard() -> None:
    # seat 3's 大对对 (13) beats seat 1's 推胡 (12) although seat 1 is nearer
    s = settle(two_winners("123m 456m 789s 234s 9s 5p", "111m 222m 333p 444p 9s 5p", "9s", 0))
    assert received(s, "win") == {3: 13 + 7 + 7}
    assert s.next_dealer == 1


def test_equal_hands_the_nearest_wins() -> None:
    s = settle(two_winners("123m 456m 789s 234s 9s 5p", "123p 678p 789m 678m 9s 5p", "9s", 2))
    assert received(s, "win") == {3: 24}  # seat 3 is 2's 下家


def test_protected_hands_cannot_be_overtaken() -> None:
    """清一色 (made to count only +1) still beats a larger 大对对."""
    req = two_winners("111m 222m 333p 444p 9s 5p", "123s 456s 789s 678s 9s 5p", "9s", 0)
    req["options"] = {"features.qingyise": 0}
    s = settle(req)
    assert received(s, "win") == {3: 12 + 6 + 6}


def test_all_winners_option() -> None:
    req = two_winners("123m 456m 789s 234s 9s 5p", "111m 222m 333p 444p 9s 5p", "9s", 0)
    req["options"] = {"table.multiple_winners": "all"}
    assert received(settle(req), "win") == {1: 24, 3: 27}


def test_dealer_stays_and_the_streak_grows() -> None:
    s = settle(request(D, ONE_LONG, "9s", 2, dealer_streak=1))
    assert (s.next_dealer, s.dealer_streak) == (D, 2)
    assert paid(s, "win") == {2: 22, 1: 11, 3: 11}
    s = settle(request(2, ONE_LONG, "9s", 1, dealer_streak=3))
    assert (s.next_dealer, s.dealer_streak) == (1, 0)


def test_exhausted_dealer_stays() -> None:
    s = settle(request(None, "", "", 0, dealer_streak=2))
    assert (s.next_dealer, s.dealer_streak, s.lines, s.void) == (D, 2, (), True)
    s = settle(request(None, "", "", 0, options={"pay.exhausted_dealer": "next"}))
    assert s.next_dealer == 1


# --- input ---------------------------------------------------------------------------------


def test_the_indicator_is_required() -> None:
    req = request(1, NO_LONG, "9s", 2)
    req["indicator"] = None
    with pytest.raises(SettleInputError, match=r"^indicator"):
        settle(req)


def test_at_most_two_claims() -> None:
    melds = {1: [pung("111m", 3), pung("222m", 3), pung("333m", 2)]}
    with pytest.raises(SettleInputError, match=r"seats\[1\]\.melds"):
        settle(request(1, "99s 789s", "9s", "self", melds=melds))


def test_not_a_win_names_the_field() -> None:
    with pytest.raises(SettleInputError, match=r"^win: seats\[1\]"):
        settle(request(1, "123m 456m 789s 234s 1s 9s", "9s", 2))


def test_invalid_options_name_the_field() -> None:
    with pytest.raises(PresetError, match=r"score\.system"):
        load_ruleset("chongji", {"score.system": "coins"})
    with pytest.raises(PresetError, match=r"table\.multiple_winners"):
        load_ruleset("chongji", {"table.multiple_winners": "some"})


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), points=st.booleans())
def test_random_hands_settle_to_zero_deterministically(seed: int, points: bool) -> None:
    req = random_request(seed, "chongji", wildcards=True, max_claims=2)
    if points:
        req["options"] = POINTS
    check_settlement_properties(req)


def test_protected_first_the_nearer_seat_intercepts_any_other_hand() -> None:
    """不能拦胡 read the other way: the larger 大对对 of seat 3 is intercepted by seat 1."""
    req = two_winners("123m 456m 789s 234s 9s 5p", "111m 222m 333p 444p 9s 5p", "9s", 0)
    req["options"] = {"table.multiple_winners": "protected_first"}
    assert received(settle(req), "win") == {1: 12 + 6 + 6}


def test_protected_first_a_protected_hand_is_never_intercepted() -> None:
    """清一色 of the farther seat 3 still takes the discard from the nearer seat 1."""
    req = two_winners("111m 222m 333p 444p 9s 5p", "123s 456s 789s 678s 9s 5p", "9s", 0)
    req["options"] = {"table.multiple_winners": "protected_first", "features.qingyise": 0}
    assert received(settle(req), "win") == {3: 12 + 6 + 6}
