"""Public topics carry only what the table shows openly (docs/design.md): 100 hands of lianhua
(the ruleset with a secret 暗精) through the whole service, every message a subscriber gets
checked against the stored log.

Before a hand is over no message may name a concealed tile, the wall order or the 暗精:
every tile an event names is face up once that event has happened (a discard, a meld
other than a concealed kong, the flipped 精, a winning tile), every ``hand`` message is
the engine's public projection of the log so far, and the settlement, scores and hand
log come only after the hand's last event. The flat display topics (docs/displays.md)
carry, each time, exactly what the public ``hand`` and ``scores`` messages before them say.
A hand's dice seed reaches no topic (JSON or flat) before its ``dice_seed_revealed``, which
follows its settlement; its commitment is on the flat topics before its wall is.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.flat import CONTRACT_VERSION, NO_ALERT, from_hand, from_scores
from engine.hand import MeldType
from engine.round.events import (
    DiceCommitted,
    DiceSeedRevealed,
    Event,
    Exhausted,
    JingFlipped,
    Settled,
    Shuffled,
    WinDeclared,
)
from engine.round.fold import evolve
from engine.round.narration import texts
from engine.round.projection import public_view
from engine.round.state import RoundState
from engine.tiles import kind_name, kind_of
from tests.controller.external_service import play
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import data_dir, log_of, recording, until

HANDS = int(os.environ.get("MJTABLE_LEAK_HANDS", "100"))
SECRET_KEYS = {"order", "under_tile", "wall", "hands", "concealed", "declined_win"}
JING_KEYS = {"hand_id", "indicator", "zheng_jing", "fu_jing", "caishen"}
DICE_KEYS = {"hand_id", "seat", "purpose", "a", "b"}
HEX64 = re.compile(r"[0-9a-f]{64}")


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        out = set(value)
        for v in value.values():
            out |= _keys(v)
        return out
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value)) if value else set()
    return set()


def _face_up(state: RoundState) -> set[int]:
    up: set[int] = set()
    for s in range(4):
        up.update(state.discards[s])
        for m in state.melds[s]:
            if m.type is not MeldType.KONG_CONCEALED:
                up.update(m.tiles)
    wall = state.wall
    if wall is not None:
        for f in (wall.flip, wall.xia_jing):
            if f is not None and f.tile is not None:
                up.add(f.tile)
    up.update(w.tile for w in state.wins)
    return up


def _tiles_named(event: dict[str, Any]) -> set[int]:
    out: set[int] = set()
    for key in ("tile", "tiles"):
        v = event.get(key)
        if isinstance(v, int):
            out.add(v)
        elif isinstance(v, list):
            out.update(t for t in v if isinstance(t, int))
    return out


class HandFacts:
    """A stored hand replayed: the public view and face-up tiles after each event."""

    def __init__(self, hand_id: str, log: list[Event]) -> None:
        self.hand_id = hand_id
        self.log = log
        state = RoundState(log[0])  # type: ignore[arg-type]
        self.views: list[dict[str, Any]] = []
        self.face_up: list[set[int]] = []
        self.over_at = len(log) - 1  # the first event that ends the hand
        for seq, event in enumerate(log):
            if seq:
                evolve(state, event)
            self.views.append(public_view(state) | {"hand_id": hand_id})
            self.face_up.append(_face_up(state))
            if isinstance(event, WinDeclared | Exhausted) and self.over_at == len(log) - 1:
                self.over_at = seq
        shuffled = next(e for e in log if isinstance(e, Shuffled))
        assert shuffled.order is not None
        self.order_text = json.dumps(list(shuffled.order[:12]))[1:-1]
        flip = next(e for e in log if isinstance(e, JingFlipped) and e.purpose == "jing")
        self.indicator_kind = kind_of(flip.tile)
        self.under = flip.under_tile
        self.commit = next(e for e in log if isinstance(e, DiceCommitted))
        kinds = [type(e) for e in log]
        self.revealed_at = kinds.index(DiceSeedRevealed)
        assert kinds.index(Settled) < self.revealed_at  # the seed only after the settlement


@pytest.mark.timeout(1800)
def test_no_secret_reaches_a_public_topic(mosquitto: Mosquitto, tmp_path: Path) -> None:
    async def main() -> tuple[list[tuple[str, Any, bool]], list[HandFacts]]:
        async with recording(mosquitto.port) as rec:
            outcome = await play(
                tmp_path,
                data_dir(tmp_path),
                mosquitto.url,
                ruleset="lianhua",
                hands=HANDS,
                seed=21,
                guard=20.0 * HANDS,
                scan_interval=0.02,  # light enough on the service that MQTT keeps pace
            )
            # at least once: with no hub acking, the service may send a hand log again
            await until(
                lambda: len({p["hand_id"] for p in rec.of("handlog")}) == HANDS,
                "every hand log",
                120.0,
            )
            facts = [HandFacts(h.hand.id, log_of(h)) for h in outcome.hands]
            return list(rec.messages), facts

    messages, facts = asyncio.run(main())
    assert len(facts) == HANDS
    by_id = {f.hand_id: f for f in facts}
    seen_seq: dict[str, int] = {}  # the latest event seq a subscriber has got, per hand
    flat: dict[str, str] = {"flat/contract": str(CONTRACT_VERSION)}  # what the JSON says
    flat_seen = 0
    secret_seeds = {f.commit.seed: f.hand_id for f in facts}  # until a subscriber is told
    held: dict[str, str] = {}  # what a display holds
    for name, payload, _retained in messages:
        if name == "status":
            continue
        if name == "events" and payload["event"]["type"] == DiceSeedRevealed.type:
            f = by_id[payload["hand_id"]]
            assert payload["seq"] == f.revealed_at  # (after the settlement: HandFacts)
            secret_seeds.pop(f.commit.seed, None)  # public from here on
        said = payload if isinstance(payload, str) else json.dumps(payload)
        early = set(HEX64.findall(said)) & set(secret_seeds)
        assert not early, f"{name} carries the dice seed of {secret_seeds[early.pop()]} early"
        if name.startswith("flat/"):
            assert payload == flat.get(name), (name, payload)
            held[name] = payload
            flat_seen += 1
            continue
        if name == "scores":
            assert set(payload) == {"session_id", "hand_no", "totals"}
            flat |= from_scores(payload)
            continue
        if name == "seats":  # names only; nobody sat down in this run
            assert payload == {"seats": [None, None, None, None]}, payload
            continue
        if name == "house_rules_ack":  # for the hub's account only: no hand in it
            keys = {"format", "version", "name", "assigned", "applied", "problem"}
            assert set(payload) == keys | {"software"}
            continue
        if name == "members":  # the registry, for the hub's account only: no card tags
            assert set(payload) == {"format", "version", "members", "removed"}
            continue
        if name == "cashout":  # (a session's first result takes the last one off: {})
            public = {"session_id", "played", "ended_at", "players", "transfers"}
            assert payload == {} or set(payload) == public, payload
            assert not {"money", "member_id", "fee"} & _keys(payload), payload
            continue
        if name == "handlog":
            f = by_id[payload["hand_id"]]
            assert seen_seq.get(f.hand_id) == len(f.log) - 1, "hand log before the end"
            continue
        assert isinstance(payload, dict)
        f = by_id[payload["hand_id"]]
        text = json.dumps(payload)
        assert not (_keys(payload) & SECRET_KEYS), (name, payload)
        assert f.order_text not in text, f"{name} carries the wall order"
        if name == "events":
            seq, event = payload["seq"], payload["event"]
            seen_seq[f.hand_id] = seq
            if event["type"] == Shuffled.type and f.commit.before_walls:
                # a display shows the commitment before the wall it is to prove anything of
                assert held.get("flat/dice_commitment") == f.commit.commitment, f.hand_id
            assert event == f.log[seq].public_dict()
            # the words a display shows and a loudspeaker says: the public ones
            assert payload["text"] == texts(f.log[seq], public=True)
            if seq < f.over_at:
                hidden = _tiles_named(event) - f.face_up[seq]
                assert not hidden, f"{event} names concealed tiles {hidden}"
        elif name == "hand":
            # the projection of the log as far as the subscriber has been told
            assert payload == f.views[seen_seq[f.hand_id]]
            flat |= NO_ALERT | from_hand(payload)  # (a clean run has no alert to show)
        elif name == "jing":
            assert set(payload) <= JING_KEYS
            if "indicator" in payload:  # the flipped tile, never the 暗精 under it
                assert payload["indicator"] == kind_name(f.indicator_kind)
        elif name == "dice":
            assert set(payload) == DICE_KEYS
        elif name == "settlement":
            assert seen_seq[f.hand_id] == len(f.log) - 1, "settlement before the hand's end"
        elif name == "alerts":
            raise AssertionError(f"an alert in a clean run: {payload}")
        else:
            raise AssertionError(f"unexpected topic {name}")
    assert set(seen_seq) == set(by_id)
    assert flat_seen > 30 * HANDS
