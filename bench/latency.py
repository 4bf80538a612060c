"""From a tile moving on the table to the message at a display: the service's latency.

The service runs as its own process (``mjtable run``, settings as for real hardware)
against the virtual table in this process, with four bot players and a real Mosquitto.
For every move whose event names its tile (a draw, a discard, a claimed tile) we take
the time the reader frame that first shows the tile in its new zone is written to the
pty, and the time the matching ``events`` message reaches a subscriber (a process of its
own, so that neither the bots' thinking nor this process's garbage collector delays the
reading; CLOCK_MONOTONIC is the same in every process).

The players play briskly (``MJTABLE_BENCH_THINK``, default 0.05 s before each move: up
to 20 moves a second, faster than any table) but do not flood the service: this measures
latency, not a backlog. Then the players stop and the idle service's CPU is measured
while the readers keep scanning (every 20 ms), and its resident memory is read from /proc.

    .venv/bin/python bench/latency.py                 # >= 1000 moves
    .venv/bin/python bench/latency.py --moves 200     # a quick run

The last line is ``latency: p99 = X.X ms``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from controller.runtime import KINDS  # noqa: E402
from controller.virtual_players import VirtualPlayers  # noqa: E402
from firmware_bridge.rfid.zones import Zone  # noqa: E402
from firmware_bridge.sim import Move, SimConfig, TableView, VirtualTable  # noqa: E402
from firmware_bridge.sim.readers import VirtualReaderPort  # noqa: E402
from tests.controller.external_service import table_toml  # noqa: E402

PREFIX = "mahjong/demo/t1/"
SCAN = 0.02  # s between reader scans: fast enough to play briskly
IDLE_SECONDS = 10.0
THINK = float(os.environ.get("MJTABLE_BENCH_THINK", "0.05"))  # s a bot pauses before a move


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_mosquitto(work: Path) -> tuple[subprocess.Popen[bytes], int]:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    proc = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
    for _ in range(200):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return proc, port
        time.sleep(0.05)
    raise RuntimeError("mosquitto did not start")


class FrameClock:
    """When each tag first appeared in a frame of its zone's reader (monotonic seconds)."""

    def __init__(self) -> None:
        self.first: dict[tuple[Zone, bytes], float] = {}
        self._last: dict[int, frozenset[bytes]] = {}

    def install(self) -> None:
        clock = self
        original = VirtualReaderPort.scan

        def scan(port: VirtualReaderPort) -> bytes:
            data = original(port)
            now = time.monotonic()  # _scan_loop writes these bytes right after
            for reader in port.reader_ids:
                seen = port.visible(reader)
                zone = port.zones[reader]
                for uid in seen - clock._last.get(reader, frozenset()):
                    clock.first[(zone, uid)] = now
                clock._last[reader] = seen
            return data

        VirtualReaderPort.scan = scan  # type: ignore[method-assign]


class Pausable:
    """The players, until told to stop moving tiles."""

    def __init__(self, players: VirtualPlayers) -> None:
        self.players = players
        self.paused = False

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        return () if self.paused else await self.players.next_moves(view)


def proc_stat(pid: int) -> tuple[float, int]:
    """(CPU seconds used, resident bytes) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    return cpu, rss


def moved_zone(event: dict[str, Any]) -> tuple[str, int] | None:
    """(zone name, tile) the event's move put a tile into, for events that name it."""
    kind = event.get("type")
    if kind == "discarded":
        return f"discards:{event['seat']}", event["tile"]
    if kind in ("chowed", "punged"):
        return f"melds:{event['seat']}", event["tile"]
    return None


async def run(moves: int, seed: int, lean: bool = False) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="mjtable-bench-"))
    broker, port = start_mosquitto(work)
    clock = FrameClock()
    clock.install()
    sim = SimConfig(
        seed=seed,
        kinds=KINDS,
        registry_path=work / "tags.json",
        scan_interval=SCAN,
        move_interval=0.0,
        shuffle_time=0.05,
        rise_time=0.05,
    )
    table = VirtualTable(sim)
    players = VirtualPlayers("xingguo", table.tiles.uids, zones=sim.zones, think=THINK)
    driver = Pausable(players)
    table.driver = driver
    uids = table.tiles.uids
    samples: list[float] = []
    service: asyncio.subprocess.Process | None = None
    subscriber: asyncio.subprocess.Process | None = None
    try:
        async with table:
            # The display's side in a process of its own: the time a message arrives is
            # taken there, not here, where the bots' thinking and this process's garbage
            # collector would delay it (CLOCK_MONOTONIC is the same in every process).
            subscriber = await asyncio.create_subprocess_exec(
                sys.executable,
                __file__,
                "--subscribe",
                str(port),
                stdout=subprocess.PIPE,
            )
            assert subscriber.stdout is not None
            await subscriber.stdout.readline()  # "subscribed"
            url = f"mqtt://127.0.0.1:{port}"
            config = table_toml(table, work, work / "data", url, "xingguo", log_level="warning")
            profile = os.environ.get("MJTABLE_BENCH_PROFILE")  # cProfile the service
            wrap = ["-m", "cProfile", "-o", profile] if profile else []
            entry = ["controller.cli.run"] if lean else ["controller.cli", "run"]
            # ours first, then the caller's (e.g. a sitecustomize that traces the service)
            paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
            python_path = os.pathsep.join(paths)
            service = await asyncio.create_subprocess_exec(
                sys.executable,
                *wrap,
                "-m",
                *entry,
                "--config",
                str(config),
                "--seed",
                str(seed),
                cwd=work,
                env=os.environ | {"PYTHONPATH": python_path},
                stdout=subprocess.DEVNULL,
                stderr=(work / "service.log").open("wb"),
            )
            async with asyncio.timeout(60 + moves * 0.5):
                async for line in subscriber.stdout:
                    stamp, payload = line.split(b" ", 1)
                    arrived = float(stamp)
                    event = json.loads(payload)["event"]
                    found = moved_zone(event)
                    if found is None:
                        continue
                    zone_name, tile = found
                    at = clock.first.get((Zone.parse(zone_name), uids[tile]))
                    if at is not None:
                        samples.append((arrived - at) * 1000)
                    if len(samples) >= moves:
                        break
            driver.paused = True
            await asyncio.sleep(2.0)  # the last moves settle
            cpu0, _ = proc_stat(service.pid)
            t0 = time.monotonic()
            await asyncio.sleep(IDLE_SECONDS)
            cpu1, rss = proc_stat(service.pid)
            idle = (cpu1 - cpu0) / (time.monotonic() - t0)
    finally:
        if service is not None and service.returncode is None:
            service.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(service.wait(), 20)
            if service.returncode is None:
                service.kill()
        if subscriber is not None and subscriber.returncode is None:
            subscriber.kill()
        broker.kill()
        if os.environ.get("MJTABLE_BENCH_KEEP") is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)
    samples.sort()
    return {
        "moves": len(samples),
        "p50": statistics.median(samples),
        "p99": samples[min(len(samples) - 1, int(len(samples) * 0.99))],
        "max": samples[-1],
        "rss_mb": rss / 2**20,
        "idle_cpu": idle,
        "hands": len(players.finished),
    }


async def subscribe(port: int) -> None:
    """The ``--subscribe`` child: each events message as "<monotonic time> <payload>"."""
    out = sys.stdout.buffer
    async with aiomqtt.Client("127.0.0.1", port) as sub:
        await sub.subscribe(PREFIX + "events", qos=1)
        out.write(b"subscribed\n")
        out.flush()
        async for message in sub.messages:
            arrived = time.monotonic()
            assert isinstance(message.payload, bytes)
            out.write(b"%r %s\n" % (arrived, message.payload))
            out.flush()


def main() -> None:
    if sys.argv[1:2] == ["--subscribe"]:
        asyncio.run(subscribe(int(sys.argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000, help="moves to measure (>= 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--lean",
        action="store_true",
        help="start the service as `python -m controller.cli.run` (without the other commands)",
    )
    args = parser.parse_args()
    r = asyncio.run(run(args.moves, args.seed, args.lean))
    print(f"moves measured      {r['moves']} (discards and claimed tiles, {r['hands']} hands)")
    print(f"reader frame -> MQTT  p50 {r['p50']:.1f} ms, max {r['max']:.1f} ms")
    print(f"service RSS         {r['rss_mb']:.1f} MB (target <= 100 MB)")
    print(
        f"service idle CPU    {r['idle_cpu'] * 100:.1f} % of a core (readers scanning every "
        f"{SCAN * 1000:.0f} ms)"
    )
    print(f"latency: p99 = {r['p99']:.1f} ms")


if __name__ == "__main__":
    main()
