"""``mjtable demo --readers none --players phones``: the bots' results reach the service
through the players' API over HTTP (join, the dealer's dice and 精, the claim, the paying
seats' confirmations), over a real Mosquitto; each published settlement is the one
``mjtable settle`` gives on the request the hand keeps, marked as entered by players."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from controller.cli.settle import settle_data
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import TOPICS
from tests.controller.sim.test_demo_without_readers import HANDS, _play_and_listen


def test_the_demo_with_phones_settles_its_hands_through_the_players_api(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code, output, seen = asyncio.run(
        _play_and_listen(mosquitto, data, "--players", "phones", "--between-hands", "0.2")
    )
    assert code == 0, output
    settled = {p["hand_id"]: p for t, p in seen if t == TOPICS.topic("settlement") and p}
    assert len(settled) == HANDS, output
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        hands = store.list_hands(status="finished", limit=100)
        assert len(hands) == HANDS
        for record in hands:
            events = store.load_hand(record.id).event_dicts()
            kinds = [e["type"] for e in events]
            assert "claim_made" in kinds and "claim_answered" in kinds, kinds
            act = next(e for e in events if e["type"] == "finished_by_staff")
            assert act["role"] == "player" and ":phone:" in act["by"]
            published = settled[record.id]
            assert published["lines"] == settle_data(act["request"])["lines"]
            assert published["notes"][-1].startswith("玩家录入")
    finally:
        store.close()
    public = [p["event"] for t, p in seen if t == TOPICS.topic("events")]
    claims = [e for e in public if e["type"] in ("claim_made", "claim_answered")]
    assert claims and all("request" not in e and "jing" not in e for e in claims)


def test_phones_are_refused_without_readers_none() -> None:
    from typer.testing import CliRunner

    from controller.cli.demo import cli

    got = CliRunner().invoke(cli, ["--players", "phones"])
    assert got.exit_code == 2 and "--players" in got.output


@pytest.mark.parametrize("ruleset", ["lianhua", "yongfeng"])
def test_the_demo_with_phones_plays_a_hidden_or_later_jing_and_never_publishes_the_hidden(
    ruleset: str, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """lianhua's 暗精 and yongfeng's 下精 come with the claim (the result): the hands
    settle, and the 暗精 is on no public topic (only the hub's hand log)."""
    data = tmp_path / "data"
    code, output, seen = asyncio.run(
        _play_and_listen(mosquitto, data, "--players", "phones", "--ruleset", ruleset)
    )
    assert code == 0, output
    settled = {p["hand_id"]: p for t, p in seen if t == TOPICS.topic("settlement") and p}
    assert len(settled) == HANDS, output
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        entered = []
        for record in store.list_hands(status="finished", limit=100):
            events = store.load_hand(record.id).event_dicts()
            act = next(e for e in events if e["type"] == "finished_by_staff")
            assert act["role"] == "player"
            assert settled[record.id]["lines"] == settle_data(act["request"])["lines"]
            key = "an_indicator" if ruleset == "lianhua" else "xia_indicator"
            entered.append(act["request"].get(key))
    finally:
        store.close()
    assert any(entered), entered  # (a hand that needed it had it entered with the claim)
    if ruleset == "lianhua":
        # (the handlog is the hub's, concealed hands and all: no display may read it)
        carrying = {t for t, p in seen if '"an_indicator"' in json.dumps(p)}
        assert carrying <= {TOPICS.topic("handlog")}, carrying


def test_the_demo_with_phones_settles_a_joined_claim_of_several_winners(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """guangdong pays every winner of a discard; seed 3's first hand has several: the
    first winner claims, each other joins with its own hand, the discarder confirms, and
    each seat that could have won on a discard too says 没胡 (the claim waits for it)."""
    data = tmp_path / "data"
    extra = ("--players", "phones", "--ruleset", "guangdong", "--seed", "3")
    code, output, seen = asyncio.run(_play_and_listen(mosquitto, data, *extra))
    assert code == 0, output
    settled = {p["hand_id"]: p for t, p in seen if t == TOPICS.topic("settlement") and p}
    assert len(settled) == HANDS, output
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        joined = passed = 0
        for record in store.list_hands(status="finished", limit=100):
            events = store.load_hand(record.id).event_dicts()
            act = next(e for e in events if e["type"] == "finished_by_staff")
            assert settled[record.id]["lines"] == settle_data(act["request"])["lines"]
            if any(e["type"] == "claim_joined" for e in events):
                joined += 1
                assert len(act["winners"]) > 1
            passes = [e for e in events if e["type"] == "claim_passed"]
            assert all(":phone:" in e["by"] and "没胡" in act["reason"] for e in passes)
            passed += len(passes)
        assert joined and passed
    finally:
        store.close()


def test_the_demos_phones_claim_several_winners_of_one_discard_each_its_own() -> None:
    import random

    from controller.sim.demo_phones import claim_bodies
    from engine.round.staff import result_of
    from engine.simulation import play_session

    played = play_session("guangdong", 200, random.Random(3))
    result = next(r for r in played if len(r.state.wins) > 1)
    body = result_of(result.state)
    claims = claim_bodies(body)
    seats = [w["seat"] for w in body["winners"]]
    assert [c["seat"] for c in claims] == seats
    assert all("winners" not in c and isinstance(c["win"]["from"], int) for c in claims)


def test_the_demos_phones_claim_a_robbed_kong_with_whom_the_pung_came_from() -> None:
    from controller.sim.demo_phones import claim_bodies

    pung = {"type": "pung", "tiles": "PPP", "from": 2, "claimed": "P"}
    seats = [{"seat": s, "hand": "", "melds": [pung] if s == 0 else []} for s in range(4)]
    win = {"seat": 3, "hand": "123m456m789m11pP", "melds": [], "tile": "P", "from": "rob_kong:0"}
    (claim,) = claim_bodies({"winners": [win], "seats": seats})
    assert claim["win"]["from"] == "rob_kong:0" and claim["win"]["robbed_from"] == 2
    seats[0]["melds"] = []  # (a pung not known: claimed as the robbed seat's discard)
    (claim,) = claim_bodies({"winners": [win], "seats": seats})
    assert claim["win"]["from"] == 0 and "robbed_from" not in claim["win"]
