"""A batch of QoS 1 messages to a real Mosquitto, one PUBACK awaited before each next
PUBLISH (the publisher before it pipelined) against the batch published at once
(``controller.mqtt.publisher.publish_in_order``), timed in the same run, the two
alternating round by round so that the machine's load falls on both alike.

A batch is what a move stores: its ``events`` message, then the flat display topics it
changes (``--size``, default 6). Timed: from the first publish call to the subscriber
(another connection, in this process) holding the batch's last message, and to every
PUBACK in (when the publisher may send the next batch: the ratio is of this).

    .venv/bin/python bench/publish_batch.py [--rounds 300] [--size 6] [--nagle]

The broker runs as deployed (``set_tcp_nodelay true``, deploy/mosquitto/mjtable.conf);
``--nagle`` leaves Mosquitto's default instead, under which a pipelined batch's later
PUBACKs wait for the client's delayed TCP ACK (~40 ms: see "all acked").

The last line is ``publish batch: pipelined / sequential p50 = X``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiomqtt

from controller.mqtt.publisher import publish_in_order
from controller.store import OutboxMessage
from tests.controller.mosquitto import Mosquitto

PREFIX = "mahjong/bench/t1/"


def batch(round_no: int, size: int) -> list[OutboxMessage]:
    event = OutboxMessage(PREFIX + "events", f'{{"seq": {round_no}, "event": {{}}}}')
    flat = [
        OutboxMessage(f"{PREFIX}flat/seat/{n % 4}/total", str(round_no), retain=True)
        for n in range(size - 2)
    ]
    marker = OutboxMessage(PREFIX + "flat/wall", str(round_no), retain=True)
    return [event, *flat, marker]


async def sequential(client: aiomqtt.Client, messages: list[OutboxMessage]) -> None:
    for m in messages:
        await client.publish(m.topic, m.payload, qos=m.qos, retain=m.retain)


async def pipelined(client: aiomqtt.Client, messages: list[OutboxMessage]) -> None:
    await publish_in_order(client, messages)


async def run(rounds: int, size: int, port: int) -> dict[str, tuple[list[float], list[float]]]:
    arrived: dict[str, float] = {}
    ready = asyncio.Event()

    async def subscribe() -> None:
        async with aiomqtt.Client("127.0.0.1", port, identifier="bench-sub") as sub:
            await sub.subscribe(PREFIX + "flat/wall", qos=1)
            ready.set()
            async for message in sub.messages:
                assert isinstance(message.payload, bytes)
                arrived[message.payload.decode()] = time.perf_counter()

    listener = asyncio.create_task(subscribe())
    await asyncio.wait_for(ready.wait(), 30)
    modes = {"sequential": sequential, "pipelined": pipelined}
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in modes}
    async with aiomqtt.Client("127.0.0.1", port, identifier="bench-pub") as client:
        for n in range(rounds * 2):
            name = ("sequential", "pipelined")[n % 2]
            messages = batch(n, size)
            start = time.perf_counter()
            await modes[name](client, messages)
            acked = time.perf_counter()
            while str(n) not in arrived:
                await asyncio.sleep(0)
            shown, last = times[name]
            shown.append(arrived[str(n)] - start)
            last.append(acked - start)
    listener.cancel()
    await asyncio.gather(listener, return_exceptions=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--size", type=int, default=6, help="messages a batch (>= 2)")
    parser.add_argument("--nagle", action="store_true", help="Mosquitto's default: Nagle on")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-") as work:
        broker = Mosquitto(Path(work))
        if args.nagle:
            broker.conf.write_text(broker.conf.read_text().replace("set_tcp_nodelay true\n", ""))
        broker.start()
        try:
            times = asyncio.run(run(args.rounds, max(2, args.size), broker.port))
        finally:
            broker.stop()
    p50 = {}
    for name, (shown, acked) in times.items():
        # all acked: when the publisher may send the next batch
        p50[name] = statistics.median(acked) * 1000
        print(
            f"{name:<11} last message at the subscriber p50 {statistics.median(shown) * 1000:.2f}"
            f" ms, p99 {statistics.quantiles(shown, n=100)[98] * 1000:.2f} ms; "
            f"all acked p50 {p50[name]:.2f} ms"
        )
    print(f"publish batch: pipelined / sequential p50 = {p50['pipelined'] / p50['sequential']:.2f}")


if __name__ == "__main__":
    main()
