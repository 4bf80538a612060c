"""``mjtable demo --readers none``: a table without readers, the bots' results entered by
the demo's staff account through the staff API over HTTP, settled by the service and
published over a real Mosquitto. Each settlement is ``mjtable settle`` on the request kept
in the hand's log, and no concealed tile reaches a public topic."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiomqtt

from controller.cli.settle import settle_data
from controller.process.local_ports import free_local_port
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import TOPICS, guarded

HANDS = 3


async def _play_and_listen(broker: Mosquitto, data: Path) -> tuple[int, str, list[Any]]:
    """Subscribe first, then run the demo to its end; what the broker carried meanwhile."""
    seen: list[Any] = []
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.subscribe(TOPICS.all)

        async def listen() -> None:
            async for m in client.messages:
                topic = str(m.topic)
                if "/flat/" in topic or not m.payload:  # (plain text for microcontrollers)
                    continue
                seen.append((topic, json.loads(bytes(m.payload))))

        listener = asyncio.create_task(listen())
        cmd = [sys.executable, "-m", "controller.cli", "demo", "--readers", "none"]
        cmd += ["--hands", str(HANDS), "--mqtt", broker.url, "--data-dir", str(data)]
        cmd += ["--port", str(free_local_port()), "--seed", "11", "--json"]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await guarded(proc.communicate(), "the demo to play its hands")
        await asyncio.sleep(0.5)  # the last messages still on their way to us
        listener.cancel()
    assert proc.returncode is not None
    return proc.returncode, (out + err).decode(errors="replace"), seen


def test_the_demo_without_readers_settles_its_hands_through_the_staff_api(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code, output, seen = asyncio.run(_play_and_listen(mosquitto, data))
    assert code == 0, output

    settled = {p["hand_id"]: p for t, p in seen if t == TOPICS.topic("settlement") and p}
    assert len(settled) == HANDS, output

    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        hands = store.list_hands(status="finished", limit=100)
        assert len(hands) == HANDS
        for record in hands:
            events = store.load_hand(record.id).event_dicts()
            act = next(e for e in events if e["type"] == "finished_by_staff")
            assert act["by"] == "demo-staff" and act["role"] == "staff"
            published = settled[record.id]
            # the very settlement ``mjtable settle`` gives on the request the hand keeps
            assert published["lines"] == settle_data(act["request"])["lines"]
            assert published["notes"][-1] == "工作人员录入 (entered by staff demo-staff)"
    finally:
        store.close()

    # what staff entered went out in its public form: the winners laid face up, never the
    # request with the other seats' concealed hands
    events = [p["event"] for t, p in seen if t == TOPICS.topic("events")]
    acts = [e for e in events if e["type"] == "finished_by_staff"]
    assert len(acts) == HANDS
    assert all("request" not in e for e in acts)
