"""The full loop over real parts: the virtual table on ptys, four bot players, the service
(tracker, store, outbox publisher) and a real Mosquitto with a subscriber, hand after hand.

Every stored hand is folded again with the pure engine: its settlement must be the one
the rules give, the one stored, the one published and the one the players worked out on
their own round.
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from controller.runtime import running
from controller.table import service as service_module
from engine.settlement.ledger import plain
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import OFFLINE, retained_state
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    recording,
    refold,
    until,
)

HANDS = 3


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("ruleset", "seed"), [("xingguo", 11), ("guangdong", 12)])
def test_hands_end_to_end(mosquitto: Mosquitto, tmp_path: Path, ruleset: str, seed: int) -> None:
    config = config_for(data_dir(tmp_path), ruleset, mosquitto.url)

    async def main() -> None:
        async with recording(mosquitto.port) as rec:
            async with running(config, options(seed, HANDS)) as run:
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * HANDS)
                await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
                players = run.players
                assert players is not None
                shadow = [s.settlement for s in players.finished]
                hands = finished_hands(run.store)
            await until(
                lambda: len(rec.of("settlement")) == HANDS, "every settlement at the subscriber"
            )
            retained = await retained_state(mosquitto.port)

        assert len(hands) == HANDS
        totals = [0, 0, 0, 0]
        published = {p["hand_id"]: p for p in rec.of("settlement")}
        for n, stored in enumerate(hands):
            state = refold(stored)  # the pure engine agrees with the recorded settlement
            assert state.settlement is not None
            assert stored.hand.hand_no == n + 1
            assert stored.settlement == state.settlement.as_dict()
            assert published[stored.hand.id] == state.settlement.as_dict() | {
                "hand_id": stored.hand.id
            }
            assert shadow[n] == state.settlement  # the players' own round says the same
            totals = [a + plain(b) for a, b in zip(totals, state.settlement.net, strict=True)]

            # every event once on MQTT, in its public form, with hand id and seq
            sent = [e for e in rec.of("events") if e["hand_id"] == stored.hand.id]
            assert [e["seq"] for e in sent] == list(range(len(stored.events)))
            assert [e["event"] for e in sent] == [ev.public_dict() for ev in log_of(stored)]

        assert [s["totals"] for s in rec.of("scores")][-1] == totals
        last = hands[-1].hand.id
        assert retained["status"] == OFFLINE  # the service has stopped
        assert retained["scores"]["totals"] == totals
        assert retained["settlement"]["hand_id"] == last
        assert retained["hand"]["hand_id"] == last and retained["hand"]["phase"] == "done"
        assert retained["jing"]["hand_id"] == last
        if ruleset == "xingguo":
            assert {"indicator", "zheng_jing", "fu_jing"} <= set(retained["jing"])

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_full_gc_passes_run_between_hands(mosquitto: Mosquitto, tmp_path: Path) -> None:
    # After a settled hand, while the table shuffles, the service runs the collector's full
    # pass and freezes the survivors (controller.process.gc_pauses), so none lands mid-hand.
    config = config_for(data_dir(tmp_path), "guangdong", mosquitto.url)
    passes: list[float] = []

    opts = options(4, 2)
    opts.sim["shuffle_time"] = 0.5  # a table takes its time to shuffle (a real one, ~20 s)

    async def main() -> None:
        async with running(config, opts) as run:
            service = run.service
            original = service_module.collect_and_freeze

            def counted() -> float:
                assert not run.keeper.playing  # between hands only (walls not up)
                passes.append(original())
                return passes[-1]

            service_module.collect_and_freeze = counted
            try:
                await asyncio.wait_for(service.run(asyncio.Event()), GUARD * 2)
            finally:
                service_module.collect_and_freeze = original
            assert gc.get_freeze_count() > 0

    asyncio.run(main())
    assert passes  # after the first hand at least (the last one may end the run first)
