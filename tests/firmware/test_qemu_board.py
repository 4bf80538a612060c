"""The firmware's ARM build under QEMU (netduinoplus2, STM32F405) speaking protocol v1 to
the Python host over socket://: the hello comes up, panel buttons and table state reach the
host, dice rolls, display texts and LEDs reach the board, reader frames on the board's
second UART arrive as inventories, and garbage from the host neither hangs nor resets it."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Inventory,
    Led,
    LedMode,
    Link,
    LinkSettings,
    SeatButton,
    Status,
    TableState,
)
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.rfid.ref_frame import encode_inventory

from .qemu_board import FirmwareBoard, QemuBoard


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def _counters(board: FirmwareBoard) -> dict[str, int]:
    board.type("c")
    words = (await board.wait_line("counters")).split()[1:]
    return {name: int(value) for name, value in (w.split("=") for w in words)}


async def _exercise(qemu: QemuBoard) -> None:
    board = FirmwareBoard(qemu, None)
    await board.start()
    try:
        async with asyncio.timeout(60), LinkTransport(qemu.link_url, Link(LinkSettings())) as host:
            await host.wait_up()
            assert await host.recv() == Status(TableState.IDLE)
            session = host.link.peer_session
            assert session is not None
            await board.wait_line("link up")

            board.press(2, SeatButton.PUNG)
            assert await host.recv() == ButtonPress(2, SeatButton.PUNG)
            board.set_state(TableState.FAULT, (0x0102,))
            assert await host.recv() == Status(TableState.FAULT, (0x0102,))

            host.send(DiceRoll(2))
            result = await host.recv()
            assert isinstance(result, DiceResult) and len(result.values) == 2
            assert await board.wait_line("dice") == "dice " + " ".join(map(str, result.values))

            host.send(DisplayText(1, "东 +1250"))
            host.send(Led(2, LedMode.BLINK_FAST, 255, 0, 0))
            await board.wait_line("text 1")
            await board.wait_line("led 2")
            assert board.texts[1] == "东 +1250"
            assert board.leds[2] == Led(2, LedMode.BLINK_FAST, 255, 0, 0)

            # A reader on the board's second UART: its frames become INVENTORY messages.
            uids = [bytes.fromhex("e004015000000001"), bytes.fromhex("e004015000000002")]
            _, rfid = await qemu.open_reader_line()
            rfid.write(b"\xaa\x13junk" + encode_inventory(7, 1, uids))
            await rfid.drain()
            got = await host.recv()
            assert isinstance(got, Inventory) and got.reader == 7 and set(got.uids) == set(uids)
            rfid.close()

        # Garbage on the host line: random bytes, an oversized frame, a bad CRC. The board
        # must neither hang nor reset (a reset would show as a new session).
        # QEMU drops what a client sent once it hangs up, so the line stays open until the
        # board has counted the damage.
        rng = random.Random(9)
        _, raw = await asyncio.open_connection("127.0.0.1", _port(qemu.link_url))
        raw.write(bytes(rng.randrange(256) for _ in range(20000)))
        raw.write(b"\x01" * 3000 + b"\x00")
        raw.write(bytes.fromhex("0501220503050203196e00"))  # the button of protocol.md §6, CRC off
        await raw.drain()
        while (counters := await _counters(board))["bad_crc"] == 0:
            await asyncio.sleep(0.2)
        raw.close()
        assert counters["oversize"] >= 1 and counters["bad_cobs"] > 20
        assert counters["resyncs"] > 50 and counters["buttons_lost"] == 0
        async with asyncio.timeout(60), LinkTransport(qemu.link_url, Link(LinkSettings())) as host:
            await host.wait_up()
            assert host.link.peer_session == session  # the same boot: no reset
            board.press(0, SeatButton.WIN)
            msgs = [await host.recv()]
            while msgs[-1] != ButtonPress(0, SeatButton.WIN):
                msgs.append(await host.recv())
        counters = await _counters(board)
        assert counters["peer_restarts"] == 1  # the second host: a new session, same board
        assert counters["failures"] == 0
        assert counters["reader_frames"] == 1 and counters["reader_bad_crc"] == 0
        assert counters["uart_rx_dropped"] >= 0  # on the line (a burst may overrun a ring)
    finally:
        await board.close()


@pytest.mark.timeout(180)
def test_emulated_board_speaks_protocol_v1(tmp_path: Path) -> None:
    qemu = QemuBoard(tmp_path / "qemu.log")
    try:
        asyncio.run(_exercise(qemu))
    finally:
        qemu.close()


async def _type_at_once(qemu: QemuBoard) -> str:
    board = FirmwareBoard(qemu, None)
    await board.start()
    try:
        board.type("c")
        return await board.wait_line("counters")
    finally:
        await board.close()


@pytest.mark.timeout(120)
def test_a_line_typed_as_soon_as_the_board_has_started_is_run(tmp_path: Path) -> None:
    """The virtual table types its first states the moment it starts, before the firmware
    has switched its console's UART on: once `FirmwareBoard.start` returns, the board hears
    them (the table's walls went up unheard, and the hand never began)."""
    qemu = QemuBoard(tmp_path / "qemu.log")
    try:
        assert asyncio.run(_type_at_once(qemu)).startswith("counters ")
    finally:
        qemu.close()
