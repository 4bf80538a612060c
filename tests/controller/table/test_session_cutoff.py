"""The owner's daily cut-off closes the open session by itself, once its hand in play is
settled: the whole service (a table without readers, a real broker), its wall clock moved
past the cut-off."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path

import pytest

from controller.runtime import running
from controller.store.owners import CashoutTerms, OwnerAccounts
from controller.table.staff_acts import handle
from controller.table.staff_requests import HandAct, Look
from controller.table.table_inputs import DicePress
from engine.round.commands import Audit, Finish
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import config_for, data_dir, options, until
from tests.controller.table.test_service_without_readers import FOUR_SEATS

AUDIT = Audit("ann", "staff", "2026-12-03T21:00:00+00:00", "")


@pytest.mark.timeout(120)
def test_the_daily_cutoff_closes_the_session_after_its_hand(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    plain = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    hardware = plain.hardware.model_validate({"virtual": True, "readers": "none"})
    config = plain.model_copy(update={"hardware": hardware})

    async def scenario() -> None:
        stop = asyncio.Event()
        async with running(config, options(5, 2, stop=stop)) as run:
            loop = asyncio.create_task(run.service.run(stop))
            keeper, store = run.keeper, run.keeper.store
            OwnerAccounts(store).set_cashout_terms(CashoutTerms(cutoff="06:00"), "boss")
            session_id = keeper.session_id
            assert session_id is not None
            started = store.get_session(session_id).started_at.astimezone()
            # the clock a day on, past 06:00: due, but the hand in play goes first
            run.service.wall = lambda: started + timedelta(days=1, hours=6)
            await until(lambda: keeper.in_progress, "the first hand to start")
            run.inputs.put(DicePress())
            await until(lambda: keeper.state is not None and keeper.state.dice, "the roll")
            run.service.tick(run.service.clock() + 60)
            assert keeper.session_id == session_id  # (played: the hand goes on)
            first = keeper.hand_id or ""
            seen = handle(keeper, Look())["seen"]
            entered = Finish.of(AUDIT, [], FOUR_SEATS, indicator="1m")
            handle(keeper, HandAct(entered, first, seen))
            run.service.act(DicePress(), 0.0)  # the dealer's roll: the next hand, unplayed
            assert keeper.unplayed
            run.service.tick(run.service.clock() + 1000)  # (looked at every 30 s)
            closed = store.load_hand(first).events[-1].payload
            assert closed["type"] == "session_closed" and closed["cause"] == "cutoff"
            assert (closed["by"], closed["role"]) == ("boss", "owner")
            assert "06:00" in closed["reason"]
            assert store.get_session(session_id).ended_at is not None
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    asyncio.run(scenario())
