"""What a settlement needs entered (``Ruleset.needs``), and partial seats: a hand entered
with only that settles exactly as the whole hand it stands for, in all eight rulesets."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.round.events import HandStarted
from engine.round.finish import finished_hand
from engine.rulesets import load_ruleset, settle_request, settlement_needs
from engine.settlement import FinishedHand, SettleInputError, parse_finished_hand
from engine.settlement.finished_hand import request_of
from engine.settlement.needs import kind_of, reduced_hand
from tests.engine.random_hands import random_request
from tests.engine.round_helpers import RULESETS, hands_per_ruleset, play

FLIPPED = ("1m", "5s", "9p", "E", "C")


def _compared(settled: dict[str, Any]) -> dict[str, Any]:
    """A settlement with its lines as a multiset: a partial seat's kongs by type are paid
    after its other melds."""
    return settled | {"lines": sorted(settled["lines"], key=repr)}


def check_reduced(hand: FinishedHand) -> dict[str, Any]:
    """Settle ``hand`` whole and as entered under its needs (through the JSON contract):
    the same settlement, or the same refusal."""
    ruleset = load_ruleset(hand.ruleset, hand.options)
    needs = ruleset.needs(kind_of(hand))
    reduced = request_of(reduced_hand(hand, needs))
    try:
        whole = settle_request(request_of(hand)).as_dict()
    except SettleInputError as err:
        with pytest.raises(SettleInputError) as again:
            settle_request(reduced)
        assert str(again.value) == str(err)
        return reduced
    assert _compared(settle_request(reduced).as_dict()) == _compared(whole)
    return reduced


def _with_secret_tiles(req: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    jing = getattr(load_ruleset(req["ruleset"]).preset, "jing", None)
    if jing is not None and jing.an_jing:
        req["an_indicator"] = rng.choice(FLIPPED)
    if jing is not None and jing.xia_jing:
        req["xia_indicator"] = rng.choice(FLIPPED)
    return req


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_random_win_entered_with_only_what_it_needs_settles_as_the_whole_hand(
    ruleset: str,
) -> None:
    wild = load_ruleset(ruleset).flip_kind.value != "none"
    partial_seats = 0
    for seed in range(hands_per_ruleset(150)):
        rng = random.Random(seed)
        req = random_request(seed, ruleset, wildcards=wild, max_claims=2)
        try:
            hand = parse_finished_hand(_with_secret_tiles(req, rng))
        except SettleInputError:
            continue  # (a shape the ruleset has not: refused alike, whole or reduced)
        reduced = check_reduced(hand)
        partial_seats += sum(1 for s in reduced["seats"] if s.get("partial"))
    assert partial_seats > 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_played_hand_entered_with_only_what_it_needs_settles_as_the_whole_hand(
    ruleset: str,
) -> None:
    """Hands the bots play: discards, claimed 精, kongs, 流局 and every kind of win."""
    rng = random.Random(f"needs-{ruleset}")
    kinds = set()
    for n in range(hands_per_ruleset(12)):
        state, _ = play(HandStarted(ruleset, n % 4, hand_no=n + 1), rng)
        if state.voided:
            continue
        hand = finished_hand(state)
        kinds.add(kind_of(hand))
        check_reduced(hand)
    assert kinds


def test_needs_say_what_each_ruleset_reads_of_the_other_seats() -> None:
    def others(ruleset: str, kind: Any) -> dict[str, Any]:
        return settlement_needs(ruleset, kind).as_dict()["others"]

    for r in ("xingguo", "jian"):  # 包: a claimed 精 that makes 冲关 or 霸精
        assert others(r, "discard") == {"jing": ["jing"], "kongs": True, "jing_claims": True}
    assert others("nanchang", "self_draw")["jing_claims"] is False
    assert others("lianhua", "self_draw")["jing"] == ["jing", "an_jing"]  # ×4 / ×2: claims
    assert others("lianhua", "self_draw")["jing_claims"] is True
    assert others("yongfeng", "discard")["jing"] == ["jing", "xia_jing"]
    assert others("yichun", "self_draw") == {"jing": [], "kongs": True, "jing_claims": False}
    for r in ("chongji", "guangdong"):
        assert settlement_needs(r, "discard").others.nothing
    # 流局: nothing (a confirmation), the jing alone (jian), all but the win (yongfeng,
    # nanchang)
    assert others("nanchang", "exhausted") == {
        "jing": ["jing"],
        "kongs": True,
        "jing_claims": False,
    }
    for r in ("xingguo", "lianhua", "chongji", "guangdong"):
        assert settlement_needs(r, "exhausted").as_dict()["confirm_only"] is True
    assert others("jian", "exhausted") == {"jing": ["jing"], "kongs": False, "jing_claims": True}
    assert others("yongfeng", "exhausted")["kongs"] is True
    assert others("yichun", "exhausted")["kongs"] is True
    assert settlement_needs(
        "yichun", "exhausted", {"pay": {"kongs_on_exhausted": False}}
    ).others.nothing
    drawn = settlement_needs("xingguo", "self_draw").as_dict()
    assert drawn["winner"] == "whole" and drawn["winner_jing_discards"] is True
    assert settlement_needs("xingguo", "exhausted").as_dict()["winner"] is None


def _xingguo(seats: list[dict[str, Any]], win: Any) -> dict[str, Any]:
    return {"ruleset": "xingguo", "dealer": 0, "indicator": "5s", "seats": seats, "win": win}


WINNER = {"hand": "123m 456m 789m 123p 55p", "melds": []}
SELF = {"seat": 0, "tile": "5p", "from": "self"}


def test_a_partial_seat_counts_its_jing_and_kongs_like_the_whole_seat() -> None:
    whole = _xingguo(
        [
            WINNER,
            {"hand": "6s6s 234p 789p 1s2s", "melds": [{"type": "kong_concealed", "tiles": "EEEE"}]},
            {"hand": "5s 11s 22s 33s 44s 77s SS", "melds": []},
            {"hand": "999s 888s 777p 666p F", "melds": []},
        ],
        SELF,
    )
    reduced = _xingguo(
        [
            WINNER,
            {"partial": True, "hand": "6s6s", "kongs": ["kong_concealed"]},
            {"partial": True, "hand": "5s"},
            {"partial": True},
        ],
        SELF,
    )
    assert _compared(settle_request(reduced).as_dict()) == _compared(
        settle_request(whole).as_dict()
    )


@pytest.mark.parametrize(
    ("seat", "message"),
    [
        ({"partial": True, "hand": "1m"}, "2号位：只录精（5s、6s），1m 不用录入"),
        (
            {"partial": True, "melds": [{"type": "pung", "tiles": "EEE", "from": 0}]},
            "2号位：副露只录杠和吃碰来的精，EEE 不用录入",
        ),
    ],
)
def test_a_partial_seat_giving_what_the_settlement_does_not_read_is_refused(
    seat: dict[str, Any], message: str
) -> None:
    req = _xingguo([WINNER, seat, {"partial": True}, {"partial": True}], SELF)
    with pytest.raises(SettleInputError, match=message):
        settle_request(req)


def test_a_partial_seat_where_nothing_is_read_takes_no_kongs_or_tiles() -> None:
    seats: list[dict[str, Any]] = [WINNER, {"partial": True}, {"partial": True}]
    seats.append({"partial": True, "kongs": ["kong_exposed"]})
    req = {"ruleset": "guangdong", "dealer": 0, "seats": seats, "win": SELF}
    with pytest.raises(SettleInputError, match="4号位：这样结束的一局杠不计分"):
        settle_request(req)
    seats[3] = {"partial": True}
    assert settle_request(req).net[0] > 0


def test_a_winner_cannot_be_partial() -> None:
    req = _xingguo([{"partial": True}] * 4, SELF)
    with pytest.raises(SettleInputError, match="1号位：胡家要录入整手牌"):
        settle_request(req)


def test_a_whole_seat_still_needs_its_hand() -> None:
    req = _xingguo([WINNER, {"melds": []}, {"partial": True}, {"partial": True}], SELF)
    with pytest.raises(SettleInputError, match=r"seats\[1\]\.hand: Field required"):
        settle_request(req)


@pytest.mark.parametrize("ruleset", ["xingguo", "lianhua", "chongji"])
def test_a_draw_that_settles_nothing_needs_no_flipped_tile(ruleset: str) -> None:
    """A table without readers confirms such a 流局 whether or not the 精 was entered."""
    req = {"ruleset": ruleset, "dealer": 2, "seats": [{"partial": True}] * 4, "win": None}
    settled = settle_request(req)
    assert settled.lines == () and settled.next_dealer == 2
    jian = {"ruleset": "jian", "dealer": 2, "seats": [{"partial": True}] * 4, "win": None}
    with pytest.raises(SettleInputError, match=r"^indicator: required by jian"):
        settle_request(jian)  # (its 流局 settles the 精 each seat holds)


def test_needs_say_which_win_flags_sources_and_winners_each_ruleset_reads() -> None:
    def win(ruleset: str, kind: Any) -> tuple[list[str], list[str], bool]:
        d = settlement_needs(ruleset, kind).as_dict()
        return d["flags"], d["sources"], d["several_winners"]

    assert win("xingguo", "self_draw") == (["tian", "di"], ["kong_replacement"], False)
    assert win("xingguo", "discard") == (["di"], ["rob_kong"], False)  # 胡前不胡后: one
    assert win("chongji", "self_draw")[0] == ["tian", "di", "last_tile", "pao_long"]
    assert win("chongji", "discard") == (["di"], ["rob_kong"], True)  # the largest stands
    assert win("guangdong", "self_draw")[0] == ["last_tile"]  # 海底捞月
    assert win("guangdong", "discard") == ([], ["rob_kong"], True)  # 一炮多响 pays all
    assert win("yichun", "discard")[2] is True
    for r in ("xingguo", "chongji", "guangdong", "yichun"):
        assert win(r, "exhausted") == ([], [], False)
