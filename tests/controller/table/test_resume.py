"""kill -9 the service at random moments while the virtual table plays on in another
process (this one): each restart resumes the session and the hand in progress from the
store, takes the table's current inventories as they are, and carries on. The session
must end with the same settlements as a run that was never interrupted (same seeds), no
hand lost, none doubled, and every stored hand's log must re-fold to its settlement.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from tests.controller.external_service import Outcome, play
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import data_dir

HANDS = 3
SEED = 5
KILLS = 4


@pytest.mark.timeout(600)
def test_kill_9_mid_hand_resumes_to_the_same_settlements(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    def session(name: str, kills: int) -> Outcome:
        work = tmp_path / name
        return asyncio.run(
            play(
                work,
                data_dir(work),
                mosquitto.url,
                ruleset="xingguo",
                hands=HANDS,
                seed=SEED,
                kills=kills,
                rng=random.Random(7),
            )
        )

    calm = session("calm", 0)
    killed = session("killed", KILLS)
    assert calm.hand_nos == killed.hand_nos == list(range(1, HANDS + 1))  # none lost or twice
    assert killed.statuses == ["finished"] * HANDS  # nothing aborted
    assert killed.kills == KILLS and killed.killed_mid_hand >= 1
    assert killed.nets == calm.nets
    assert [s.net for s in killed.players] == [s.net for s in calm.players]
