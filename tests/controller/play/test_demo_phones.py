"""``mjtable demo --readers none --players phones``: the bots' results reach the service
through the players' API over HTTP (join, the dealer's dice and 精, the claim, the paying
seats' confirmations), over a real Mosquitto; each published settlement is the one
``mjtable settle`` gives on the request the hand keeps, marked as entered by players."""

from __future__ import annotations

import asyncio
from pathlib import Path

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
