"""The power cuts' rig (tests/controller/external_service.py): after a cut the table stays
dark until the restarted service shows something, or has ended."""

from __future__ import annotations

import asyncio
import sys
from types import SimpleNamespace
from typing import Any

from tests.controller.external_service import _Mains


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
