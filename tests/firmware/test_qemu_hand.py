"""A whole hand with the board firmware under QEMU and the service as its own process:
`mjtable run`, configured as for real hardware, opens the emulated board through
socket:// and the virtual table's readers through their ports; the virtual players press
their buttons on the board's panel (typed on its console: QEMU has no GPIO) and read the
dice and prompts off the texts the board was sent to display. The board has no lift
reader, so the service plays without the wall order.
Real parts: the firmware on an emulated STM32F405, `mjtable run`, Mosquitto."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from controller.runtime import KINDS
from controller.store import EventStore
from controller.virtual_players import VirtualPlayers
from firmware_bridge.sim import SimConfig, VirtualTable
from tests.controller.external_service import ROOT, table_toml
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import FAST_SIM, data_dir, finished_hands, refold, until

from .qemu_board import FirmwareBoard, QemuBoard

SEED = 11
RULESET = "xingguo"


async def _play(qemu: QemuBoard, work: Path, data: Path, mqtt_url: str) -> FirmwareBoard:
    work.mkdir(parents=True, exist_ok=True)
    sim = SimConfig(
        seed=SEED, kinds=KINDS, registry_path=work / "tags.json", lift_reader=False, **FAST_SIM
    )
    table = VirtualTable(sim)
    board = FirmwareBoard(qemu, table._on_command)
    table.board = board  # type: ignore[assignment]
    players = VirtualPlayers(RULESET, table.tiles.uids, zones=sim.zones, retry_after=1.0)
    table.driver = players
    async with table:
        assert table.board_url == qemu.link_url
        config = table_toml(table, work, data, mqtt_url, RULESET)
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
        command += ["--seed", str(SEED), "--hands", "1"]
        log_path = work / "service.log"
        with log_path.open("ab") as log:
            proc = await asyncio.create_subprocess_exec(
                *command, cwd=work, env=os.environ | {"PYTHONPATH": str(ROOT)}, stdout=log,
                stderr=log,
            )  # fmt: skip
            try:
                async with asyncio.timeout(180):
                    code = await proc.wait()
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        assert code == 0, log_path.read_text()[-3000:]
        await until(lambda: players.finished, "the players' own record of the hand")
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        hands = finished_hands(store)
    finally:
        store.close()
    assert len(hands) == 1
    state = refold(hands[0])
    assert state.settlement is not None
    assert players.finished[0].settlement == state.settlement
    return board


@pytest.mark.timeout(300)
def test_mjtable_run_plays_a_whole_hand_through_the_emulated_board(tmp_path: Path) -> None:
    qemu = QemuBoard(tmp_path / "qemu.log")
    (tmp_path / "mosquitto").mkdir()
    broker = Mosquitto(tmp_path / "mosquitto")
    broker.start()
    try:
        board = asyncio.run(_play(qemu, tmp_path / "work", data_dir(tmp_path), broker.url))
    finally:
        broker.kill()
        qemu.close()
    # The board carried the hand: every press went through its panel, and the texts the
    # players read (the dice, the prompts) are what it printed as it drove its displays.
    assert any(line.startswith("b ") for line in board.typed)
    assert board.texts and "link up" in board.lines
