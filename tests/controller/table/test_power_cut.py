"""Power cuts at random moments, with live moves committed lazily (docs/service.md,
"Durability"): after each cut the database holds only what had been fsynced (the fsync
shim copies it at every sync), the restarted service resumes from that and from where the
readers see the tiles, and the session ends with the same settlements as one never cut.
The cuts come as a player is about to move, mid-deal, mid-turn or mid-claim, and right
after a settlement was published: none ever reached the broker before it was durable.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from controller.store import EventStore
from tests.controller.external_service import Outcome, play
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import Recorder, data_dir, recording

HANDS = 2
SEED = 5
CUTS = 5
# Every fsync takes 150 ms more (a slow SD card) and the players pause only 50 ms before
# a move, so a cut as they are about to move takes the last move shown with it.
THINK = 0.05
SLOW_SYNC = {"MJTABLE_FSYNC_DELAY_US": "150000"}


def settlements_published(rec: Recorder) -> list[dict[str, object]]:
    # (not the retained one an earlier session left at the broker)
    return [p for n, p, old in rec.messages if n == "settlement" and not old]


@pytest.mark.timeout(600)
def test_power_cut_resumes_to_the_same_settlements_and_never_publishes_unstored(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    checked: list[int] = []

    async def cut_session() -> Outcome:
        async with recording(mosquitto.port) as rec:
            settled = 0

            def right_after_a_settlement() -> bool:
                nonlocal settled
                count = len(settlements_published(rec))
                fresh, settled = count > settled, count
                return fresh

            def after_cut(data: Path) -> None:
                published = settlements_published(rec)
                store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}", migrate=False)
                try:
                    for message in published:
                        hand = store.load_hand(str(message["hand_id"]))  # or UnknownHand
                        assert hand.hand.status == "finished", message["hand_id"]
                        assert hand.settlement is not None
                        assert hand.settlement["net"] == message["net"]
                finally:
                    store.close()
                checked.append(len(published))

            work = tmp_path / "cut"
            return await play(
                work,
                data_dir(work),
                mosquitto.url,
                ruleset="xingguo",
                hands=HANDS,
                seed=SEED,
                kills=CUTS,
                rng=random.Random(11),
                power_cut=after_cut,
                cut_now=right_after_a_settlement,
                kill_after=(60.0, 90.0),
                think=THINK,
                service_env=SLOW_SYNC,
            )

    calm_work = tmp_path / "calm"
    calm = asyncio.run(
        play(
            calm_work, data_dir(calm_work), mosquitto.url, ruleset="xingguo", hands=HANDS, seed=SEED
        )
    )
    cut = asyncio.run(cut_session())
    assert cut.kills == CUTS and cut.killed_mid_hand >= 1
    assert cut.lost_events > 0  # the cuts did take unsynced moves
    assert len(checked) == CUTS and checked[-1] >= 1  # and came after settlements
    assert cut.hand_nos == calm.hand_nos == list(range(1, HANDS + 1))  # none lost or twice
    assert cut.statuses == ["finished"] * HANDS  # nothing aborted
    assert cut.nets == calm.nets
