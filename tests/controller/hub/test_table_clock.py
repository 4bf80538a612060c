"""A Pi's wall clock decides nothing: the real service (``mjtable run``, its wall clock
moved by an LD_PRELOAD shim) starts at 1970-01-02 as a Pi before NTP does, jumps to now
when "NTP answers", and is moved back 3 days in the middle of a hand. Every hand reaches
the hub (PostgreSQL), none quarantined, each time kept as the table said with the clock
flagged, and the owner's list is in the table's own order."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path

import pytest

from controller.hub.service import HubIngest
from controller.store import EventStore
from controller.store.tables import quarantined, table_hands
from tests.controller.clock_shim import ShiftedClock
from tests.controller.external_service import play
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, settings
from tests.controller.service_helpers import data_dir, until

HANDS = 6
DAY = 86400


def _table_now(data: Path) -> tuple[int, int]:
    """(finished hands, the open hand's number or 0) in the table's store."""
    path = data / "mjtable.db"
    if not path.exists():
        return 0, 0
    with contextlib.closing(sqlite3.connect(path, timeout=5)) as db:
        try:
            done = db.execute("SELECT count(*) FROM hands WHERE status='finished'").fetchone()
            open_ = db.execute("SELECT max(hand_no) FROM hands WHERE status='open'").fetchone()
        except sqlite3.OperationalError:  # not migrated yet
            return 0, 0
    return int(done[0]), int(open_[0] or 0)


async def _move_the_clock(clock: ShiftedClock, data: Path, moves: list[str]) -> None:
    """1970 until two hands are done; now from then on; 3 days back once hand 5 starts."""
    while True:
        finished, playing = _table_now(data)
        if finished >= 2 and not moves:
            clock.set(0)
            moves.append(f"to now after hand {finished}")
        if playing == 5 and len(moves) == 1:
            clock.set(-3 * DAY)
            moves.append("3 days back in hand 5")
        await asyncio.sleep(0.01)


@pytest.mark.timeout(600)
def test_every_hand_reaches_the_hub_in_table_order_whatever_the_wall_clock_said(
    mosquitto: Mosquitto, hub_store: EventStore, tmp_path: Path
) -> None:
    data = data_dir(tmp_path)
    clock = ShiftedClock(tmp_path / "clock-offset", DAY - int(time.time()))  # 1970-01-02

    async def main() -> None:
        hub = HubIngest(hub_store, settings(mosquitto.url), parlour="demo")
        hub_task = asyncio.create_task(hub.run())
        await guarded(hub.connected.wait(), "the hub connected")
        moves: list[str] = []
        mover = asyncio.create_task(_move_the_clock(clock, data, moves))
        try:
            outcome = await play(
                tmp_path / "work",
                data,
                mosquitto.url,
                ruleset="xingguo",
                hands=HANDS,
                seed=34,
                service_env=clock.environment(),
            )
        finally:
            mover.cancel()
        assert moves == ["to now after hand 2", "3 days back in hand 5"]
        assert len(outcome.hands) == HANDS
        await until(
            lambda: len(table_hands(hub_store, "t1", default_table="t1")) == HANDS,
            "every hand at the hub",
        )
        hub.stop()
        await guarded(hub_task, "the hub to stop")

    asyncio.run(main())
    assert quarantined(hub_store) == []
    listed = table_hands(hub_store, "t1", default_table="t1")
    assert [h.hand_no for h in listed] == [6, 5, 4, 3, 2, 1]  # newest first, the table's order
    assert [h.table_seq for h in listed] == [6, 5, 4, 3, 2, 1]
    by_no = {h.hand_no: h for h in listed}
    assert by_no[1].started_at.year == 1970 and by_no[1].clock_synced is False
    assert by_no[2].clock_synced is False
    five = by_no[5]  # spanned the clock moved back
    assert five.ended_at is not None and five.ended_at < five.started_at
    assert five.clock_synced is False
    assert all(h.played_s is not None and h.played_s >= 0 for h in listed)
    oldest = table_hands(hub_store, "t1", default_table="t1", oldest_first=True)
    assert [h.hand_no for h in oldest] == [1, 2, 3, 4, 5, 6]
