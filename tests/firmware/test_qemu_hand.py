"""A whole hand with the board firmware under QEMU and the service as its own process:
`mjtable run`, configured as for real hardware, opens the emulated board through
socket:// and the virtual table's readers through their ports; the virtual players press
their buttons on the board's panel (typed on its console: QEMU has no GPIO) and read the
dice and prompts off the texts the board was sent to display. The board has no lift
reader, so the service plays without the wall order. Then the same with the readers on the
board's reader line, also with the service alone at a Pi's CPU speed (pi_cpu), and a
member's 7-byte card read through the board before the first hand.
Real parts: the firmware on an emulated STM32F405, `mjtable run`, Mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from controller.sim.virtual_players import VirtualPlayers
from controller.store import EventStore
from controller.store.members import Members
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import EndHand, SimSettings, VirtualTable
from tests.controller.external_service import ROOT, hang_report, table_toml
from tests.controller.mosquitto import Mosquitto
from tests.controller.pi_cpu import at_pi_speed
from tests.controller.service_helpers import (
    FAST_SIM,
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    refold,
    until,
)

from .qemu_board import FirmwareBoard, QemuBoard, SerialLine, SerialLink

SEED = 11
RULESET = "xingguo"
HAND_GUARD = GUARD * 3  # a hang guard: the hand takes 10-30 s
CARD_SEAT = 1  # 2号位


async def _play(
    qemu: QemuBoard,
    work: Path,
    data: Path,
    mqtt_url: str,
    *,
    reader_line: SerialLine | None = None,
    pi: str | None = None,
    card: bytes | None = None,
) -> tuple[FirmwareBoard, str]:
    """One hand of `mjtable run` (at `pi`'s CPU speed: pi_cpu) with the board under QEMU.
    `reader_line`: the virtual reader bus is wired to the board's reader UART through it,
    both of the board's lines at their rate, and the service opens no reader port.
    `card`: a member's card, laid on CARD_SEAT's hand zone before the first hand until the
    service has seated its member, who then plays the hand there."""
    work.mkdir(parents=True, exist_ok=True)
    member = None
    if card is not None:
        config = config_for(data, RULESET, mqtt_url)
        store = EventStore.open(config.store_url)
        member = Members(store.engine, table_id=config.table, parlour=config.parlour).add(
            "王五", card.hex()
        )
        store.close()
    sim = SimSettings(
        seed=SEED,
        kinds=KIND_LABELS,
        registry_path=work / "tags.json",
        lift_reader=False,
        **FAST_SIM,
    )
    if reader_line is not None:
        sim = replace(sim, bus=True, codec="ref", transport="socket", scan_interval=0.02)
    if card is not None:
        sim = replace(sim, auto_start=False)  # the walls rise once the member sits
    table = VirtualTable(sim)
    board = FirmwareBoard(qemu, table._on_command)
    table.board = board  # type: ignore[assignment]
    players = VirtualPlayers(RULESET, table.tiles.uids, zones=sim.zones, retry_after=1.0)
    table.driver = players
    rig: list[asyncio.Task[None]] = []
    host_line = SerialLink(qemu)
    async with table, contextlib.AsyncExitStack() as stack:
        assert table.board_url == qemu.link_url
        board_url = None
        if reader_line is not None:
            (bus,) = table.readers
            rig.append(asyncio.create_task(_pump(bus.port.url, qemu, reader_line)))
            await host_line.start()
            stack.push_async_callback(host_line.close)
            board_url = host_line.url
        config = table_toml(
            table, work, data, mqtt_url, RULESET, board_url=board_url,
            readers_on_board=reader_line is not None,
        )  # fmt: skip
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
        command += ["--seed", str(SEED), "--hands", "1"]
        if (quota := stack.enter_context(at_pi_speed(pi))) is not None:
            command = quota.command(command)
        log_path = work / "service.log"
        with log_path.open("ab") as log:
            proc = await asyncio.create_subprocess_exec(
                *command, cwd=work, env=os.environ | {"PYTHONPATH": str(ROOT)}, stdout=log,
                stderr=log,
            )  # fmt: skip
            try:
                async with asyncio.timeout(HAND_GUARD):
                    if card is not None:
                        await _seat_by_card(table, card, data, mqtt_url, proc)
                    code = await proc.wait()
            except TimeoutError:  # say what the hand was waiting for
                report = await _stalled(players, table, board, reader_line, log_path)
                raise AssertionError(report) from None
            finally:
                for task in rig:
                    task.cancel()
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        assert code == 0, log_path.read_text()[-3000:]
        await until(lambda: players.finished, "the players' own record of the hand")
        board.type("c")
        counters = await board.wait_line("counters")
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        hands = finished_hands(store)
    finally:
        store.close()
    assert len(hands) == 1
    state = refold(hands[0])
    assert state.settlement is not None
    assert players.finished[0].settlement == state.settlement
    if member is not None:
        assert hands[0].hand.players[CARD_SEAT] == member.as_player()
    return board, counters


async def _seat_by_card(
    table: VirtualTable, card: bytes, data: Path, mqtt_url: str, proc: asyncio.subprocess.Process
) -> None:
    """Lays `card` on CARD_SEAT's hand zone until the service has stored the member's seat
    act (it read the card), takes it away and lets the machine shuffle for the first hand."""
    config = config_for(data, RULESET, mqtt_url)
    store = EventStore.open(config.store_url)
    members = Members(store.engine, table_id=config.table, parlour=config.parlour)
    try:
        assert table.place_card(card, Zone(ZoneKind.HAND, CARD_SEAT)) is None
        await until(
            lambda: proc.returncode is not None or members.acts(), "the card read", HAND_GUARD
        )
        assert [(a.seat, a.by) for a in members.acts()] == [(CARD_SEAT, "card")]
    finally:
        store.close()
    table.place_card(card, None)
    await table.execute(EndHand())


async def _stalled(
    players: VirtualPlayers,
    table: VirtualTable,
    board: FirmwareBoard,
    line: SerialLine | None,
    log: Path,
) -> str:
    """A stalled hand, as far as the players, the service's log and the board tell."""
    out = [hang_report(HAND_GUARD, players, table, log)]
    if line is not None:
        out.append(
            f"reader line {line.carried} B carried, {line.dropped} B dropped, "
            f"{line.overrun} B overrun (the board did not read)"
        )
    board.type("c")
    with contextlib.suppress(TimeoutError):
        out.append(await board.wait_line("counters", timeout=5.0))
    out.append("board said: " + " | ".join(board.lines[-10:]))
    return "\n".join(out)


@pytest.mark.timeout(300)
def test_mjtable_run_plays_a_whole_hand_through_the_emulated_board(tmp_path: Path) -> None:
    qemu = QemuBoard(tmp_path / "qemu.log")
    (tmp_path / "mosquitto").mkdir()
    broker = Mosquitto(tmp_path / "mosquitto")
    broker.start()
    try:
        board, _ = asyncio.run(_play(qemu, tmp_path / "work", data_dir(tmp_path), broker.url))
    finally:
        broker.kill()
        qemu.close()
    # The board carried the hand: every press went through its panel, and the texts the
    # players read (the dice, the prompts) are what it printed as it drove its displays.
    assert any(line.startswith("b ") for line in board.typed)
    assert board.texts and "link up" in board.lines


async def _pump(url: str, qemu: QemuBoard, line: SerialLine) -> None:
    """The virtual table's reader bus into the board's reader UART, through `line`. Both
    writers are held until the copy ends: from Python 3.11.5 an unreferenced StreamWriter
    closes its connection when collected, and a bus connection closed at once left the
    board without a reader frame (every reader silent, the hand stuck in the deal)."""
    host, tcp = url.removeprefix("socket://").rsplit(":", 1)
    reader, bus = await asyncio.open_connection(host, int(tcp))
    _, uart = await qemu.open_reader_line()
    try:
        await line.copy(reader, uart)
    finally:
        bus.close()
        uart.close()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("pi", [None, "pi4", "zero2w"])
def test_a_whole_hand_with_the_readers_on_the_boards_reader_line(
    tmp_path: Path, pi: str | None
) -> None:
    """The readers share the board: the virtual reader bus is wired to the board's second
    UART, the board turns their frames into INVENTORY messages, and `mjtable run` sees the
    tiles only through the link (`[hardware.board] zone_map`; it opens no reader port),
    on this machine's CPU and on a Pi's (a cgroup quota on the service alone: pi_cpu). Both
    lines run at 115,200 baud (QEMU ignores baud rates; SerialLine puts the rate back): 13
    readers scanning every 20 ms offer the reader line about twice what it carries, so it
    runs flat out. Without the rate the surplus queued in the sockets' buffers, faster than
    the emulated UART reads, and the board saw the table ever later; what the emulated
    board does not read in time is lost too, as on a UART (docs/firmware.md)."""
    reader_line = SerialLine(drop_after=0.1)
    qemu = QemuBoard(tmp_path / "qemu.log")  # started last: nothing between it and try
    (tmp_path / "mosquitto").mkdir()
    broker = Mosquitto(tmp_path / "mosquitto")
    try:
        broker.start()
        _, line = asyncio.run(
            _play(
                qemu, tmp_path / "work", data_dir(tmp_path), broker.url,
                reader_line=reader_line, pi=pi,
            )
        )  # fmt: skip
    finally:
        broker.kill()
        qemu.close()
    counters = dict(word.split("=") for word in line.split()[1:])
    print(
        line,
        f"reader line carried {reader_line.carried} dropped {reader_line.dropped} "
        f"overrun {reader_line.overrun}",
    )
    assert int(counters["inventories"]) > 20, line  # the deal: the tiles came this way
    assert reader_line.dropped > 0  # the readers offered more than the line carries


@pytest.mark.timeout(600)
def test_a_7_byte_member_card_on_a_reader_wired_to_the_board_seats_its_member(
    tmp_path: Path,
) -> None:
    """Most NFC cards have 7-byte UIDs: the reference reader sends such a card in its sized
    frame (AA 56), the board forwards it as an INVENTORY_SIZED, and `mjtable run`, which
    sees the readers only through the board, seats the card's member for the first hand."""
    qemu = QemuBoard(tmp_path / "qemu.log")
    (tmp_path / "mosquitto").mkdir()
    broker = Mosquitto(tmp_path / "mosquitto")
    try:
        broker.start()
        asyncio.run(
            _play(
                qemu, tmp_path / "work", data_dir(tmp_path), broker.url,
                reader_line=SerialLine(drop_after=0.1), card=bytes.fromhex("04a1b2c3d4e5f6"),
            )
        )  # fmt: skip
    finally:
        broker.kill()
        qemu.close()
