"""Alerts on public channels name no tile and no tag (docs/design.md, "One projection
for what the public may see").

Hands played on the tracker harness with injected faults: a hand tile unread (少牌), a tile
taken out of turn (相公: it would name the wall's next tile), a neighbour's antenna reading
a hand tile (crosstalk), unknown and fifth-copy tags, a false 胡, random misreads. Every
alert goes the service's way (store + outbox + live hub); every MQTT payload stored in the
outbox and every SSE line the live hub would send is searched for a tile's name, a tile id
or a tag UID. The private detail does name them, and is kept in the store for the owner.
"""

from __future__ import annotations

import ast
import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from controller.store import EventStore
from controller.table.alerts import AlertKind
from controller.table.tags import TagProblem
from controller.web.live import LiveHub
from engine.tiles import KIND_LABELS, kind_name, kind_of
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import TileSet
from tests.controller.alert_helpers import HAND_ID, alert_table
from tests.controller.external_service import play
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import data_dir, recording, until
from tests.controller.tracking.test_tracker import GRACE, UIDS, Table, discards, hand

ROOT = Path(__file__).resolve().parents[3]
NAMES = [kind_name(k) for k in range(34)]
# A tile's name as a word of its own (so "Check" in English advice is not "C").
TILE_WORD = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(NAMES) + r")(?![A-Za-z0-9])")
STRANGER = b"\xe0\x04\x00\x00\x00\x00\x00\x01"
FIFTH = b"\xe0\x04\x99\x99\x99\x99\x99\x99"


class Recorder:
    """The live hub, recording the SSE text of every message it fans out."""

    def __init__(self) -> None:
        self.hub = LiveHub()
        self.sse: list[str] = []

    def publish(self, topic: str, payload: Any) -> object:
        message = self.hub.publish(topic, payload)
        self.sse.append(message.sse())
        return message


def _leaks(text: str) -> list[str]:
    found = TILE_WORD.findall(text)
    found += re.findall(r"tile \d+|第\d+号牌", text)
    found += [uid.hex() for uid in (*UIDS, STRANGER, FIFTH) if uid.hex() in text]
    return found


def _play(t: Table, rng: random.Random) -> None:
    """A hand with three leaks to avoid (a hand tile unread, a tile taken out of turn, a
    neighbour's antenna reading a hand tile), then moves mixed with misreads."""
    t.to_play()
    st = t.state
    assert st.wall is not None
    t.tag_out(hand(2), st.hands[2][0])  # seat 2's tile unread past the grace time
    t.wait(GRACE + 1)
    t.tag_in(hand(2), st.hands[2][0])
    head = st.wall.peek_head()
    assert head is not None and head.tile is not None
    t.move(head.tile, None, hand(2))  # seat 2 takes the next wall tile out of turn: 相公
    t.wait(GRACE + 1)
    t.tag_out(hand(2), head.tile)
    t.tag_in(discards(3), st.hands[2][1])  # seat 3's antenna reads seat 2's tile
    t.wait(GRACE + 1)
    t.tag_out(discards(3), st.hands[2][1])
    t.tracker.observe(TagIn(discards(1), STRANGER, t.now), t.at())
    t.tracker.observe(TagIn(hand(3), FIFTH, t.now), t.at())
    t.press(0, SeatButton.WIN)  # the dealer's fourteen are no win: 诈胡
    for _ in range(40):  # discards, draws, and a misread now and then
        st = t.state
        if st.wall is None or st.wall.is_exhausted or st.phase.value not in ("turn", "claim"):
            break
        if st.phase.value == "turn":
            tile = rng.choice(st.hands[st.turn])
            t.move(tile, hand(st.turn), discards(st.turn))
        else:
            nxt = st.wall.peek_head()
            assert nxt is not None and nxt.tile is not None
            t.move(nxt.tile, None, hand((st.turn + 1) % 4))
        if rng.random() < 0.3:
            seat = rng.randrange(4)
            held = t.state.hands[seat]
            if held:
                t.tag_in(Zone(ZoneKind.DISCARDS, (seat + 1) % 4), rng.choice(held))
                t.wait(GRACE + 0.5)
                t.tag_out(Zone(ZoneKind.DISCARDS, (seat + 1) % 4), held[0])
        t.wait(0.3)


@pytest.mark.parametrize("seed", range(4))
def test_no_public_alert_names_a_tile_or_a_tag(tmp_path: Path, seed: int) -> None:
    registry = TileSet(0, KIND_LABELS).registry()
    registry.add(FIFTH, "5m", 4)
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    live = Recorder()
    # window 0: every alert goes out at once, so every one is searched
    t, _ = alert_table(store, registry, live=live, window=0.0, wall_seed=seed + 1)
    _play(t, random.Random(seed))

    kinds = {a.kind for a in t.alerts}
    for k in (AlertKind.TILE_MISSING, AlertKind.XIANGGONG, AlertKind.DUPLICATE_TAG):
        assert k in kinds
    assert {AlertKind.UNKNOWN_TAG, AlertKind.FIFTH_COPY, AlertKind.FALSE_WIN} <= kinds

    outbox = store.outbox_peek(100_000)
    mqtt = [e.payload for e in outbox]  # the alerts and the flat topics they move
    alerts = [e.payload for e in outbox if e.topic.endswith("/alerts")]
    assert len(alerts) == len(t.alerts) and len(live.sse) == len(t.alerts)
    for text in mqtt + live.sse:
        assert _leaks(text) == [], text
    for text in alerts:  # the public form: which seat, what went wrong, what to do
        said = json.loads(text)
        assert set(said) <= {"kind", "seat", "message", "title", "advice", "hand_id", "repeats"}
        assert said["advice"]["zh"] and said["title"]["zh"]
    # The detail is where the owner finds which tile it was.
    kept = store.alerts_of(HAND_ID)
    assert len(kept) == len(t.alerts)
    assert all(_leaks(a.message) == [] for a in kept)
    assert any(re.search(r"第\d+号牌", a.detail) for a in kept)
    store.close()


def test_a_missing_tile_and_a_wrong_count_say_seat_and_problem_only() -> None:
    t = Table()
    t.to_play()
    tile = t.state.hands[2][0]
    t.tag_out(hand(2), tile)
    t.wait(GRACE + 1)
    said = {a.kind: a for a in t.alerts}
    # seat 2 is the third seat, 3号位 on its sticker; the zone keeps the config's name
    assert said[AlertKind.TILE_MISSING].public.message == "3号位少一张牌（3号位手牌没读到）"
    count = said[AlertKind.XIANGGONG].public.message
    assert count == "相公：3号位手里有12张牌，应有13张（少1张）"
    detail = said[AlertKind.TILE_MISSING].detail
    assert f"（第{tile}号牌）在3号位手牌没读到" in detail and kind_name(kind_of(tile)) in detail


@pytest.mark.parametrize(
    "leaked",
    [
        "2s (tile 77) is not read in hand:2",
        "相公：2号位手里有14张牌，应有13张 多: 2m",
        "1m (tile 0) is read in hand:2, discards:3",
        f"tag {STRANGER.hex()} in discards:1: not enrolled",
    ],
)
def test_the_search_finds_what_the_old_messages_said(leaked: str) -> None:
    assert _leaks(leaked)


@pytest.mark.timeout(600)
def test_a_service_with_misreading_readers_publishes_no_tile_in_an_alert(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """``mjtable run`` on the virtual table with readers that miss tags, and a grace time
    short enough that the misses become alerts: every MQTT message is recorded, every
    alert searched."""

    async def main() -> list[tuple[str, Any, bool]]:
        async with recording(mosquitto.port) as rec:
            await play(
                tmp_path,
                data_dir(tmp_path),
                mosquitto.url,
                ruleset="xingguo",
                hands=2,
                seed=5,
                guard=300.0,
                misread_rate=0.3,
                grace=0.02,
            )
            await until(lambda: len(rec.of("handlog")) >= 2, "the hand logs", 60.0)
            return list(rec.messages)

    messages = asyncio.run(main())
    alerts = [json.dumps(p, ensure_ascii=False) for name, p, _ in messages if name == "alerts"]
    assert alerts, "the misreads raised no alert: nothing was searched"
    for text in alerts:
        assert _leaks(text) == [], text


def test_the_live_hub_drops_an_alert_detail_whoever_sends_it() -> None:
    hub = LiveHub()
    hub.publish("alerts", {"kind": "tile_missing", "seat": 2, "message": "m", "detail": "2s"})
    (shown,) = hub.snapshot()["alerts"]
    assert "detail" not in shown and shown["message"] == "m"


def test_every_tag_problem_is_an_alert_kind() -> None:
    assert {p.value for p in TagProblem} <= {k.value for k in AlertKind}


PUBLIC_CODE = (
    "controller/table/publication.py",
    "controller/web/live.py",
    "controller/web/public.py",
    "controller/table/display.py",
    "controller/table/dealer_guide.py",
    "controller/mqtt/topics.py",
)


@pytest.mark.parametrize("path", PUBLIC_CODE)
def test_code_that_publishes_never_reads_an_alert_detail(path: str) -> None:
    """Structural: the code that builds public payloads takes ``PublicAlert`` and has no
    ``.detail`` to read (the live hub drops the key by name, it never reads it)."""
    tree = ast.parse((ROOT / path).read_text())
    reads = [
        n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "detail"
    ]
    assert reads == [], f"{path} reads .detail at lines {reads}"


def test_words_for_people_number_seats_as_their_stickers() -> None:
    """Seat 0 is 1号位 in an alert and in the table display's roll prompt, as on the pages
    (never 0号位, which no seat's sticker says)."""
    from controller.table.alerts import PublicAlert
    from controller.table.dealer_guide import short_text

    assert PublicAlert(AlertKind.FALSE_WIN, 0).message == "诈胡：1号位"
    assert PublicAlert(AlertKind.REFUSED, 3).message.startswith("4号位")
    assert short_text({"step": "wait", "roller": 0}) == "请1号位掷骰"
