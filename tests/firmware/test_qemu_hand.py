"""A whole hand with the board firmware under QEMU and the service as its own process:
`mjtable run`, configured as for real hardware, opens the emulated board through
socket:// and the virtual table's readers through their ports; the virtual players press
their buttons on the board's panel (typed on its console: QEMU has no GPIO) and read the
dice and prompts off the texts the board was sent to display. The board has no lift
reader, so the service plays without the wall order.
Real parts: the firmware on an emulated STM32F405, `mjtable run`, Mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import controller.runtime
import firmware_bridge.sim
from controller.runtime import KINDS, Running, running
from controller.store import EventStore
from controller.virtual_players import VirtualPlayers
from firmware_bridge.protocol import Link, LinkConfig
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.sim import SimConfig, VirtualTable
from firmware_bridge.table import TableBridge
from tests.controller.external_service import ROOT, table_toml
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    FAST_SIM,
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    options,
    refold,
    until,
)

from .qemu_board import FirmwareBoard, QemuBoard, SerialLine, SerialLink

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


async def _stalled(run: Running, board: FirmwareBoard, line: SerialLine) -> str:
    """A stalled hand, as far as the service, the players and the board tell."""
    st, keeper = run.keeper.state, run.keeper
    out = [f"the hand did not end: phase {st.phase.value if st else None}"]
    if st is not None:
        out.append(f"hands {[len(h) for h in st.hands]}, discards {st.discards_total}")
        out.append(f"last events {[e.type for e in keeper.log[-8:]]}")
    if keeper.hand_id is not None:
        out += [f"alert {a.kind}: {a.detail}" for a in run.store.alerts_of(keeper.hand_id)[-10:]]
    if (players := run.players) is not None:
        out.append(f"players: moved {players.moved}, stalls {players.stalls}")
    out.append(f"bridge {run.bridge.counters}")
    out += _misplaced(run)
    out.append(
        f"reader line {line.carried} B carried, {line.dropped} B dropped, "
        f"{line.overrun} B overrun (the board did not read)"
    )
    board.type("c")
    with contextlib.suppress(TimeoutError):
        out.append(await board.wait_line("counters", timeout=5.0))
    out.append("board said: " + " | ".join(board.lines[-10:]))
    return "\n".join(out)


def _misplaced(run: Running, limit: int = 12) -> list[str]:
    """Tiles the service places elsewhere than they lie: the table's truth, the service's
    picture (every zone, latest last), the bridge's tracker and the board's last set."""
    if run.table is None:
        return []
    book, picture, bridge = run.tracker.picture.book, run.tracker.picture, run.bridge
    reader_of = {zone: reader for reader, zone in bridge.zones.items()}
    sets = bridge._board_sets  # a diagnosis
    out = []
    for zone, uids in run.table.view().zones.items():
        for uid in sorted(uids):
            tile = book.tile_of(uid)
            if not isinstance(tile, int) or picture.zone_of(tile) == zone:
                continue
            reader = reader_of.get(zone)
            in_set = reader is not None and uid in sets.get(reader, frozenset())
            out.append(
                f"tile {tile} lies in {zone}, picture {picture.zones_of(tile)}, tracker "
                f"{bridge.tracker.zone_of(uid)}, in the board's last set of reader {reader}: "
                f"{in_set}"
            )
    return out[:limit] or ["every tile is where the service places it"]


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
def test_a_whole_hand_with_the_readers_on_the_boards_reader_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The readers share the board: the virtual reader bus is wired to the board's second
    UART, the board turns their frames into INVENTORY messages, and the service sees the
    tiles only through the link (it opens no reader port of its own). Both lines run at
    115,200 baud (QEMU ignores baud rates; SerialLine puts the rate back): 13 readers
    scanning every 20 ms offer the reader line about twice what it carries, so it runs
    flat out. Without the rate the surplus queued in the sockets' buffers, faster than the
    emulated UART reads, and the board saw the table ever later; what the emulated board
    does not read in time is lost too, as on a UART (docs/firmware.md)."""
    boards: list[FirmwareBoard] = []
    pumps: list[asyncio.Task[None]] = []
    reader_line = SerialLine(drop_after=0.1)
    host_line: list[SerialLink] = []

    class TableOnFirmware(VirtualTable):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            board = FirmwareBoard(qemu, self._on_command)
            self.board = board  # type: ignore[assignment]
            boards.append(board)

        async def start(self) -> None:
            await super().start()
            (bus,) = self.readers
            pumps.append(asyncio.create_task(_pump(bus.port.url, qemu, reader_line)))
            link = SerialLink(qemu)
            await link.start()
            host_line.append(link)

    def bridge_through_the_board(table: VirtualTable, **options: Any) -> TableBridge:
        url = host_line[0].url
        board = LinkTransport(url, Link(LinkConfig()), backoff_initial=0.02)
        return TableBridge(table.config.zones, board=board, readers=(), **options)

    # runtime imports the virtual table where it makes one (a real table never loads it)
    monkeypatch.setattr(firmware_bridge.sim, "VirtualTable", TableOnFirmware)
    monkeypatch.setattr(controller.runtime, "bridge_for_table", bridge_through_the_board)
    opts = options(SEED, 1)
    opts.sim.update(lift_reader=False, bus=True, codec="ref", transport="socket")
    opts.sim["scan_interval"] = 0.02

    async def main() -> None:
        async with running(config, opts) as run:
            # A whole hand, every tile seen only as the board's INVENTORY messages.
            try:
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 5)
            except TimeoutError:  # say what the hand was waiting for
                raise AssertionError(await _stalled(run, boards[0], reader_line)) from None
            players = run.players
            assert players is not None
            await until(lambda: players.finished, "the players' own record of the hand")
            hands = finished_hands(run.store)
            assert len(hands) == 1
            state = refold(hands[0])
            assert state.settlement is not None
            assert players.finished[0].settlement == state.settlement
            board = boards[0]
            board.type("c")
            line = await board.wait_line("counters")
            counters = dict(word.split("=") for word in line.split()[1:])
            print(
                line,
                f"reader line carried {reader_line.carried} dropped "
                f"{reader_line.dropped} overrun {reader_line.overrun}; host line to host "
                f"{host_line[0].to_host.carried}",
            )
            assert int(counters["inventories"]) > 20, line  # the deal: the tiles came this way
            assert reader_line.dropped > 0  # the readers offered more than the line carries
        for pump in pumps:
            pump.cancel()
        for link in host_line:
            await link.close()

    qemu = QemuBoard(tmp_path / "qemu.log")  # started last: nothing between it and try
    (tmp_path / "mosquitto").mkdir()
    broker = Mosquitto(tmp_path / "mosquitto")
    try:
        broker.start()
        config = config_for(data_dir(tmp_path), RULESET, broker.url)
        asyncio.run(main())
    finally:
        broker.kill()
        qemu.close()
