"""The session's cash-out, said: what the ``cashout`` topic carries (names or seats, nets,
who pays whom), never an id or a card; its switch and quiet hours silence it; any display
name (digits, Latin, emoji, espeak-ng's own markup) is said bounded and never raises."""

from __future__ import annotations

import asyncio
import datetime as dt
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.runtime import running
from controller.table.staff_acts import handle
from controller.table.staff_requests import CloseSession, SeatRequest
from controller.voice.announcer import Announcer
from controller.voice.phrases import (
    MAX_NAME,
    MAX_PLAYERS_SAID,
    MAX_TRANSFERS_SAID,
    announcements,
    cashout_announcement,
    seat,
    spoken_name,
)
from engine.round.commands import Audit
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    options,
    recording,
    until,
)
from tests.controller.voice.test_voice import ALL_ON, Clock, dice, voice
from tests.controller.voice_helpers import RecordingSink

AUDIT = Audit("ann", "staff", "2026-12-03T21:00:00+00:00", "打烊")
CARD = "04a1b2c3d4e5f6"

# ``public_cashout``'s shape: two members, two guests by the seat they sat in last
PAYLOAD: dict[str, Any] = {
    "session_id": "s1",
    "played": 9,
    "ended_at": "2026-12-03T21:00:00+00:00",
    "players": [
        {"seat": 0, "name": "王五", "net": 30},
        {"seat": 1, "name": None, "net": -10},
        {"seat": 2, "name": "李四", "net": -20.5},
        {"seat": 3, "name": None, "net": 0.5},
    ],
    "transfers": [
        {"from": 1, "to": 0, "points": 10},
        {"from": 2, "to": 0, "points": 20},
        {"from": 2, "to": 3, "points": 0.5},
    ],
}
SAID = (
    "本场结算：王五 加30，2号位 减10，李四 减20点5，4号位 加0点5；"
    "2号位 付 王五 10，李四 付 王五 20，李四 付 4号位 0点5"
)


def _number(said: str) -> float:
    return float(said.replace("点", "."))


def heard_facts(text: str) -> tuple[list[tuple[str, float]], list[tuple[str, str, float]]]:
    """The nets and the transfers back out of what was said (the oracle's other way)."""
    assert text.startswith("本场结算：")
    nets_part, _, pays_part = text.removeprefix("本场结算：").partition("；")
    nets = []
    for part in nets_part.split("，"):
        who, amount = part.rsplit(" ", 1)
        sign = {"加": 1, "减": -1}.get(amount[0], 0)
        nets.append((who, 0.0 if amount == "零" else sign * _number(amount[1:])))
    pays = []
    for part in pays_part.split("，") if pays_part else []:
        payer, rest = part.split(" 付 ")
        payee, points = rest.rsplit(" ", 1)
        pays.append((payer, payee, _number(points)))
    return nets, pays


def payload_facts(
    payload: dict[str, Any],
) -> tuple[list[tuple[str, float]], list[tuple[str, str, float]]]:
    """What the cash-out topic says: a member by name, a guest by seat (1号位 …)."""
    names = [p["name"] or f"{p['seat'] + 1}号位" for p in payload["players"]]
    nets = [(n, float(p["net"])) for n, p in zip(names, payload["players"], strict=True)]
    pays = [(names[t["from"]], names[t["to"]], float(t["points"])) for t in payload["transfers"]]
    return nets, pays


def test_the_cashout_is_said_player_by_player_then_who_pays_whom() -> None:
    said = announcements([("events", {"event": {"type": "exhausted"}}), ("cashout", PAYLOAD)])
    assert [a.text for a in said] == ["流局", SAID]
    assert said[1].kind == "cashout" and said[1].key == "cashout s1"
    assert heard_facts(SAID) == payload_facts(PAYLOAD)
    # the display's clearing (the next session's first result) says nothing
    assert announcements([("cashout", {})]) == []


@pytest.mark.timeout(300)
def test_a_closed_sessions_cashout_is_said_as_published(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Two hands played by bots through the service with two members seated (one with a
    card), staff close the session: the voice says the cash-out the retained topic holds,
    member names and guests' seats, and never a member's id or card."""
    sink = RecordingSink()
    config = config_for(
        data_dir(tmp_path), "xingguo", mosquitto.url, voice=voice(max_age=600, queue=100)
    )

    async def main() -> tuple[dict[str, Any], list[str], list[str]]:
        async with running(config, options(7, 2, audio=sink)) as run:
            assert run.voice is not None
            seating = run.service.seating
            ids = []
            for s, (name, card) in enumerate([("王五", CARD), ("Tom Lee", None)]):
                member = seating.members.add(name, card)
                seating.handle(SeatRequest(2 * s, member.member_id, AUDIT))
                ids.append(member.member_id)
            async with recording(mosquitto.port) as rec:
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 3)
                handle(run.keeper, CloseSession(AUDIT))  # as the table loop does
                await until(lambda: any(rec.of("cashout")), "the cash-out on its topic")
                published = [p for p in rec.of("cashout") if p][-1]
            assert await asyncio.to_thread(run.voice.wait_idle, GUARD)
            return published, sink.said, ids

    published, said, ids = asyncio.run(main())
    spoken = [t for t in said if t.startswith("本场结算")]
    assert spoken == [a.text for a in announcements([("cashout", published)])]
    assert heard_facts(spoken[0]) == payload_facts(published)
    names = {who for who, _ in heard_facts(spoken[0])[0]}
    assert names == {"王五", "2号位", "Tom Lee", "4号位"}
    assert len(heard_facts(spoken[0])[1]) <= 3  # four players: three transfers at most
    for secret in [*ids, CARD]:
        assert all(secret not in t for t in said)


def test_the_cashout_switched_off_is_not_said() -> None:
    sink = RecordingSink()
    announcer = Announcer(voice(speak=ALL_ON | {"cashout": False}), sink)
    try:
        announcer.hear([("events", {"event": {"type": "exhausted"}}), ("cashout", PAYLOAD)])
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == ["流局"]


def test_the_cashout_is_not_said_in_quiet_hours() -> None:
    settings_ = voice(quiet_from="23:00", quiet_until="09:00")
    sink = RecordingSink()
    at = dt.time(2, 30)  # a cut-off at 02:30, in the night
    announcer = Announcer(settings_, sink, local_time=lambda: at)
    try:
        announcer.hear([("cashout", PAYLOAD)])
        assert announcer.wait_idle(GUARD)
        at = dt.time(21, 0)
        announcer.hear([("cashout", PAYLOAD)])
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == [SAID]
    assert announcer.dropped["quiet"] == 1


def test_the_cashout_waits_out_the_last_settlement_said() -> None:
    """Staff close the session as the last hand's nets are being said: the cash-out is
    said after them, however long they take (within a minute); a roll would be stale."""
    clock, sink = Clock(), RecordingSink()
    announcer = Announcer(voice(max_age=5.0), sink, clock=clock)
    try:
        sink.hold.clear()
        announcer.hear([("settlement", {"hand_id": "h", "net": [2, -2, 0, 0]})])
        assert sink.playing.wait(GUARD)
        announcer.hear([dice(1, 2), ("cashout", PAYLOAD)])
        clock.now = 30.0
        sink.hold.set()
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == ["结算 1号位 加2 2号位 减2 3号位 零 4号位 零", SAID]
    assert announcer.dropped["stale"] == 1


def test_a_long_cashout_is_bounded_the_rest_left_to_the_display() -> None:
    players = [{"seat": i % 4, "name": f"{'王' * 40}{i}", "net": i - 5} for i in range(11)]
    transfers = [{"from": i, "to": 10 - i, "points": 5 - i} for i in range(5)] * 2
    a = cashout_announcement({"players": players, "transfers": transfers})
    assert a is not None
    nets, _, pays = a.text.removeprefix("本场结算：").partition("；")
    assert nets.split("，")[-1] == f"另有{11 - MAX_PLAYERS_SAID}人"
    assert len(nets.split("，")) == MAX_PLAYERS_SAID + 1
    assert pays.split("，")[-1] == f"另有{10 - MAX_TRANSFERS_SAID}笔"
    assert "王" * MAX_NAME in a.text and "王" * (MAX_NAME + 1) not in a.text


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("王五", "王五"),
        ("Tom Lee", "Tom Lee"),
        ("  王\n五\u202e ", "王 五"),  # controls and a bidi override are no words
        ("ＡＢＣ①", "ABC1"),  # full width: said as plain letters and digits
        ("123", "123"),
        ("😀🀄", ""),  # nothing to say: the seat is said
        ("[[h@'loU]]", "h loU"),  # espeak-ng's phoneme input: brackets never reach it
        ("-v en", "v en"),
    ],
)
def test_a_display_name_is_said_as_its_letters_and_digits(name: str, said: str) -> None:
    assert spoken_name(name) == said
    payload = {"players": [{"seat": 1, "name": name, "net": 0}], "transfers": []}
    a = cashout_announcement(payload)
    assert a is not None and a.text == f"本场结算：{said or seat(1) + '会员'} 零"


@pytest.mark.parametrize(
    "payload",
    [
        {"players": [{"seat": 7, "name": None, "net": 1}], "transfers": []},  # nobody
        {"players": [{"seat": 0, "name": "王五", "net": float("nan")}], "transfers": []},
        {"players": [{"seat": 0, "name": "王五", "net": 10**9}], "transfers": []},
        {"players": [{"seat": 0, "net": True}], "transfers": []},
        {"players": [{"seat": 0, "net": 1}], "transfers": [{"from": 0, "to": 5, "points": 1}]},
        {"players": [{"seat": 0, "net": 1}], "transfers": [{"from": 0, "to": 0, "points": "1"}]},
        {"players": "four", "transfers": []},
        {"players": [{"seat": 0, "net": 1}]},
    ],
)
def test_a_cashout_that_does_not_hold_together_is_not_said(payload: dict[str, Any]) -> None:
    assert cashout_announcement(payload) is None


_SAYABLE = {" "}


def _sayable(c: str) -> bool:
    return c in _SAYABLE or unicodedata.category(c)[0] in "LNM"


AMOUNTS = st.one_of(
    st.integers(-(10**7), 10**7),
    st.floats(allow_nan=True, allow_infinity=True),
    st.fractions().map(float),
)
PLAYER = st.fixed_dictionaries(
    {
        "seat": st.one_of(st.integers(-2, 6), st.none()),
        "name": st.one_of(st.none(), st.text(max_size=80)),
        "net": AMOUNTS,
    }
)
TRANSFER = st.fixed_dictionaries(
    {"from": st.integers(-1, 12), "to": st.integers(-1, 12), "points": AMOUNTS}
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(max_size=200))
def test_any_display_name_is_said_bounded_as_letters_and_digits(name: str) -> None:
    said = spoken_name(name)
    assert len(said) <= MAX_NAME
    assert all(_sayable(c) for c in said)
    assert said == said.strip() and "  " not in said


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.lists(PLAYER, max_size=14),
    transfers=st.lists(TRANSFER, max_size=14),
    junk=JSON,
)
def test_any_cashout_payload_is_said_bounded_or_not_at_all(
    players: list[dict[str, Any]], transfers: list[dict[str, Any]], junk: Any
) -> None:
    """Never raises, whatever the names and amounts; what is said is one line, bounded."""
    for payload in ({"players": players, "transfers": transfers}, {"players": junk}, junk):
        said = announcements([("cashout", payload)])
        assert len(said) <= 1
        for a in said:
            assert len(a.text) <= 400, a.text
            assert "\n" not in a.text and "[[" not in a.text


def test_a_member_with_no_sayable_name_is_never_said_as_the_guest_of_that_seat() -> None:
    """🀄🀄🀄 played at 3号位 after a guest did: two people, said as two."""
    payload = {
        "session_id": "s2",
        "players": [
            {"seat": 2, "name": None, "net": 7},
            {"seat": 0, "name": "王五", "net": 4},
            {"seat": 2, "name": "🀄🀄🀄", "net": -11},
        ],
        "transfers": [{"from": 2, "to": 0, "points": 7}, {"from": 2, "to": 1, "points": 4}],
    }
    a = cashout_announcement(payload)
    assert a is not None
    assert a.text == (
        "本场结算：3号位 加7，王五 加4，3号位会员 减11；3号位会员 付 3号位 7，3号位会员 付 王五 4"
    )
