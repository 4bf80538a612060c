"""`mjtable readers probe` and `mjtable enroll` against the virtual multi-antenna readers on
real ptys: the probe finds the reader, its firmware, antennas and power, and
shows live reads per antenna; enrolment takes one antenna as the pad."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from firmware_bridge.registry import TagRegistry
from firmware_bridge.sim import IdleDriver, ScriptedDriver, SimSettings, TakeFromWall, VirtualTable
from firmware_bridge.sim.moves import Pause
from firmware_bridge.sim.table import CodecName
from tests.controller.service_helpers import GUARD


async def _mjtable(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "controller.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), GUARD)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", ["a0", "iso15693"])
def test_probe_finds_the_reader_and_shows_reads_per_antenna(codec: CodecName) -> None:
    moves = [TakeFromWall(p, _hand(p % 2)) for p in range(6)]  # antennas 1 and 2
    table = VirtualTable(SimSettings(seed=2, codec=codec), ScriptedDriver(moves))

    async def main() -> None:
        async with table:
            await table.wait_walls_up()
            url = table.readers[0].port.url
            code, out, err = await _mjtable(
                "readers",
                "probe",
                "--device",
                url,
                "--readers",
                codec,
                "--antennas",
                "8",
                "--seconds",
                "4",
            )
            assert code == 0, err
            assert f"found: {codec} reader 1 on {url}, firmware 8.2" in out
            assert "antennas: 1, 2, 3, 4, 5, 6, 7, 8" in out
            if codec == "a0":
                assert "power: 26 dBm, 26 dBm" in out
            assert "ant 1: 3 tag(s)" in out and "ant 2: 3 tag(s)" in out
            assert "ant 3: 0 tag(s)" in out

            code, _, err = await _mjtable(
                "readers",
                "probe",
                "--device",
                table.board_url,
                "--readers",
                codec,
                "--seconds",
                "1.5",
            )
            assert code == 1 and f"no {codec} reader answered" in err

    asyncio.run(main())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("codec", ["a0", "iso15693"])
def test_enroll_with_one_antenna_as_the_pad(codec: CodecName, tmp_path: Path) -> None:
    table = VirtualTable(SimSettings(seed=3, codec=codec), IdleDriver())
    registry = tmp_path / "tags.json"

    async def main() -> None:
        async with table:
            await table.wait_walls_up()
            url = table.readers[0].port.url
            enrol = asyncio.create_task(
                _mjtable(
                    "enroll",
                    "--registry",
                    str(registry),
                    "--device",
                    url,
                    "--readers",
                    codec,
                    "--antenna",
                    "2",
                    "--idle-exit",
                    "4",
                )
            )
            await asyncio.sleep(2.0)
            for position in range(3):  # tiles put on the pad (seat 1's hand) one by one
                await table.execute(TakeFromWall(position, _hand(1)))
                await table.execute(Pause(1.5))
            code, _, err = await enrol
            assert code == 0, err

    asyncio.run(main())
    loaded = TagRegistry.load(registry)
    assert [entry.uid for entry in loaded] == list(table.model.lift_order[:3])


def _hand(seat: int):  # type: ignore[no-untyped-def]
    from firmware_bridge.rfid.zones import Zone, ZoneKind

    return Zone(ZoneKind.HAND, seat)
