"""Events in words (engine.round.narration): every event type is said in Chinese and in
English, and the public text of any event of a played hand names nothing concealed."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from engine.round.events import (
    EVENT_TYPES,
    Adjusted,
    Chowed,
    ClaimAnswered,
    ClaimDeclared,
    ClaimJoined,
    ClaimMade,
    ClaimPassed,
    ClaimsResolved,
    Dealt,
    DiceCommitted,
    DiceRolled,
    DiceSeedRevealed,
    Discarded,
    Drew,
    Event,
    Exhausted,
    FinishedByStaff,
    FlipEntered,
    HandStarted,
    HandVoided,
    JingFlipped,
    Konged,
    Passed,
    PenaltyApplied,
    Punged,
    ReplacementDrawn,
    ResultCorrected,
    SessionClosed,
    Settled,
    Shuffled,
    StaffUndone,
    WinCorrected,
    WinDeclared,
    WinRejected,
)
from engine.round.narration import LANGS, owner_text, public_text, seat_name, texts
from engine.rulesets import builtin_ids
from engine.simulation import play_session
from engine.tiles import en_name, kind_of, zh_name

WHO: dict[str, Any] = {"by": "ann", "role": "staff", "at": "2026-12-03T20:00:00+00:00"}
SETTLEMENT: Any = {
    "lines": [],
    "net": [0, 0, 0, 0],
    "next_dealer": 0,
    "void": True,
    "dealer_streak": 0,
    "prevailing_wind": 27,
    "notes": [],
    "house_fee": 0,
}
# one of each event type, with something concealed wherever the type can hold it
SAMPLES: list[Event] = [
    HandStarted("xingguo", 0),
    DiceCommitted("ab" * 32, "t1", "s1", 1, "cd" * 32),
    Shuffled(tuple(range(136))),
    DiceRolled("break", 0, 3, 4),
    DiceSeedRevealed("cd" * 32),
    Dealt((tuple(range(13)), tuple(range(13, 26)), tuple(range(26, 39)), tuple(range(39, 52)))),
    JingFlipped("jing", 60, 61, under_tile=62),
    Drew(1, 100, 70),
    ReplacementDrawn(2, 101, 135),
    Discarded(3, 102, declined_win=True),
    ClaimDeclared(0, "pung", (103, 104)),
    Passed(1),
    ClaimsResolved(102, (1, 2)),
    Chowed(1, 0, 8, (4, 12)),
    Punged(2, 1, 20, (21, 22)),
    Konged(3, "concealed", (120, 121, 122, 123)),
    WinDeclared(0, 50, "discard", discarder=2),
    WinRejected(1, "not_a_win", "not a winning hand"),
    Exhausted(),
    Settled(SETTLEMENT),
    FinishedByStaff(**WHO, reason="", winners=({"seat": 2},), request={"seats": ["concealed"]}),
    WinCorrected(**WHO, reason="misread", seat=1, read={"hand": "1m"}, corrected={"hand": "2m"},
                 request={}),
    ResultCorrected(**WHO, reason="won on a 9s", was=({"seat": 2, "tile": "5p", "from": "self"},),
                    winners=({"seat": 0, "tile": "9s", "from": 2},),
                    request={"seats": ["concealed"]}),
    PenaltyApplied(**WHO, reason="", seat=2, penalty="false_win", amount=8, amount_from="ruleset"),
    Adjusted(**WHO, reason="reader 3 silent", from_seat=0, to_seat=3, points=12),
    HandVoided(**WHO, reason="dropped tiles", hand_no=4),
    FlipEntered(**WHO, reason="no reader at the spot", indicator="5m"),
    StaffUndone(**WHO, reason="wrong seat", undone="adjusted"),
    SessionClosed(**WHO, reason="打烊", cause="staff", terms={"point_value": 0.5}),
    ClaimMade(**WHO, reason="", seat=2, winners=({"seat": 2},), payers=(0, 1, 3),
              jing_counts=True, request={"seats": ["concealed"]}),
    ClaimAnswered(**WHO, reason="", seat=1, agree=True, jing=(1, 2)),
    ClaimJoined(**WHO, reason="", seat=3, winner={"seat": 3}, payers=(0, 1),
                request={"seats": ["concealed"]}),
    ClaimPassed(**WHO, reason="", seat=2),
]  # fmt: skip
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_event_type_has_a_sample() -> None:
    assert sorted(e.type for e in SAMPLES) == sorted(EVENT_TYPES)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.type)
def test_every_event_type_is_said_in_both_languages(event: Event) -> None:
    for public in (True, False):
        said = texts(event, public=public)
        assert set(said) == set(LANGS)
        assert CJK.search(said["zh"]), said  # Chinese words, not the type's name
        assert re.search(r"[a-z]{3}", said["en"]) and said["en"] != event.type, said
        say = public_text if public else owner_text
        assert said == {lang: say(event, lang) for lang in LANGS}


def test_seats_are_numbered_as_on_the_table() -> None:
    assert [seat_name(s, "zh") for s in range(4)] == ["1号位", "2号位", "3号位", "4号位"]
    assert seat_name(3, "en") == "seat 4"
    e = Adjusted(**WHO, reason="reader 3 silent", from_seat=0, to_seat=3, points=12)
    assert owner_text(e, "en") == "staff ann: seat 1 pays seat 4 12 (adjustment) — reader 3 silent"
    assert public_text(e) == "工作人员 ann：调整：1号位 付 4号位 12（reader 3 silent）"


def test_a_member_is_named_where_they_sat_and_a_guest_keeps_the_number() -> None:
    names = ["王五", None, "2号位", None]  # a name that looks like a seat stays a name
    e = Adjusted(**WHO, reason="", from_seat=0, to_seat=2, points=5)
    assert public_text(e, names=names) == "工作人员 ann：调整：王五 付 2号位 5"
    assert (
        owner_text(Chowed(1, 0, 8, (4, 12)), "en", names) == "seat 2 chows 3 characters from 王五"
    )
    assert texts(Passed(1), public=True, names=names) == {"zh": "2号位 过", "en": "seat 2 passes"}
    assert seat_name(0, "en", names) == "王五" and seat_name(3, "zh", names) == "4号位"


def test_the_owner_sees_the_tile_the_public_does_not() -> None:
    e = Drew(1, 100, 70)
    assert public_text(e) == "2号位 摸牌" and public_text(e, "en") == "seat 2 draws"
    assert owner_text(e) == f"2号位 摸 {zh_name(kind_of(100))}"
    assert owner_text(e, "en") == f"seat 2 draws {en_name(kind_of(100))}"


# --- nothing concealed in the public words -----------------------------------------------


def _other(value: Any) -> Any:
    """A different value of the same shape: tile ids of another kind, the other bool."""
    match value:
        case bool():
            return not value
        case int():
            return (value + 4 * 7) % 136
        case None:
            return 5
        case tuple():
            return tuple(_other(v) for v in value)
        case dict():
            return {"seats": [{"hand": "999s"}]}
        case str():  # a dice seed (hex)
            return value[::-1]
    raise AssertionError(f"no other value for {value!r}")


def _concealed_changed(e: Event) -> Event | None:
    """The event with everything it keeps from the table changed; None if it keeps nothing."""
    changes = {name: _other(getattr(e, name)) for name in e.secret}
    if isinstance(e, Konged) and e.kong == "concealed":  # 暗杠 lies face down
        changes["tiles"] = _other(e.tiles)
    if not changes:
        return None
    changed = replace(e, **changes)
    assert changed.public_dict() == e.public_dict() or isinstance(e, Konged)
    return changed


@cache
def _played_events() -> list[Event]:
    out: list[Event] = []
    for rid in builtin_ids():
        for result in play_session(rid, 4, random.Random(11)):
            out += result.log
    return out


def test_no_public_text_of_a_played_hand_names_anything_concealed() -> None:
    """Every event of bots' hands in every ruleset (and each sample): changing what it keeps
    from the table (the drawn tile, the deal, the wall order, a 暗杠's tiles, the 暗精, a
    declined win, a claim's own tiles, a finish's request) changes none of its public words."""
    events = _played_events() + SAMPLES
    seen: set[str] = set()
    for e in events:
        changed = _concealed_changed(e)
        if changed is None:
            continue
        seen.add(e.type)
        for lang in LANGS:
            assert public_text(changed, lang) == public_text(e, lang), (e, lang)
        if isinstance(e, Drew | ReplacementDrawn):  # and the tile drawn is not named
            k = kind_of(e.tile)
            assert zh_name(k) not in public_text(e) and en_name(k) not in public_text(e, "en")
    secret_types = {t for t, cls in EVENT_TYPES.items() if cls.secret} | {"konged"}
    assert seen == secret_types
    played = {e.type for e in _played_events()}
    assert {"drew", "dealt", "shuffled", "konged", "replacement_drawn"} <= played


def test_the_owner_text_does_name_what_the_public_text_keeps() -> None:
    """The check above is not empty: the owner's words change with the concealed."""
    named = (Drew, ReplacementDrawn, Dealt, Discarded, Konged)
    for e in (e for e in SAMPLES if isinstance(e, named)):
        changed = _concealed_changed(e)
        assert changed is not None and owner_text(changed) != owner_text(e), e
