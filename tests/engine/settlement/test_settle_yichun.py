"""宜春麻将: the seed's worked example and factor table become tests.

Seat 0 deals unless a test says otherwise. No wildcard, so the filler seats take any tile
left (``seats_with`` with no jing kinds).
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

request = partial(settle_request, "yichun")


def pung(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "pung", "tiles": tiles, "from": frm}


def win_paid(req: dict[str, Any]) -> dict[int, Any]:
    return paid(settle(req), "win")


# The seed's example: 大七 (3) × 单钓 (2) × 杠开 (2) × base 1 × 3 payers = 36. Three pungs and
# a 补杠 melded, one tile in hand; the kong's replacement pairs it.
DAQI_DANDIAO_MELDS = [
    pung("111p", 2),
    pung("222s", 1),
    pung("777m", 3),
    {"type": "kong_added", "tiles": "4444s", "from": 1},
]


def test_seed_example_daqi_dandiao_gangkai_36() -> None:
    """The dealer wins: the three pay 12 each; the dealer's double is on what it pays."""
    s = settle(request(D, "5p 5p", "5p", "kong_replacement", melds={D: DAQI_DANDIAO_MELDS}))
    assert paid(s, "win") == {1: 12, 2: 12, 3: 12}
    assert sum(paid(s, "win").values()) == 36
    line = next(ln for ln in s.lines if ln.code == "win.self_draw")
    assert line.reason.startswith("大七对 单钓 杠开 3×2×2")
    assert paid(s, "kong") == {1: 1, 2: 1, 3: 1}  # the 补杠 pays on its own


def test_seed_example_by_a_non_dealer_the_dealer_pays_double() -> None:
    melds = [{**m, "from": 0 if m["from"] == 1 else m["from"]} for m in DAQI_DANDIAO_MELDS]
    s = settle(request(1, "5p 5p", "5p", "kong_replacement", melds={1: melds}))
    assert paid(s, "win") == {0: 24, 2: 12, 3: 12}
    assert "庄家×2" in next(ln.reason for ln in s.lines if ln.payer == 0 and ln.code[:3] == "win")


PINGHU = "123m 456p 789s ESN 99m"  # an honor set (东南北) counts as a set
PINGHU_CONCEALED = "123m 456p 789s 234s 99m"


@pytest.mark.parametrize(
    ("name", "winner", "frm", "expected"),
    [
        ("闲 放冲 闲: the discarder pays 1 × 2", 1, 2, {2: 2}),
        ("庄 放冲 闲: dealer and discarder, 1 × 2 × 2", 1, D, {0: 4}),
        ("闲 放冲 庄: 1 × 2", D, 3, {3: 2}),
        ("庄 自摸 门清: 2 each", D, "self", {1: 2, 2: 2, 3: 2}),
        ("闲 自摸 门清: the dealer pays 4", 2, "self", {0: 4, 1: 2, 3: 2}),
    ],
)
def test_pinghu_payments(name: str, winner: int, frm: int | str, expected: dict[int, int]) -> None:
    assert win_paid(request(winner, PINGHU, "9m", frm)) == expected, name


def test_menqing_only_on_self_draw_unless_option() -> None:
    assert win_paid(request(1, PINGHU_CONCEALED, "9m", 2)) == {2: 2}
    opts = {"win.menqing_self_draw_only": False}
    assert win_paid(request(1, PINGHU_CONCEALED, "9m", 2, options=opts)) == {2: 4}


def test_melded_hand_is_not_menqing() -> None:
    melds = {1: [pung("777p", 3)]}
    assert win_paid(request(1, "123m 456p 789s 99m", "9m", "self", melds=melds)) == {
        0: 2,
        2: 1,
        3: 1,
    }


@pytest.mark.parametrize(
    ("name", "hand", "product"),
    [
        ("小七对 4 × 门清 2", "11m 22m 55p 66p 88s 99s EE", 8),
        ("豪华小七对 4 × 2 × 门清 2", "1111m 55p 66p 88s 99s EE", 16),
        ("豪华 two four-alikes 4 × 4 × 2", "1111m 5555p 88s 99s EE", 32),
        ("清一色 小七 5 × 4 × 2", "11m 22m 33m 55m 66m 88m 99m", 40),
        ("清一色 平糊 5 × 门清 2", "123m 456m 789m 234m 99m", 10),
        ("十三烂 2 × 门清 2", "147m 258p 369s ESWN C", 4),
        ("七星十三烂 3 × 门清 2", "147m 25p 69s ESWN CFP", 6),
        ("大七对 3 × 门清 2", "111m 555p 999s EEE CC", 6),
        ("清一色 大七 5 × 3 × 2", "111m 333m 555m 777m 99m", 30),
    ],
)
def test_pattern_factors_on_a_non_dealer_self_draw(name: str, hand: str, product: int) -> None:
    """The non-dealer's self-draw: seats 2 and 3 pay the product, the dealer twice it."""
    tile = hand.split()[-1][-2:] if hand.split()[-1][-1] in "mps" else hand.split()[-1][-1]
    got = win_paid(request(1, hand, tile, "self"))
    assert got == {0: 2 * product, 2: product, 3: product}, name


def test_ziyise_without_shape_6() -> None:
    """All honors that form no shape: 字一色 6 (× 门清 2 on a self-draw)."""
    hand = "EEE SSS WWW NNN C F"  # C and F make neither a pair nor, without P, a set
    s = settle(request(2, hand, "F", "self"))
    reasons = {ln.reason for ln in s.lines if ln.code.startswith("win")}
    assert paid(s, "win") == {0: 24, 1: 12, 3: 12}, reasons
    assert all(r.startswith("字一色 门清") for r in reasons)


def test_ziyise_with_shape_doubles() -> None:
    """字一色 成阕: 6 × 2, times its shape (大七对 3)."""
    melds = {2: [pung("EEE", 1), pung("SSS", 3)]}
    s = settle(request(2, "WWW CCC FF", "F", 1, melds=melds))
    assert paid(s, "win") == {1: 6 * 2 * 3 * 2}


def test_dasanyuan_counts_as_daqi() -> None:
    melds = {1: [pung("CCC", 2), pung("FFF", 3)]}
    s = settle(request(1, "PPP 111m 99s", "9s", 2, melds=melds))
    assert paid(s, "win") == {2: 3 * 2}
    assert any("大三元" in ln.reason for ln in s.lines)


def test_dasixi_kongs_of_the_four_winds() -> None:
    kongs = [{"type": "kong_exposed", "tiles": f"{w * 4}", "from": 2} for w in ("E", "S", "W", "N")]
    s = settle(request(1, "9p 9p", "9p", 2, melds={1: kongs}))
    # 大七对 3 × 大四喜 2 × 单钓 2, 放冲 × 2
    assert paid(s, "win") == {2: 24}


def test_dandiao_not_with_a_concealed_kong() -> None:
    melds = [
        pung("111p", 2),
        pung("222s", 3),
        pung("777m", 3),
        {"type": "kong_concealed", "tiles": "4444s"},
    ]
    s = settle(request(1, "5p 5p", "5p", 2, melds={1: melds}))
    assert paid(s, "win") == {2: 3 * 2}  # 大七对 only, doubled by the discarder


def test_angang_gangkai_menqing_2x2x2() -> None:
    melds = {D: [{"type": "kong_concealed", "tiles": "4444s"}]}
    s = settle(request(D, "123m 456p 789s 99m", "9m", "kong_replacement", melds=melds))
    assert paid(s, "win") == {1: 8, 2: 8, 3: 8}
    assert paid(s, "kong") == {1: 2, 2: 2, 3: 2}  # 暗杠 2 from each


def test_tianhu_and_dihu_12() -> None:
    s = settle(request(D, PINGHU, "9m", "self", flags={"tian": True}))
    assert paid(s, "win") == {1: 12, 2: 12, 3: 12}
    s = settle(request(2, PINGHU, "9m", D, flags={"di": True}))
    assert paid(s, "win") == {0: 12 * 2 * 2}  # the dealer, who discarded


def test_qianggang_the_robbed_pays_and_the_kong_does_not_count() -> None:
    # the robbed 补杠 stays a pung: its fourth tile is in the winner's hand
    melds = {3: [pung("666p", 1)]}
    s = settle(request(1, "123m 45p 789s ESN 99m 6p", "6p", "rob_kong:3", melds=melds))
    assert paid(s, "win") == {3: 2 * 2}  # 抢杠 2, the robbed pays as the discarder
    assert paid(s, "kong") == {}
    assert s.lines[0].code == "win.rob_kong"


def test_kongs_pay_on_their_own() -> None:
    melds = {
        2: [{"type": "kong_exposed", "tiles": "5555s", "from": 1}],
        3: [{"type": "kong_concealed", "tiles": "6666m"}],
    }
    s = settle(request(1, PINGHU, "9m", 0, melds=melds))
    assert received(s, "kong") == {2: 3, 3: 6}


def test_several_winners_all_win_and_the_discarder_deals() -> None:
    hands = {1: "123m 456p 789s ESN 3s 3s", 3: "123p 456s 12s CFP 99m 3s"}
    req = request(None, "", "", 0, hands=hands)
    req["win"] = [{"seat": 1, "tile": "3s", "from": 2}, {"seat": 3, "tile": "3s", "from": 2}]
    s = settle(req)
    assert received(s, "win") == {1: 2, 3: 2}
    assert paid(s, "win") == {2: 4}
    assert s.next_dealer == 2  # 买庄


def test_two_seats_rob_one_kong_the_robbed_pays_each_and_deals() -> None:
    """不拦胡 on a robbed 补杠: both robbers win, and the robbed seat pays each as the
    discarder and deals next, as after several winners on a discard."""
    req = request(None, "", "", 0)
    # (by hand: the helper would count the one robbed 6p twice, once in each winner's hand)
    req["seats"] = [
        {"hand": "555m 666m 777s 888s C", "melds": [], "discards": ""},
        {"hand": "123m 45p 789s ESN 99m 6p", "melds": [], "discards": ""},
        {"hand": "234m 78p 456s 789m 11s 6p", "melds": [], "discards": ""},
        {"hand": "111p 222p 333s W", "melds": [pung("666p", 1)], "discards": ""},
    ]
    req["win"] = [{"seat": s, "tile": "6p", "from": "rob_kong:3"} for s in (1, 2)]
    s = settle(req)
    assert received(s, "win") == {1: 2 * 2, 2: 2 * 2}  # 平糊, 抢杠 ×2 each
    assert paid(s, "win") == {3: 8}
    assert {line.code for line in s.lines} == {"win.rob_kong"}
    assert s.next_dealer == 3


def test_winner_deals_next() -> None:
    assert settle(request(2, PINGHU, "9m", 1)).next_dealer == 2
    s = settle(request(D, PINGHU, "9m", 1))
    assert (s.next_dealer, s.dealer_streak) == (D, 1)


def test_exhausted_the_last_drawer_deals() -> None:
    s = settle(request(None, "", "", 0, extra={"last_drawer": 1}))
    assert (s.next_dealer, s.lines) == (1, ())
    assert settle(request(None, "", "", 0, dealer=1)).next_dealer == 0  # the dealer's 上家


def test_exhausted_kongs_still_pay() -> None:
    melds = {2: [{"type": "kong_concealed", "tiles": "7777p"}]}
    s = settle(request(None, "", "", 0, melds=melds))
    assert received(s, "kong") == {2: 6}


def test_mai_doubles_a_buyers_payments() -> None:
    opts = {"mai.enabled": True}
    # seat 1 bought and wins on a discard from seat 2 (not bought): 1 × 2 (放冲) × 2 (买)
    assert win_paid(request(1, PINGHU, "9m", 2, options=opts, extra={"mai": [1]})) == {2: 4}
    # both bought (对火): × 4
    got = win_paid(request(1, PINGHU, "9m", 2, options=opts, extra={"mai": [1, 2]}))
    assert got == {2: 8}
    # the dealer must buy: a dealer's discard is ×2 (dealer) ×2 (放冲) ×2 (买)
    assert win_paid(request(1, PINGHU, "9m", D, options=opts)) == {0: 8}


def test_mai_off_refuses_buyers() -> None:
    with pytest.raises(SettleInputError, match=r"extra\.mai"):
        settle(request(1, PINGHU, "9m", 2, extra={"mai": [1]}))


def test_base_multiplies_everything() -> None:
    melds = {2: [{"type": "kong_concealed", "tiles": "7777p"}]}
    s = settle(request(1, PINGHU, "9m", 3, melds=melds, options={"win.base": 5}))
    assert paid(s, "win") == {3: 10}
    assert received(s, "kong") == {2: 30}


def test_false_win_is_refused_naming_the_field() -> None:
    with pytest.raises(SettleInputError, match=r"^win: seats\[1\]"):
        settle(request(1, "123m 456p 789s 234s 19m", "9m", 2))


def test_false_win_penalty_when_configured() -> None:
    s = settle(request(1, "123m 456p 789s 234s 19m", "9m", 2, options={"pay.false_win": 3}))
    assert paid(s, "false_win") == {1: 9}


def test_invalid_options_name_the_field() -> None:
    with pytest.raises(PresetError, match=r"win\.daqi"):
        load_ruleset("yichun", {"win.daqi": 0})
    with pytest.raises(PresetError, match=r"pay\.no_such"):
        load_ruleset("yichun", {"pay.no_such": 1})


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_hands_settle_to_zero_deterministically(seed: int) -> None:
    check_settlement_properties(random_request(seed, "yichun"))
