"""A table whose store was lost gets its hands back from the hub: a real run's store
(hands acknowledged by the hub on PostgreSQL) zeroed or stripped of its WAL; at the next
start the table asks, the hub sends that table's hands, and they are stored under their
session before the table opens one (a virtual table then starts a new session: its tiles are
not where the old one left them), so that session's totals are whole again."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
from pathlib import Path

import pytest

from controller.hub.service import HubIngest
from controller.runtime import running
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, settings
from tests.controller.service_helpers import (
    config_for,
    data_dir,
    finished_hands,
    options,
    until,
)

DB = "mjtable.db"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("damage", ["zeroed", "lost"])
def test_lost_hands_come_back_from_the_hub(
    mosquitto: Mosquitto, hub_store: EventStore, tmp_path: Path, damage: str
) -> None:
    data = data_dir(tmp_path)
    config = config_for(data, "xingguo", mosquitto.url)

    async def main() -> tuple[list[str], list[str], list[float]]:
        hub = HubIngest(hub_store, settings(mosquitto.url), parlour="demo")
        hub_task = asyncio.create_task(hub.run())
        await guarded(hub.connected.wait(), "the hub connected")
        try:
            async with running(config, options(61, 2)) as run:
                await asyncio.wait_for(run.service.run(asyncio.Event()), 120)
                played = [h.hand.id for h in finished_hands(run.store)]
                totals = list(run.keeper.session.totals)
                first_session = run.keeper.session_id
                await until(lambda: not run.store.unacked_handlogs(), "the hub's acks")
            for name in (DB, f"{DB}-wal", f"{DB}-shm"):
                (data / name).unlink(missing_ok=True)
            if damage == "zeroed":
                (data / DB).write_bytes(b"\0" * 65536)
            # "lost": no file at all; the broker still holds the last settlement retained
            resumed = dataclasses.replace(options(62, 3), fresh_session=False)
            async with running(config, resumed) as run:
                restored = finished_hands(run.store)
                back = [h.hand.id for h in restored]
                assert {h.hand.session_id for h in restored} == {first_session}
                totals_after = [sum(h.hand.net[seat] for h in restored) for seat in range(4)]
        finally:
            hub.stop()
            await guarded(hub_task, "the hub to stop")
        assert totals_after == totals
        return played, back, [float(t) for t in totals]

    played, back, _ = asyncio.run(main())
    assert back == played
    if damage == "zeroed":
        assert any(".damaged-" in n for n in os.listdir(data))
    shutil.rmtree(data, ignore_errors=True)
