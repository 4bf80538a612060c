"""The catalogue words the engine's and the controller's refusals as people read them:
Chinese, seats counted from 1, the rule by its name, never a field path."""

from __future__ import annotations

import re

import pytest

from controller.words import CATALOGUE, Places, refusal, say
from controller.words.refusals import validation

# what a person must never read in a Chinese message
UNREADABLE = re.compile(
    r"seats?\[|winners?\[|\[\d+\]|\b\w+\.\w+\b|\b(seat|Seat) \d|0号位|String should|Input should"
    r"|Value error|\b(xingguo|jian|chongji|false_win|xianggong|indicator)\b"
)
CJK = re.compile(r"[\u3400-\u9fff]")


def readable(zh: str) -> bool:
    return bool(CJK.search(zh)) and UNREADABLE.search(zh) is None


@pytest.mark.parametrize(
    ("message", "places", "said"),
    [
        ("winners[0]: seats[2] 不是胡牌 (not a winning hand)", Places([2]), "3号位不是胡牌"),
        ("win: seats[2] 有精平胡不能抓炮", Places([2]), "3号位有精平胡不能抓炮"),
        ("seats[2] 有精平胡不能抓炮", None, "3号位有精平胡不能抓炮"),
        (
            "seat 0 (as the readers saw it: give it in seats).hand: 0 tiles counting melds, "
            "a seat holds 13 (小相公)",
            None,
            "1号位的手牌：连副露共 0 张，应有 13 张（小相公）",
        ),
        (
            "winners[0].hand: 11 tiles counting melds, a winner holds 14 (小相公)",
            Places([1]),
            "2号位的手牌：连副露共 11 张，胡牌的一家应有 14 张（小相公）",
        ),
        (
            "penalty: xingguo has no xianggong amount; the owner sets one",
            None,
            "兴国冲关麻将没有相公的罚分",
        ),
        ("winners[1].seat: seat 2 is listed twice", Places([2, 2]), "3号位填了两次"),
        ("winners[0].melds[1].from: a pung needs the seat it came from", Places([3]), "4号位"),
        ("seats[0].hand: not a tile: 'x9' (at position 0)", Places([], [1]), "2号位的手牌"),
        ("to_seat: the same seat as from_seat", None, "出分和得分不能是同一家"),
        (  # a correction's settlement error, inside its own field
            "hand: seats[1].hand: 13 tiles counting melds, a winner holds 14 (小相公)",
            None,
            "2号位的手牌：连副露共 13 张",
        ),
        ("hand: win: seats[1] 不是胡牌 (not a winning hand)", None, "2号位不是胡牌"),
        ("indicator: required by jian (the flipped tile that makes its wildcards)", None, "吉安"),
        ("hand abc is not the hand in progress (h-1)", None, "局号 abc"),
        ("win: the winning tile 5m is not in seats[3].hand", None, "4号位的手牌"),
        ("a message nobody has worded yet, seat 0 and seats[1]", None, "1号位"),
    ],
)
def test_a_refusal_reads_in_words_with_its_english_beside(
    message: str, places: Places | None, said: str
) -> None:
    words = refusal(message, places)
    assert said in words.zh and readable(words.zh), words
    assert words.en == message


def test_pydantic_problems_read_in_words() -> None:
    reason = {"type": "string_too_short", "loc": ("body", "reason"), "msg": "String should…"}
    assert validation([reason]).zh == "请写明原因"
    seat = {"type": "less_than_equal", "loc": ("body", "winners", 0, "seat"), "ctx": {"le": 3}}
    assert "座位只有1号位到4号位" in validation([seat], {"winners": [{"seat": 7}]}).zh
    kind = {
        "type": "literal_error",
        "loc": ("body", "penalty"),
        "ctx": {"expected": "'false_win' or 'xianggong'"},
    }
    assert validation([kind]).zh == "罚则只能是：诈胡、相公"
    hand = {
        "type": "string_too_long",
        "loc": ("body", "seats", 1, "hand"),
        "ctx": {"max_length": 64},
    }
    words = validation([hand], {"seats": [{"seat": 0}, {"seat": 3}]})
    assert words.zh == "4号位的手牌太长（最多 64 个字）" and words.en.startswith("seats.1.hand")


def test_every_catalogue_entry_reads_in_chinese() -> None:
    for key, (zh, _en) in CATALOGUE.items():
        params = dict.fromkeys(re.findall(r"\{(\w+)", zh + _en), "x")
        assert CJK.search(say(key, **params).zh), key
