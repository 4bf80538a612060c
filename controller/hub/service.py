"""The hub's MQTT side: every table's handlogs in, stored in batches, acknowledged after
the commit.

The hub keeps a persistent session (clean_session false, a fixed client id): while it is
down the broker queues the tables' handlogs for it (up to Mosquitto's
``max_queued_messages``); anything lost beyond that the tables re-send, unacknowledged.
Messages are stored in batches of whatever has arrived while the previous batch was being
written, so a burst (tables re-sending after an outage) costs few commits. A payload that
is not a valid handlog is logged and dropped; it is never acknowledged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
import structlog

from controller.config import MqttSettings
from controller.handlog import (
    Handlog,
    HandlogError,
    ack_topic_for,
    build_ack,
    hub_filter,
    parse_handlog,
)
from controller.hub.ingest import StoreResult, store_handlogs
from controller.mqtt.client import make_client
from controller.mqtt.reconnect import Backoff, keep_connected
from controller.mqtt.topics import encode
from controller.store import EventStore

log = structlog.get_logger(__name__)

BATCH_MAX = 500  # hands per transaction
ACKS_IN_FLIGHT = 8
DB_RETRY_MAX = 30.0  # seconds between attempts while the database is down


@dataclass
class HubCounters:
    received: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    batches: int = 0
    db_failures: int = 0
    last_error: str | None = field(default=None, repr=False)


class HubIngest:
    """``run()`` until ``stop()``; share nothing else with it."""

    def __init__(
        self,
        store: EventStore,
        settings: MqttSettings,
        *,
        parlour: str,
        client_id: str | None = None,
        batch_max: int = BATCH_MAX,
    ) -> None:
        self.store = store
        self.settings = settings
        self.parlour = parlour
        self.filter = hub_filter(parlour, settings.topic_root)
        self.client_id = client_id or f"mjtable-hub-{parlour}"
        self.batch_max = batch_max
        self.counters = HubCounters()
        self.connected = asyncio.Event()
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Subscribe, store and acknowledge, reconnect with backoff; returns after ``stop()``."""
        s = self.settings
        await keep_connected(
            lambda: make_client(s, self.client_id, clean_session=False),
            self._session,
            self._stop,
            Backoff(s.reconnect_min, s.reconnect_max),
            name=f"hub {self.parlour}",
            connected=self.connected,
            on_connect=self._subscribe,
        )

    async def _subscribe(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.filter, qos=1)
        log.info("hub subscribed", filter=self.filter)

    def _session(self, client: aiomqtt.Client) -> tuple[Coroutine[Any, Any, None], ...]:
        queue: asyncio.Queue[tuple[str, Handlog]] = asyncio.Queue()
        return self._receive(client, queue), self._write(client, queue)

    async def _receive(
        self, client: aiomqtt.Client, queue: asyncio.Queue[tuple[str, Handlog]]
    ) -> None:
        async for message in client.messages:
            topic = message.topic.value
            self.counters.received += 1
            try:
                raw = message.payload if isinstance(message.payload, bytes) else b""
                queue.put_nowait((topic, parse_handlog(raw, topic=topic)))
            except HandlogError as err:
                self.counters.rejected += 1
                log.warning("handlog rejected", topic=topic, error=str(err))

    async def _write(
        self, client: aiomqtt.Client, queue: asyncio.Queue[tuple[str, Handlog]]
    ) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self.batch_max and not queue.empty():
                batch.append(queue.get_nowait())
            result = await self._store(batch)
            ack_topics = {log.hand_id: ack_topic_for(topic) for topic, log in batch}
            self.counters.batches += 1
            self.counters.stored += len(result.stored)
            self.counters.duplicates += len(result.duplicates)
            # QoS 1 acks, a few in flight at a time (the client warns beyond ten pending);
            # a lost one only means a re-send.
            ids = list(dict.fromkeys(result.acked))
            for start in range(0, len(ids), ACKS_IN_FLIGHT):
                await asyncio.gather(
                    *(
                        client.publish(ack_topics[hid], encode(build_ack(hid)), qos=1)
                        for hid in ids[start : start + ACKS_IN_FLIGHT]
                    )
                )

    async def _store(self, batch: list[tuple[str, Handlog]]) -> StoreResult:
        logs = [log for _, log in batch]
        delay = 0.5
        while True:
            try:
                started = time.perf_counter()
                result = await asyncio.to_thread(store_handlogs, self.store.engine, logs)
                log.debug(
                    "handlogs stored",
                    n=len(logs),
                    ms=round(1000 * (time.perf_counter() - started), 1),
                )
                return result
            except Exception as err:  # the database is down or refusing: keep the batch
                self.counters.db_failures += 1
                self.counters.last_error = str(err)
                log.warning("hub: storing failed, will retry", error=str(err), retry_in=delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, DB_RETRY_MAX)
