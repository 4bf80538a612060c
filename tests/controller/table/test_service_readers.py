"""Whole hands through the service with each multi-antenna reader model: the
virtual UHF A0 and HF ISC readers answer the service's sessions over ptys, miss 5 % of
tags a round and read 2 % across zone borders, and every hand still settles exactly as the
players' own round does. Real parts: ptys, the service, a real Mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from controller.cli.demo import READER_MODELS
from controller.runtime import Running, running
from controller.store import StoredHand
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    options,
    refold,
    until,
)

HANDS = 2


async def _play(run: Running) -> tuple[list[Any], list[StoredHand]]:
    """HANDS hands through the service: the players' own settlements, and the stored hands."""
    await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * HANDS)
    assert run.players is not None
    players = run.players
    await until(lambda: len(players.finished) == HANDS, "the players' own last hand")
    return [s.settlement for s in players.finished], finished_hands(run.store)


def _settled_as_played(hands: list[StoredHand], shadow: list[Any]) -> None:
    assert len(hands) == HANDS and len(shadow) == HANDS, (len(hands), len(shadow))
    for n, stored in enumerate(hands):
        state = refold(stored)
        assert state.settlement is not None and shadow[n] == state.settlement


@pytest.mark.timeout(300)
@pytest.mark.parametrize("readers", ["a0", "iso15693"])
def test_hands_through_multi_antenna_readers(
    mosquitto: Mosquitto, tmp_path: Path, readers: str
) -> None:
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    opts = options(21, HANDS)
    opts.sim |= READER_MODELS[readers] | {"round_time_scale": 0.1}

    async def main() -> None:
        async with running(config, opts) as run:
            shadow, hands = await _play(run)
            assert run.table is not None
            field = run.table.field
            assert field.misses > 0 and field.border_reads > 0
            sessions = [r.session for r in run.bridge.readers if r.session is not None]
            assert len(sessions) == 2

        _settled_as_played(hands, shadow)

    asyncio.run(main())


@pytest.mark.timeout(300)
def test_hands_through_reference_readers_that_report_only_changes(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The idle-friendly report mode (docs/rfid.md, "Report modes") with 5 % misreads: each
    reader judges its own scans, the service hears a change and the hold after it, and every
    hand settles as the players' own round does."""
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    opts = options(22, HANDS)
    opts.sim |= {"report": "change", "misread_rate": 0.05}

    async def main() -> None:
        async with running(config, opts) as run:
            shadow, hands = await _play(run)
            assert run.table is not None
            assert all(r.report == "change" for r in run.table.readers)
            assert sum(r.stats.misreads for r in run.table.readers) > 0
            scans = sum(r.stats.scans for r in run.table.readers)
            sent = sum(r.stats.frames for r in run.table.readers)
            heard = sum(r.stats.frames for r in run.bridge.readers)
            assert 0 < heard <= sent < scans, (heard, sent, scans)  # not every scan went out

        _settled_as_played(hands, shadow)

    asyncio.run(main())
