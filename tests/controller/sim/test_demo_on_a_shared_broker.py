"""``mjtable demo --mqtt`` on a broker another table uses: the demo is a table of its own
there (an id kept in its data directory), so another table's retained settlement on that
broker is never taken for its store's: no "the store is damaged", no wait for a hub."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiomqtt

from controller.process.local_ports import free_local_port
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import TOPICS

HANG = 180.0
# What a real table t1 of parlour demo leaves retained after its ninth hand.
OTHER_SETTLEMENT = {"hand_id": "another-tables-hand", "winner": 2}
OTHER_SCORES = {"hand_no": 9, "session_id": "another-tables-session", "totals": [0, 0, 0, 0]}


async def _another_table_retained(broker: Mosquitto) -> None:
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        for name, payload in (("settlement", OTHER_SETTLEMENT), ("scores", OTHER_SCORES)):
            await client.publish(TOPICS.topic(name), json.dumps(payload), qos=1, retain=True)


async def _retained_settlement(broker: Mosquitto) -> dict[str, Any]:
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.subscribe(TOPICS.topic("settlement"), qos=1)
        async for message in client.messages:
            return dict(json.loads(bytes(message.payload)))
    raise AssertionError("no retained settlement")


async def _demo(broker: Mosquitto, data: Path) -> tuple[int, dict[str, Any], str]:
    cmd = [sys.executable, "-m", "controller.cli", "demo", "--readers", "none"]
    cmd += ["--hands", "1", "--mqtt", broker.url, "--data-dir", str(data)]
    cmd += ["--port", str(free_local_port()), "--seed", "11", "--json"]
    cmd += ["--think", "0", "--between-hands", "0"]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:  # a hang guard: a whole demo's start, hand and stop on a busy machine
        out, err = await asyncio.wait_for(proc.communicate(), HANG)
    except TimeoutError:
        proc.kill()
        raise AssertionError("the demo never finished its hand") from None
    assert proc.returncode is not None
    info = json.loads(out.decode().splitlines()[0])
    return proc.returncode, info, (out + err).decode(errors="replace")


def test_a_demo_on_a_shared_broker_never_takes_another_tables_settlement_for_its_own(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    asyncio.run(_another_table_retained(mosquitto))
    data = tmp_path / "data"
    code, info, output = asyncio.run(_demo(mosquitto, data))
    assert code == 0, output
    assert "store is damaged" not in output and "store_damaged" not in output, output
    assert info["topics"].startswith("mahjong/demo/demo-"), info
    # the other table's retained state is left as it was
    assert asyncio.run(_retained_settlement(mosquitto)) == OTHER_SETTLEMENT
    # the same demo again is the same table: its own settlement checked, found whole
    code, again, output = asyncio.run(_demo(mosquitto, data))
    assert code == 0, output
    assert again["topics"] == info["topics"]
    assert "store is damaged" not in output, output
