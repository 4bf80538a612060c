"""The running service hands its finished hands to the hub: with a parlour broker (not the
embedded one) it starts HandlogSync, so a hub's acks mark the hands in the table's store."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import aiomqtt
import pytest

from controller.runtime import running
from controller.table.handlog import ack_topic_for, build_ack, parse_handlog
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD, config_for, data_dir, options, until

HANDS = 2


async def fake_hub(port: int, seen: list[str], ready: asyncio.Event) -> None:
    """Acks every handlog it can parse, as `mjtable hub` does after its commit."""
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe("mahjong/+/+/handlog", qos=1)
        ready.set()
        async for m in client.messages:
            assert isinstance(m.payload, bytes)
            hand_id = parse_handlog(json.loads(m.payload), topic=m.topic.value).hand_id
            seen.append(hand_id)
            ack = json.dumps(build_ack(hand_id))
            await client.publish(ack_topic_for(m.topic.value), ack, qos=1)


@pytest.mark.timeout(240)
def test_finished_hands_are_acked_by_the_hub(mosquitto: Mosquitto, tmp_path: Path) -> None:
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    assert not config.mqtt.embedded

    async def main() -> None:
        seen: list[str] = []
        ready = asyncio.Event()
        hub = asyncio.create_task(fake_hub(mosquitto.port, seen, ready))
        try:
            await asyncio.wait_for(ready.wait(), GUARD)
            async with running(config, options(21, HANDS)) as run:
                await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * HANDS)
                store = run.store
                await until(lambda: not store.unacked_handlogs(), "every hand acked by the hub")
                finished = [h.id for h in store.list_hands(status="finished")]
            assert len(finished) == HANDS
            assert set(finished) <= set(seen)
        finally:
            hub.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await hub

    asyncio.run(main())
