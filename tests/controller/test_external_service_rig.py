"""The rig that plays sessions with `mjtable run` as its own process
(tests/controller/external_service.py): after a power cut the table stays dark until the
restarted service shows something, or has ended; a session hangs when it stands still, not
when it takes long; a stall of a service that ended meanwhile ends when cancelled."""

from __future__ import annotations

import asyncio
import random
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from tests.controller.external_service import _Mains, _Stalls, _until_still
from tests.controller.service_helpers import until


def test_the_power_comes_back_for_a_service_that_ended_showing_nothing() -> None:
    """Restarted after the session's last settlement, the service has nothing to play and
    may end before its board link is up: the rig waited for its display for good."""

    async def run() -> bool:
        table: Any = SimpleNamespace(board=SimpleNamespace(texts={}))  # the display it reads
        mains = _Mains(players=None, table=table)  # type: ignore[arg-type]
        mains.cut()
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
        await proc.wait()  # ended, and the display never lit
        async with asyncio.timeout(10):  # a hang guard
            await mains.restore_when_shown(proc)
        return mains.on

    assert asyncio.run(run())


def test_a_session_that_moves_on_is_not_cut_short_and_one_that_stands_still_is() -> None:
    """A session slower than the guard, moving all along, plays to its end (the stall test's
    twelve hands, at a Zero 2 W's share of a busy machine's core, were cut at hand 10)."""
    moves = 0

    async def playing(until: float) -> None:
        nonlocal moves
        loop = asyncio.get_running_loop()
        end = loop.time() + until
        async with _until_still(0.5, lambda: moves):
            while loop.time() < end:
                await asyncio.sleep(0.05)  # (a move every 50 ms, for three guards' time)
                moves += 1

    async def standing() -> None:
        async with _until_still(0.5, lambda: moves):
            await asyncio.Event().wait()

    asyncio.run(playing(1.5))
    assert moves > 10
    with pytest.raises(TimeoutError):
        asyncio.run(standing())


def test_a_stall_cancelled_after_its_service_ended_ends_too() -> None:
    """The session's end cancels the stall under way; the service has ended meanwhile, so
    its SIGCONT finds no process: the cancellation still ends the stall (a stall that went
    on instead kept the session waiting for it for good, its service long gone)."""

    async def main() -> None:
        proc = await asyncio.create_subprocess_exec("sleep", "60")
        stalls = _Stalls(random.Random(0), (60.0, 60.0))
        stalls.proc = proc
        task = asyncio.create_task(stalls.stall())
        await until(lambda: stalls.count == 1, "the stall")
        proc.kill()  # (a stopped process dies of it too)
        await proc.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10.0)

    asyncio.run(main())
