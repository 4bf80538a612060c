"""The publisher when the store cannot delete what the broker acknowledged (a full disk:
``outbox_ack`` raises): the session stays up, nothing is sent twice, nothing is lost, and
the log says it twice (failing, then recovered), never a traceback a message."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence

import aiomqtt
import pytest
from sqlalchemy.exc import OperationalError
from structlog.testing import capture_logs

from controller.process.metrics import Metrics
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import TOPICS, guarded, make_publisher, until

MESSAGES = 30


class FullDisk(EventStore):
    """The store, but its acknowledgements fail while ``full`` (as SQLite says it)."""

    full = True
    refused = 0

    def outbox_ack(self, entry_ids: int | Sequence[int]) -> None:
        if self.full:
            self.refused += 1
            raise OperationalError("DELETE FROM outbox", {}, Exception("database or disk is full"))
        super().outbox_ack(entry_ids)


@pytest.mark.timeout(120)
def test_acks_the_disk_refuses_keep_the_session_and_send_each_message_once(
    mosquitto: Mosquitto, store_url: str
) -> None:
    store = FullDisk.open(store_url)

    async def main() -> None:
        metrics = Metrics()
        publisher = make_publisher(store, mosquitto.url, metrics)
        seen: Counter[int] = Counter()
        subscribed = asyncio.Event()

        async def listen() -> None:
            async with aiomqtt.Client("127.0.0.1", mosquitto.port) as c:
                await c.subscribe(TOPICS.prefix + "events", qos=1)
                subscribed.set()
                async for m in c.messages:
                    assert isinstance(m.payload, bytes)
                    seen[json.loads(m.payload)["seq"]] += 1

        listener = asyncio.create_task(listen())
        await guarded(subscribed.wait(), "the subscriber")
        with capture_logs() as logs:
            runner = asyncio.create_task(publisher.run())
            for seq in range(MESSAGES):
                publisher.publish_messages([publisher.event_message("h1", seq, {"type": "x"})])
                await asyncio.sleep(0)
            await until(lambda: len(seen) == MESSAGES, "every message once")
            await until(lambda: store.refused >= 3, "the deletion tried again, later")
            assert store.outbox_depth() == MESSAGES  # nothing deleted: nothing lost either
            store.full = False  # space again
            await guarded(publisher.wait_drained(), "the held acks to be stored")
            publisher.stop()
            await guarded(runner, "the publisher to stop")
        listener.cancel()
        assert set(seen) == set(range(MESSAGES))
        assert max(seen.values()) == 1, seen
        assert metrics.registry.get_sample_value("mjtable_mqtt_connects_total") == 1
        said = [entry["event"] for entry in logs if entry["log_level"] in ("error", "warning")]
        assert said == [
            "the outbox cannot record acknowledgements: held in memory, tried again",
            "the outbox records acknowledgements again",
        ]

    try:
        asyncio.run(main())
    finally:
        store.close()
