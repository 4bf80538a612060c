"""Each player of a cash-out has one label, no two alike, and the payload and the voice
name exactly the session's people with their nets: a guest by the seat they played in,
a member by name, qualified where two would read alike."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cashout_labels import player_labels
from controller.voice.phrases import cashout_announcement
from tests.controller.table.cashout_sessions import random_session, session_cashout
from tests.controller.voice.test_voice_cashout import heard_facts


def test_a_guest_is_the_seat_and_a_member_the_name() -> None:
    assert player_labels([(1, None), (0, "王五"), (2, "李四")]) == ["2号位", "王五", "李四"]


def test_players_who_would_read_alike_are_told_apart() -> None:
    labels = player_labels(
        [(2, None), (2, "3号位"), (0, "王五"), (3, "王五"), (2, ""), (2, ""), (1, "王五")]
    )
    assert labels == [
        "3号位",
        "3号位（3号位会员）",
        "王五（1号位会员）",
        "王五（4号位会员）",
        "3号位会员",
        "3号位会员二",
        "王五（2号位会员）",
    ]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_every_view_of_a_random_session_names_its_people_with_their_nets(seed: int) -> None:
    hands, nets = random_session(random.Random(seed))
    full = session_cashout(hands)
    people = full["players"]
    keys = [f"member:{p['member_id']}" if p["member_id"] else f"seat:{p['seat']}" for p in people]
    assert sorted(keys) == sorted(k for k in nets)  # each person once
    labels = [p["label"] for p in people]
    assert len(set(labels)) == len(labels)
    for p, key in zip(people, keys, strict=True):
        assert Fraction(p["net"]).limit_denominator(4) == nets[key]
        if p["member_id"] is None:
            assert p["label"] == f"{p['seat'] + 1}号位"
    said = cashout_announcement(
        {k: full[k] for k in ("session_id", "played", "ended_at", "transfers")}
        | {"players": [{k: p[k] for k in ("seat", "name", "label", "net")} for p in people]}
    )
    if len(people) > 6:  # (the voice says six; the rest is on the display)
        return
    assert said is not None
    heard_nets, heard_pays = heard_facts(said.text)
    assert len({who for who, _ in heard_nets}) == len(people)  # each said once, none alike
    assert [n for _, n in heard_nets] == [float(p["net"]) for p in people]
    spoken = [who for who, _ in heard_nets]
    assert [(a, b, x) for a, b, x in heard_pays] == [
        (spoken[t["from"]], spoken[t["to"]], float(t["points"])) for t in full["transfers"]
    ][: len(heard_pays)]
