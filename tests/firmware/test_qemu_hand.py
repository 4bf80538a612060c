"""A whole hand with the board firmware under QEMU: the table service (the same `running`
that `mjtable run` serves) opens the emulated board through socket://, the virtual table's
readers report the tiles, and the virtual players press their buttons on the board's panel
(typed on its console: QEMU has no GPIO) and read the dice and prompts off the displays the
board drives. The board has no lift reader, so the service plays without the wall order.
Real parts: the firmware on an emulated STM32F405, the service, Mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import controller.runtime
from controller.runtime import running
from firmware_bridge.sim import VirtualTable
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

from .qemu_board import FirmwareBoard, QemuBoard


@pytest.mark.timeout(300)
def test_a_whole_hand_through_the_emulated_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    qemu = QemuBoard(tmp_path / "qemu.log")
    broker_dir = tmp_path / "mosquitto"
    broker_dir.mkdir()
    broker = Mosquitto(broker_dir)
    broker.start()
    boards: list[FirmwareBoard] = []

    class TableOnFirmware(VirtualTable):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.board = FirmwareBoard(qemu, self._on_command)  # type: ignore[assignment]
            boards.append(self.board)

    monkeypatch.setattr(controller.runtime, "VirtualTable", TableOnFirmware)
    config = config_for(data_dir(tmp_path), "xingguo", broker.url)
    opts = options(11, 1)
    opts.sim["lift_reader"] = False

    async def main() -> None:
        async with running(config, opts) as run:
            assert run.table is not None and run.table.board_url == qemu.link_url
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 3)
            players = run.players
            assert players is not None
            await until(lambda: players.finished, "the players' own record of the hand")
            shadow = [s.settlement for s in players.finished]
            hands = finished_hands(run.store)
        assert len(hands) == 1
        state = refold(hands[0])
        assert state.settlement is not None and shadow[0] == state.settlement
        # The board carried the hand: the players' presses went through it, and the texts
        # they read (the dice, the prompts) are what the board printed as it drove its
        # displays.
        board = boards[0]
        assert any(line.startswith("b ") for line in board.typed)
        assert board.texts and "link up" in board.lines

    try:
        asyncio.run(main())
    finally:
        broker.kill()
        qemu.close()
