"""The rig that plays sessions with `mjtable run` as its own process
(tests/controller/external_service.py): after a power cut the table stays dark until the
restarted service shows something, or has ended; a session hangs when it stands still, not
when it takes long."""

from __future__ import annotations

import asyncio
import sys
from types import SimpleNamespace
from typing import Any

import pytest

from tests.controller.external_service import _Mains, _until_still


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
