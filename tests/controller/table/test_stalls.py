"""The service stalls (SIGSTOP: a Pi under load, an SD card's sync) as every hand ends and
at random moments, while the virtual table plays on in this process; it then reads each
port's backlog at once, in no fixed order. No reading of one hand may stand into the next
(the last hand's discard read as this hand's draw: the soak's hang on CI), and nothing may
change what was played: every hand ends, and the service's settlements are the players'.
Also with the service at a Pi 4's and a Zero 2 W's CPU speed (a cgroup quota: pi_cpu)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from firmware_bridge.sim.readers import ReportMode
from tests.controller.external_service import play
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import data_dir

HANDS = 12
SEED = 3


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("report", "pi"),
    # the service also at a Pi's CPU speed (tests/controller/pi_cpu), with the readers
    # that cost it most (every scan)
    [("change", None), ("scan", None), ("scan", "pi4"), ("scan", "zero2w")],
)
def test_stalls_change_nothing(
    mosquitto: Mosquitto, tmp_path: Path, report: ReportMode, pi: str | None
) -> None:
    out = asyncio.run(
        play(
            tmp_path,
            data_dir(tmp_path),
            mosquitto.url,
            ruleset="xingguo",
            hands=HANDS,
            seed=SEED,
            rng=random.Random(11),
            guard=120.0,
            report=report,
            # under the players' 1 s patience: a dice press they repeat while the service
            # stands still reaches it twice, and the second rolls the next roll when the
            # same seat owes it (its values then never shown to them)
            stalls=(0.2, 0.8),
            pi=pi,
        )
    )
    assert out.stalls >= HANDS  # one as each hand ended, and more
    assert out.hand_nos == list(range(1, HANDS + 1))
    assert out.statuses == ["finished"] * HANDS
    assert out.nets == [tuple(s.net) for s in out.players]
    # each stall left the service behind its readers: it said so, and took their newest sets
    assert "behind the readers on" in (tmp_path / "service.log").read_text()
