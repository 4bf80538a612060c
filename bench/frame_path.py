"""The reader frame path's CPU on an idle table, as a ratio to the bare event loop.

Thirteen virtual inventory readers (the standard zone map, one pty each, as the virtual
table and ``bench/latency.py`` run them) repeat the same inventory every 20 ms from this
process: 13 tiles in each hand, 3 in each meld zone, 6 in each discard zone, the jing.
A child process reads them, in turns:

- ``floor``, the named baseline: ``loop.add_reader`` and ``os.read`` per frame, nothing
  else. What any asyncio program reading these ptys pays (the loop's epoll, the wake-up,
  the read).
- ``bridge``: ``TableBridge`` on the same ports (``ReaderTransport``, ``RefCodec``, the
  inventory tracker), its events consumed: the service's frame path.

Each turn is measured over ``--seconds`` (10) after a second to settle, with the child's
own CPU clock (``time.process_time``); the turns alternate ``--rounds`` (3) times and the
medians are compared, so a busy machine shifts both alike. The idle service's whole CPU
is ``bench/latency.py``'s idle phase; this bench isolates the frame path inside it.

    .venv/bin/python bench/frame_path.py            # 3 rounds of 10 s each way
    .venv/bin/python bench/frame_path.py --seconds 5 --rounds 1

The last line is ``frame path: X.XX x the bare event loop (Y.Y us a frame over it)``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap  # noqa: E402
from firmware_bridge.sim.ports import PtyPort  # noqa: E402
from firmware_bridge.sim.readers import VirtualReaderPort  # noqa: E402
from firmware_bridge.table import ReaderLine, TableBridge, open_readers  # noqa: E402

SCAN = 0.02
SETTLE = 1.0
TILES = {ZoneKind.HAND: 13, ZoneKind.MELDS: 3, ZoneKind.DISCARDS: 6, ZoneKind.JING: 1}


def tiles_in(zone: Zone) -> frozenset[bytes]:
    """A fixed set of UIDs per zone, distinct across zones."""
    base = 0xE004_0150_0000_0000 + (list(ZoneKind).index(zone.kind) * 8 + (zone.seat or 0)) * 256
    return frozenset((base + i).to_bytes(8, "big") for i in range(TILES.get(zone.kind, 0)))


async def read_floor(urls: list[str], seconds: float) -> tuple[int, float, float]:
    import serial  # type: ignore[import-untyped]

    loop = asyncio.get_running_loop()
    ports = [serial.serial_for_url(url, baudrate=115_200, timeout=0) for url in urls]
    frames = 0

    def reader(fd: int) -> None:
        nonlocal frames
        os.read(fd, 1024)
        frames += 1

    for port in ports:
        loop.add_reader(port.fd, reader, port.fd)
    await asyncio.sleep(SETTLE)
    f0, c0, w0 = frames, time.process_time(), time.monotonic()
    await asyncio.sleep(seconds)
    result = frames - f0, time.process_time() - c0, time.monotonic() - w0
    for port in ports:
        loop.remove_reader(port.fd)
        port.close()
    return result


async def read_bridge(urls: list[str], seconds: float) -> tuple[int, float, float]:
    zones = ZoneMap.standard()
    lines = [ReaderLine(url, "ref", r) for url, r in zip(urls, sorted(zones), strict=True)]
    bridge = TableBridge(zones, readers=open_readers(lines))

    async def consume() -> None:
        while True:
            await bridge.next_event()

    async with bridge:
        task = asyncio.create_task(consume())
        await asyncio.sleep(SETTLE)
        f0, c0, w0 = bridge_frames(bridge), time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        result = bridge_frames(bridge) - f0, time.process_time() - c0, time.monotonic() - w0
        task.cancel()
    return result


def bridge_frames(bridge: TableBridge) -> int:
    return sum(r.inventories for r in bridge.readers)


def child(mode: str, urls: list[str], seconds: float) -> None:
    run = read_floor if mode == "floor" else read_bridge
    frames, cpu, wall = asyncio.run(run(urls, seconds))
    print(json.dumps({"frames": frames, "cpu": cpu, "wall": wall}))


async def measure(rounds: int, seconds: float) -> dict[str, list[tuple[int, float, float]]]:
    zones = ZoneMap.standard()
    readers = [
        VirtualReaderPort(
            PtyPort(), "ref", (r,), zones, tiles_in, random.Random(r), scan_interval=SCAN
        )
        for r in sorted(zones)
    ]
    for reader in readers:
        await reader.start()
    urls = json.dumps([reader.port.url for reader in readers])
    results: dict[str, list[tuple[int, float, float]]] = {"floor": [], "bridge": []}
    try:
        for _ in range(rounds):
            for mode in results:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--child",
                    mode,
                    urls,
                    str(seconds),
                    stdout=subprocess.PIPE,
                    env=os.environ | {"PYTHONPATH": str(ROOT)},
                )
                out, _ = await proc.communicate()
                got = json.loads(out)
                results[mode].append((got["frames"], got["cpu"], got["wall"]))
    finally:
        for reader in readers:
            await reader.close()
    return results


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each turn's measurement")
    parser.add_argument("--rounds", type=int, default=3, help="floor/bridge turns, alternated")
    args = parser.parse_args()
    results = asyncio.run(measure(args.rounds, args.seconds))
    per_frame: dict[str, float] = {}
    for mode, runs in results.items():
        costs = [cpu / frames * 1e6 for frames, cpu, _ in runs if frames]
        shares = [cpu / wall * 100 for _, cpu, wall in runs]
        rates = [frames / wall for frames, _, wall in runs]
        per_frame[mode] = statistics.median(costs)
        print(
            f"{mode:7s} {per_frame[mode]:5.1f} us a frame (runs: "
            f"{', '.join(f'{c:.1f}' for c in costs)}), {statistics.median(shares):.2f} % of a "
            f"core at {statistics.median(rates):.0f} frames/s"
        )
    ratio = per_frame["bridge"] / per_frame["floor"]
    over = per_frame["bridge"] - per_frame["floor"]
    print(f"frame path: {ratio:.2f} x the bare event loop ({over:.1f} us a frame over it)")


if __name__ == "__main__":
    main()
