"""A table whose board reports no lift order (no wall reader): the service starts each hand
with the wall order unknown, learns tiles as the readers see them, identifies the flipped
精 from the jing spot, and settles exactly as the players' own round (which knows the walls).
Real parts: the virtual table on ptys, the service, a real Mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.runtime import running
from engine.round.events import JingFlipped, Shuffled
from engine.tiles import kind_name, kind_of
from tests.controller.mosquitto import Mosquitto
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

HANDS = 2


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("ruleset", "seed"), [("xingguo", 5), ("chongji", 6)])
def test_hands_without_a_lift_order(
    mosquitto: Mosquitto, tmp_path: Path, ruleset: str, seed: int
) -> None:
    config = config_for(data_dir(tmp_path), ruleset, mosquitto.url)
    opts = options(seed, HANDS)
    opts.sim["lift_reader"] = False

    async def main() -> None:
        async with recording(mosquitto.port) as rec:
            async with running(config, opts) as run:
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * HANDS)
                await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
                assert run.players is not None
                shadow = [s.settlement for s in run.players.finished]
                hands = finished_hands(run.store)

            def shown(hand_id: str) -> str | None:
                """The 精 the hand's last jing message shows (none before the flip)."""
                said = [j.get("indicator") for j in rec.of("jing") if j["hand_id"] == hand_id]
                return said[-1] if said else None

            # (a hand's jing is published at its start and at its flip: each hand's flip
            # waited for, not a count of messages)
            await until(lambda: all(shown(h.hand.id) for h in hands), "the jing of every hand")

        assert len(hands) == HANDS
        for n, stored in enumerate(hands):
            events = log_of(stored)
            shuffled = next(e for e in events if isinstance(e, Shuffled))
            assert shuffled.order is None  # the service never knew the walls
            state = refold(stored)
            assert state.settlement is not None and shadow[n] == state.settlement
            flips = [e for e in events if isinstance(e, JingFlipped)]
            assert flips and all(f.tile is not None for f in flips)  # read off the jing spot
            assert shown(stored.hand.id) == kind_name(kind_of(flips[0].tile))

    asyncio.run(main())
