"""The service takes its tracker timings from the config's ``[tracker]`` (unless the caller
passes its own): the tracker's grace, claim timeout, button and meld times, the readers'
silence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.config import TrackerSettings
from controller.runtime import RunOptions, running
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import config_for, data_dir

pytestmark = pytest.mark.timeout(60)


def test_the_tracker_follows_the_config(tmp_path: Path, mosquitto: Mosquitto) -> None:
    timings = {"grace": 1.25, "claim_timeout": None, "button_ttl": 7.0, "reader_silent_after": 9}
    timings |= {"meld_settle": 2.0}
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url, tracker=timings)
    own = TrackerSettings(grace=0.5)

    async def main() -> None:
        async with running(config, RunOptions(seed=3, hands=1)) as run:
            assert run.tracker.settings == TrackerSettings(
                grace=1.25,
                claim_timeout=None,
                button_ttl=7.0,
                meld_settle=2.0,
                reader_silent_after=9,
            )
            assert run.bridge.silent_after == 9.0
        async with running(config, RunOptions(seed=3, hands=1, tracker=own)) as run:
            assert run.tracker.settings is own

    asyncio.run(main())
