"""`mjtable sim-table` as a subprocess: it prints where to connect, and a LinkTransport on
the printed board path completes the hello handshake and hears the table's status."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.protocol import Status, TableState, WallOrder
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.registry import TagRegistry
from firmware_bridge.rfid.transport import ReaderTransport
from firmware_bridge.rfid.zones import ZoneMap


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("started", ["plainly", "with Ctrl-C ignored"])
def test_sim_table_prints_paths_and_the_board_answers(tmp_path: Path, started: str) -> None:
    """Ctrl-C stops it, also when it was started with SIGINT ignored, as a script's
    background jobs are (Python then leaves SIGINT ignored: `make test` run in the
    background once waited here for a table that never stopped)."""
    registry = tmp_path / "registry.json"
    command = [sys.executable, "-m", "controller.cli", "sim-table", "--json", "--bus"]
    command += ["--seed", "4", "--registry", str(registry), "--link-dir", str(tmp_path / "dev")]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ignore_ctrl_c if started != "plainly" else None,
    )
    try:
        assert proc.stdout is not None
        info = json.loads(proc.stdout.readline())
        assert info["board"] == str(tmp_path / "dev" / "board")
        assert info["registry"] == str(registry)
        reader = info["readers"][0]
        assert reader["codec"] == "ref" and reader["zones"]["1"] == "hand:0"
        loaded = TagRegistry.load(registry)
        assert len(loaded) == 136 and not loaded.validate()
        assert len(ZoneMap.load(Path(info["zones"]))) == 13

        async def connect() -> None:
            async with (
                asyncio.timeout(30),
                LinkTransport(info["board"]) as board,
                ReaderTransport.for_codec(reader["url"], "ref") as readers,
            ):
                await board.wait_up()
                assert board.link.peer_session is not None  # the board's hello was heard
                got = [await board.recv()]
                while not (isinstance(got[-1], Status) and got[-1].state is TableState.WALLS_UP):
                    got.append(await board.recv())
                assert sum(len(m.uids) for m in got if isinstance(m, WallOrder)) == 136
                inventory = await readers.recv()
                assert inventory.reader_id in range(1, 14) and not inventory.uids

        asyncio.run(connect())
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()  # no table left running after the test
            proc.communicate()
            raise AssertionError("sim-table did not stop on SIGINT") from None
    assert proc.returncode == 0, err
    assert not (tmp_path / "dev" / "board").exists()  # stable names go with the table
